import ArgumentParser
import Foundation
import HearthTesting
import Testing

@testable import HearthCLI

/// The fish script's conditions answered from one parse a TAB (`FishCompletion`): the same
/// candidates as swift-argument-parser's script on every line tried, and the command line parsed
/// a handful of times a TAB instead of once for each of the script's 1,150 entries.
@Suite("fish completion: the same candidates, the command line parsed once a TAB", .timeLimit(.minutes(5)))
struct FishCompletionTests {
    /// Lines across commands, in an order where a parse kept from the line before would give the
    /// wrong candidates.
    static let lines = [
        "hearth ", "hearth people sh", "hearth people show --", "hearth tod", "hearth todo add x --due ",
        "hearth turn ", "hearth --home /tmp people sh", "hearth event set 3 --",
    ]

    /// Each line's candidates from `script`, with how many times `__hearth_parse_tokens` ran.
    func complete(with script: String) async throws -> [(candidates: String, parses: Int)] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fish-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try script.write(toFile: directory + "/hearth.fish", atomically: true, encoding: .utf8)
        let probe = """
            source \(directory)/hearth.fish
            functions -c __hearth_parse_tokens __hearth_parse_tokens_counted
            function __hearth_parse_tokens -S
                set -g __parses (math $__parses + 1)
                __hearth_parse_tokens_counted
            end
            for line in $argv
                set -g __parses 0
                set -l candidates (complete -C $line 2>/dev/null)
                echo "== $__parses"
                printf '%s\\n' $candidates
            end
            """
        try probe.write(toFile: directory + "/probe.fish", atomically: true, encoding: .utf8)
        // No stack at this home: a custom completion offers nothing, at once. The generated
        // script takes 1-3 s a line alone, several times that beside a whole make test.
        let run = try await ChildProcess.run(
            "/usr/bin/env",
            [
                "HOME=\(directory)", "HEARTH_HOME=\(directory)/home",
                "PATH=\(ChildProcess.binaryDirectory):/usr/bin:/bin", "fish", "--no-config", "--private",
                directory + "/probe.fish",
            ] + Self.lines, timeout: .seconds(240))
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.components(separatedBy: "== ").dropFirst().map { block in
            let (count, candidates) = (block.prefix { $0 != "\n" }, block.drop { $0 != "\n" })
            return (String(candidates), Int(count) ?? -1)
        }
    }

    @Test("the generated script still defines what the faster conditions build on")
    func buildsOnTheGeneratedScript() {
        let generated = Hearth.completionScript(for: .fish)
        for definition in [
            "function __hearth_parse_tokens -S",
            "function __hearth_should_offer_completions_for_flags_or_options -a expected_commands",
            "function __hearth_should_offer_completions_for_positional -a expected_commands "
                + "positional_index_comparison expected_positional_index",
        ] {
            #expect(generated.contains(definition), "swift-argument-parser's fish script has no '\(definition)'")
        }
        #expect(FishCompletion.isRequested(by: ["--generate-completion-script", "fish"]))
        #expect(!FishCompletion.isRequested(by: ["--generate-completion-script", "bash"]))
    }

    @Test("every line completes as swift-argument-parser's script completes it, parsing a few times, not 1,000")
    func sameCandidatesFewerParses() async throws {
        let plain = try await complete(with: Hearth.completionScript(for: .fish))
        let faster = try await complete(with: FishCompletion.script)
        try #require(plain.count == Self.lines.count && faster.count == Self.lines.count)
        for (index, line) in Self.lines.enumerated() {
            #expect(faster[index].candidates == plain[index].candidates, "'\(line)'")
            #expect(!plain[index].candidates.isEmpty || line.hasSuffix("--due "), "'\(line)' offered nothing")
            #expect(faster[index].parses <= 40, "'\(line)': parsed \(faster[index].parses) times")
        }
        // An option's value (`--due `) asks only that option's entries; every other line, all.
        let (plainParses, fasterParses) = (plain.map(\.parses).reduce(0, +), faster.map(\.parses).reduce(0, +))
        #expect(plainParses > 900 * (Self.lines.count - 1), "the generated script parsed \(plainParses) times")
        #expect(fasterParses * 50 < plainParses, "parsed \(fasterParses) times against \(plainParses)")
        print("fish: \(Self.lines.count) TABs parsed the line \(plainParses) times, now \(fasterParses)")
    }
}
