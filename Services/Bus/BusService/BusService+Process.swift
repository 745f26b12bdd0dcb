import Foundation
import HearthBus
import HearthHost

extension BusService {
    /// The `hearth-bus` process: the service on this device's configuration until SIGTERM
    /// (`HearthProcess.run`). Its executable, and the multi-call `hearth` of the Debian package
    /// called as `hearth-bus`, run this.
    public static func runProcess() async {
        await HearthProcess.run("bus") { setup in
            try BusService(
                configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger)
        }
    }
}
