import Foundation
import HearthBus
import Logging
import NotifierService
import ServiceLifecycle

HearthLogging.bootstrap()
let logger = Logger(label: "hearth.notifier")

do {
    let configuration = try HearthConfiguration.load()
    let device = try DeviceIdentity.load(home: configuration.home)
    let context = try ZMQContext()
    let notifier = try NotifierService(configuration: configuration, context: context, device: device, logger: logger)
    try await ServiceGroup(configuration: .hearth(services: [notifier], logger: logger)).run()
    await context.terminate()
} catch {
    logger.critical("hearth-notifier cannot run: \(error)")
    exit(1)
}
