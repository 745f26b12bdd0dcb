/// The todos domain's rules for every operation on its kinds, local or from another device.
extension Todos: DomainRules {
    public static let entityKinds: Set<String> = [collectionKind, todoKind, subtaskKind, completionKind, noteKind]

    private static let collectionFields: [String: FieldRule] = [
        "name": .text(maximumLength: maximumNameLength, nullable: false, blank: false),
        "kind": .oneOf(Kind.allCases.map(\.rawValue)),
        "icon": .text(maximumLength: maximumIconLength),
        "sort_order": .integer(0...1_000_000, nullable: false),
        "show_in_calendar": .boolean,
        "deleted": .boolean,
    ]

    private static let todoFields: [String: FieldRule] = [
        "collection": .entityID,
        "title": .text(maximumLength: maximumTitleLength, nullable: false, blank: false),
        "description": .text(maximumLength: maximumDescriptionLength, multiline: true),
        "due_date": .date,
        "due_time": .time,
        "priority": .oneOf(Priority.allCases.map(\.rawValue)),
        "remind": .boolean,
        "show_in_calendar": .boolean,
        "completed": .boolean,
        "repeat": .oneOf(Repeat.allCases.map(\.rawValue)),
        "until": .date,
        "month_end": .oneOf(MonthEnd.allCases.map(\.rawValue)),
        "assignee": .entityID(nullable: true),
        "deleted": .boolean,
    ]

    private static let subtaskFields: [String: FieldRule] = [
        "todo": .entityID,
        "title": .text(maximumLength: maximumTitleLength, nullable: false, blank: false),
        "completed": .boolean,
        "position": .integer(0...1_000_000, nullable: false),
        "deleted": .boolean,
    ]

    private static let completionFields: [String: FieldRule] = ["done": .boolean]

    private static let noteFields: [String: FieldRule] = [
        "mood": .oneOf(Mood.allCases.map(\.rawValue)),
        "text": .text(maximumLength: maximumDescriptionLength, multiline: true),
    ]

    public static func validate(_ operation: Operation) throws(RuleError) {
        let id = operation.entity.id
        switch operation.entity.kind {
        case collectionKind:
            try requireEntityID(id)
            try operation.check(fields: collectionFields)
        case todoKind:
            try requireEntityID(id)
            try operation.check(fields: todoFields)
            if case .text(let due) = operation.value("due_date"), case .text(let until) = operation.value("until"),
                until < due
            {
                throw RuleError(field: "until", rule: "must not be before the due date \(due), got \(until)")
            }
        case subtaskKind:
            try requireEntityID(id)
            try operation.check(fields: subtaskFields)
        case completionKind:
            guard completionParts(id) != nil else {
                throw RuleError(
                    field: "entity.id", rule: "must be '<todo id>@YYYY-MM-DD' for a completion, got '\(id)'")
            }
            try operation.check(fields: completionFields)
        case noteKind:
            _ = try LocalDate(parsing: id, field: "entity.id")
            try operation.check(fields: noteFields)
        default:
            throw RuleError(field: "entity.kind", rule: "'\(operation.entity.kind)' is not a todos kind")
        }
    }

    private static func requireEntityID(_ id: String) throws(RuleError) {
        guard isEntityID(id) else {
            throw RuleError(field: "entity.id", rule: "must be a lower-case UUID, got '\(id)'")
        }
    }
}

extension FieldRule {
    /// Another entity's id (a lower-case UUID).
    static let entityID = entityID(nullable: false)

    /// Another entity's id (a lower-case UUID), or null where `nullable` (a todo's assignee).
    static func entityID(nullable: Bool) -> FieldRule {
        FieldRule { (name, value) throws(RuleError) in
            if nullable, value == .null { return }
            guard case .text(let id) = value, Todos.isEntityID(id) else {
                throw RuleError(
                    field: name, rule: "must be a lower-case UUID\(nullable ? " or null" : ""), got \(value)")
            }
        }
    }

    /// A date `YYYY-MM-DD` that exists, or null.
    static let date = FieldRule { (name, value) throws(RuleError) in
        switch value {
        case .null: return
        case .text(let text): _ = try LocalDate(parsing: text, field: name)
        default: throw RuleError(field: name, rule: "must be a date YYYY-MM-DD or null, got \(value.kind)")
        }
    }

    /// A time `HH:MM:SS`, or null.
    static let time = FieldRule { (name, value) throws(RuleError) in
        switch value {
        case .null: return
        case .text(let text):
            let time = try LocalTime(parsing: text, field: name)
            guard time.description == text else {
                throw RuleError(field: name, rule: "must be stored as HH:MM:SS, got '\(text)'")
            }
        default: throw RuleError(field: name, rule: "must be a time HH:MM:SS or null, got \(value.kind)")
        }
    }
}
