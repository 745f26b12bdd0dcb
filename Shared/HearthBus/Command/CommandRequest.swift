/// One command: `{"id":"<uuid>","cmd":"ping","args":{…}}`.
///
/// The id makes a retry safe: a server answers a repeated id from memory instead of running the
/// command again.
public struct CommandRequest: Sendable, Equatable {
    public let id: String
    public let command: String
    public let arguments: [String: JSONValue]
    /// The CURVE public key (Z85) of the peer that sent it, on a server that authenticates its
    /// peers (`CommandServer(curveSecretKey:)`); never read from the request itself.
    public var peerKey: String?
    /// The IP address the peer's connection comes from (tcp), on such a server; never read from
    /// the request itself.
    public var peerAddress: String?

    public init(id: String = UUIDText.make(), command: String, arguments: [String: JSONValue] = [:]) {
        self.id = id
        self.command = command
        self.arguments = arguments
    }

    /// The request as JSON bytes.
    public var jsonBytes: [UInt8] {
        JSONValue.object(["id": .string(id), "cmd": .string(command), "args": .object(arguments)]).jsonBytes
    }

    /// Reads a request strictly.
    /// - Throws: `CommandError.malformedRequest` naming the field and the rule.
    public static func decode(_ bytes: [UInt8]) throws(CommandError) -> CommandRequest {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)  // checks UTF-8 first
        } catch {
            throw .malformedRequest("request is not valid JSON: \(error)")
        }
        guard case .object(let fields) = value else {
            throw .malformedRequest("request must be a JSON object, found \(value.typeName)")
        }
        guard let id = fields["id"] else { throw .malformedRequest("request field 'id' is missing") }
        guard let idText = id.stringValue, !idText.isEmpty else {
            throw .malformedRequest("request field 'id' must be a non-empty string, found \(id.typeName)")
        }
        guard let command = fields["cmd"] else { throw .malformedRequest("request field 'cmd' is missing") }
        guard let commandText = command.stringValue, !commandText.isEmpty else {
            throw .malformedRequest("request field 'cmd' must be a non-empty string, found \(command.typeName)")
        }
        var arguments: [String: JSONValue] = [:]
        if let args = fields["args"], args != .null {
            guard let object = args.objectValue else {
                throw .malformedRequest("request field 'args' must be an object, found \(args.typeName)")
            }
            arguments = object
        }
        return CommandRequest(id: idText, command: commandText, arguments: arguments)
    }
}

extension CommandRequest {
    /// The arguments as the command's request type in HearthCore: a field of the wrong type (or
    /// a whole number out of its range) is refused as `invalid_argument`, naming the field and
    /// what was found there.
    public func arguments<Arguments: Decodable>(as type: Arguments.Type) throws -> Arguments {
        do {
            return try JSONValue.object(arguments).decode(Arguments.self)
        } catch let error as DecodingError {
            let (field, rule) = error.fieldAndRule
            throw CommandError.invalidArgument(field, rule)
        }
    }
}
