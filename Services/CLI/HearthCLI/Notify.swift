import ArgumentParser
import HearthBus
import HearthNotify

/// `hearth notify`: desktop notifications.
struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Desktop notifications.", subcommands: [Test.self])

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
}
