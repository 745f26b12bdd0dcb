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
        Timestamp.append(envelope.timestamp, to: &out)
        out.append(contentsOf: #"","type":"#.utf8)
        EnvelopeCodec.appendString(envelope.type, to: &out)
        out.append(contentsOf: #","data":"#.utf8)
        JSONWriter.write(envelope.data, to: &out)
        out.append(UInt8(ascii: "}"))
        guard out.count <= maximumBytes else { throw .oversized(bytes: out.count, limit: maximumBytes) }
        return out
    }

    static func appendString(_ value: String, to out: inout [UInt8]) {
        JSONWriter.appendString(value, to: &out)
    }

    // MARK: - Decoding

    /// Reads an envelope from one frame.
    /// - Throws: the first `EnvelopeError` found, checking size, UTF-8, JSON, then each field.
    public func decode(_ frame: [UInt8]) throws(EnvelopeError) -> Envelope {
        guard frame.count <= maximumBytes else { throw .oversized(bytes: frame.count, limit: maximumBytes) }
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
