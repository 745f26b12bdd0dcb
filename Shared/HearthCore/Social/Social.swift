/// The social planner (SPEC part 5): the people who matter, how often to see each, and the
/// check-ins planned with them — the pure model the store, the scheduler and the command line
/// share.
///
/// Five entity kinds live in the operation log, so they sync like the rest: a person (`person`),
/// their goal (`social_goal`, id the person's: one goal per person), a planned check-in
/// (`plan_item`), a logged interaction (`interaction`) and the household's preferences
/// (`plan_prefs`, id `household`). Deleting is a `deleted: true` write. Busy times imported from
/// a calendar file are this device's own (a person's calendar, not the family's) and stay out of
/// the log.
public enum Social {
    public static let personKind = "person"
    public static let goalKind = "social_goal"
    public static let itemKind = "plan_item"
    public static let interactionKind = "interaction"
    public static let prefsKind = "plan_prefs"
    /// The one preferences entity's id.
    public static let prefsID = "household"

    public static let maximumNameLength = 100
    public static let maximumTagsLength = 200
    public static let maximumPurposeLength = 500
    public static let maximumNoteLength = 2000
    public static let maximumWindowsLength = 500
    public static let maximumExcludedLength = 2000
    public static let cadenceRange: ClosedRange<Int64> = 1...3650
    public static let importanceRange: ClosedRange<Int64> = 1...5
    /// A check-in's length in minutes: five minutes to a day.
    public static let durationRange: ClosedRange<Int64> = 5...1440
    public static let capacityRange: ClosedRange<Int64> = 1...200
    public static let horizonRange: ClosedRange<Int64> = 1...90
    /// Minutes before a check-in its reminder comes: none to a day.
    public static let leadRange: ClosedRange<Int64> = 0...1440

    /// How a check-in went, or did not.
    public enum Status: String, CaseIterable, Sendable {
        case pending, done, snoozed, rescheduled, canceled
        /// A pending check-in whose time passed unmarked (the daily refresh marks it).
        case missed

        /// Whether the item still holds its time (clashes with others, counts toward capacity).
        public var holdsTime: Bool { self == .pending || self == .done }

        /// For learning: `true` for a check-in that happened, `false` for one that did not
        /// happen in its slot, `nil` while it is still to come.
        public var succeeded: Bool? {
            switch self {
            case .pending: nil
            case .done: true
            case .snoozed, .rescheduled, .canceled, .missed: false
            }
        }
    }

    /// Who placed a check-in: the planner or a person.
    public enum Origin: String, CaseIterable, Sendable {
        case auto, manual
    }

    /// What a logged interaction was.
    public enum Outcome: String, CaseIterable, Sendable {
        case met, call, text, other
    }

    /// The household's planning preferences, with the defaults a new household starts from.
    public struct Preferences: Hashable, Sendable {
        /// The most check-ins in one calendar week (Monday to Sunday).
        public var capacity = 5
        /// No check-in is placed, and no popup raised, from `quietStart` to `quietEnd` (which may
        /// wrap past midnight).
        public var quietStart = LocalTime(hour: 22, minute: 0)!
        public var quietEnd = LocalTime(hour: 7, minute: 0)!
        /// How many days ahead the planner fills, today included.
        public var horizon = 14
        /// Minutes before a check-in its reminder comes.
        public var lead = 30
        /// When the daily refresh runs.
        public var refresh = LocalTime(hour: 6, minute: 0)!
        /// Where "snooze tonight" moves today's check-ins: tomorrow at this time, or the next
        /// valid slot after it.
        public var morning = LocalTime(hour: 9, minute: 0)!

        public init() {}
    }

    /// A person's name as stored: trimmed, required, at most 100 characters.
    /// - Throws: `RuleError` for `field`.
    public static func name(_ text: String, field: String = "name") throws(RuleError) -> String {
        try TextRules.required(text, field: field, maximumLength: maximumNameLength)
    }

    /// Tags as a person types them (`family, school`): trimmed, lower-cased, deduplicated and
    /// joined with ", "; `nil` when there are none.
    /// - Throws: `RuleError` for a tag with refused characters or a list over 200 characters.
    public static func tags(_ text: String, field: String = "tags") throws(RuleError) -> String? {
        var seen: [String] = []
        for part in text.split(separator: ",") {
            let tag = part.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if !tag.isEmpty && !seen.contains(tag) { seen.append(tag) }
        }
        guard !seen.isEmpty else { return nil }
        let joined = seen.joined(separator: ", ")
        try TextRules.check(joined, field: field, maximumLength: maximumTagsLength)
        return joined
    }

    /// Excluded dates as typed (`2026-12-24, 2026-12-25`), sorted and joined with ", ".
    /// - Throws: `RuleError` naming the date that is not one.
    public static func excluded(_ dates: [String], field: String = "exclude") throws(RuleError) -> [LocalDate] {
        var parsed: Set<LocalDate> = []
        for text in dates {
            for part in text.split(separator: ",") {
                let trimmed = part.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { continue }
                parsed.insert(try LocalDate(parsing: trimmed, field: field))
            }
        }
        return parsed.sorted()
    }

    /// The stored form of excluded dates.
    public static func excludedText(_ dates: [LocalDate]) -> String {
        dates.map(\.description).joined(separator: ", ")
    }

    /// A duration as a person writes it: `30m`, `1h`, `1h30m`, `90` (minutes).
    /// - Throws: `RuleError` for `field` naming the forms and the range.
    public static func duration(_ text: String, field: String = "duration") throws(RuleError) -> Int {
        let plain = text.lowercased().filter { !$0.isWhitespace }
        var minutes = 0
        var number = ""
        var sawUnit = false
        for character in plain {
            if character.isASCII && character.isNumber {
                number.append(character)
            } else if character == "h" || character == "m", let value = Int(number), number.count <= 4 {
                minutes += character == "h" ? value * 60 : value
                number = ""
                sawUnit = true
            } else {
                number = "?"
                break
            }
        }
        if !number.isEmpty {
            if let value = Int(number), !sawUnit, number.count <= 4 { minutes = value } else { minutes = -1 }
        }
        guard minutes > 0, durationRange.contains(Int64(minutes)) else {
            throw RuleError(
                field: field, rule: "must be a duration such as 30m, 1h or 1h30m (5 minutes to 24 hours), got '\(text)'"
            )
        }
        return minutes
    }

    /// A duration as a person reads it: `30m`, `1h`, `1h30m`.
    public static func durationText(_ minutes: Int) -> String {
        switch (minutes / 60, minutes % 60) {
        case (0, let rest): "\(rest)m"
        case (let hours, 0): "\(hours)h"
        case (let hours, let rest): "\(hours)h\(rest)m"
        }
    }
}
