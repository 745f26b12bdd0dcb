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
            try checkOrder(operation, "start", "end")
        case bellKind:
            guard Period(code: id) != nil else {
                throw RuleError(
                    field: "entity.id",
                    rule: "must be a period (\(Period.allCases.map(\.code).joined(separator: ", "))), got '\(id)'")
            }
            try operation.check(fields: bellFields)
            try checkOrder(operation, "start", "end")
        case holidayKind:
            try requireEntityID(id)
            try operation.check(fields: holidayFields)
            try checkOrder(operation, "from", "to", strictly: false)
        case overrideKind:
            try requireEntityID(id)
            try operation.check(fields: overrideFields)
            try checkOrder(operation, "from", "to", strictly: false)
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

    /// When one operation sets both ends of a range, the second must come after the first (or
    /// on it, unless `strictly`). Both text forms sort as they compare (`HH:MM:SS`, `YYYY-MM-DD`).
    private static func checkOrder(
        _ operation: Operation, _ first: String, _ second: String, strictly: Bool = true
    ) throws(RuleError) {
        guard case .text(let from) = operation.value(first), case .text(let to) = operation.value(second) else {
            return
        }
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
