import ArgumentParser
import HearthBus
import HearthCore
import HearthNotify

/// `hearth notify`: desktop notifications.
struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Desktop notifications.", subcommands: [Test.self, Settings.self])

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Raise a test notification with Done and Snooze buttons.",
            discussion: "With --wait, waits that many seconds for a button and prints which was pressed.")

        @OptionGroup var options: GlobalOptions
        @Option(help: "Seconds to wait for a button press (0: do not wait).") var wait = 0

        func run() async throws {
            let notifications = DesktopNotifications()
            defer { notifications.close() }
            let notification = DesktopNotification(
                summary: "Hearth test notification", body: "If you can read this, notifications work.",
                icon: "dialog-information", urgency: .normal, category: "hearth.test", timeout: wait > 0 ? 0 : -1,
                actions: [(key: "done", label: "Done"), (key: "snooze", label: "Snooze")])
            let id: UInt32
            do {
                id = try await notifications.show(notification, key: "hearth.test")
            } catch {
                Output.error("hearth notify test: \(error)")
                throw ExitCode(1)
            }
            if options.json {
                Output.json(["shown": .int(Int64(id))])
            } else {
                Output.line("shown notification \(id)")
            }
            guard wait > 0 else { return }
            let pressed = await withTimeout(.seconds(wait)) { () async -> NotificationAction? in
                for await action in notifications.actions { return action }
                return nil
            }
            guard let pressed else {
                Output.error("hearth notify test: no button pressed within \(wait) s")
                throw ExitCode(1)
            }
            if options.json {
                Output.json(["pressed": .string(pressed.action)])
            } else {
                Output.line("pressed \(pressed.action)")
            }
        }
    }

    struct Settings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show or change which notifications pop up, and quiet hours.",
            discussion: """
                Categories: turns, reminders, snoozes, sync, suggestions. Quiet hours are local \
                times such as 22:00-07:00; during them only critical notices show, and only with \
                --critical-breaks-quiet-hours true. Changes are written to the [notify] table of \
                hearth.toml and a running notifier takes them at once.
                """)

        @OptionGroup var options: GlobalOptions
        @Option(name: .customLong("on"), help: "Turn a category on (repeatable).")
        var on: [String] = []
        @Option(name: .customLong("off"), help: "Turn a category off (repeatable).")
        var off: [String] = []
        @Option(help: "Quiet hours as HH:MM-HH:MM, or \"off\" (or \"\", as hearth.toml writes none).")
        var quietHours: String?
        @Option(help: "Whether \"Your turn\" may pop up during quiet hours: true or false.")
        var criticalBreaksQuietHours: Bool?
        @Option(help: "Whether popups play their sound (never during quiet hours): true or false.")
        var sounds: Bool?

        func validate() throws {
            if let both = on.first(where: off.contains) {
                throw ValidationError("--on \(both) and --off \(both) contradict each other; give one")
            }
        }

        func run() async throws {
            let configuration = try options.loadConfiguration()
            var settings = configuration.notify
            let changing =
                !on.isEmpty || !off.isEmpty || quietHours != nil || criticalBreaksQuietHours != nil || sounds != nil
            func category(_ name: String, _ option: String) throws -> NotifySettings.Category {
                guard let category = NotifySettings.Category(rawValue: name) else {
                    let names = NotifySettings.Category.allCases.map(\.rawValue).joined(separator: ", ")
                    Output.error("hearth notify settings: \(option) \(name): must be one of \(names)")
                    throw ExitCode(2)
                }
                return category
            }
            for name in on { settings.enabled.insert(try category(name, "--on")) }
            for name in off { settings.enabled.remove(try category(name, "--off")) }
            if let quietHours {
                do {
                    // "" is how hearth.toml and hearth config write none (issue 63: it was refused).
                    let none = ["off", ""].contains(quietHours.trimmingCharacters(in: .whitespaces).lowercased())
                    settings.quietHours = none ? nil : try QuietHours(parsing: quietHours)
                } catch {
                    Output.error("hearth notify settings: --quiet-hours \(quietHours): \(error.rule)")
                    throw ExitCode(2)
                }
            }
            if let criticalBreaksQuietHours { settings.criticalBreaksQuietHours = criticalBreaksQuietHours }
            if let sounds { settings.sounds = sounds }

            var applied: Bool?
            if changing {
                do {
                    try settings.write(toConfigFile: configuration.configFile)
                } catch {
                    Output.error("hearth notify settings: \(error)")
                    throw ExitCode(1)
                }
                // A running notifier takes the new settings at once.
                applied =
                    await ServiceCall.ifRunning(
                        configuration, .notifier, NotifierCommands.ReloadSettings.name, timeout: .milliseconds(500))
                    != nil
            }
            if options.json {
                var report = settings.json.objectValue ?? [:]
                if let applied { report["notifier_reloaded"] = .bool(applied) }
                Output.json(.object(report))
                return
            }
            for category in NotifySettings.Category.allCases {
                Output.line("\(category.rawValue): \(settings.enabled.contains(category) ? "on" : "off")")
            }
            Output.line("quiet hours: \(settings.quietHours?.description ?? "off")")
            Output.line("critical breaks quiet hours: \(settings.criticalBreaksQuietHours ? "yes" : "no")")
            Output.line("sounds: \(settings.sounds ? "on (never during quiet hours)" : "off")")
            if applied == false {
                Output.line(
                    "(saved to \(configuration.configFile); hearth-notifier is not running and reads it when it starts)"
                )
            }
        }
    }
}
