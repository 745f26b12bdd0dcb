import Foundation
import HearthBus
import HearthHost

extension NotifierService {
    /// The `hearth-notifier` process: the service on this device's configuration until SIGTERM
    /// (`HearthProcess.run`). Its executable, and the multi-call `hearth` of the Debian package
    /// called as `hearth-notifier`, run this.
    public static func runProcess() async {
        await HearthProcess.run("notifier") { setup in
            try NotifierService(
                configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger)
        }
    }
}
