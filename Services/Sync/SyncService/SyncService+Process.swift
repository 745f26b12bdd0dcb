import Foundation
import HearthBus
import HearthHost

extension SyncService {
    /// The `hearth-sync` process: the service on this device's configuration until SIGTERM
    /// (`HearthProcess.run`). Its executable, and the multi-call `hearth` of the Debian package
    /// called as `hearth-sync`, run this.
    public static func runProcess() async {
        await HearthProcess.run("sync") { setup in
            try SyncService(
                configuration: setup.configuration, context: setup.context, device: setup.device,
                keyPair: try DeviceIdentity.keyPair(home: setup.configuration.home), logger: setup.logger)
        }
    }
}
