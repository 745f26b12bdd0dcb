/// One command a service answers, as a type: its name, written once here; its request's fields,
/// the value itself; and the type of its reply. The sender builds the value and
/// `CommandClient.send` (HearthBus) encodes it and decodes the reply; the service decodes the
/// request with `CommandRequest.decode`, so neither side reads or writes an argument by a key
/// spelled by hand.
///
/// A command's value encodes to exactly the arguments object the service has always read: keys
/// in snake_case (`timerSeconds` as `timer_seconds`, so no `CodingKeys` is needed for that),
/// absent optionals left out; other devices and older builds see the same bytes.
public protocol HearthCommand: Codable, Sendable {
    /// What the service answers, as a `Decodable` type of this module.
    associatedtype Reply: Decodable & Sendable
    /// The command's name on the wire (`CommandRequest.command`).
    static var name: String { get }
}
