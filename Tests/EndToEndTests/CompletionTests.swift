import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// Tab completion as bash runs it: the script `hearth --generate-completion-script bash` writes,
/// sourced, asked what follows a partly typed line; dynamic candidates come from the stack.
@Suite("End to end: bash completion", .serialized, .timeLimit(.minutes(2)))
struct CompletionTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// What bash offers for `line` (the cursor at its end), one candidate each, deduplicated.
    func complete(_ line: String, script: String, environment: [String: String]) async throws -> [String] {
        var words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if words.isEmpty { words = [""] }
        let quoted = words.map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
        let shell = """
            source '\(script)'
            COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            _hearth hearth "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let path = ChildProcess.binaryDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let run = try await ChildProcess.run(
            "/bin/bash", ["--noprofile", "--norc", "-c", shell], environment: environment.merging(["PATH": path]) { $1 }
        )
        #expect(run.status == 0, "\(run.stderr)")
        var seen = Set<String>()
        return run.stdout.split(separator: "\n").map(String.init).filter { seen.insert($0).inserted }
    }

    @Test("subcommands complete from the script; todo ids, collections and members from the running store")
    func completions() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        let script = stack.home.file("hearth.bash")
        let generated = try await stack.hearth(["--generate-completion-script", "bash"])
        try generated.stdout.write(toFile: script, atomically: true, encoding: .utf8)

        #expect(try await complete("hearth to", script: script, environment: stack.environment) == ["todo"])
        #expect(try await complete("hearth do", script: script, environment: stack.environment) == ["doctor"])

        #expect(try await stack.hearth(["collection", "add", "Groceries", "--kind", "list"]).status == 0)
        let added = try await stack.hearth(["todo", "add", "Buy bread", "--collection", "Groceries", "--json"])
        let id = try #require(JSONValue.parse(added.stdout)["todo"]?["id"]?.stringValue)
        #expect(try await stack.hearth(["member", "add", "Ann", "--role", "student"]).status == 0)

        #expect(
            try await complete("hearth todo done ", script: script, environment: stack.environment)
                == [String(id.prefix(8))])
        #expect(try await complete("hearth focus Gro", script: script, environment: stack.environment) == ["Groceries"])
        #expect(try await complete("hearth focus X", script: script, environment: stack.environment) == [])
        #expect(try await complete("hearth member remove ", script: script, environment: stack.environment) == ["Ann"])
        // A member option too (it completed nothing: issue 63).
        #expect(
            try await complete("hearth timetable day --member ", script: script, environment: stack.environment) == [
                "Ann"
            ])

        // With the stack down nothing is offered, and quickly.
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
        let started = ContinuousClock.now
        #expect(try await complete("hearth todo done ", script: script, environment: stack.environment) == [])
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
