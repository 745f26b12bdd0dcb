import Foundation

/// A failed system call (not a libzmq one): its `errno` and what was being done.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value the call left.
    public let code: Int32
    /// The call and its subject, such as `bind(UDP port 5670)` or `flock run/store.lock`.
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// The error the call that just failed left in `errno`.
    public static func last(_ operation: String) -> SystemCallError {
        SystemCallError(code: errno, operation: operation)
    }

    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
