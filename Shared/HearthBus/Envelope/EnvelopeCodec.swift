import Foundation

/// Turns envelopes into frames and back, strictly: anything that is not a well-formed envelope of
/// a known version is a typed `EnvelopeError`, never a crash or a half-filled value.
public struct EnvelopeCodec: Sendable {
    /// Frames larger than this are refused before parsing (default 256 KiB).
    public var maximumBytes: Int

    public init(maximumBytes: Int = HearthConfiguration.defaultMaximumMessageBytes) {
        self.maximumBytes = maximumBytes
    }

    // MARK: - Encoding

    /// The envelope as compact JSON bytes.
    /// - Throws: `EnvelopeError.oversized` when the result exceeds `maximumBytes`.
    public func encode(_ envelope: Envelope) throws(EnvelopeError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160)
        out.append(contentsOf: #"{"v":1,"id":"#.utf8)
        EnvelopeCodec.appendString(envelope.id, to: &out)
        out.append(contentsOf: #","src":"#.utf8)
        EnvelopeCodec.appendString(envelope.source, to: &out)
        out.append(contentsOf: #","dev":"#.utf8)
        EnvelopeCodec.appendString(envelope.device, to: &out)
        out.append(contentsOf: #","seq":"#.utf8)
        out.append(contentsOf: String(envelope.seq).utf8)
        out.append(contentsOf: #","ts":""#.utf8)
        out.append(contentsOf: Timestamp.format(envelope.timestamp).utf8)
        out.append(contentsOf: #"","type":"#.utf8)
        EnvelopeCodec.appendString(envelope.type, to: &out)
        out.append(contentsOf: #","data":"#.utf8)
        out.append(contentsOf: envelope.data.jsonBytes)
        out.append(UInt8(ascii: "}"))
        guard out.count <= maximumBytes else { throw .oversized(bytes: out.count, limit: maximumBytes) }
        return out
    }

    /// Appends `value` as a JSON string literal (RFC 8259 escaping).
    static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: - Decoding

    /// Reads an envelope from one frame.
    /// - Throws: the first `EnvelopeError` found, checking size, UTF-8, JSON, then each field.
    public func decode(_ frame: [UInt8]) throws(EnvelopeError) -> Envelope {
        guard frame.count <= maximumBytes else { throw .oversized(bytes: frame.count, limit: maximumBytes) }
        guard String(validating: frame, as: UTF8.self) != nil else { throw .invalidUTF8 }
        let value = try JSONValue.parse(frame)
        guard case .object(let fields) = value else { throw .notAnObject(found: value.typeName) }

        let version = try Self.field("v", in: fields, as: "an integer") { $0.intValue }
        guard version == Envelope.currentVersion else { throw .unsupportedVersion(version) }
        let id = try Self.nonEmptyString("id", in: fields)
        let source = try Self.nonEmptyString("src", in: fields)
        let device = try Self.nonEmptyString("dev", in: fields)
        let seq = try Self.field("seq", in: fields, as: "an integer") { $0.intValue }
        guard seq >= 0 else { throw .invalidField("seq", rule: "must not be negative, found \(seq)") }
        let ts = try Self.nonEmptyString("ts", in: fields)
        guard let timestamp = Timestamp.parse(ts) else {
            throw .invalidField("ts", rule: "must be an ISO 8601 UTC time such as 2026-11-21T18:30:00.000Z")
        }
        let type = try Self.nonEmptyString("type", in: fields)
        guard let data = fields["data"] else { throw .missingField("data") }
        return Envelope(
            id: id,
            source: source,
            device: device,
            seq: UInt64(seq),
            timestamp: timestamp,
            type: type,
            data: data
        )
    }

    private static func field<T>(
        _ name: String,
        in fields: [String: JSONValue],
        as expected: String,
        _ extract: (JSONValue) -> T?
    ) throws(EnvelopeError) -> T {
        guard let value = fields[name] else { throw .missingField(name) }
        guard let typed = extract(value) else {
            throw .wrongType(field: name, expected: expected, found: value.typeName)
        }
        return typed
    }

    private static func nonEmptyString(_ name: String, in fields: [String: JSONValue]) throws(EnvelopeError) -> String {
        let value = try field(name, in: fields, as: "a string") { $0.stringValue }
        guard !value.isEmpty else { throw .invalidField(name, rule: "must not be empty") }
        return value
    }
}
