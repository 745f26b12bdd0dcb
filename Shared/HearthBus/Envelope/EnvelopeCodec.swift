import Foundation

/// Turns envelopes into frames and back, strictly: anything that is not a well-formed envelope of
/// a known version is a typed `EnvelopeError`, never a crash or a half-filled value.
public struct EnvelopeCodec: Sendable {
    /// Frames larger than this are refused before parsing (default 256 KiB).
    public var maximumBytes: Int

    public init(maximumBytes: Int = BusLimits.defaultMaximumMessageBytes) {
        self.maximumBytes = maximumBytes
    }

    // MARK: - Encoding

    /// The envelope as compact JSON bytes.
    /// - Throws: `EnvelopeError.oversized` when the result exceeds `maximumBytes`.
    public func encode(_ envelope: Envelope) throws(EnvelopeError) -> [UInt8] {
        // Everything before `data` is written through a pointer into one allocation sized for it
        // (with room for a small event's data): appending its twenty pieces to an array checked
        // the array's capacity and uniqueness each time. `hearth-bench codec` encode, four
        // interleaved rounds of the two builds: 307–347 ns before, 212–249 ns after.
        let headBytes =
            Head.fixedBytes + JSONWriter.maximumStringBytes(envelope.id)
            + JSONWriter.maximumStringBytes(envelope.source) + JSONWriter.maximumStringBytes(envelope.device)
            + JSONWriter.maximumStringBytes(envelope.type) + 3 * JSONWriter.maximumIntegerBytes + Timestamp.length
        var out = [UInt8](unsafeUninitializedCapacity: headBytes + Self.dataRoom) { buffer, count in
            let start = buffer.baseAddress!
            var cursor = start
            func put(_ literal: StaticString) {
                cursor.update(from: literal.utf8Start, count: literal.utf8CodeUnitCount)
                cursor += literal.utf8CodeUnitCount
            }
            put(Head.open)
            cursor += JSONWriter.writeString(envelope.id, at: cursor)
            put(Head.source)
            cursor += JSONWriter.writeString(envelope.source, at: cursor)
            put(Head.device)
            cursor += JSONWriter.writeString(envelope.device, at: cursor)
            put(Head.seq)
            cursor += JSONWriter.writeInteger(envelope.seq, at: cursor)
            if envelope.epoch != 0 {
                put(Head.epoch)
                cursor += JSONWriter.writeInteger(envelope.epoch, at: cursor)
            }
            if envelope.runStart != 1 {
                put(Head.runStart)
                cursor += JSONWriter.writeInteger(envelope.runStart, at: cursor)
            }
            put(Head.timestamp)
            Timestamp.write(envelope.timestamp, at: cursor)
            cursor += Timestamp.length
            put(Head.type)
            cursor += JSONWriter.writeString(envelope.type, at: cursor)
            put(Head.data)
            count = cursor - start
        }
        JSONWriter.write(envelope.data, to: &out)
        out.append(UInt8(ascii: "}"))
        guard out.count <= maximumBytes else { throw .oversized(bytes: out.count, limit: maximumBytes) }
        return out
    }

