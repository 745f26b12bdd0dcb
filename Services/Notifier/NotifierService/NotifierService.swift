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
                try? await notifications.close(key: key)
            case .show(let key, let notification, let keyButtons):
                buttons.withLock { $0[key] = keyButtons }
                do {
                    let id = try await notifications.show(notification, key: key)
                    let latency = Date().timeIntervalSince(envelope.timestamp) * 1_000
                    publish(
                        "notify.shown",
                        [
                            "key": .string(key), "id": .int(Int64(id)), "event": .string(envelope.id),
                            "summary": .string(notification.summary),
                            "latency_ms": .double((latency * 1_000).rounded() / 1_000),
                        ])
                } catch {
                    logger.warning("hearth-notifier: \(error)")
                    publish("notify.failed", ["key": .string(key), "reason": .string("\(error)")])
                }
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
