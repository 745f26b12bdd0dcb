import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth reminder`: this device's reminders, as its scheduler holds them.
struct Reminder: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminder",
        abstract: "This device's reminders.", subcommands: [List.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Upcoming reminders, soonest first; a snoozed one at its new time.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.reply(options, .scheduler, SchedulerQueries.Reminders())
            if options.json { return Output.json(reply) }
            let list: ReminderList
            do {
                list = try reply.decode(ReminderList.self)
            } catch {
                Output.error("hearth: the scheduler's reminder list cannot be read: \(error)")
                throw ExitCode(1)
            }
            if list.reminders.isEmpty { return Output.line("no reminders to come") }
            let zone = try options.loadConfiguration().household.timeZone
            for reminder in list.reminders {
                let when = Plan.local(reminder.fires, zone)
                let snoozed = reminder.snoozed ? "  (snoozed; due \(Plan.local(reminder.due, zone)))" : ""
                Output.line("\(when)  \(Output.visible(reminder.title))\(snoozed)  \(reminder.id.prefix(8))")
            }
        }
    }
}
