import Foundation
import HearthCore

/// The household's wall clock in its time zone (`[household] time_zone`): resolves a local date
/// and time to the instant it names, by RFC 5545 §3.3.5 — a time repeated when the clocks go
/// back is its first occurrence; a time skipped when they go forward takes the offset before
/// the gap (02:30 in London's spring gap is 03:30 BST). Conversions go through Foundation's
/// `TimeZone`, never libical's.
public struct HouseholdTime: Sendable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) { self.timeZone = timeZone }

    /// The instant of `time` on `date`.
    public func instant(_ date: LocalDate, _ time: LocalTime) -> Date {
        let wall = Double(date.dayNumber) * 86_400 + Double(time.secondsIntoDay)
        // The offsets in force a day either side cover any one change of the clocks.
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86_400))
        // Offsets that agree (no change of the clocks near this time, nearly always) make both
        // readings one instant, and the answer is that instant whether or not it reads back (the
        // fallback below is the same value): two fewer look-ups, each an ICU calendar computation
        // (half the icalendar fuzzer's time was these look-ups, perf).
        if before == after { return Date(timeIntervalSince1970: wall - Double(before)) }
        let readings = [before, after].map { offset in Date(timeIntervalSince1970: wall - Double(offset)) }
            .filter { instant in
                Double(timeZone.secondsFromGMT(for: instant)) == wall - instant.timeIntervalSince1970
            }
        // Repeated: both offsets read back to this wall time; the earlier instant is the first.
        // Skipped: neither does; the offset before the gap moves it forward by the gap.
        return readings.min() ?? Date(timeIntervalSince1970: wall - Double(before))
    }

    /// The wall-clock date and time at `instant`.
    public func wallClock(at instant: Date) -> (date: LocalDate, time: LocalTime) {
        // One reading of the offset for both: the date and the time of day of the same wall second.
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: instant)
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let intoDay = seconds - days * 86_400
        return (
            LocalDate(dayNumber: days),
            LocalTime(hour: intoDay / 3600, minute: intoDay / 60 % 60, second: intoDay % 60)!
        )
    }

    /// Today's date on the household's wall clock.
    public func today(at instant: Date) -> LocalDate { LocalDate(instant, in: timeZone) }
}
