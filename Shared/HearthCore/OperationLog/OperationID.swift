/// Names one operation uniquely: the device that made it and that device's counter (1, 2, 3…).
public struct OperationID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let device: String
    public let counter: UInt64

    public init(device: String, counter: UInt64) {
        self.device = device
        self.counter = counter
    }

    public static func < (lhs: OperationID, rhs: OperationID) -> Bool {
        (lhs.device, lhs.counter) < (rhs.device, rhs.counter)
    }

    /// `device:counter`, the form used in commands and files.
    public var description: String { "\(device):\(counter)" }

    /// Reads `device:counter`.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let counter = UInt64(text[text.index(after: colon)...]),
            colon != text.startIndex, counter > 0
        else { return nil }
        self.init(device: String(text[..<colon]), counter: counter)
    }
}
