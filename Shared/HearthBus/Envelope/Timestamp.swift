import Foundation
import HearthCore

/// ISO 8601 UTC timestamps with milliseconds, as envelopes carry them: `2026-11-21T18:30:00.125Z`.
///
/// Formatting and the canonical form's parsing are done by hand: they run for every event, and
/// Foundation's format styles cost microseconds each.
public enum Timestamp {
    /// Formats `date` in UTC to the millisecond.
    public static func format(_ date: Date) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(date, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes in a formatted time: `2026-11-21T18:30:00.125Z`.
    static let length = 24

    /// Appends the formatted time to a byte buffer.
    static func append(_ date: Date, to out: inout [UInt8]) {
        // Written into a stack buffer and appended at once: appending byte by byte checked the
        // array's capacity and uniqueness 24 times.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { text in
            write(date, at: text.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Writes the formatted time's `length` bytes at `text`.
    static func write(_ date: Date, at text: UnsafeMutablePointer<UInt8>) {
        let totalMilliseconds = milliseconds(date)
        let seconds = totalMilliseconds.floorDivided(by: 1000)
        let milliseconds = Int(totalMilliseconds - seconds * 1000)
        let days = seconds.floorDivided(by: 86_400)
        let inDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        func digits(_ value: Int, _ count: Int, at start: Int) {
            var rest = value
            for index in stride(from: start + count - 1, through: start, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        digits(Int(year), 4, at: 0)
        text[4] = UInt8(ascii: "-")
        digits(month, 2, at: 5)
        text[7] = UInt8(ascii: "-")
        digits(day, 2, at: 8)
        text[10] = UInt8(ascii: "T")
        digits(inDay / 3600, 2, at: 11)
        text[13] = UInt8(ascii: ":")
        digits(inDay / 60 % 60, 2, at: 14)
        text[16] = UInt8(ascii: ":")
        digits(inDay % 60, 2, at: 17)
        text[19] = UInt8(ascii: ".")
        digits(milliseconds, 3, at: 20)
        text[23] = UInt8(ascii: "Z")
    }

    /// The whole milliseconds since 1970 of `date`, dropping what is below, within the times
    /// the format can write (`earliest` to `latest`; a time outside is held at the nearer end).
    ///
    /// A time made of whole milliseconds (a parsed `ts`) is a binary fraction that can land a
    /// hair below its millisecond: 1936-11-22T10:00:00.002Z came back as .001, found by the
    /// envelope fuzzer. A value within a few units of its last place (at least a microsecond) of
    /// a whole millisecond is that millisecond.
    static func milliseconds(_ date: Date) -> Int64 {
        let exact = date.timeIntervalSince1970 * 1000
        guard exact >= Double(earliest) else { return earliest }
        guard exact <= Double(latest) else { return latest }
        let nearest = exact.rounded()
        let tolerance = max(1e-3, 8 * nearest.magnitude.ulp)
        return Int64((exact - nearest).magnitude <= tolerance ? nearest : exact.rounded(.down))
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970: the
    /// times a four-digit year holds.
    static let earliest: Int64 = -62_167_219_200_000
    static let latest: Int64 = 253_402_300_799_999

    /// Days since 1970-01-01 of a proleptic Gregorian date (the civil-date arithmetic of
    /// Howard Hinnant's `days_from_civil`, in 400-year eras) in place of `gmtime_r` and `timegm`:
    /// the calendar needs no time zone here, and `hearth-bench codec`'s timestamp_format went
    /// from 372–406 to 278–310 ns.
    static func days(fromCivil year: Int64, _ month: Int, _ day: Int) -> Int64 {
        Int64(LocalDate.days(fromCivil: Int(year), month, day))
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (the inverse of `days(fromCivil:)`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let (year, month, day) = LocalDate.civil(fromDays: Int(days))
        return (Int64(year), month, day)
    }

    /// Parses an ISO 8601 time with a `Z` or `±hh:mm` offset and optional fractional seconds.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// Parses the UTF-8 bytes of a time as `parse(_:)` does, reading the canonical form in place
    /// with no `String` made (the envelope decoder's `ts`). Text in the canonical shape is judged
    /// by the strict parser alone: Foundation's styles would roll an impossible date such as
    /// 31 February over into March.
    static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        isCanonicalShape(bytes)
            ? parseCanonical(bytes) : parseOtherForms(String(decoding: bytes, as: UTF8.self))
    }

    /// The forms other than the canonical one, through Foundation's ISO 8601 style.
    private static func parseOtherForms(_ text: String) -> Date? {
        guard
            let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
                ?? (try? Date.ISO8601FormatStyle().parse(text)),
            // Foundation reads some malformed text as a year before 0000 (the envelope fuzzer's
            // `00-1-2T1:0:0+0':0Z`), which four digits cannot write back.
            (Double(earliest)...Double(latest)).contains(date.timeIntervalSince1970 * 1000)
        else { return nil }
        // Reject the same roll-over in the other forms: the calendar date must read back unchanged.
        let datePart = String(text.prefix(10))
        let offsetSeconds = Self.offsetSeconds(text)
        let local = Date(timeIntervalSince1970: date.timeIntervalSince1970 + Double(offsetSeconds))
        return format(local).hasPrefix(datePart) ? date : nil
    }

    private static func isCanonicalShape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count == 24 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
            && bytes[10] == UInt8(ascii: "T") && bytes[13] == UInt8(ascii: ":") && bytes[16] == UInt8(ascii: ":")
            && bytes[19] == UInt8(ascii: ".") && bytes[23] == UInt8(ascii: "Z")
    }

    /// The `±hh:mm` offset at the end of `text` in seconds (0 for `Z`).
    private static func offsetSeconds(_ text: String) -> Int {
        let tail = Array(text.utf8.suffix(6))
        guard tail.count == 6, tail[0] == UInt8(ascii: "+") || tail[0] == UInt8(ascii: "-"),
            tail[3] == UInt8(ascii: ":"),
            let hours = Int(String(decoding: tail[1..<3], as: UTF8.self)),
            let minutes = Int(String(decoding: tail[4..<6], as: UTF8.self))
        else { return 0 }
        return (tail[0] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    /// The form Hearth writes, `YYYY-MM-DDTHH:MM:SS.sssZ`, without a format style.
    private static func parseCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        // Every digit is read and judged before any is trusted: one flag instead of an optional
        // per field (the envelope decoder parses a timestamp per event).
        var allDigits = true
        func number(_ start: Int, _ count: Int) -> Int {
            var value = 0
            for index in start..<(start + count) {
                let digit = bytes[index] &- UInt8(ascii: "0")
                allDigits = allDigits && digit <= 9
                value = value &* 10 &+ Int(digit)
            }
            return value
        }
        let year = number(0, 4)
        let month = number(5, 2)
        let day = number(8, 2)
        let hour = number(11, 2)
        let minute = number(14, 2)
        let second = number(17, 2)
        let milliseconds = number(20, 3)
        // 31 February is refused, not counted on into March.
        guard allDigits, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24,
            minute < 60, second < 61
        else { return nil }
        let days = Self.days(fromCivil: Int64(year), month, day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
    }

    /// Days in a month of the proleptic Gregorian calendar.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
