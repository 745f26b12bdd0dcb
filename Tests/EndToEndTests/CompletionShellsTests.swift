import Foundation
import HearthBus
import HearthTesting
import Testing

/// Tab completion of names another device wrote, typed in a real terminal (tmux) in bash, zsh and
/// fish: a name is offered as the literal word it is, and nothing in it ever runs (issue 62: bash's
/// `compgen -W` ran `$(…)` held in a name).
@Suite("End to end: completion of hostile names in bash, zsh and fish", .serialized, .timeLimit(.minutes(3)))
struct CompletionShellsTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// Names with each thing a shell might act on; each starts with its own letter, so one TAB
    /// completes it whole. Every command in them would leave a file in `ran`.
    static func names(ran: String) -> [String] {
        [
            "Ann $(touch \(ran)/dollar) x",
            "Bo `touch \(ran)/backtick` y",
            "Cy; touch \(ran)/semicolon",
            "Di 'single' \"double\" z",
            "Ed * ? [ab] {x,y} ~ &",
            "Fi:colon \\back | tee \(ran)/pipe",
            "Gil $HOME ${PATH} $((6*7))",
        ]
    }

    /// How each shell starts in the pane with Hearth's completion script loaded and no prompt
    /// decorations or suggestions to read past.
    static func shell(_ name: String, script: String, directory: String) -> (start: String, setup: [String]) {
        switch name {
        case "zsh":
            return (
                "zsh -f",
                [
                    "PS1='$ '; fpath=(\(directory) $fpath); autoload -Uz compinit; compinit -u -d \(directory)/.zcompdump",
                    "clear",
                ]
            )
        case "fish":
            return (
                "fish --no-config --private",
                [
                    "function fish_prompt; echo -n '$ '; end; set -g fish_autosuggestion_enabled 0; source \(script)",
                    "clear",
                ]
            )
        default:
            return ("bash --norc --noprofile", ["PS1='$ '; source \(script)", "clear"])
        }
    }

    @Test(
        "bash, zsh and fish complete each hostile name literally, and nothing in one runs",
        arguments: ["bash", "zsh", "fish"])
    func hostileNames(shellName: String) async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        let ran = stack.home.file("ran")
        try FileManager.default.createDirectory(atPath: ran, withIntermediateDirectories: true)
        let names = Self.names(ran: ran)
        for name in names {
            let added = try await stack.hearth(["people", "add", name])
            #expect(added.status == 0, "\(name): \(added.stderr)")
        }
        // zsh finds a completion function by its file's name on fpath.
        let directory = stack.home.file("completion-\(shellName)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = directory + (shellName == "zsh" ? "/_hearth" : "/hearth.\(shellName)")
        let generated = try await stack.hearth(["--generate-completion-script", shellName])
        try generated.stdout.write(toFile: script, atomically: true, encoding: .utf8)

        let (start, setup) = Self.shell(shellName, script: script, directory: directory)
        let path = ChildProcess.binaryDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let pane = TmuxPane(name: "completion")
        try await pane.start(
            "env HEARTH_HOME=\(stack.home.path) PATH=\(path) HOME=\(stack.home.path) TERM=xterm \(start)", width: 220,
            height: 50)
        defer { Task { await pane.close() } }
        for line in setup {
            try await pane.send(line, literal: true)
            try await pane.send("Enter")
        }
        // Typing waits for the bare prompt: keys typed while the shell still runs `clear` are
        // echoed by the terminal before the prompt, and the screen's first line is then theirs.
        let barePrompt = { (screen: String) in screen.split(separator: "\n").map(String.init) == ["$"] }
        try await pane.waitForScreen(timeout: .seconds(10), "a prompt", until: barePrompt)

        // bash puts `$` and backticks on the line unescaped (CompletionCandidates says why): it
        // is not offered those names, and the line stays as typed; zsh and fish complete them all.
        let offered = shellName == "bash" ? names.filter { !$0.contains("$") && !$0.contains("`") } : names
        #expect(offered.count == (shellName == "bash" ? 4 : 7))
        for (index, name) in names.enumerated() {
            // Type the first letter, TAB, and run what the shell completed: `people show` prints
            // the name it was given on its first line. A shell reads keys in order, so what is
            // typed after TAB lands after the completion.
            let typed = "hearth people show \(name.prefix(1))"
            let marker = "==end \(index)=="
            try await pane.send(typed, literal: true)
            try await pane.send("Tab")
            try await pane.send(" ; echo '\(marker)'", literal: true)
            try await pane.send("Enter")
            let screen = try await pane.waitForScreen(timeout: .seconds(10), marker) { screen in
                screen.split(separator: "\n").contains { $0 == marker }
            }
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if offered.contains(name) {
                #expect(lines.contains(name), "\(shellName) gave `people show` another word than '\(name)':\n\(screen)")
            } else {
                #expect(lines.first == "$ \(typed) ; echo '\(marker)'", "\(shellName) offered '\(name)':\n\(screen)")
            }
            try await pane.send("clear", literal: true)
            try await pane.send("Enter")
            try await pane.waitForScreen(timeout: .seconds(10), "a cleared screen", until: barePrompt)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: ran)
        #expect(leftovers.isEmpty, "\(shellName) ran code held in a name: \(leftovers)")
        await pane.close()
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
