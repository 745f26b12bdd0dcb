import Foundation
import HearthBus

/// Replies held to their typed contracts (issue 43): a reply decodes as its `HearthCore` type
/// and encodes back to the same JSON, key for key and null for null; and the reply of the same
/// name captured from the build before the types (`Tests/Fixtures/wire/<domain>/`) does too, and
/// matches it but for random ids, times and this machine's name.
///
/// `HEARTH_CAPTURE_WIRE=1 swift test --filter WireContract` writes the fixtures a reply has none
/// of yet (a reply newly typed, captured before its service changes); `=all` rewrites them.
public enum WireFixtures {
    /// A reply's name (the command, with `+case` for a second shape) and its JSON.
    public struct Reply: Sendable {
        public let name: String
        public let json: JSONValue

        public init(name: String, json: JSONValue) { (self.name, self.json) = (name, json) }
    }

    /// Decodes a reply as its type and encodes it back as replies are written.
    public typealias RoundTrip = @Sendable (JSONValue) throws -> JSONValue

    public static func roundTrip<T: Codable & SendableMetatype>(_ type: T.Type) -> RoundTrip {
        { try JSONValueEncoder(writesNulls: true).encode(try $0.decode(T.self)) }
    }

    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/wire")

    /// What is wrong with `replies` of `domain`, one line each (none: they hold). Writes missing
    /// fixtures first when `HEARTH_CAPTURE_WIRE` is set.
    public static func problems(
        _ domain: String, _ replies: [Reply], types: [String: RoundTrip]
    ) throws -> [String] {
        try capture(domain, replies)
        var problems: [String] = []
        for reply in replies {
            guard let type = types[reply.name] else {
                problems.append("\(reply.name): no type")
                continue
            }
            if try type(reply.json) != reply.json {
                problems.append("\(reply.name) does not write back as it was read")
            }
            let file = folder.appendingPathComponent(domain).appendingPathComponent(reply.name + ".json")
            let earlier = try JSONValue.parse(Array(try Data(contentsOf: file)))
            if try type(earlier) != earlier {
                problems.append("the earlier build's \(reply.name) does not write back unchanged")
            }
            if normalised(reply.json) != normalised(earlier) {
                problems.append("\(reply.name) is not what the earlier build sent")
            }
        }
        return problems
    }

    /// `value` with its random ids, keys' fingerprints, times and durations replaced, this
    /// machine's name replaced, and lists
    /// (and a clash's two sides) in a fixed order, so two runs of the same script compare equal:
    /// the order of equal things follows their random ids.
    public static func normalised(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text):
            // Random ids, and the times operations were written (`modified_at`, history).
            return .string(
                text.replacing(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, with: "<id>")
                    .replacing(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/, with: "<instant>")
                    .replacing(/[0-9A-F]{4} [0-9A-F]{4} [0-9A-F]{4}/, with: "<fingerprint>"))
        case .array(let items): return .array(items.map(normalised).sorted { $0.jsonText < $1.jsonText })
        case .object(let members):
            var normal = members.mapValues(normalised)
            // This device's name is its host's, another on another machine.
            for key in ["device_name", "modified_by_name", "suggested_by_name"] where normal[key]?.stringValue != nil {
                normal[key] = "<device>"
            }
            // Measured, counted down on a clock, or read off it; and keys and signatures made afresh.
            for key in ["duration_ms", "expires_in_s", "wall", "at", "undone_at"] where normal[key]?.intValue != nil {
                normal[key] = 0
            }
            for key in ["signing_key", "sig"] where normal[key]?.stringValue != nil { normal[key] = "<key>" }
            if let first = normal["first"], let second = normal["second"], second.jsonText < first.jsonText {
                (normal["first"], normal["second"]) = (second, first)
            }
            return .object(normal)
        default: return value
        }
    }

    static func capture(_ domain: String, _ replies: [Reply]) throws {
        guard let mode = ProcessInfo.processInfo.environment["HEARTH_CAPTURE_WIRE"] else { return }
        let directory = folder.appendingPathComponent(domain)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for reply in replies {
            let file = directory.appendingPathComponent(reply.name + ".json")
            if mode == "all" || !FileManager.default.fileExists(atPath: file.path) {
                try Data(reply.json.jsonBytes).write(to: file)
            }
        }
    }
}

/// A script of commands whose replies are kept, by name, to hold to their types.
public struct WireScript {
    public private(set) var replies: [WireFixtures.Reply] = []
    private let request: (String, [String: JSONValue]) async throws -> JSONValue

    public init(_ request: @escaping (String, [String: JSONValue]) async throws -> JSONValue) { self.request = request }

    /// Sends `command` and keeps its reply as `name`.
    @discardableResult
    public mutating func keep(
        _ name: String, _ command: String, _ arguments: [String: JSONValue] = [:]
    ) async throws -> JSONValue {
        let reply = try await request(command, arguments)
        replies.append(WireFixtures.Reply(name: name, json: reply))
        return reply
    }
}
