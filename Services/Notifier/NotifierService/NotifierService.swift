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
/// press, and `notify.failed` when no notification server answers.
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
    private let undelivered = Mutex<[String: Undelivered]>([:])
    private let retries: AsyncStream<Void>
    private let retryKick: AsyncStream<Void>.Continuation

    private struct Undelivered: Sendable {
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
        commands = try CommandServer(
            context: context, endpoint: configuration.commandEndpoint(.notifier), service: "notifier",
            maximumMessageBytes: configuration.maximumMessageBytes, logger: logger,
            handler: { request in throw CommandError.unknownCommand(request.command, service: "notifier") })
    }

    public func run() async throws {
        logger.info("hearth-notifier up")
        await withDiscardingTaskGroup { group in
            group.addTask { await cancelWhenGracefulShutdown { await self.showEvents() } }
            group.addTask { await cancelWhenGracefulShutdown { await self.handlePresses() } }
            group.addTask { await cancelWhenGracefulShutdown { await self.retryUndelivered() } }
            group.addTask { try? await self.commands.run() }
        }
        notifications.close()
        await subscriber.close()
        await publisher.close()
    }

    // MARK: - Events in, notifications out

    private func showEvents() async {
        for await message in subscriber {
            guard case .event(let topic, let envelope) = message else { continue }
            switch NotificationCatalog.plan(topic: topic, envelope: envelope) {
            case .ignore:
                continue
            case .close(let key):
                buttons.withLock { _ = $0.removeValue(forKey: key) }
                undelivered.withLock { _ = $0.removeValue(forKey: key) }
                try? await notifications.close(key: key)
            case .show(let key, let notification, let keyButtons):
                buttons.withLock { $0[key] = keyButtons }
                let item = Undelivered(notification: notification, envelope: envelope)
                // Newly undelivered (nothing older pending for this key): a failure is worth reporting.
                let firstFailure = undelivered.withLock { $0.updateValue(item, forKey: key) == nil }
                if let error = await deliver(key, item) {
                    logger.warning("hearth-notifier: \(error)")
                    if firstFailure { publish("notify.failed", ["key": .string(key), "reason": .string("\(error)")]) }
                    retryKick.yield()
                }
            }
        }
    }

    /// Shows one notification; on success it is no longer undelivered (unless a newer state for
    /// its key arrived meanwhile) and `notify.shown` reports the latency from the event.
    /// - Returns: the error when no server took it.
    private func deliver(_ key: String, _ item: Undelivered) async -> (any Error)? {
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

    private func handlePresses() async {
        for await press in notifications.actions {
            guard let button = buttons.withLock({ $0[press.key]?[press.action] }) else { continue }
            publish(
                "notify.action",
                [
                    "key": .string(press.key), "action": .string(press.action),
                    "service": .string(button.service.rawValue),
                    "command": .string(button.command),
                ])
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
    }

    private func publish(_ topic: String, _ data: JSONValue) {
        do {
            try publisher.publish(topic: topic, type: topic, data: data)
        } catch {
            logger.warning("hearth-notifier: cannot publish \(topic): \(error)")
        }
    }
}
