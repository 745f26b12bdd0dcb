import Foundation

// libFuzzer target: names from household data (NUL-separated in the input) through
// `CompletionCandidates.quoted` for each shell, and what each shell's completion script makes of
// the result (issue 62: TAB ran code held in a name). Properties checked on every input (a
// violation traps, which libFuzzer reports as a crash):
// - bash: every name without a control character, `$` or backtick is offered, single-quoted, and
//   bash's own `compgen -W` over the candidates (as the generated script runs it) gives back
//   exactly those names, in order: nothing expanded, nothing ran;
// - zsh: every name without a control character is offered, and reading `\\` and `\:` back gives
//   the name (no bare `:`, which `_describe` would split on);
// - fish: every name without a control character is offered as it is (no tab or newline).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompletionCandidates(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let names = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    func control(_ name: String) -> Bool {
        name.unicodeScalars.contains {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}"
        }
    }
    let plain = names.filter { !$0.isEmpty && !control($0) }

    let fish = CompletionCandidates.quoted(names, for: .fish)
    if fish != plain { fatalError("fish: \(fish) for \(plain)") }

    let zsh = CompletionCandidates.quoted(names, for: .zsh)
    // Read scalar by scalar, as zsh reads bytes: a backslash and a combining mark after it are
    // one Swift character.
    let zshRead = zsh.map { word -> String in
        var name = String.UnicodeScalarView()
        var escaped = false
        for character in word.unicodeScalars {
            if escaped {
                if character != "\\" && character != ":" { fatalError("zsh: a stray escape in \(word)") }
                name.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fatalError("zsh: a bare colon in \(word)")
            } else {
                name.append(character)
            }
        }
        if escaped { fatalError("zsh: a trailing escape in \(word)") }
        return String(name)
    }
    if zshRead != plain { fatalError("zsh: \(zshRead) for \(plain)") }

    let offered = plain.filter { !$0.unicodeScalars.contains { $0 == "$" || $0 == "`" } }
    let bash = CompletionCandidates.quoted(names, for: .bash)
    if bash.count != offered.count { fatalError("bash: \(bash) for \(offered)") }
    guard !bash.isEmpty else { return 0 }
    // As the generated script does: the lines, one word each, through compgen -W. (posix_spawn:
    // Foundation's Process leaks a weak reference per run, which LeakSanitizer reports.)
    let printed = bashOutput([
        "/bin/bash", "--noprofile", "--norc", "-c", "IFS=$'\\n' compgen -W \"$1\" -- ''", "bash",
        bash.joined(separator: "\n"),
    ])
    let words = String(decoding: printed, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        .dropLast().map(String.init)
    if words != offered { fatalError("bash gave \(words) for \(offered) (quoted \(bash))") }
    return 0
}

/// What `arguments` (a program and its arguments) prints on its standard output.
private func bashOutput(_ arguments: [String]) -> [UInt8] {
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { fatalError("pipe: \(errno)") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
    posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
    posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = arguments.map { strdup($0) } + [nil]
    let environment: [String] = ["LANG=C.UTF-8", "PATH=/nonexistent"]
    let envp = environment.map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
    close(pipeEnds[1])
    defer { close(pipeEnds[0]) }
    guard spawned == 0 else { fatalError("posix_spawn: \(spawned)") }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
        let count = read(pipeEnds[0], &buffer, buffer.count)
        if count > 0 { output += buffer[0..<count] } else if count == 0 || errno != EINTR { break }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return output
}
