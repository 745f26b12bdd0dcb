/// The year planner's rules for the operations on its cards and suggestions: the same checks a
/// local `event set` or `event suggest` passes (`YearPlanner.validate`), applied to whatever
/// arrives from another device.
extension YearPlanner: DomainRules {
    public static let entityKinds: Set<String> = [entityKind, suggestionKind]

    private static let textFields: [String: FieldRule] = [
        "title": .text(maximumLength: maximumTextLength, blank: false),
        "location": .text(maximumLength: maximumTextLength),
        "day": .integer(1...31),
    ]

    private static let cardFields = textFields.merging([
        "colour": .text(maximumLength: 7)
    ]) { $1 }

    private static let suggestionFields = textFields.merging([
        "year": .integer(1...9999, nullable: false), "month": .integer(1...12, nullable: false),
        "status": .oneOf(["open", "accepted", "declined"]),
    ]) { $1 }

    public static func validate(_ operation: Operation) throws(RuleError) {
        switch operation.entity.kind {
        case entityKind:
            guard let (year, month) = yearAndMonth(of: operation.entity),
                (1...9999).contains(year), (1...12).contains(month),
                operation.entity == entity(year: year, month: month)
            else {
                throw RuleError(
                    field: "entity.id", rule: "must be a card 'YYYY-MM' with month 01–12, got '\(operation.entity.id)'")
            }
            try checkDay(operation, year: year, month: month)
            try operation.check(fields: cardFields)
        case suggestionKind:
            guard isSuggestionID(operation.entity.id) else {
                throw RuleError(
                    field: "entity.id", rule: "must be a suggestion id (a UUID), got '\(operation.entity.id)'")
            }
            if case .int(let year) = operation.value("year"), case .int(let month) = operation.value("month"),
                (1...9999).contains(year), (1...12).contains(month)
            {
                try checkDay(operation, year: Int(year), month: Int(month))
            }
            try operation.check(fields: suggestionFields)
        default:
            throw RuleError(field: "entity.kind", rule: "'\(operation.entity.kind)' is not a year planner kind")
        }
    }

    /// A day, when set, is one of the month's days.
    private static func checkDay(_ operation: Operation, year: Int, month: Int) throws(RuleError) {
        guard case .int(let day) = operation.value("day") else { return }
        let last = days(inMonth: month, year: year)
        guard (1...Int64(last)).contains(day) else {
            throw RuleError(field: "day", rule: "must be 1–\(last) for \(monthName(month)) \(year), got \(day)")
        }
    }

    private static func isSuggestionID(_ id: String) -> Bool {
        id.utf8.count == 36
            && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D }
    }
}
