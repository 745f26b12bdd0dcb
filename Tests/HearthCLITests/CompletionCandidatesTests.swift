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

    @Test(
        "a quote or backslash with a combining mark after it (one Swift character) is still escaped: bash gives back the name, zsh reads it back"
    )
    func combiningMarks() async throws {
        // What the fuzz target found: `'` U+064C is one Character, and a String replacement of
        // "'" left it unescaped, so bash's compgen brace-expanded the rest.
        let names = ["Ky'\u{064C}ğ *{x,y} ~", "Zo\\\u{0301}:x"]
        let quoted = CompletionCandidates.quoted(names, for: .bash)
        #expect(quoted[0] == "'Ky'\\''\u{064C}ğ *{x,y} ~'", "\(quoted)")
        let script = "IFS=$'\\n' compgen -W \"$1\" -- ''"
        let run = try await ChildProcess.run(
            "/bin/bash", ["--noprofile", "--norc", "-c", script, "bash", quoted.joined(separator: "\n")])
        #expect(run.stdout.split(separator: "\n").map(String.init) == names, "\(run.stderr)")
        #expect(
            CompletionCandidates.quoted(names, for: .zsh).map { Array($0.unicodeScalars) }
                == ["Ky'\u{064C}ğ *{x,y} ~", "Zo\\\\\u{0301}\\:x"].map { Array($0.unicodeScalars) })
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
