import Foundation

/// The family year planner's rules: one event card per month, twelve a year.
public enum YearPlanner {
    /// The entity kind of event cards in the operation log.
    public static let entityKind = "event_card"
    /// The entity kind of suggested changes to a card.
    public static let suggestionKind = "suggestion"

    /// A distinct default colour per month, January first.
    public static let defaultColours = [
        "#4E79A7", "#A0CBE8", "#59A14F", "#8CD17D", "#F1CE63", "#F28E2B",
        "#E15759", "#FF9D9A", "#B07AA1", "#D4A6C8", "#9D7660", "#79706E",
    ]

    /// The longest title or location, in characters.
    public static let maximumTextLength = 200

    private static let monthNames = [
        "january", "february", "march", "april", "may", "june",
        "july", "august", "september", "october", "november", "december",
    ]

    /// The English name of month 1–12.
    public static func monthName(_ month: Int) -> String { monthNames[month - 1].capitalized }

    /// Reads a month given as 1–12, a name, or a three-letter abbreviation.
    public static func month(from text: String) -> Int? {
        if let number = Int(text) { return (1...12).contains(number) ? number : nil }
        let lower = text.lowercased()
        guard lower.count >= 3 else { return nil }
        return monthNames.firstIndex { $0.hasPrefix(lower) }.map { $0 + 1 }
    }

    /// Days in `month` of `year` (Gregorian): 29 February only in leap years.
    public static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// The card's id in the operation log: `2026-08`.
    public static func entity(year: Int, month: Int) -> EntityRef {
        EntityRef(kind: entityKind, id: "\(year)-\(month < 10 ? "0" : "")\(month)")
    }

    /// Reads a card id back into year and month.
    public static func yearAndMonth(of entity: EntityRef) -> (year: Int, month: Int)? {
        let parts = entity.id.split(separator: "-")
        guard entity.kind == entityKind, parts.count == 2, let year = Int(parts[0]), let month = Int(parts[1]) else {
            return nil
        }
        return (year, month)
    }

    /// Checks a card edit; `nil` means "leave as it is".
    /// - Throws: `RuleError` naming the field and the rule it breaks.
    public static func validate(
        year: Int, month: Int, title: String?, location: String?, day: Int?
    )
        throws(RuleError)
    {
        guard (1...9999).contains(year) else { throw RuleError(field: "year", rule: "must be 1–9999, got \(year)") }
        guard (1...12).contains(month) else { throw RuleError(field: "month", rule: "must be 1–12, got \(month)") }
        if let title {
            try TextRules.check(title, field: "title", maximumLength: maximumTextLength)
            guard !title.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw RuleError(field: "title", rule: "is required and must not be blank")
            }
        }
        if let location { try TextRules.check(location, field: "location", maximumLength: maximumTextLength) }
        if let day {
            let last = days(inMonth: month, year: year)
            guard (1...last).contains(day) else {
                throw RuleError(field: "day", rule: "must be 1–\(last) for \(monthName(month)) \(year), got \(day)")
            }
        }
    }
}
