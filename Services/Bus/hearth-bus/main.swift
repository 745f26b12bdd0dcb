import BusService
import HearthBus
import HearthHost

await HearthProcess.run("bus") { setup in
    try BusService(
        configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger)
}
