import HearthBus
import HearthHost
import NotifierService

await HearthProcess.run("notifier") { setup in
    try NotifierService(
        configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger)
}
