/// The social planner's rules for every operation on its kinds, local or from another device.
extension Social: DomainRules {
    public static let entityKinds: Set<String> = [personKind, goalKind, itemKind, interactionKind, prefsKind]

    /// Instants are milliseconds since 1970 (UTC), from 1970 to the end of 9999.
    public static let instantRange: ClosedRange<Int64> = 0...253_402_300_799_999

    private static let personFields: [String: FieldRule] = [
        "name": .text(maximumLength: maximumNameLength, nullable: false, blank: false),
        "tags": .text(maximumLength: maximumTagsLength),
        "purpose": .text(maximumLength: maximumPurposeLength, multiline: true),
        "deleted": .boolean,
    ]

    private static let goalFields: [String: FieldRule] = [
        "every": .integer(cadenceRange, nullable: false),
        "importance": .integer(importanceRange, nullable: false),
        "duration": .integer(durationRange, nullable: false),
        "windows": .parsed(maximumLength: maximumWindowsLength) { (text, name) throws(RuleError) in
            _ = try AvailabilityWindow.list(text, field: name)
        },
        "exclude": .parsed(maximumLength: maximumExcludedLength) { (text, name) throws(RuleError) in
            _ = try excluded([text], field: name)
        },
        "last": .date,
        "deleted": .boolean,
    ]

    private static let itemFields: [String: FieldRule] = [
        "person": .entityID,
        "start": .integer(instantRange, nullable: false),
        "duration": .integer(durationRange, nullable: false),
        "status": .oneOf(Status.allCases.map(\.rawValue)),
        "origin": .oneOf(Origin.allCases.map(\.rawValue)),
        "previous": .optionalEntityID,
    ]

    private static let interactionFields: [String: FieldRule] = [
        "person": .entityID,
        "at": .integer(instantRange, nullable: false),
        "outcome": .oneOf(Outcome.allCases.map(\.rawValue)),
        "note": .text(maximumLength: maximumNoteLength, multiline: true),
        "item": .optionalEntityID,
        "deleted": .boolean,
    ]

    private static let prefsFields: [String: FieldRule] = [
        "capacity": .integer(capacityRange, nullable: false),
        "quiet_start": .time, "quiet_end": .time,
        "horizon": .integer(horizonRange, nullable: false),
        "lead": .integer(leadRange, nullable: false),
        "refresh": .time, "morning": .time,
    ]

    public static func validate(_ operation: Operation) throws(RuleError) {
        let id = operation.entity.id
        switch operation.entity.kind {
        case personKind, goalKind, itemKind, interactionKind:
            guard Todos.isEntityID(id) else {
                throw RuleError(field: "entity.id", rule: "must be a lower-case UUID, got '\(id)'")
            }
            let schema =
                switch operation.entity.kind {
                case personKind: personFields
                case goalKind: goalFields
                case itemKind: itemFields
                default: interactionFields
                }
            try operation.check(fields: schema)
            if operation.entity.kind == goalKind {
                try checkGoal(operation.fields.mapValues(\.value), whole: false)
            }
        case prefsKind:
            guard id == prefsID else {
                throw RuleError(
                    field: "entity.id", rule: "must be '\(prefsID)' for the planning preferences, got '\(id)'")
            }
            try operation.check(fields: prefsFields)
        default:
            throw RuleError(field: "entity.kind", rule: "'\(operation.entity.kind)' is not a social planner kind")
        }
    }
}

extension Social {
    /// The rules between a goal's fields, in one place for a command's goal and an operation
    /// from another device alike: a goal has a cadence (`every`) and at least one window, unless
    /// it is being removed (`deleted`).
    /// - Parameters:
    ///   - fields: the goal's fields.
    ///   - whole: `true` for a new goal's whole state (an absent field is unset); `false` for one
    ///     operation's fields, where an absent field is whatever the goal already holds.
    public static func checkGoal(_ fields: [String: FieldValue], whole: Bool) throws(RuleError) {
        if fields["deleted"] == .bool(true) { return }
        if whole, fields["every"] == nil {
            throw RuleError(field: "every", rule: "is required for a new goal (how many days between check-ins)")
        }
        switch fields["windows"] {
        case nil where whole:
            throw RuleError(field: "windows", rule: "is required for a new goal (such as 'Mon-Fri 18:00-21:00')")
        case .text(let text)?:
            if try AvailabilityWindow.list(text).isEmpty {
                throw RuleError(field: "windows", rule: "needs at least one window")
            }
        case .null?:
            throw RuleError(field: "windows", rule: "needs at least one window")
        default: return
        }
    }
}

extension FieldRule {
    /// Another entity's id, or null.
    static let optionalEntityID = FieldRule { (name, value) throws(RuleError) in
        if value == .null { return }
        try entityID.check(name, value)
    }

    /// Text by `TextRules` that `parse` must also accept, or null.
    static func parsed(
        maximumLength: Int, _ parse: @escaping @Sendable (String, String) throws(RuleError) -> Void
    ) -> FieldRule {
        FieldRule { (name, value) throws(RuleError) in
            try text(maximumLength: maximumLength).check(name, value)
            if case .text(let text) = value { try parse(text, name) }
        }
    }
}
