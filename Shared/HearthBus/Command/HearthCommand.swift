import HearthCore

extension HearthCommand {
    /// The request's arguments: this value's fields.
    /// - Throws: `EncodingError` for a value JSON cannot carry (a non-finite number).
    public func arguments() throws -> [String: JSONValue] {
        guard case .object(let fields) = try JSONValueEncoder(snakeCaseKeys: true).encode(self) else {
            throw EncodingError.invalidValue(
                self, .init(codingPath: [], debugDescription: "\(Self.name)'s request must encode as an object"))
        }
        return fields
    }

    /// The request for this command with a fresh id (or `id`, to repeat one safely).
    public func request(id: String = UUIDText.make()) throws -> CommandRequest {
        CommandRequest(id: id, command: Self.name, arguments: try arguments())
    }
}

extension CommandRequest {
    /// This request's arguments as command `C`.
    /// - Throws: `CommandError.invalidArgument` naming the field and the rule it breaks (a
    ///   required field missing, a string where a number belongs).
    public func decode<C: HearthCommand>(_ command: C.Type) throws(CommandError) -> C {
        do {
            return try JSONValueDecoder(snakeCaseKeys: true).decode(C.self, from: .object(arguments))
        } catch let error as DecodingError {
            let (field, rule) = error.fieldAndRule
            throw CommandError.invalidArgument(field, rule)
        } catch {
            throw CommandError.invalidArgument(C.name, "\(error)")
        }
    }
}

extension CommandClient {
    /// Sends `command` and returns its reply as its type.
    /// - Parameter id: the request id (a fresh one when `nil`); pass the same id to repeat a
    ///   request safely.
    /// - Throws: as `request(_:args:id:)`, and `DecodingError` when the reply does not read as
    ///   `C.Reply` (a service of another build).
    public func send<C: HearthCommand>(_ command: C, id: String? = nil) async throws -> C.Reply {
        try await request(C.name, args: try command.arguments(), id: id).decode(C.Reply.self)
    }
}
