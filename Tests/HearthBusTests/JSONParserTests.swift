import Foundation
import HearthBus
import Testing

@Suite("JSON parsing and writing", .timeLimit(.minutes(1)))
struct JSONParserTests {
    static let validCases: [(String, JSONValue)] = [
        ("null", .null), ("true", true), (" false ", false), ("0", 0), ("-12", -12),
        ("9223372036854775807", .int(Int64.max)), ("9223372036854775808", .double(9.223372036854775808e18)),
        // Either side of the 18 digits summed in place, and the smallest integer.
        ("999999999999999999", .int(999_999_999_999_999_999)), ("-999999999999999999", .int(-999_999_999_999_999_999)),
        ("1000000000000000000", .int(1_000_000_000_000_000_000)), ("-9223372036854775808", .int(Int64.min)),
        ("-0", 0), ("[7,-3]", [7, -3]),
        ("1.5", 1.5), ("-0.25e2", -25.0), ("1E3", 1000.0), (#""""#, ""), (#""a\"b\\c\/d""#, "a\"b\\c/d"),
        (#""\b\f\n\r\t""#, "\u{8}\u{c}\n\r\t"), (#""\u00e9\u4e2d""#, "é中"), (#""\ud83d\ude00""#, "😀"),
        (#""zoë 😀""#, "zoë 😀"), ("[]", []), ("{}", [:]), (#"[1, "two", [null]]"#, [1, "two", [nil]]),
        ("{\"a\": {\"b\": [true]}}\n", ["a": ["b": [true]]]),
    ]

    @Test("valid JSON parses to the expected value", arguments: validCases)
    func valid(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test(
        "invalid JSON fails with a reason and a byte position",
        arguments: [
            ("", "unexpected end of input"), ("{", "expected a string key"), ("[1,]", "unexpected character ']'"),
            ("{\"a\":1,}", "expected a string key"), ("{\"a\" 1}", "expected ':'"), ("[1 2]", "expected ','"),
            ("01", "leading zeros"), ("1.", "a fraction needs digits"), ("-", "a number needs digits"),
            ("1e", "an exponent needs digits"), ("tru", "invalid literal"), ("nul", "invalid literal"),
            ("\"abc", "unterminated string"), ("\"a\u{1}b\"", "control character"), (#""\x""#, "invalid escape"),
            (#""\u12""#, "four hex digits"), (#""\ud800x""#, "low surrogate"), (#""\udc00""#, "low surrogate"),
            ("{\"a\":1,\"a\":2}", "duplicate key 'a'"), ("1 2", "unexpected data after"),
            ("'x'", "unexpected character"),
            ("1e999", "number out of range"), ("NaN", "unexpected character"),
        ])
    func invalid(_ text: String, _ reason: String) {
        let error = #expect(throws: EnvelopeError.self) { try JSONValue.parse(text) }
        #expect(error?.code == "malformed_json")
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.description.contains("at byte") == true)
    }

    @Test("nesting is bounded, so hostile input cannot exhaust the stack")
    func depth() throws {
        _ = try JSONValue.parse(String(repeating: "[", count: 200) + String(repeating: "]", count: 200))
        let deep = String(repeating: "[", count: 100_000)
        let error = #expect(throws: EnvelopeError.self) { try JSONValue.parse(deep) }
        #expect(error?.description.contains("nesting deeper than") == true)
    }

    @Test("invalid UTF-8 is refused")
    func utf8() throws {
        #expect(throws: EnvelopeError.invalidUTF8) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
        // Bytes without contiguous storage take the copying path, with the same check.
        let broken: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: EnvelopeError.invalidUTF8) { try JSONValue.parse(broken.lazy.map { $0 }) }
        #expect(try JSONValue.parse(Array(#""é""#.utf8).lazy.map { $0 }) == "é")
    }

    @Test("writing sorts keys, escapes strings, and parses back to the same value")
    func write() throws {
        let value: JSONValue = [
            "b": [1, 2.5, "x\"\n\u{1}"], "a": nil, "c": ["z": true, "y": false], "d": -7, "e": 3.0,
        ]
        #expect(value.jsonText == #"{"a":null,"b":[1,2.5,"x\"\n\u0001"],"c":{"y":false,"z":true},"d":-7,"e":3.0}"#)
        #expect(try JSONValue.parse(value.jsonBytes) == value)
        // Integers are written digit by digit: the edges and a spread between them.
        let edges: [Int64] = [0, 9, 10, -1, -10, 99, 100, 1_000_000_007, Int64.max, Int64.min, Int64.min + 1]
        var random = SystemRandomNumberGenerator()
        for number in edges + (0..<1_000).map({ _ in Int64.random(in: .min ... .max, using: &random) }) {
            #expect(JSONValue.int(number).jsonText == String(number))
        }
        for number in [UInt64.max, UInt64.max / 10, 10_000_000_000_000_000_000] {
            var out: [UInt8] = []
            JSONWriter.appendInteger(number, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(number))
        }
    }

    @Test(
        "Foundation's parser agrees on what parses",
        arguments: [
            "{\"a\":[1,2,{\"b\":null}],\"c\":\"\\u00e9\"}", "[1,2", "{\"a\":}", "\"\\ud83d\\ude00\"", "[-0.0e-5]",
        ])
    func agreesWithFoundation(_ text: String) {
        let ours = (try? JSONValue.parse(text)) != nil
        let foundation = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
        #expect(ours == foundation)
    }
}

@Suite("Timestamps and ids", .timeLimit(.minutes(1)))
struct TimestampTests {
    @Test("timestamps format to the millisecond in UTC and parse back exactly")
    func roundTrip() {
        let date = Date(timeIntervalSince1970: 1_795_285_800.125)
        #expect(Timestamp.format(date) == "2026-11-21T18:30:00.125Z")
        #expect(Timestamp.parse("2026-11-21T18:30:00.125Z") == date)
        #expect(Timestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    }

    @Test("the calendar arithmetic agrees with the C library's gmtime_r from year 1 to 9999, and parses back")
    func agreesWithGmtime() async {
        // 100,000 dates compute for over a second in a debug build: on a thread of their own, so
        // they hold none of the cooperative pool's two threads (the parallel suite's timers
        // waited seconds behind them); the first disagreement is asserted here.
        let disagreement = await offPool { () -> String? in
            var random = SystemRandomNumberGenerator()
            // 0001-01-01 to 9999-12-31, in seconds since 1970.
            let range: ClosedRange<Int64> = -62_135_596_800...253_402_300_799
            for _ in 0..<100_000 {
                var seconds = time_t(Int64.random(in: range, using: &random))
                var parts = tm()
                gmtime_r(&seconds, &parts)
                let expected = String(
                    format: "%04d-%02d-%02dT%02d:%02d:%02d.000Z", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                    Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
                let date = Date(timeIntervalSince1970: Double(seconds))
                guard Timestamp.format(date) == expected, Timestamp.parse(expected) == date else {
                    return "\(seconds): \(Timestamp.format(date)) ≠ \(expected)"
                }
            }
            return nil
        }
        #expect(disagreement == nil)
    }

    @Test("other ISO 8601 forms parse; impossible dates do not")
    func otherForms() {
        #expect(Timestamp.parse("2026-11-21T19:30:00+01:00") == Date(timeIntervalSince1970: 1_795_285_800))
        #expect(Timestamp.parse("2026-11-21T18:30:00Z") == Date(timeIntervalSince1970: 1_795_285_800))
        #expect(Timestamp.parse("2026-02-31T00:00:00.000Z") == nil)
        #expect(Timestamp.parse("2026-02-31T00:00:00Z") == nil)
        #expect(Timestamp.parse("2028-02-29T00:00:00.000Z") != nil)
        #expect(Timestamp.parse("2026-13-01T00:00:00.000Z") == nil)
        #expect(Timestamp.parse("tomorrow") == nil)
    }

    @Test("a time outside four-digit years is refused when read, and written held at the nearer end")
    func outsideFourDigitYears() {
        // The envelope fuzzer's find: Foundation read this as a year before 0000, and writing
        // it back trapped.
        #expect(Timestamp.parse("00-1-2T1:0:0+0':0Z") == nil)
        #expect(Timestamp.parse("-0001-12-31T00:00:00Z") == nil)
        #expect(Timestamp.format(Date(timeIntervalSince1970: -1e12)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1e12)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.format(.distantFuture) == "4001-01-01T00:00:00.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -.infinity)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.parse("0000-01-01T00:00:00.000Z") == Date(timeIntervalSince1970: -62_167_219_200))
    }

    @Test("ids are version-4 UUIDs in lower case, and a generator does not repeat itself")
    func ids() {
        var generator = EventIDGenerator()
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = generator.makeID()
            #expect(UUID(uuidString: id) != nil)
            #expect(id == id.lowercased())
            #expect(Array(id)[14] == "4")
            #expect("89ab".contains(Array(id)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
        #expect(UUIDText.make() != UUIDText.make())
    }
}
