/// `sync.refused` on the bus: a paired device brought operations this device refused (a signature
/// that does not verify, an author nobody vouched for, a rule broken), named once so a person
/// knows which device to look at; the rest of its sync went on. Published by `hearth-sync`,
/// shown by the notifier ("Refused 3 changes from Dad's laptop").
public struct OperationsRefusedEvent: Codable, Sendable, Equatable {
    /// A device as the family names it.
    public struct Device: Codable, Sendable, Equatable {
        public let device: String
        public let name: String

        public init(device: String, name: String) {
            self.device = device
            self.name = name
        }
    }

    /// One refused operation: its id (when it had one), the field and the rule.
    public struct Refusal: Codable, Sendable, Equatable {
        public let id: String?
        public let field: String
        public let rule: String

        public init(id: String?, field: String, rule: String) {
            self.id = id
            self.field = field
            self.rule = rule
        }
    }

    /// The paired device that brought them (their author may be another).
    public let peer: Device
    /// How many it brought that were refused in this sync.
    public let count: Int
    /// The first few, with why.
    public let refused: [Refusal]

    public init(peer: Device, count: Int, refused: [Refusal]) {
        self.peer = peer
        self.count = count
        self.refused = refused
    }
}
