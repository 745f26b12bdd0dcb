import HearthBus
import Testing

/// Commands' requests are written and read with snake_case keys: a type's camelCase fields need no
/// `CodingKeys`, and an error names the field as the sender wrote it.
@Suite("JSONValue coding with snake_case keys")
struct SnakeCaseKeysTests {
    struct Leader: Codable, Equatable {
        var leaderName: String
        var deviceID: String
    }

    struct Request: Codable, Equatable {
        var code: String
        var timerSeconds: Int64
        var untilBack: Bool?
        var clockNowMS: Int64?
        var lead: Leader
        var players: [Leader]
    }

    /// Spelled out already: snake_case names stay as they are.
    struct Spelled: Codable, Equatable {
        var untilBack: Bool
        enum CodingKeys: String, CodingKey { case untilBack = "until_back" }
    }

    static let value = Request(
        code: "J7X-3", timerSeconds: 90, untilBack: nil, clockNowMS: 5,
        lead: Leader(leaderName: "Ann", deviceID: "d1"), players: [Leader(leaderName: "Bob", deviceID: "d2")])

    @Test("camelCase fields are written in snake_case, nested and in arrays too, and read back")
    func roundTrip() throws {
        let json = try JSONValueEncoder(snakeCaseKeys: true).encode(Self.value)
        #expect(
            json == [
                "code": "J7X-3", "timer_seconds": 90, "clock_now_ms": 5,
                "lead": ["leader_name": "Ann", "device_id": "d1"],
                "players": [["leader_name": "Bob", "device_id": "d2"]],
            ])
        #expect(try JSONValueDecoder(snakeCaseKeys: true).decode(Request.self, from: json) == Self.value)
        // Without the option, nothing changes: the names as Swift spells them.
        #expect(try JSONValueEncoder().encode(Self.value)["timerSeconds"] == 90)
        let spelled = try JSONValueEncoder(snakeCaseKeys: true).encode(Spelled(untilBack: true))
        #expect(spelled == ["until_back": true])
        #expect(
            try JSONValueDecoder(snakeCaseKeys: true).decode(Spelled.self, from: spelled) == Spelled(untilBack: true))
    }

    @Test("a missing or mistyped field is named as the wire spells it")
    func errorsNameTheWireField() throws {
        let decoder = JSONValueDecoder(snakeCaseKeys: true)
        var json = try JSONValueEncoder(snakeCaseKeys: true).encode(Self.value)
        guard case .object(var fields) = json else { Issue.record("not an object"); return }
        fields["timer_seconds"] = nil
        let missing = try #require(throws: DecodingError.self) {
            try decoder.decode(Request.self, from: .object(fields))
        }
        #expect(missing.fieldAndRule.field == "timer_seconds" && missing.fieldAndRule.rule == "is required")
        fields["timer_seconds"] = 90
        fields["players"] = [["leader_name": 7, "device_id": "d2"]]
        json = .object(fields)
        let mistyped = try #require(throws: DecodingError.self) { try decoder.decode(Request.self, from: json) }
        #expect(mistyped.fieldAndRule.field == "players.0.leader_name", "\(mistyped.summary)")
    }
}
