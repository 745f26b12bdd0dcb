/// Faults a test injects into a store, to prove what a crash or a failure part-way leaves: none
/// by default, and none in real use (`hearth-store` reads them from `HEARTH_FAULT_*` variables,
/// which only the crash tests set).
public struct StoreFaults: Sendable {
    /// Hold every mutating command's reply this long after its commit, widening the window in
    /// which a crash leaves a command committed but unanswered (`HEARTH_FAULT_REPLY_DELAY_MS`).
    public var replyDelay: Duration
    /// Stall a confirmed timetable import this long halfway through its transaction, having said
    /// so on standard error, so a test can kill the store mid-import
    /// (`HEARTH_FAULT_IMPORT_STALL_MS`).
    public var importStall: Duration?
    /// Fail `template.apply` after this many todos, inside its transaction.
    public var templateFailAfter: Int?

    public init(replyDelay: Duration = .zero, importStall: Duration? = nil, templateFailAfter: Int? = nil) {
        (self.replyDelay, self.importStall, self.templateFailAfter) = (replyDelay, importStall, templateFailAfter)
    }
}
