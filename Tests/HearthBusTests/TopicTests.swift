import HearthBus
import Testing

@Suite("Topic rules", .timeLimit(.minutes(1)))
struct TopicTests {
    @Test("valid topics pass", arguments: ["turn.J7X-3.changed", "health.bus", "a", "store.event_card.changed"])
    func valid(_ topic: String) throws {
        try Topic.validate(topic)
    }

    @Test(
        "invalid topics fail with the rule they break",
        arguments: [
            ("", "must not be empty"), ("turn..changed", "segments between dots"), (".turn", "segments between dots"),
            ("turn.", "segments between dots"), ("turn changed", "only letters"), ("tür", "only letters"),
            ("turn/x", "only letters"),
        ])
    func invalid(_ topic: String, _ rule: String) {
        let error = #expect(throws: EnvelopeError.self) { try Topic.validate(topic) }
        #expect(error?.description.contains(rule) == true, "\(String(describing: error))")
    }

    @Test("255 bytes is the longest topic")
    func length() throws {
        try Topic.validate(String(repeating: "a", count: 255))
        let error = #expect(throws: EnvelopeError.self) { try Topic.validate(String(repeating: "a", count: 256)) }
        #expect(error?.description.contains("at most 255 bytes") == true)
    }
}
