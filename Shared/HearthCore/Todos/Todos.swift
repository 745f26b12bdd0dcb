import Foundation

/// Todos, habits, plans and lists (SPEC part 3): the pure model the store, the scheduler and the
/// command line share.
///
/// Four entity kinds live in the operation log: a collection (`todo_collection`), a todo
/// (`todo`), a subtask (`todo_subtask`, ordered by `position`) and a completion instance of a
/// recurring todo (`todo_completion`, one per template and date: its id is
/// `<template id>@<YYYY-MM-DD>`, so two devices completing the same occurrence write the same
/// entity and converge on one instance). Deleting is a `deleted: true` write, so history keeps
/// what was deleted.
public enum Todos {
    public static let collectionKind = "todo_collection"
    public static let todoKind = "todo"
    public static let subtaskKind = "todo_subtask"
    public static let completionKind = "todo_completion"
    /// A day's note: its id is the date, `YYYY-MM-DD`.
    public static let noteKind = "daily_note"

    public static let maximumTitleLength = 200
    public static let maximumNameLength = 100
    public static let maximumIconLength = 32
    public static let maximumDescriptionLength = 10_000

    /// What a collection gathers.
    public enum Kind: String, CaseIterable, Sendable {
        case habit, plan, list
    }

    /// A daily note's mood.
    public enum Mood: String, CaseIterable, Sendable {
        case happy, calm, neutral, sad, stressed, angry
    }

    public enum Priority: String, CaseIterable, Sendable {
        case high, medium, low, none

        /// Sort rank, most urgent first.
        public var rank: Int { Self.allCases.firstIndex(of: self)! }
    }

    /// How a todo repeats; its due date is the first occurrence.
    public enum Repeat: String, CaseIterable, Sendable {
        case none, daily, weekly, monthly, yearly
    }

    /// What a monthly or yearly todo does on a date its month lacks (the 31st, 29 February).
    public enum MonthEnd: String, CaseIterable, Sendable {
        /// RFC 5545: the occurrence is skipped (the default).
        case skip
        /// RFC 7529 `SKIP=BACKWARD`: it falls on the month's last day instead.
        case clamp
    }

    /// A collection, todo or subtask id: a lower-case UUID.
    public static func isEntityID(_ id: String) -> Bool {
        id.utf8.count == 36 && UUID(uuidString: id) != nil && id == id.lowercased()
    }

    /// The completion instance of `template` on `date`.
    public static func completion(of template: String, on date: LocalDate) -> EntityRef {
        EntityRef(kind: completionKind, id: "\(template)@\(date)")
    }

    /// The template and date a completion instance's id names.
    public static func completionParts(_ id: String) -> (template: String, date: LocalDate)? {
        let parts = id.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, isEntityID(String(parts[0])),
            let date = try? LocalDate(parsing: String(parts[1]), field: "date")
        else { return nil }
        return (String(parts[0]), date)
    }

    /// A title as stored: trimmed, required, at most 200 characters.
    /// - Throws: `RuleError` for `field`.
    public static func title(_ text: String, field: String = "title") throws(RuleError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw RuleError(field: field, rule: "is required and must not be blank") }
        try TextRules.check(trimmed, field: field, maximumLength: maximumTitleLength)
        return trimmed
    }

    /// A collection name as stored: trimmed, required, at most 100 characters.
    public static func name(_ text: String, field: String = "name") throws(RuleError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw RuleError(field: field, rule: "is required and must not be blank") }
        try TextRules.check(trimmed, field: field, maximumLength: maximumNameLength)
        return trimmed
    }

    /// Reads one of `T`'s names for `field`.
    public static func choice<T: RawRepresentable & CaseIterable>(
        _ text: String, field: String, as type: T.Type
    ) throws(RuleError) -> T where T.RawValue == String {
        guard let value = T(rawValue: text.lowercased()) else {
            throw RuleError(
                field: field,
                rule: "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
        }
        return value
    }
}
