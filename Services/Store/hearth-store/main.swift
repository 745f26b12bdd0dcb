import Foundation
import HearthBus
import StoreService

await HearthProcess.run("store") { setup in
    // Fault injection for the crash tests only (see StoreService.init); unset in real use.
    let replyDelay =
        ProcessInfo.processInfo.environment["HEARTH_FAULT_REPLY_DELAY_MS"].flatMap(Int.init)
        .map { Duration.milliseconds($0) } ?? .zero
    if let stall = ProcessInfo.processInfo.environment["HEARTH_FAULT_IMPORT_STALL_MS"].flatMap(Int.init) {
        StoreService.faultImportStall(.milliseconds(stall))
    }
    return try StoreService(
        configuration: setup.configuration, context: setup.context, device: setup.device, logger: setup.logger,
        replyDelay: replyDelay)
}
