import Foundation
import HearthBus
import HearthNotify
import Logging
import ServiceLifecycle
import Synchronization

/// `hearth-notifier`: turns notify-worthy bus events into desktop notifications, and button
/// presses into commands to the services that own what was shown.
///
/// Publishes `notify.shown` (with the latency from the event's `ts`), `notify.action` for each
/// press, `notify.failed` when no notification server answers, and `notify.suppressed` when the
/// settings keep a popup back: its category is off, or it is quiet hours. During quiet hours a
/// popup that stays until acted on (a reminder, a suggestion, "Your turn") is held and shown when
/// they end, latest state per key; a brief notice is dropped. A critical one breaks through only
/// if the person allowed it.
///
/// Commands on `notifier.cmd`: `ping`, `settings` (what is in force), `settings.reload` (re-read
/// the `[notify]` table of `hearth.toml`, as `hearth notify settings` asks after writing it).
public final class NotifierService: Service {
    private let configuration: HearthConfiguration
    private let context: ZMQContext
    private let subscriber: Subscriber
    private let publisher: Publisher
    private let notifications: DesktopNotifications
    private let commands: CommandServer
    private let logger: Logger
    private let buttons = Mutex<[String: [String: Button]]>([:])
    /// The latest notification per key that no server has taken yet: only the latest state is
    /// shown when a server comes back, never a flood of stale ones.
    private let undelivered = Mutex<[String: Pending]>([:])
    private let retries: AsyncStream<Void>
    private let retryKick: AsyncStream<Void>.Continuation
    /// Popups kept back by quiet hours, latest per key, shown when the quiet hours end.
    private let held = Mutex<[String: Pending]>([:])
    private let holds: AsyncStream<Void>
    private let holdKick: AsyncStream<Void>.Continuation
    private let settings: LiveSettings
    private let device: String

    /// A popup not shown yet (no server took it, or quiet hours hold it) and the event it is from.
    private struct Pending: Sendable {
        let notification: DesktopNotification
        let envelope: Envelope
    }

