import Foundation

/// The family hub (SPEC part 4): members with roles and each student's two-week school
/// timetable — the pure model the store, the scheduler and the command line share.
///
/// Six entity kinds live in the operation log, so they sync like the planner: a member
/// (`member`), a timetable entry (`timetable_entry`: one lesson of one member in one week, day
/// and period), a period's bell times (`school_bell`, id the period's code), a school holiday
/// (`school_holiday`), a manual week override (`week_override`) and the school's settings
/// (`timetable_settings`, id `school`: the Week-1 start date). Deleting is a `deleted: true`
/// write, so history keeps what was replaced.
public enum Hub {
    public static let memberKind = "member"
    public static let entryKind = "timetable_entry"
    public static let bellKind = "school_bell"
    public static let holidayKind = "school_holiday"
    public static let overrideKind = "week_override"
    public static let settingsKind = "timetable_settings"
    /// The one settings entity's id.
    public static let settingsID = "school"

    public static let maximumNameLength = 100
    public static let maximumSubjectLength = 100
    /// A teacher code or a room (`MrS`, `R12`, `Sports Hall`).
    public static let maximumCodeLength = 40
    /// Next-class notifications come this many minutes before a class unless a member says.
    public static let defaultLead = 10
    public static let leadRange: ClosedRange<Int64> = 1...240

    /// What a member's profile may see and edit: a student their own timetable, a parent
    /// everyone's.
    public enum Role: String, CaseIterable, Sendable {
        case student, parent
    }

    /// A member's name as stored: trimmed, required, at most 100 characters.
    /// - Throws: `RuleError` for `field`.
    public static func name(_ text: String, field: String = "name") throws(RuleError) -> String {
        try required(text, field: field, maximumLength: maximumNameLength)
    }

    /// Trimmed text that must not be blank, by `TextRules`.
    public static func required(_ text: String, field: String, maximumLength: Int) throws(RuleError) -> String {
        try TextRules.required(text, field: field, maximumLength: maximumLength)
    }

    /// Trimmed text, `nil` when blank, by `TextRules`.
    public static func optional(_ text: String?, field: String, maximumLength: Int) throws(RuleError) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
            return nil
        }
        try TextRules.check(trimmed, field: field, maximumLength: maximumLength)
        return trimmed
    }

    /// Text as a person may spell a week, day or period: lower case, dots dropped (`a.m.`), and
    /// runs of spaces, underscores and hyphens made one space.
    public static func normalized(_ text: String) -> String {
        var out = ""
        var gap = false
        for character in text.lowercased() where character != "." {
            if character == " " || character == "_" || character == "-" || character == "\t" {
                gap = !out.isEmpty
            } else {
                if gap { out.append(" ") }
                gap = false
                out.append(character)
            }
        }
        return out
    }

    /// A rotation week as a person writes it: `1`, `2`, `Week 1`, `Wk2`, `W1`, or `A`/`B`.
    /// - Throws: `RuleError` for `field` naming the rule.
    public static func week(_ text: String, field: String = "week") throws(RuleError) -> Int {
        var plain = normalized(text)
        for prefix in ["week ", "week", "wk ", "wk", "w "] where plain.hasPrefix(prefix) {
            plain.removeFirst(prefix.count)
            break
        }
        if plain.hasPrefix("w"), plain.count == 2 { plain.removeFirst() }
        switch plain {
        case "1", "a", "one": return 1
        case "2", "b", "two": return 2
        default: throw RuleError(field: field, rule: "must be week 1 or 2 (1, 2, Week 1, Week 2), got '\(text)'")
        }
    }
}

/// A school day, Monday to Friday (ISO numbers 1–5).
public enum SchoolDay: Int, CaseIterable, Sendable, Comparable {
    case monday = 1, tuesday, wednesday, thursday, friday