    /// The head's fixed text, every member's key and punctuation up to `data`'s value, as
    /// computed properties: the compiler folds `fixedBytes` to a constant (the `static let` it
    /// replaced was summed at run time, and every encode called `swift_once` for it).
    private enum Head {
        static var open: StaticString { #"{"v":1,"id":"# }
        static var source: StaticString { #","src":"# }
        static var device: StaticString { #","dev":"# }
        static var seq: StaticString { #","seq":"# }
        static var epoch: StaticString { #","ep":"# }
        static var runStart: StaticString { #","run":"# }
        static var timestamp: StaticString { #","ts":""# }
        static var type: StaticString { #"","type":"# }
        static var data: StaticString { #","data":"# }

        /// All of it, as though every optional member were written.
        static var fixedBytes: Int {
            open.utf8CodeUnitCount + source.utf8CodeUnitCount + device.utf8CodeUnitCount + seq.utf8CodeUnitCount
                + epoch.utf8CodeUnitCount + runStart.utf8CodeUnitCount + timestamp.utf8CodeUnitCount
                + type.utf8CodeUnitCount + data.utf8CodeUnitCount
        }
    }

    /// Room left after the head for `data` and the closing brace before the array must grow.
    private static let dataRoom = 128

    // MARK: - Decoding

    /// Reads an envelope from one frame.
    /// - Throws: the first `EnvelopeError` found, checking size, UTF-8, JSON, then each field.
    public func decode(_ frame: [UInt8]) throws(EnvelopeError) -> Envelope {
        // `withUnsafeBytes` rethrows untyped errors: the outcome comes out as a typed Result.
        try frame.withUnsafeBytes { bytes in Result { () throws(EnvelopeError) in try decode(bytes) } }.get()
    }

    /// Reads an envelope from one frame's bytes where they lie (a subscriber decodes from
    /// libzmq's buffer, see `ReceivedMessage`).
    /// - Throws: the first `EnvelopeError` found, checking size, UTF-8, JSON, then each field.
    public func decode(_ frame: UnsafeRawBufferPointer) throws(EnvelopeError) -> Envelope {
        guard frame.count <= maximumBytes else { throw .oversized(bytes: frame.count, limit: maximumBytes) }
        let bytes = frame.assumingMemoryBound(to: UInt8.self)
        guard UTF8Check.isValid(bytes) else { throw .invalidUTF8 }
        // The envelope's members go straight into their typed fields, with no dictionary and no
        // `JSONValue` in between, matched by their keys' bytes; `ts` is read in place. Unknown
        // members are ignored, so a v1 reader accepts v1 envelopes that grew a field.
        var fields = Fields()
        try JSONParser.forEachMember(of: bytes, match: { Slot(key: $0)?.rawValue }) {
            (slot, parser) throws(EnvelopeError) in
            try fields.read(Slot(rawValue: slot)!, from: &parser)
        }
        return try fields.envelope()
    }

    /// The members an envelope has, in the order they are judged (`v` to `data`; `ep` and `run`
    /// are optional).
    private enum Slot: Int {
        case version, id, source, device, seq, epoch, runStart, timestamp, type, data

        /// The member's key, for errors; `init(key:)` spells the same keys out (the tests of a
        /// missing or repeated member go through both).
        var name: String {
            switch self {
            case .version: "v"
            case .id: "id"
            case .source: "src"
            case .device: "dev"
            case .seq: "seq"
            case .epoch: "ep"
            case .runStart: "run"
            case .timestamp: "ts"
            case .type: "type"
            case .data: "data"
            }
        }

        /// The slot of a key's bytes, compared without making a `String` (a `switch` over
        /// `String` compared each case in turn). Switching on the length first beats searching
        /// a table of names: `hearth-bench codec` decode 1,020 ns against 1,130 ns for that
        /// search.
        init?(key: UnsafeBufferPointer<UInt8>) {
            func equals(_ text: StaticString) -> Bool {
                text.utf8CodeUnitCount == key.count && memcmp(text.utf8Start, key.baseAddress!, key.count) == 0
            }
            let slot: Slot? =
                switch key.count {
                case 1: equals("v") ? .version : nil
                case 2: equals("id") ? .id : equals("ep") ? .epoch : equals("ts") ? .timestamp : nil
                case 3:
                    equals("src")
                        ? .source
                        : equals("dev")
                            ? .device
                            : equals("seq")
                                ? .seq
                                : equals("run") ? .runStart : nil
                case 4: equals("type") ? .type : equals("data") ? .data : nil
                default: nil
                }
            guard let slot else { return nil }
            self = slot
        }
    }

    /// An envelope's members as read, each in its own type. A member of the wrong type or
    /// breaking its rule is kept as a problem, not thrown at once: problems and missing members
    /// are judged in `Slot` order once the whole object is read, so the first error is the same
    /// whatever order the members came in.
    private struct Fields {
        var version: Int64?, seq: Int64?, epoch: Int64?, runStart: Int64?
        var id: String?, source: String?, device: String?, type: String?
        var timestamp: Date?
        var data: JSONValue?
        /// One bit per slot read.
        var present: UInt16 = 0
        /// The earliest problem in slot order, with its slot.
        var problem: (slot: Slot, error: EnvelopeError)?

        /// Reads the member of `slot` at the parser's position.
        mutating func read(_ slot: Slot, from parser: inout JSONParser) throws(EnvelopeError) {
            switch slot {
            case .version: version = try integer(slot, from: &parser)
            case .seq: seq = try integer(slot, from: &parser)
            case .epoch: epoch = try integer(slot, from: &parser)
            case .runStart: runStart = try integer(slot, from: &parser)
            case .id: id = try text(slot, from: &parser)
            case .source: source = try text(slot, from: &parser)
            case .device: device = try text(slot, from: &parser)
            case .type: type = try text(slot, from: &parser)
            case .timestamp:
                let stamp = try parser.withString { bytes -> Stamp in
                    guard !bytes.isEmpty else { return .empty }
                    return Timestamp.parse(utf8: bytes).map(Stamp.time) ?? .invalid
                }
                if stamp == nil { try skipMistyped(slot, expected: "a string", from: &parser) }
                try mark(slot)
                switch stamp {
                case .time(let date): timestamp = date
                case .empty: note(slot, .invalidField("ts", rule: "must not be empty"))
                case .invalid:
                    note(
                        slot, .invalidField("ts", rule: "must be an ISO 8601 UTC time such as 2026-11-21T18:30:00.000Z")
                    )
                case nil: break
                }
            case .data:
                let value = try parser.value()
                try mark(slot)
                data = value
            }
        }

        /// What a `ts` string held.
        private enum Stamp {
            case time(Date), empty, invalid
        }

        /// An integer member; `nil` (with the problem noted) when it is another type.
        private mutating func integer(_ slot: Slot, from parser: inout JSONParser) throws(EnvelopeError) -> Int64? {
            let value = try parser.value()
            try mark(slot)
            guard let number = value.intValue else {
                note(slot, .wrongType(field: slot.name, expected: "an integer", found: value.typeName))
                return nil
            }
            return number
        }

        /// A string member (an empty one is noted as a problem); `nil` (with the problem noted)
        /// when it is another type.
        private mutating func text(_ slot: Slot, from parser: inout JSONParser) throws(EnvelopeError) -> String? {
            let text = try parser.string()
            if text == nil { try skipMistyped(slot, expected: "a string", from: &parser) }
            try mark(slot)
            if text?.isEmpty == true { note(slot, .invalidField(slot.name, rule: "must not be empty")) }
            return text
        }

        /// Reads a value of the wrong type and notes it.
        private mutating func skipMistyped(
            _ slot: Slot, expected: String, from parser: inout JSONParser
        ) throws(EnvelopeError) {
            let value = try parser.value()
            note(slot, .wrongType(field: slot.name, expected: expected, found: value.typeName))
        }

        /// Records that `slot` was read; a second member with its key is malformed JSON.
        private mutating func mark(_ slot: Slot) throws(EnvelopeError) {
            let bit: UInt16 = 1 << slot.rawValue
            guard present & bit == 0 else { throw .malformedJSON("duplicate key '\(slot.name)'") }
            present |= bit
        }

        private mutating func note(_ slot: Slot, _ error: EnvelopeError) {
            if let problem, problem.slot.rawValue <= slot.rawValue { return }
            problem = (slot, error)
        }

        /// The envelope, or the first error in slot order.
        func envelope() throws(EnvelopeError) -> Envelope {
            func check(_ slot: Slot) throws(EnvelopeError) {
                if let problem, problem.slot == slot { throw problem.error }
            }
            func required<T>(_ slot: Slot, _ value: T?) throws(EnvelopeError) -> T {
                try check(slot)
                guard let value else { throw .missingField(slot.name) }
                return value
            }
            func count(_ slot: Slot, _ value: Int64?) throws(EnvelopeError) -> UInt64? {
                try check(slot)
                guard let value else { return nil }
                guard value >= 0 else { throw .invalidField(slot.name, rule: "must not be negative, found \(value)") }
                return UInt64(value)
            }
            let version = try required(.version, version)
            guard version == Envelope.currentVersion else { throw .unsupportedVersion(version) }
            let id = try required(.id, id)
            let source = try required(.source, source)
            let device = try required(.device, device)
            let seq = try required(.seq, try count(.seq, seq))
            let epoch = try count(.epoch, epoch) ?? 0
            let runStart = try count(.runStart, runStart) ?? 1
            let timestamp = try required(.timestamp, timestamp)
            let type = try required(.type, type)
            let data = try required(.data, data)
            return Envelope(
                id: id, source: source, device: device, seq: seq, epoch: epoch, runStart: runStart,
                timestamp: timestamp, type: type, data: data)
        }
    }
}