    public init(configuration: HearthConfiguration, context: ZMQContext, device: String, logger: Logger) throws {
        self.configuration = configuration
        self.context = context
        self.logger = logger
        subscriber = try Subscriber(
            context: context, endpoint: configuration.busSubscribeEndpoint,
            maximumMessageBytes: configuration.maximumMessageBytes)
        publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "notifier", device: device,
            maximumMessageBytes: configuration.maximumMessageBytes)
        notifications = DesktopNotifications(appName: "hearth")
        (retries, retryKick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (holds, holdKick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (self.holds, self.holdKick) = (holds, holdKick)
        self.device = device
        let settings = LiveSettings(configuration.notify, configFile: configuration.configFile)
        self.settings = settings
        commands = try CommandServer(
            context: context, endpoint: configuration.commandEndpoint(.notifier), service: "notifier",
            maximumMessageBytes: configuration.maximumMessageBytes, logger: logger,
            handler: { request in
                switch request.command {
                case "settings":
                    return settings.current.json
                case "settings.reload":
                    let reloaded = try settings.reload()
                    holdKick.yield()  // quiet hours may have ended or moved
                    return reloaded.json
                default:
                    throw CommandError.unknownCommand(request.command, service: "notifier")
                }
            })
    }

    public func run() async throws {
        logger.info("hearth-notifier up")
        // Show and answer commands (and so `ping`) only once the subscription is live end to
        // end: a stack that answers is one whose events reach the screen. The probe is seen on
        // the socket's thread, so nothing needs to read events yet.
        let bus = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.bus), timeout: .milliseconds(500))
        if await !subscriber.waitUntilSubscribed(bus: bus, timeout: .seconds(5)) {
            logger.warning(
                "hearth-notifier: no probe back from hearth-bus within 5 s; events may be missed until it runs")
        }
        await bus.close()
        await withDiscardingTaskGroup { group in
            group.addTask { await cancelWhenGracefulShutdown { await self.showEvents() } }
            group.addTask { await cancelWhenGracefulShutdown { await self.handlePresses() } }
            group.addTask { await cancelWhenGracefulShutdown { await self.retryUndelivered() } }
            group.addTask { await cancelWhenGracefulShutdown { await self.releaseHeld() } }
            group.addTask { try? await self.commands.run() }
        }
        notifications.close()
        await subscriber.close()
        await publisher.close()
    }

    // MARK: - Events in, notifications out

    private func showEvents() async {
        var catalog = NotificationCatalog(device: device)
        // Joining late: the turns in play right now first (the subscription is already live, so
        // nothing falls between; an event older than the snapshot is ignored by its seq).
        for envelope in await turnsInPlay() {
            await follow(catalog.plan(topic: "turn.snapshot", envelope: envelope), envelope)
        }
        for await message in subscriber {
            guard case .event(let topic, let envelope) = message else { continue }
            await follow(catalog.plan(topic: topic, envelope: envelope), envelope)
        }
    }

    /// Whose turn it is in every game this device plays, as `turn.your-turn` events, asked of
    /// `hearth-turn` (none if it is not running).
    private func turnsInPlay() async -> [Envelope] {
        let turns = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.turn), timeout: .milliseconds(500), attempts: 1)
        var events: [Envelope] = []
        let list = try? await turns.request("sessions")
        for entry in list?["sessions"]?.arrayValue ?? [] where entry["joined"] == true && entry["state"] == "playing" {
            guard let code = entry["code"]?.stringValue,
                let session = try? await turns.request("status", args: ["code": .string(code)]),
                let current = session["current"]?.stringValue,
                let player = session["players"]?.arrayValue?.first(where: { $0["id"]?.stringValue == current })
            else { continue }
            events.append(
                Envelope(
                    source: "turn", device: device, seq: 0, type: "turn.your-turn",
                    data: [
                        "code": .string(code), "seq": session["seq"] ?? 0, "turn": session["turn"] ?? 0,
                        "player": player,
                    ]))
        }
        await turns.close()
        return events
    }

    /// Carries out one plan from the catalog.
    private func follow(_ plan: NotificationPlan, _ envelope: Envelope) async {
        switch plan {
        case .ignore:
            return
        case .close(let keys):
            for key in keys { await close(key) }
        case .show(let popup):
            let key = popup.key
            let item = Pending(notification: popup.notification, envelope: envelope)
            switch settings.current.gate(popup.category, popup.notification, at: Date()) {
            case .show:
                held.withLock { _ = $0.removeValue(forKey: key) }
                buttons.withLock { $0[key] = popup.buttons }
                await present(key, item)
            case .hold(let reason, let until):
                // The older state under this key is stale: off the screen until the newer one shows.
                await close(key)
                buttons.withLock { $0[key] = popup.buttons }
                held.withLock { $0[key] = item }
                publish(
                    "notify.suppressed",
                    [
                        "key": .string(key), "category": .string(popup.category.rawValue),
                        "reason": .string(reason),
                        "held_until": .string(Timestamp.format(until)),
                    ])
                holdKick.yield()
            case .drop(let reason):
                await close(key)
                publish(
                    "notify.suppressed",
                    ["key": .string(key), "category": .string(popup.category.rawValue), "reason": .string(reason)])
            }
        }
    }

    /// Closes the popup under `key` and forgets anything pending for it.
    private func close(_ key: String) async {
        buttons.withLock { _ = $0.removeValue(forKey: key) }
        undelivered.withLock { _ = $0.removeValue(forKey: key) }
        held.withLock { _ = $0.removeValue(forKey: key) }
        try? await notifications.close(key: key)
    }

    /// Shows a popup now; if no server takes it, it is kept (latest per key) for the retry loop.
    private func present(_ key: String, _ item: Pending) async {
        // Newly undelivered (nothing older pending for this key): a failure is worth reporting.
        let firstFailure = undelivered.withLock { $0.updateValue(item, forKey: key) == nil }
        if let error = await deliver(key, item) {
            logger.warning("hearth-notifier: \(error)")
            if firstFailure { publish("notify.failed", ["key": .string(key), "reason": .string("\(error)")]) }
            retryKick.yield()
        }
    }

    /// Shows the held popups once quiet hours are over (or were changed), oldest event first.
    /// Woken by a kick (something held, settings reloaded) or by its own timer at the end of
    /// quiet hours; a new kick replaces the timer.
    private func releaseHeld() async {
        await withDiscardingTaskGroup { timers in
            for await _ in holds {
                timers.cancelAll()
                let now = Date()
                if let quiet = settings.current.quietHours, quiet.contains(now) {
                    guard !held.withLock({ $0.isEmpty }) else { continue }
                    // At the end of quiet hours, or within a minute to follow a changed clock.
                    let wait = max(min(quiet.end(after: now).timeIntervalSince(now), 60), 0.05)
                    timers.addTask { [holdKick] in
                        if (try? await Task.sleep(for: .seconds(wait))) != nil { holdKick.yield() }
                    }
                    continue
                }
                let release = held.withLock { pending in
                    defer { pending.removeAll() }
                    return pending.sorted { $0.value.envelope.timestamp < $1.value.envelope.timestamp }
                }
                for (key, item) in release { await present(key, item) }
            }
            timers.cancelAll()
        }
    }

    /// Shows one notification; on success it is no longer undelivered (unless a newer state for
    /// its key arrived meanwhile) and `notify.shown` reports the latency from the event.
    /// - Returns: the error when no server took it.
    private func deliver(_ key: String, _ item: Pending) async -> (any Error)? {
        do {
            let id = try await notifications.show(item.notification, key: key)
            undelivered.withLock { pending in
                if pending[key]?.envelope.id == item.envelope.id { pending.removeValue(forKey: key) }
            }
            let latency = Date().timeIntervalSince(item.envelope.timestamp) * 1_000
            publish(
                "notify.shown",
                [
                    "key": .string(key), "id": .int(Int64(id)), "event": .string(item.envelope.id),
                    "summary": .string(item.notification.summary),
                    "latency_ms": .double((latency * 1_000).rounded() / 1_000),
                ])
            return nil
        } catch {
            return error
        }
    }

    /// Retries undelivered notifications with exponential backoff (0.5 s up to 30 s), latest state
    /// per key, oldest event first; sleeps until a delivery fails.
    private func retryUndelivered() async {
        for await _ in retries {
            var delay = Duration.milliseconds(500)
            while !Task.isCancelled {
                let pending = undelivered.withLock { $0 }.sorted {
                    $0.value.envelope.timestamp < $1.value.envelope.timestamp
                }
                if pending.isEmpty { break }
                // A backoff timer, not synchronisation: nothing signals a server's return.
                try? await Task.sleep(for: delay)
                var failed = false
                for (key, item) in pending where undelivered.withLock({ $0[key]?.envelope.id == item.envelope.id }) {
                    if await deliver(key, item) != nil {
                        failed = true
                        break
                    }
                }
                delay = failed ? min(delay * 2, .seconds(30)) : .milliseconds(500)
            }
        }
    }

    // MARK: - Buttons in, commands out

    /// Each press is sent on its own, so a service that is slow to answer never holds up a
    /// press meant for another.
    private func handlePresses() async {
        await withDiscardingTaskGroup { group in
            for await press in notifications.actions {
                guard let button = buttons.withLock({ $0[press.key]?[press.action] }) else { continue }
                publish(
                    "notify.action",
                    [
                        "key": .string(press.key), "action": .string(press.action),
                        "service": .string(button.service.rawValue),
                        "command": .string(button.command),
                    ])
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
            publish("notify.failed", ["key": .string(press.key), "reason": .string("\(button.command): \(error)")])
        }
        await client.close()
    }

    private func publish(_ topic: String, _ data: JSONValue) {
        do {
            try publisher.publish(topic: topic, type: topic, data: data)
        } catch {
            logger.warning("hearth-notifier: cannot publish \(topic): \(error)")
        }
    }
}
