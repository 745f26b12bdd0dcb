import Foundation
import HearthBus
import HearthHost

extension SchedulerService {
    /// The `hearth-scheduler` process: the service on this device's configuration until SIGTERM
    /// (`HearthProcess.run`). Its executable, and the multi-call `hearth` of the Debian package
    /// called as `hearth-scheduler`, run this.
    public static func runProcess() async {
        await HearthProcess.run("scheduler") { setup in
            try SchedulerService(
                configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger)
        }
    }
}
