import HearthBus
import HearthCore
import Testing

/// `Codable` types to and from `JSONValue`, as every wire format is read and written.
@Suite("JSONValue coding", .timeLimit(.minutes(1)))
struct JSONValueCodingTests {
    struct Player: Codable, Equatable {
        var name: String
        var present: Bool
    }

    struct Game: Codable, Equatable {
        var code: String
        var seq: Int64
        var turn: UInt8
        var ratio: Double
        var current: String?
        var players: [Player]
        var grid: [[Int]]
        var extra: JSONValue

        enum CodingKeys: String, CodingKey {
            case code, seq, turn, ratio, current, players, grid, extra
        }
    }

    static let game = Game(
        code: "J7X-3", seq: 42, turn: 7, ratio: 0.5, current: nil,
        players: [Player(name: "Ann", present: true), Player(name: "Bob", present: false)], grid: [[1, 2], []],
        extra: ["any": [1, "two", nil]])

    @Test("a value round-trips, with an absent optional left out and a JSONValue field kept as it is")
    func roundTrip() throws {
        let encoded = try JSONValue(encoding: Self.game)
        #expect(encoded["current"] == nil)
        #expect(encoded["players"]?.arrayValue?.count == 2)
        #expect(encoded["extra"] == ["any": [1, "two", nil]])
        #expect(try encoded.decode(Game.self) == Self.game)
        // And through text, as it crosses the wire.
        #expect(try JSONValue.parse(encoded.jsonBytes).decode(Game.self) == Self.game)
        #expect(try JSONValue.encoded(encoded.jsonBytes).decode(Game.self) == Self.game)
    }

    @Test("an integer out of its field's range, a wrong type, or a missing field names the path")
    func refusals() throws {
        var value = try JSONValue(encoding: Self.game)
        guard case .object(var members) = value else { throw CancellationError() }
        members["turn"] = 300
        value = .object(members)
        let range = try #require(throws: DecodingError.self) { try value.decode(Game.self) }
        guard case .dataCorrupted(let context) = range else { throw range }
        #expect(context.codingPath.map(\.stringValue) == ["turn"])
        #expect(context.debugDescription == "300 is out of range (0…255)")

        members["turn"] = 1
        members["players"] = [["name": "Ann", "present": "yes"]]
        let mismatch = try #require(throws: DecodingError.self) { try JSONValue.object(members).decode(Game.self) }
        guard case .typeMismatch(_, let where_) = mismatch else { throw mismatch }
        #expect(where_.codingPath.map(\.stringValue) == ["players", "0", "present"])
        #expect(where_.debugDescription == "must be true or false, found a string")

        members.removeValue(forKey: "code")
        let missing = try #require(throws: DecodingError.self) { try JSONValue.object(members).decode(Game.self) }
        guard case .keyNotFound(let key, _) = missing else { throw missing }
        #expect(key.stringValue == "code")
    }

    @Test("a wrong type inside an array of arrays names the element's path")
    func nestedElementPath() throws {
        guard case .object(var members) = try JSONValue(encoding: Self.game) else { throw CancellationError() }
        members["grid"] = [[1, 2], [3, "four"]]
        let mismatch = try #require(throws: DecodingError.self) { try JSONValue.object(members).decode(Game.self) }
        guard case .typeMismatch(_, let context) = mismatch else { throw mismatch }
        #expect(context.codingPath.map(\.stringValue) == ["grid", "1", "1"])
        #expect(context.debugDescription == "must be a whole number, found a string")
    }

    struct Measurements: Encodable {
        var total: UInt64
        var readings: [Double]
    }

    @Test("values JSON cannot carry faithfully are refused when encoding, naming where they were")
    func unrepresentable() throws {
        #expect(throws: EncodingError.self) { try JSONValue(encoding: UInt64.max) }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Double.nan) }
        #expect((try? JSONValue(encoding: Int64.min)) == .int(.min))

        let total = try #require(throws: EncodingError.self) {
            try JSONValue(encoding: Measurements(total: .max, readings: []))
        }
        guard case .invalidValue(_, let context) = total else { throw total }
        #expect(context.codingPath.map(\.stringValue) == ["total"])
        #expect(context.debugDescription == "18446744073709551615 does not fit a 64-bit integer")

        let reading = try #require(throws: EncodingError.self) {
            try JSONValue(encoding: Measurements(total: 1, readings: [1, .infinity]))
        }
        guard case .invalidValue(_, let where_) = reading else { throw reading }
        #expect(where_.codingPath.map(\.stringValue) == ["readings"])
        #expect(where_.debugDescription == "JSON has no inf")
        #expect(try JSONValue(encoding: Measurements(total: 3, readings: [0.5])) == ["total": 3, "readings": [0.5]])
    }

    struct Lesson: Codable, Equatable {
        var room: String
        var teacher: String?
        var minutes: Int?
        var tags: [String]?
        var inner: Totals?
    }

    struct Totals: Codable, Equatable { var total: Int }

    @Test("an encoder that writes nulls writes every absent optional as null, and the value decodes back")
    func writtenNulls() throws {
        let lesson = Lesson(room: "S4", teacher: nil, minutes: nil, tags: nil, inner: nil)
        let written = try JSONValueEncoder(writesNulls: true).encode(lesson)
        #expect(written == ["room": "S4", "teacher": .null, "minutes": .null, "tags": .null, "inner": .null])
        #expect(try JSONValue(encoding: lesson) == ["room": "S4"])
        #expect(try written.decode(Lesson.self) == lesson)
        let full = Lesson(room: "S4", teacher: "MRS", minutes: 50, tags: ["a"], inner: nil)
        #expect(try JSONValueEncoder(writesNulls: true).encode(full)["minutes"] == 50)
    }

    struct Preview: Codable, Equatable {
        var valid: Int
        var teacher: String?
        @OmittedWhenNil var refusal: String?
    }

    @Test("a field marked OmittedWhenNil is left out when nil even by an encoder that writes nulls")
    func omittedWhenNil() throws {
        let writer = JSONValueEncoder(writesNulls: true)
        #expect(try writer.encode(Preview(valid: 1, teacher: nil, refusal: nil)) == ["valid": 1, "teacher": .null])
        #expect(try writer.encode(Preview(valid: 1, refusal: "no")) == ["valid": 1, "teacher": .null, "refusal": "no"])
        #expect(try (["valid": 2] as JSONValue).decode(Preview.self) == Preview(valid: 2, teacher: nil, refusal: nil))
        #expect(try (["valid": 2, "refusal": .null] as JSONValue).decode(Preview.self).refusal == nil)
        #expect(try (["valid": 2, "refusal": "x"] as JSONValue).decode(Preview.self).refusal == "x")
        #expect(throws: DecodingError.self) { try (["valid": 2, "refusal": 3] as JSONValue).decode(Preview.self) }
    }

    struct Limit: Decodable {
        var limit: Int?
    }

    @Test("a request's arguments as their type: a mistyped field is refused as invalid_argument, named")
    func requestArguments() throws {
        #expect(try CommandRequest(command: "x", arguments: ["limit": 5]).arguments(as: Limit.self).limit == 5)
        #expect(try CommandRequest(command: "x").arguments(as: Limit.self).limit == nil)
        let error = try #require(throws: CommandError.self) {
            try CommandRequest(command: "x", arguments: ["limit": "ten"]).arguments(as: Limit.self)
        }
        #expect(error.code == "invalid_argument")
        #expect(error.message.hasPrefix("'limit' "), "\(error.message)")
    }
}
