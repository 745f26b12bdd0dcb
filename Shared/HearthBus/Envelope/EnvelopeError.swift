/// Why a frame is not a valid Hearth envelope or topic. Each case names the field and the rule.
public enum EnvelopeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The frame is larger than the configured maximum message size.
    case oversized(bytes: Int, limit: Int)
    /// The frame is not valid UTF-8.
    case invalidUTF8
    /// The frame is not JSON at all.
    case malformedJSON(String)
    /// The JSON is valid but not an object.
    case notAnObject(found: String)
    /// A required field is absent.
    case missingField(String)
    /// A field holds the wrong JSON type.
    case wrongType(field: String, expected: String, found: String)
    /// `v` names an envelope version this build does not speak.
    case unsupportedVersion(Int64)
    /// A field has the right type but breaks a rule.
    case invalidField(String, rule: String)
    /// A topic breaks the topic rules.
    case invalidTopic(String, rule: String)
    /// A bus message does not have exactly the two frames topic and envelope.
    case wrongFrameCount(Int)

    /// A short stable identifier for counters and JSON error codes.
    public var code: String {
        switch self {
        case .oversized: "oversized"
        case .invalidUTF8: "invalid_utf8"
        case .malformedJSON: "malformed_json"
        case .notAnObject: "not_an_object"
        case .missingField: "missing_field"
        case .wrongType: "wrong_type"
        case .unsupportedVersion: "unsupported_version"
        case .invalidField: "invalid_field"
        case .invalidTopic: "invalid_topic"
        case .wrongFrameCount: "wrong_frame_count"
        }
    }

    public var description: String {
        switch self {
        case .oversized(let bytes, let limit):
            "message is \(bytes) bytes; the limit is \(limit) bytes"
        case .invalidUTF8:
            "message is not valid UTF-8"
        case .malformedJSON(let reason):
            "message is not valid JSON: \(reason)"
        case .notAnObject(let found):
            "envelope must be a JSON object, found \(found)"
        case .missingField(let field):
            "envelope field '\(field)' is missing"
        case .wrongType(let field, let expected, let found):
            "envelope field '\(field)' must be \(expected), found \(found)"
        case .unsupportedVersion(let version):
            "envelope field 'v' is \(version); this build speaks version \(Envelope.currentVersion)"
        case .invalidField(let field, let rule):
            "envelope field '\(field)' \(rule)"
        case .invalidTopic(let topic, let rule):
            "topic '\(topic)' is invalid: \(rule)"
        case .wrongFrameCount(let count):
            "a bus message has 2 frames (topic, envelope); this one has \(count)"
        }
    }
}
