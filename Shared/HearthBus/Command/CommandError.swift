/// A refused command: a stable `code` for programs and a `message` for people.
public struct CommandError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Stable identifier such as `unknown_command` or `invalid_argument`.
    public let code: String
    /// What was wrong, naming the field and the rule.
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// The request was not valid JSON or lacked the request fields.
    public static func malformedRequest(_ message: String) -> CommandError {
        CommandError(code: "malformed_request", message: message)
    }

    /// No such command on this service.
    public static func unknownCommand(_ command: String, service: String) -> CommandError {
        CommandError(code: "unknown_command", message: "'\(command)' is not a command of \(service)")
    }

    /// An argument breaks a rule; the message names the argument.
    public static func invalidArgument(_ field: String, _ rule: String) -> CommandError {
        CommandError(code: "invalid_argument", message: "'\(field)' \(rule)")
    }
}
