import HearthBus
import HearthHost
import TurnService

await HearthProcess.run("turn") { setup in
    try TurnService(
        configuration: setup.configuration, context: setup.context, device: setup.device,
        keyPair: try DeviceIdentity.keyPair(home: setup.configuration.home), logger: setup.logger)
}
