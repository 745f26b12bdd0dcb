import HearthBus
import HearthHost
import WebService

await HearthProcess.run("web") { setup in
    try WebService(
        configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger)
}
