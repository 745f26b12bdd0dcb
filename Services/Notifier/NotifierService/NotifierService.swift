import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthNotify
import Logging
import ServiceLifecycle

/// `hearth-notifier`: turns notify-worthy bus events into desktop notifications, and button
/// presses into commands to the services that own what was shown.
///
/// Publishes `notify.shown` (with the latency from the event's `ts`), `notify.action` for each
/// press, `notify.failed` when no notification server answers, and `notify.suppressed` when the
/// settings keep a popup back: its category is off, or it is quiet hours. During quiet hours a
/// popup that stays until acted on (a reminder, a suggestion, "Your turn") is held and shown when
/// they end, latest state per key; a brief notice is dropped. A critical one breaks through only
/// if the person allowed it. Its state lives in one actor, `PopupBoard`.
///
/// It subscribes only to the topics of the services whose events the catalog shows
/// (`NotificationCatalog.sources`). When it starts, and whenever it missed events from one of
/// them (a gap in that source's `seq`), it asks the owning service what is current and brings
/// the screen in line (`OwnerSnapshot`).
///
/// Commands on `notifier.cmd`: `ping`, `settings` (what is in force), `settings.reload` (re-read
/// the `[notify]` table of `hearth.toml`, as `hearth notify settings` asks after writing it).
public final class NotifierService: Service {
    private let configuration: HearthConfiguration
    private let context: ZMQContext
    private let subscriber: Subscriber
    private let publisher: Publisher
    private let notifications: DesktopNotifications
    private let board: PopupBoard
    private let commands: CommandServer
    private let logger: Logger
    private let device: String
    private let popups: PopupRecord

