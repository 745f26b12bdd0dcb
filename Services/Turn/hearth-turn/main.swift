import Foundation
import HearthBus
import Logging
import ServiceLifecycle
import TurnService

HearthLogging.bootstrap()
let logger = Logger(label: "hearth.turn")

do {
    let configuration = try HearthConfiguration.load()
    let device = try DeviceIdentity.load(home: configuration.home)
    let keyPair = try DeviceIdentity.keyPair(home: configuration.home)
    let context = try ZMQContext()
    let turns = try TurnService(
        configuration: configuration, context: context, device: device, keyPair: keyPair, logger: logger)
    try await ServiceGroup(configuration: .hearth(services: [turns], logger: logger)).run()
    await context.terminate()
} catch {
    logger.critical("hearth-turn cannot run: \(error)")
    exit(1)
}
