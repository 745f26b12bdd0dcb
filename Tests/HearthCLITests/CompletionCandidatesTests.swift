import ArgumentParser
import Foundation
import HearthTesting
import Testing

@testable import HearthCLI

@Suite(
    "Completion candidates: quoted for the shell that asked, control characters never offered", .timeLimit(.minutes(1)))
struct CompletionCandidatesTests {
    static let hostile = ["Ann $(touch x)", "Bo `id`", "Cy's; rm", "Fi:colon \\back", "Ed * ? [ab] {x,y} ~"]

    @Test("bash: each candidate single-quoted, and compgen -W gives back the literal names without running anything")
    func bash() async throws {
        let quoted = CompletionCandidates.quoted(Self.hostile, for: .bash)
        #expect(quoted == ["'Cy'\\''s; rm'", "'Fi:colon \\back'", "'Ed * ? [ab] {x,y} ~'"], "no $ or backtick in bash")
        // As the generated script does: compgen -W over the lines, one word each.
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("ran-\(UUID().uuidString)").path
        let names = ["Ann's (touch \(marker)) ;", "Ed * ? [ab] {x,y} ~ \\ | tee \(marker) &"]
        let words = CompletionCandidates.quoted(names, for: .bash).joined(separator: "\n")
        let script = "IFS=$'\\n' compgen -W \"$1\" -- ''"
        let run = try await ChildProcess.run("/bin/bash", ["--noprofile", "--norc", "-c", script, "bash", words])
        #expect(run.stdout.split(separator: "\n").map(String.init) == names, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test("zsh: the colon _describe splits on and backslashes escaped; fish: as they are")
    func zshAndFish() {
        #expect(CompletionCandidates.quoted(["Fi:colon \\back"], for: .zsh) == ["Fi\\:colon \\\\back"])
        #expect(CompletionCandidates.quoted(Self.hostile, for: .fish) == Self.hostile)
        #expect(CompletionCandidates.quoted(Self.hostile, for: .zsh).count == Self.hostile.count)
    }

    @Test("a name with a newline, tab or other control character is offered in no shell")
    func controlCharacters() {
        for shell: CompletionShell? in [.bash, .zsh, .fish, nil] {
            #expect(
                CompletionCandidates.quoted(["Gus\ntouch x", "Tab\there", "Bell\u{7}", "", "Ok"], for: shell).count == 1
            )
        }
    }
}