    public init(configuration: HearthConfiguration, context: ZMQContext, device: String, logger: Logger) throws {
        self.configuration = configuration
        self.context = context
        self.logger = logger
        self.device = device
        subscriber = try Subscriber(
            context: context, endpoint: configuration.busSubscribeEndpoint,
            prefixes: NotificationCatalog.sources.flatMap(\.value),
            maximumMessageBytes: configuration.maximumMessageBytes)
        let publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "notifier", device: device,
            maximumMessageBytes: configuration.maximumMessageBytes)
        self.publisher = publisher
        let notifications = DesktopNotifications(appName: "hearth")
        notifications.connect()
        self.notifications = notifications
        let popups = PopupRecord(runDirectory: configuration.runDirectory)
        self.popups = popups
        let board = PopupBoard(
            catalog: NotificationCatalog(device: device, timeZone: configuration.household.timeZone),
            settings: configuration.notify, sink: notifications,
            record: { popups.save($0) },
            report: { type, data in
                if type == "notify.failed", let failed = try? data.decode(NotifyFailedEvent.self) {
                    logger.warning("hearth-notifier: \(failed.reason)")
                }
                Self.publish(type, data, on: publisher, logger: logger)
            })
        self.board = board
        let configFile = configuration.configFile
        commands = try CommandServer(
            context: context, endpoint: configuration.commandEndpoint(.notifier), service: "notifier",
            maximumMessageBytes: configuration.maximumMessageBytes, logger: logger,
            handler: { request in
                switch request.command {
                case NotifierCommands.Settings.name:
                    return await board.settings.json
                case NotifierCommands.Server.name:
                    return try JSONValue(reply: await notifications.server())
                case NotifierCommands.ReloadSettings.name:
                    let settings: NotifySettings
                    do {
                        settings = try NotifySettings.load(configFile: configFile)
                    } catch {
                        // The settings in force stay.
                        throw CommandError.invalidArgument("hearth.toml", "\(error)")
                    }
                    await board.apply(settings)
                    return settings.json
                default:
                    throw CommandError.unknownCommand(request.command, service: "notifier")
                }
            })
    }

    public func run() async throws {
        logger.info("hearth-notifier up")
        // Start-up work (cut short by a SIGTERM meanwhile): show and answer commands (and so
        // `ping`) only once the subscription is live end to end and the screen is current.
        // (A SIGTERM meanwhile also reaches the group below at once, which closes everything.)
        await cancelWhenGracefulShutdown { await self.prepare() }
        let (notifications, subscriber, publisher) = (notifications, subscriber, publisher)
        try await ServiceGroup.parts(
            [
                ServiceResources("notifier sockets") {
                    notifications.close()
                    await subscriber.close()
                    await publisher.close()
                },
                ServiceLoop("events to popups", showEvents), ServiceLoop("button presses", handlePresses),
                ServiceLoop("retries", retryUndelivered), ServiceLoop("quiet-hours release", releaseHeld),
                ServiceLoop("server restarts", showAgainOnNewServer), commands,
            ], logger: logger
        ).run()
    }

    /// Waits until the subscription is live end to end (the probe is seen on the socket's
    /// thread, so nothing needs to read events yet), takes over the popups the last run left
    /// on screen, and asks the owners what is current, closing what is over and showing what is
    /// live. Events meanwhile wait in the subscription; one older than a snapshot is ignored by
    /// its seq.
    private func prepare() async {
        let bus = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.bus), timeout: .milliseconds(500))
        if await !subscriber.waitUntilSubscribed(bus: bus, timeout: .seconds(5)) {
            logger.warning(
                "hearth-notifier: no probe back from hearth-bus within 5 s; events may be missed until it runs")
        }
        await bus.close()
        await board.adopt(popups.load())
        await catchUp(with: "turn")
        await catchUp(with: "store")
        await catchUp(with: "scheduler")
    }

    // MARK: - Events in

    /// Runs on the subscriber's socket thread (the board's code too, while this is its only
    /// caller): an event reaches the GLib thread with no wake-up of the cooperative pool between.
    private func showEvents() async {
        await withTaskExecutorPreference(subscriber.taskExecutor) {
            for await message in subscriber {
                switch message {
                case .event(let topic, let envelope):
                    await board.take(topic: topic, envelope: envelope)
                case .gap(let gap):
                    logger.notice("hearth-notifier: \(gap); asking \(gap.source) what is current")
                    await catchUp(with: gap.source)
                case .rejected(let topic, let error):
                    logger.warning("hearth-notifier: an event on '\(topic)' dropped: \(error)")
                }
            }
        }
    }

    /// Asks the service that publishes as `source` what is current and reconciles the screen
    /// with it; nothing changes when it does not answer (an unreachable owner closes nothing).
    private func catchUp(with source: String) async {
        let service: HearthService
        let ask: @Sendable (CommandClient, String) async -> OwnerSnapshot?
        switch source {
        case "turn": (service, ask) = (.turn, OwnerSnapshot.turns)
        case "store": (service, ask) = (.store, OwnerSnapshot.suggestions)
        case "scheduler": (service, ask) = (.scheduler, OwnerSnapshot.reminders)
        default: return
        }
        let client = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(service), timeout: .milliseconds(500),
            attempts: 1)
        if let snapshot = await ask(client, device) { await board.reconcile(snapshot) }
        await client.close()
    }

    /// Shows the held popups once quiet hours are over (or were changed). Woken when something
    /// is held or the settings change, or by its own timer at the end of quiet hours; a new
    /// wake-up replaces the timer.
    private func releaseHeld() async {
        await withDiscardingTaskGroup { timers in
            for await _ in board.holds {
                timers.cancelAll()
                guard let wait = await board.releaseHeld() else { continue }
                timers.addTask { [board] in
                    // A timer to the end of quiet hours, not synchronisation.
                    if (try? await Task.sleep(for: wait)) != nil { board.wakeRelease() }
                }
            }
            timers.cancelAll()
        }
    }

    /// Retries undelivered notifications with exponential backoff (0.5 s up to 30 s), latest
    /// state per key, oldest event first; sleeps until a delivery fails.
    private func retryUndelivered() async {
        for await _ in board.retries {
            var delay = Duration.milliseconds(500)
            while !Task.isCancelled {
                // A backoff timer, not synchronisation: nothing signals a server's return.
                try? await Task.sleep(for: delay)
                guard await board.redeliver() else { break }
                delay = min(delay * 2, .seconds(30))
            }
        }
    }

    /// After the notification server is replaced (a desktop's notification daemon restarted,
    /// or another started), shows again what should still be on screen.
    private func showAgainOnNewServer() async {
        for await _ in notifications.serverReplaced {
            logger.info("hearth-notifier: the notification server changed; showing the open popups again")
            await board.serverReplaced()
        }
    }

    // MARK: - Buttons in, commands out

    /// Each press is sent on its own, so a service that is slow to answer never holds up a
    /// press meant for another.
    private func handlePresses() async {
        await withDiscardingTaskGroup { group in
            for await press in notifications.actions {
                guard let button = await board.button(for: press) else { continue }
                publish(
                    "notify.action",
                    JSONValue(
                        wire:
                            NotifyActionEvent(
                                key: press.key, action: press.action, service: button.service.rawValue,
                                command: button.command)))
                group.addTask { await self.send(button, for: press) }
            }
        }
    }

    private func send(_ button: Button, for press: NotificationAction) async {
        let client = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(button.service), timeout: .seconds(2))
        do {
            _ = try await client.request(button.command, args: button.arguments)
        } catch {
            logger.warning("hearth-notifier: \(button.command) failed: \(error)")
            publish(
                "notify.failed",
                JSONValue(wire: NotifyFailedEvent(key: press.key, reason: "\(button.command): \(error)")))
        }
        await client.close()
    }

    private func publish(_ topic: String, _ data: JSONValue) {
        Self.publish(topic, data, on: publisher, logger: logger)
    }

    /// Publishes one of the notifier's own `notify.*` events (its type is its topic).
    private static func publish(_ topic: String, _ data: JSONValue, on publisher: Publisher, logger: Logger) {
        do {
            try publisher.publish(topic: topic, type: topic, data: data)
        } catch {
            logger.warning("hearth-notifier: cannot publish \(topic): \(error)")
        }
    }
}
