import ArgumentParser
import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// What a person types for a day or a time on the command line, made what the services take.
///
/// Every option that takes a day takes `YYYY-MM-DD`, `today`, `tomorrow` or `yesterday` (on the
/// household's clock, `[household] time_zone`); every option that takes a time takes an ISO 8601
/// instant, `YYYY-MM-DD HH:MM` on the household's clock (the day as a word too: `today 18:00`),
/// or a day alone where a day is meant (`sync log --since 2026-11-27` from that day's start,
/// `history --until 2026-11-30` to its end, `people log --when 2026-11-07` at its midday). Anything
/// else goes on as typed, for the service to refuse naming the field.
enum Dates {
    /// Where a day alone falls when a time is asked for.
    enum DayMeans {
        case start, midday, end
    }

    /// Today on the household's clock.
    static func today(_ options: GlobalOptions) throws -> LocalDate {
        LocalDate(Date(), in: try zone(options))
    }

    /// `today`, `tomorrow`, `yesterday` as `YYYY-MM-DD` (counted from `today`, by default the
    /// household's); anything else as typed.
    static func day(_ text: String, _ options: GlobalOptions, today: LocalDate? = nil) throws -> String {
        let offsets = ["yesterday": -1, "today": 0, "tomorrow": 1]
        guard let offset = offsets[text.trimmingCharacters(in: .whitespaces).lowercased()] else { return text }
        return try (today ?? self.today(options)).adding(days: offset).description
    }

    /// A time as the services take it (ISO 8601 in UTC), from any of the forms above.
    static func instant(_ text: String, _ options: GlobalOptions, dayMeans: DayMeans) throws -> String {
        if Timestamp.parse(text) != nil { return text }
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = parts.first, let day = try? LocalDate(parsing: try self.day(first, options), field: "date")
        else { return text }
        let zone = try zone(options)
        let time: LocalTime?
        if parts.count == 2 {
            time = try? LocalTime(parsing: parts[1], field: "time")
        } else {
            time =
                switch dayMeans {
                case .start: LocalTime(hour: 0, minute: 0)
                case .midday: LocalTime(hour: 12, minute: 0)
                case .end: LocalTime(hour: 23, minute: 59, second: 59)
                }
        }
        guard let time else { return text }
        return Timestamp.format(HouseholdTime(timeZone: zone).instant(day, time))
    }

    /// A month, `YYYY-MM` (or a day in it, or a word), as its first day.
    static func month(_ text: String, _ options: GlobalOptions, today: LocalDate? = nil) throws -> String {
        let bytes = Array(text.utf8)
        if bytes.count == 7, bytes[4] == UInt8(ascii: "-"), Int(text.prefix(4)) != nil, let month = Int(text.suffix(2)),
            (1...12).contains(month)
        {
            return text + "-01"
        }
        return try day(text, options, today: today)
    }

    static func zone(_ options: GlobalOptions) throws -> TimeZone {
        try options.loadConfiguration().household.timeZone
    }

    /// An instant from a reply (ISO 8601) as a person reads it, on the household's wall clock:
    /// `2026-11-27 14:31:05` (`--json` keeps the ISO 8601 text, with its offset). Anything that
    /// is not a timestamp goes on as it is.
    static func wall(_ text: String?, _ zone: TimeZone, seconds: Bool = true) -> String {
        guard let text, let instant = Timestamp.parse(text) else { return text ?? "" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = seconds ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: instant)
    }

    /// The time of day of `instant` on the household's wall clock, `HH:MM:SS.mmm` or `HH:MM:SS`.
    static func timeOfDay(_ instant: Date, _ zone: TimeZone, milliseconds: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = milliseconds ? "HH:mm:ss.SSS" : "HH:mm:ss"
        return formatter.string(from: instant)
    }
}
