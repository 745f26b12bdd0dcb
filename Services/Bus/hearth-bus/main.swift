import BusService
import Foundation
import HearthBus
import Logging
import ServiceLifecycle

HearthLogging.bootstrap()
let logger = Logger(label: "hearth.bus")

do {
    let configuration = try HearthConfiguration.load()
    let device = try DeviceIdentity.load(home: configuration.home)
    let context = try ZMQContext()
    let bus = try BusService(configuration: configuration, context: context, device: device, logger: logger)
    try await ServiceGroup(configuration: .hearth(services: [bus], logger: logger)).run()
    await context.terminate()
} catch {
    logger.critical("hearth-bus cannot run: \(error)")
    exit(1)
}
