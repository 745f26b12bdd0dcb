import HearthTesting
import Testing

/// Runs `hearth ARGUMENTS` against `stack`, expecting it to succeed; returns what it printed.
func hearthSucceeding(_ stack: TestStack, _ arguments: [String]) async throws -> String {
    let result = try await stack.hearth(arguments)
    #expect(result.status == 0, "hearth \(arguments.joined(separator: " ")): \(result.stderr)")
    return result.stdout
}
