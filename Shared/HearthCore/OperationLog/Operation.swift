/// A replicated thing, such as the event card for August 2026: `event_card` / `2026-08`.
public struct EntityRef: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let kind: String
    public let id: String

    public init(kind: String, id: String) {
        self.kind = kind
        self.id = id
    }

    public static func < (lhs: EntityRef, rhs: EntityRef) -> Bool { (lhs.kind, lhs.id) < (rhs.kind, rhs.id) }

    public var description: String { "\(kind)/\(id)" }
}

/// One field's new value, and the writes whose values it replaces.
///
/// An ordinary edit replaces the one value the author saw; a resolution of a conflict replaces
/// every value in the conflict; the first write of a field replaces nothing.
public struct FieldWrite: Hashable, Sendable, Codable {
    public let value: FieldValue
    /// Ids of the operations whose value of this field this write overwrote.
    public let overwrites: Set<OperationID>

    public init(value: FieldValue, overwrites: Set<OperationID> = []) {
        self.value = value
        self.overwrites = overwrites
    }
}

/// A change to one entity: family data changes only through operations, and history *is* the
/// log of them.
public struct Operation: Hashable, Sendable, Codable, Identifiable {
    public let id: OperationID
    /// When it was made, on the author's hybrid logical clock.
    public let time: HybridTime
    public let entity: EntityRef
    /// The fields it sets, by name.
    public let fields: [String: FieldWrite]

    public init(id: OperationID, time: HybridTime, entity: EntityRef, fields: [String: FieldWrite]) {
        self.id = id
        self.time = time
        self.entity = entity
        self.fields = fields
    }

    /// The device that made it.
    public var author: String { id.device }

    /// Checks the shape every operation must have, whoever sent it.
    /// - Throws: `OperationLogError.invalidOperation` naming the field and the rule.
    public func validate() throws(OperationLogError) {
        guard !id.device.isEmpty else { throw .invalidOperation(id, "the device id must not be empty") }
        guard id.counter > 0 else { throw .invalidOperation(id, "the counter starts at 1") }
        guard !entity.kind.isEmpty, !entity.id.isEmpty else {
            throw .invalidOperation(id, "the entity kind and id must not be empty")
        }
        guard !fields.isEmpty else { throw .invalidOperation(id, "an operation sets at least one field") }
        for (name, write) in fields {
            guard !name.isEmpty else { throw .invalidOperation(id, "field names must not be empty") }
            guard !write.overwrites.contains(id) else {
                throw .invalidOperation(id, "field '\(name)' cannot overwrite its own operation")
            }
        }
    }
}

/// What can go wrong applying operations.
public enum OperationLogError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidOperation(OperationID, String)
    /// The same id arrived with different contents: a peer is broken or lying.
    case conflictingDuplicate(OperationID)
    case clockDrift(remoteMilliseconds: Int64, localMilliseconds: Int64)

    public var description: String {
        switch self {
        case .invalidOperation(let id, let rule): "operation \(id): \(rule)"
        case .conflictingDuplicate(let id): "operation \(id) arrived twice with different contents"
        case .clockDrift(let remote, let local):
            "a peer's clock reads \(remote - local) ms ahead of this device's, beyond the \(HybridClock.maximumDrift) ms allowed"
        }
    }
}
