import BusService
import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Logging
import StoreService
import Testing

@testable import SchedulerService

/// What the scheduler's end-to-end tests share: bus and store in process on a home in London, a
/// private D-Bus session with the notification test server, a real `hearth-notifier` process,
/// and the scheduler in process on a clock the test drives, started once the test has seeded the
/// store.
struct SchedulerTestStack {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let zone = ["HEARTH_TIME_ZONE": "Europe/London"]

    let context: ZMQContext
    let home: TemporaryHome
    let configuration: HearthConfiguration
    let clock: ManualSchedulerClock
    let device: String
    let session: DBusSession
    let server: ChildProcess
    let store: CommandClient
    let scheduler: CommandClient

    /// Runs `body` with the bus and the store up and the clock at `start`; stops them after.
    static func run(at start: Date, _ body: (SchedulerTestStack) async throws -> Void) async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let configuration = try home.configuration(zone)
        let device = UUIDText.make()
        let bus = try BusService(
            configuration: configuration, context: context, device: device, logger: Logger(label: "bus"))
        let store = try StoreService(
            configuration: configuration, context: context, device: device, logger: Logger(label: "store"))
        let session = try await DBusSession(notificationServer: true)
        let stack = SchedulerTestStack(
            context: context, home: home, configuration: configuration, clock: ManualSchedulerClock(start),
            device: device, session: session, server: try #require(session.server),
            store: CommandClient(
                context: context, endpoint: configuration.commandEndpoint(.store), timeout: .seconds(5)),
            scheduler: CommandClient(
                context: context, endpoint: configuration.commandEndpoint(.scheduler), timeout: .seconds(5)))
        try await withRunning([bus, store]) { try await body(stack) }
        await stack.store.close()
        await stack.scheduler.close()
    }

    /// Starts `hearth-notifier` on this home and session, and waits until it answers.
    func startNotifier() async throws -> ChildProcess {
        let environment = ["HEARTH_HOME": home.path].merging(session.environment) { $1 }.merging(Self.zone) { $1 }
        let notifier = try await TestStack.start(.notifier, environment: environment)
        #expect(
            await TestStack.waitUntilAnswering(
                configuration.commandEndpoint(.notifier), context: context, timeout: .seconds(10)))
        return notifier
    }

    /// Runs `body` with the scheduler up on the test's clock.
    func withScheduler(_ body: () async throws -> Void) async throws {
        let scheduler = try SchedulerService(
            configuration: configuration, context: context, device: device, logger: Logger(label: "scheduler"),
            clock: clock)
        try await withRunning([scheduler]) { try await body() }
    }
}
