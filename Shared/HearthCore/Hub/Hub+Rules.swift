/// The family hub's rules for every operation on its kinds, local or from another device.
extension Hub: DomainRules {
    public static let entityKinds: Set<String> = [
        memberKind, entryKind, bellKind, holidayKind, overrideKind, settingsKind,
    ]

    private static let memberFields: [String: FieldRule] = [
        "name": .text(maximumLength: maximumNameLength, nullable: false, blank: false),
        "role": .oneOf(Role.allCases.map(\.rawValue)),
        "notify": .boolean,
        "lead": .integer(leadRange, nullable: false),
        "deleted": .boolean,
    ]

    private static let entryFields: [String: FieldRule] = [
        "member": .entityID,
        "week": .integer(1...2, nullable: false),
        "day": .integer(1...5, nullable: false),
        "period": .oneOf(Period.allCases.map(\.code)),
        "subject": .text(maximumLength: maximumSubjectLength, nullable: false, blank: false),
        "teacher": .text(maximumLength: maximumCodeLength),
        "room": .text(maximumLength: maximumCodeLength, nullable: false, blank: false),
        "start": .time,
        "end": .time,
        "deleted": .boolean,
    ]

    private static let bellFields: [String: FieldRule] = ["start": .time, "end": .time]

    private static let holidayFields: [String: FieldRule] = [
        "from": .date, "to": .date, "name": .text(maximumLength: maximumNameLength), "deleted": .boolean,
    ]

    private static let overrideFields: [String: FieldRule] = [
        "week": .integer(1...2, nullable: false), "from": .date, "to": .date, "deleted": .boolean,
    ]

    private static let settingsFields: [String: FieldRule] = ["week1_start": .date]

    public static func validate(_ operation: Operation) throws(RuleError) {
        let id = operation.entity.id
        switch operation.entity.kind {
        case memberKind:
            try requireEntityID(id)
            try operation.check(fields: memberFields)
        case entryKind:
            try requireEntityID(id)
            try operation.check(fields: entryFields)
            try checkEntry(operation.fields.mapValues(\.value))
        case bellKind:
            guard Period(code: id) != nil else {
                throw RuleError(
                    field: "entity.id",
                    rule: "must be a period (\(Period.allCases.map(\.code).joined(separator: ", "))), got '\(id)'")
            }
            try operation.check(fields: bellFields)
            try checkOrder(operation.fields.mapValues(\.value), "start", "end")
        case holidayKind:
            try requireEntityID(id)
            try operation.check(fields: holidayFields)
            try checkOrder(operation.fields.mapValues(\.value), "from", "to", strictly: false)
        case overrideKind:
            try requireEntityID(id)
            try operation.check(fields: overrideFields)
            try checkOrder(operation.fields.mapValues(\.value), "from", "to", strictly: false)
        case settingsKind:
            guard id == settingsID else {
                throw RuleError(
                    field: "entity.id", rule: "must be '\(settingsID)' for the school's settings, got '\(id)'")
            }
            try operation.check(fields: settingsFields)
        default:
            throw RuleError(field: "entity.kind", rule: "'\(operation.entity.kind)' is not a family hub kind")
        }
    }

    /// The rule between a lesson's fields, in one place for a command's lesson (its whole state,
    /// after the edit) and an operation from another device (the fields it carries): a lesson
    /// given its own times must end after it starts.
    public static func checkEntry(_ fields: [String: FieldValue]) throws(RuleError) {
        try checkOrder(fields, "start", "end")
    }

    /// When both ends of a range are known, the second must come after the first (or on it,
    /// unless `strictly`). Both text forms sort as they compare (`HH:MM:SS`, `YYYY-MM-DD`).
    private static func checkOrder(
        _ fields: [String: FieldValue], _ first: String, _ second: String, strictly: Bool = true
    ) throws(RuleError) {
        guard case .text(let from)? = fields[first], case .text(let to)? = fields[second] else { return }
        if strictly ? to <= from : to < from {
            throw RuleError(
                field: second, rule: "must be \(strictly ? "after" : "on or after") \(first) \(from), got \(to)")
        }
    }

    private static func requireEntityID(_ id: String) throws(RuleError) {
        guard Todos.isEntityID(id) else {
            throw RuleError(field: "entity.id", rule: "must be a lower-case UUID, got '\(id)'")
        }
    }
}