    public var name: String { ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"][rawValue - 1] }
    public var short: String { String(name.prefix(3)) }

    public static func < (lhs: SchoolDay, rhs: SchoolDay) -> Bool { lhs.rawValue < rhs.rawValue }

    private static let spellings: [String: SchoolDay] = [
        "mon": .monday, "monday": .monday, "mo": .monday,
        "tue": .tuesday, "tues": .tuesday, "tuesday": .tuesday, "tu": .tuesday,
        "wed": .wednesday, "weds": .wednesday, "wednesday": .wednesday, "we": .wednesday,
        "thu": .thursday, "thur": .thursday, "thurs": .thursday, "thursday": .thursday, "th": .thursday,
        "fri": .friday, "friday": .friday, "fr": .friday,
    ]

    /// A day as a person writes it: `Mon`, `monday`, `TUES`, `Thurs`, or `1`–`5`.
    /// - Throws: `RuleError` for `field`: a weekend day is not a school day; anything else is an
    ///   unknown day.
    public init(parsing text: String, field: String = "day") throws(RuleError) {
        let plain = Hub.normalized(text)
        if let day = Self.spellings[plain] {
            self = day
        } else if let number = Int(plain), let day = SchoolDay(rawValue: number) {
            self = day
        } else if ["sat", "saturday", "sun", "sunday", "6", "7"].contains(plain) {
            throw RuleError(field: field, rule: "must be a school day, Monday–Friday, got '\(text)' (a weekend day)")
        } else {
            throw RuleError(field: field, rule: "is an unknown day: must be Monday–Friday (Mon–Fri), got '\(text)'")
        }
    }

    /// The school day `date` falls on; `nil` at the weekend.
    public init?(_ date: LocalDate) { self.init(rawValue: date.weekday) }
}

/// A period of the school day, in order: AM Registration, lessons 1–5, PM Registration.
public enum Period: Int, CaseIterable, Sendable, Comparable {
    case amRegistration = 0, first, second, third, fourth, fifth, pmRegistration

    /// How it is stored: `am_registration`, `1`–`5`, `pm_registration`.
    public var code: String {
        switch self {
        case .amRegistration: "am_registration"
        case .pmRegistration: "pm_registration"
        default: String(rawValue)
        }
    }

    /// How it is shown: `AM Registration`, `1`–`5`, `PM Registration`.
    public var name: String {
        switch self {
        case .amRegistration: "AM Registration"
        case .pmRegistration: "PM Registration"
        default: String(rawValue)
        }
    }

    public static func < (lhs: Period, rhs: Period) -> Bool { lhs.rawValue < rhs.rawValue }

    public init?(code: String) {
        guard let period = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = period
    }

    private static let registrations: [String: Period] = [
        "am registration": .amRegistration, "am reg": .amRegistration, "am": .amRegistration,
        "registration am": .amRegistration, "reg am": .amRegistration, "morning registration": .amRegistration,
        "pm registration": .pmRegistration, "pm reg": .pmRegistration, "pm": .pmRegistration,
        "registration pm": .pmRegistration, "reg pm": .pmRegistration, "afternoon registration": .pmRegistration,
    ]

    /// A period as a person writes it: `AM Registration`, `AM Reg`, `am_registration`, `3`,
    /// `Period 3`, `P3`, `Lesson 3`, `PM Reg`…
    /// - Throws: `RuleError` for `field`: a lesson number outside 1–5 is out of range; anything
    ///   else is an unknown period.
    public init(parsing text: String, field: String = "period") throws(RuleError) {
        let plain = Hub.normalized(text)
        if let period = Self.registrations[plain] {
            self = period
            return
        }
        var digits = Substring(plain)
        for prefix in ["period ", "period", "lesson ", "lesson", "p ", "p", "l "] where digits.hasPrefix(prefix) {
            digits = digits.dropFirst(prefix.count)
            break
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits) else {
            throw RuleError(
                field: field,
                rule: "is an unknown period: must be AM Registration, 1–5 or PM Registration, got '\(text)'")
        }
        guard (1...5).contains(number), let period = Period(rawValue: number) else {
            throw RuleError(
                field: field,
                rule: "is out of range: lessons are 1–5 (besides AM and PM Registration), got '\(text)'")
        }
        self = period
    }
}
