/// `progress {token}` on a service's command socket: how far the long request it names has got
/// (`known: false` for a token it never saw or has finished).
public struct ProgressReport: Codable, Sendable, Equatable {
    public let known: Bool
    @OmittedWhenNil public var done: Int?
    @OmittedWhenNil public var total: Int?
    @OmittedWhenNil public var unit: String?
    @OmittedWhenNil public var elapsedMs: Int64?

    public init(known: Bool, done: Int? = nil, total: Int? = nil, unit: String? = nil, elapsedMs: Int64? = nil) {
        (self.known, self.done, self.total, self.unit, self.elapsedMs) = (known, done, total, unit, elapsedMs)
    }

    enum CodingKeys: String, CodingKey {
        case known, done, total, unit
        case elapsedMs = "elapsed_ms"
    }
}
