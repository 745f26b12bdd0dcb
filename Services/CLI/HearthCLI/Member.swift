import ArgumentParser
import HearthBus
import HearthCore

/// `hearth member`: the family hub's members and this device's profile.
struct Member: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "member",
        abstract: "The household's members (students and parents) and this device's profile.",
        discussion: """
            A student's profile sees and edits only their own timetable; a parent's sees and edits \
            everyone's. The profile is this device's alone (`hearth member use NAME`); a device with \
            none acts as a parent's.
            """,
        subcommands: [Add.self, List.self, Rename.self, Remove.self, Use.self, Notify.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a member.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The member's name (unique, ignoring case).") var name: String
        @Option(help: "student or parent.") var role: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, MemberCommands.Add(name: name, role: role))
            try Member.show(reply, options, verb: "added")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the members; * marks this device's profile.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, MemberCommands.List())
            if options.json { return try Output.reply(reply) }
            if reply.members.isEmpty {
                return Output.line("no members yet: hearth member add NAME --role student|parent")
            }
            for member in reply.members {
                Output.line(
                    "\(member.name == reply.profile ? "*" : " ") \(member.name) · \(member.role) · \(Output.count(member.entries, "lesson")) · \(Member.notifications(member))"
                )
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a member.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The member's name (any case) or id.", completion: Completions.member) var member: String
        @Argument(help: "The new name.") var name: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, MemberCommands.Rename(member: member, name: name))
            try Member.show(reply, options, verb: "renamed")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a member and their timetable.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The member's name (any case) or id.", completion: Completions.member) var member: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, MemberCommands.Remove(member: member))
            if options.json { return try Output.reply(reply) }
            Output.line("removed \(member) and \(Output.count(reply.removedEntries, "lesson"))")
        }
    }

    struct Use: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "use",
            abstract: "Use a member's profile on this device (--none: no profile).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The member's name (any case) or id.", completion: Completions.member) var member: String?
        @Flag(help: "Use no profile (acts as a parent's).") var none = false

        func validate() throws {
            guard (member == nil) == none else { throw ValidationError("give a member's name, or --none") }
        }

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, MemberCommands.Use(member: member))
            // Whose reminders pop here follows the profile: the scheduler loads them again (when it
            // is not running, it loads them when it starts).
            _ = await ServiceCall.ifRunning(
                try options.loadConfiguration(), .scheduler, SchedulerQueries.Reload.name,
                timeout: options.timeoutDuration)
            if options.json { return try Output.reply(reply) }
            Output.line(
                reply.profile.map { "this device uses \($0.name)'s profile (\($0.role))" }
                    ?? "this device uses no profile")
        }
    }

    struct Notify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notify",
            abstract: "Set a member's next-class notifications: --lead MINUTES before each class, or --off.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The member's name (default: this device's profile).", completion: Completions.member)
        var member: String?
        @Option(help: "Minutes before each class (1–240; default 10).") var lead: Int?
        @Flag(help: "No next-class notifications.") var off = false

        func validate() throws {
            guard lead == nil || !off else { throw ValidationError("give --lead or --off, not both") }
        }

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, MemberCommands.Notify(member: member, off: off, lead: lead))
            try Member.show(reply, options, verb: "notifications set")
        }
    }

    static func show(_ reply: MemberChange, _ options: GlobalOptions, verb: String) throws {
        if options.json { return try Output.reply(reply) }
        let member = reply.member
        Output.line("\(verb): \(member.name) · \(member.role) · \(notifications(member))  (\(member.id.prefix(8)))")
    }

    static func notifications(_ member: MemberView) -> String {
        member.notify ? "next class \(member.lead) min ahead" : "no class notifications"
    }
}
