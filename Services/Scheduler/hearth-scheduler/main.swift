import HearthBus
import HearthHost
import SchedulerService

await HearthProcess.run("scheduler") { setup in
    try SchedulerService(
        configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger)
}
