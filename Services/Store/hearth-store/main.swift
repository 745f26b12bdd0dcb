import Foundation
import HearthBus
import Logging
import ServiceLifecycle
import StoreService

HearthLogging.bootstrap()
let logger = Logger(label: "hearth.store")

do {
    let configuration = try HearthConfiguration.load()
    let device = try DeviceIdentity.load(home: configuration.home)
    let context = try ZMQContext()
    // Fault injection for the crash tests only (see StoreService.init); unset in real use.
    let replyDelay =
        ProcessInfo.processInfo.environment["HEARTH_FAULT_REPLY_DELAY_MS"].flatMap(Int.init)
        .map { Duration.milliseconds($0) } ?? .zero
    let store = try StoreService(
        configuration: configuration, context: context, device: device, logger: logger, replyDelay: replyDelay)
    try await ServiceGroup(configuration: .hearth(services: [store], logger: logger)).run()
    await context.terminate()
} catch {
    logger.critical("hearth-store cannot run: \(error)")
    exit(1)
}
