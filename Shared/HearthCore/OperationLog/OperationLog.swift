/// The fold of a set of operations into the current state of every entity, field by field.
///
/// Each field is a multi-value register: a write replaces the writes it names in `overwrites`,
/// and the field's *heads* are the writes nobody has replaced. One head is the field's value. Two
/// or more heads (writes made concurrently from the same starting value) are a conflict: every
/// value stays, the winner shown is the latest by hybrid time, then device id, and the conflict
/// remains until a write that overwrites all of them resolves it.
///
/// The state depends only on *which* operations have been applied, never on their order, and
/// applying one twice changes nothing: that is what lets devices sync by exchanging whatever the
/// other lacks. This is pure logic; `hearth-store` keeps the same fold materialised in SQLite.
public struct OperationLog: Sendable {
    /// Every operation applied, by id.
    public private(set) var operations: [OperationID: Operation] = [:]

    private struct FieldKey: Hashable {
        let entity: EntityRef
        let name: String
    }

    /// Per field: every write, and the ids some other write replaced.
    private var writes: [FieldKey: [OperationID: FieldWrite]] = [:]
    private var replaced: [FieldKey: Set<OperationID>] = [:]
    /// Per device: counters held beyond the contiguous prefix the version vector reports.
    private var ahead: [String: Set<UInt64>] = [:]
    public private(set) var versionVector = VersionVector()

    public init() {}

    // MARK: - Applying

    /// Applies `operation`.
    /// - Returns: `false` when it was already applied (nothing changes).
    /// - Throws: `OperationLogError` for a malformed operation or an id reused with other contents.
    @discardableResult
    public mutating func apply(_ operation: Operation) throws(OperationLogError) -> Bool {
        try operation.validate()
        if let existing = operations[operation.id] {
            guard existing == operation else { throw .conflictingDuplicate(operation.id) }
            return false
        }
        operations[operation.id] = operation
        for (name, write) in operation.fields {
            let key = FieldKey(entity: operation.entity, name: name)
            writes[key, default: [:]][operation.id] = write
            replaced[key, default: []].formUnion(write.overwrites)
        }
        advance(operation.id)
        return true
    }

    /// Holds `operation` for its time and author (`operations`) without folding its writes: for a
    /// log that folds only some operations' writes (the store's head-only logs, which still need
    /// an entity's first operation for when it was created).
    public mutating func record(_ operation: Operation) {
        guard operations[operation.id] == nil else { return }
        operations[operation.id] = operation
        advance(operation.id)
    }

    private mutating func advance(_ id: OperationID) {
        var held = versionVector[id.device]
        guard id.counter > held else { return }
        ahead[id.device, default: []].insert(id.counter)
        while ahead[id.device]?.remove(held + 1) != nil { held += 1 }
        versionVector.set(id.device, held)
        if ahead[id.device]?.isEmpty == true { ahead[id.device] = nil }
    }

    // MARK: - Reading

    /// The state of one field: its winning value and, in a conflict, every competing value.
    public struct FieldState: Hashable, Sendable {
        /// The writes nobody replaced, winner first.
        public let heads: [(id: OperationID, time: HybridTime, value: FieldValue)]

        public var value: FieldValue { heads[0].value }
        public var winner: OperationID { heads[0].id }
        /// Heads that disagree. Concurrent writes of one value (two devices ticking the same
        /// habit for the same day) agree: nothing for a person to resolve.
        public var isConflict: Bool { heads.dropFirst().contains { $0.value != heads[0].value } }

        public static func == (lhs: FieldState, rhs: FieldState) -> Bool {
            lhs.heads.map(\.id) == rhs.heads.map(\.id) && lhs.heads.map(\.value) == rhs.heads.map(\.value)
        }

        public func hash(into hasher: inout Hasher) {
            for head in heads {
                hasher.combine(head.id)
                hasher.combine(head.value)
            }
        }
    }

    /// The state of `name` on `entity`, or `nil` if no operation ever set it.
    public func field(_ entity: EntityRef, _ name: String) -> FieldState? {
        let key = FieldKey(entity: entity, name: name)
        guard let all = writes[key] else { return nil }
        let gone = replaced[key] ?? []
        let heads = all.filter { !gone.contains($0.key) }
            .map { (id: $0.key, time: operations[$0.key]!.time, value: $0.value.value) }
            .sorted { ($0.time, $0.id.device, $0.id.counter) > ($1.time, $1.id.device, $1.id.counter) }
        // A cycle of writes replacing each other cannot come from honest devices; fall back to
        // the latest write so a field always has a value.
        if heads.isEmpty {
            let latest = all.map { (id: $0.key, time: operations[$0.key]!.time, value: $0.value.value) }
                .max { ($0.time, $0.id.device, $0.id.counter) < ($1.time, $1.id.device, $1.id.counter) }!
            return FieldState(heads: [latest])
        }
        return FieldState(heads: heads)
    }

    /// Every field of `entity` that was ever set.
    public func entity(_ entity: EntityRef) -> [String: FieldState] {
        var fields: [String: FieldState] = [:]
        for key in writes.keys where key.entity == entity {
            fields[key.name] = field(entity, key.name)
        }
        return fields
    }

    /// Every entity some operation touched.
    public var entities: Set<EntityRef> { Set(writes.keys.map(\.entity)) }

    /// A field with more than one current value.
    public struct Conflict: Hashable, Sendable {
        public let entity: EntityRef
        public let field: String
        public let state: FieldState
    }

    /// Every open conflict, in entity then field order.
    public var conflicts: [Conflict] {
        writes.keys.compactMap { key -> Conflict? in
            guard let state = field(key.entity, key.name), state.isConflict else { return nil }
            return Conflict(entity: key.entity, field: key.name, state: state)
        }
        .sorted { ($0.entity, $0.field) < ($1.entity, $1.field) }
    }

    // MARK: - Making and exchanging operations

    /// An operation by `device` setting `values` on `entity`, each write replacing the field's
    /// current heads (so setting a conflicted field resolves the conflict).
    public func makeOperation(
        device: String,
        counter: UInt64,
        time: HybridTime,
        entity: EntityRef,
        values: [String: FieldValue]
    ) -> Operation {
        var fields: [String: FieldWrite] = [:]
        for (name, value) in values {
            let heads = field(entity, name)?.heads.map(\.id) ?? []
            fields[name] = FieldWrite(value: value, overwrites: Set(heads))
        }
        return Operation(id: OperationID(device: device, counter: counter), time: time, entity: entity, fields: fields)
    }

    /// The operations this log holds that a replica with `vector` lacks, in a causal-safe order
    /// (by hybrid time, then id).
    public func operations(missingFrom vector: VersionVector) -> [Operation] {
        operations.values.filter { !vector.contains($0.id) }
            .sorted { ($0.time, $0.id) < ($1.time, $1.id) }
    }
}
