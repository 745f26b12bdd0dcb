/// The answer to one command: `{"id":…,"ok":true,"data":…}` or
/// `{"id":…,"ok":false,"error":{"code":…,"message":…}}`; or, for a reply over the message limit,
/// `{"id":…,"ok":true,"parts":{"token":…,"count":…,"bytes":…}}`, which `CommandClient` fetches
/// and puts together (`ReplyParts`).
public struct CommandReply: Sendable, Equatable {
    /// The request id, or `nil` when the request was too broken to have one.
    public let id: String?
    public let result: Result<JSONValue, CommandError>
    /// Set when the reply is held by the service in parts (`result` is then empty).
    public let parts: ReplyParts.Header?

    public init(id: String?, result: Result<JSONValue, CommandError>) {
        self.id = id
        self.result = result
        parts = nil
    }

    /// A reply that says where its parts are.
    public init(id: String?, parts: ReplyParts.Header) {
        self.id = id
        result = .success(.null)
        self.parts = parts
    }

    public var jsonBytes: [UInt8] {
        var fields: [String: JSONValue] = ["id": id.map(JSONValue.string) ?? .null]
        if let parts {
            fields["ok"] = true
            fields["parts"] = parts.json
            return JSONValue.object(fields).jsonBytes
        }
        switch result {
        case .success(let data):
            fields["ok"] = true
            fields["data"] = data
        case .failure(let error):
            fields["ok"] = false
            fields["error"] = ["code": .string(error.code), "message": .string(error.message)]
        }
        return JSONValue.object(fields).jsonBytes
    }

    /// Reads a reply.
    /// - Throws: `CommandError` with code `malformed_reply` when it is not one.
    public static func decode(_ bytes: [UInt8]) throws(CommandError) -> CommandReply {
        let malformed = { (rule: String) in CommandError(code: "malformed_reply", message: rule) }
        guard let value = try? JSONValue.parse(bytes), let fields = value.objectValue else {
            throw malformed("reply is not a JSON object")
        }
        guard let ok = fields["ok"]?.boolValue else { throw malformed("reply field 'ok' must be a boolean") }
        let id = fields["id"]?.stringValue
        if ok, let parts = fields["parts"] {
            guard let header = ReplyParts.Header(parts) else {
                throw malformed("reply field 'parts' must hold a token, a count of 1–10000 and bytes")
            }
            return CommandReply(id: id, parts: header)
        }
        if ok { return CommandReply(id: id, result: .success(fields["data"] ?? .null)) }
        guard let error = fields["error"], let code = error["code"]?.stringValue,
            let message = error["message"]?.stringValue
        else {
            throw malformed("reply field 'error' must hold 'code' and 'message' strings")
        }
        return CommandReply(id: id, result: .failure(CommandError(code: code, message: message)))
    }
}
