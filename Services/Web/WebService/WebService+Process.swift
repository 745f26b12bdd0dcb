import Foundation
import HearthBus
import HearthHost

extension WebService {
    /// The `hearth-web` process: the service on this device's configuration until SIGTERM
    /// (`HearthProcess.run`). Its executable, and the multi-call `hearth` of the Debian package
    /// called as `hearth-web`, run this.
    public static func runProcess() async {
        await HearthProcess.run("web") { setup in
            try WebService(
                configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger)
        }
    }
}
