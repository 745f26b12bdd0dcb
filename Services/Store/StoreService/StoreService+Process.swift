import Foundation
import HearthBus
import HearthHost

extension StoreService {
    /// The `hearth-store` process: the service on this device's configuration until SIGTERM
    /// (`HearthProcess.run`). Its executable, and the multi-call `hearth` of the Debian package
    /// called as `hearth-store`, run this.
    public static func runProcess() async {
        await HearthProcess.run("store") { setup in
            // Fault injection for the crash tests only (see StoreFaults); unset in real use.
            let environment = ProcessInfo.processInfo.environment
            let faults = StoreFaults(
                replyDelay: environment["HEARTH_FAULT_REPLY_DELAY_MS"].flatMap(Int.init).map { .milliseconds($0) }
                    ?? .zero,
                importStall: environment["HEARTH_FAULT_IMPORT_STALL_MS"].flatMap(Int.init).map { .milliseconds($0) })
            return try StoreService(
                configuration: setup.configuration, context: setup.context, device: setup.device,
                logger: setup.logger, faults: faults)
        }
    }
}
