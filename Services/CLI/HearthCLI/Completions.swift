import ArgumentParser
import HearthBus
import HearthCore
import HearthHost

/// Tab completion of what only the running stack knows: todo ids, collections, members, people
/// and game codes. The shell runs `hearth` to ask; each asks the service once, within 300 ms,
/// and offers nothing when the stack is down (the shell then completes nothing, as for free text).
enum Completions {
    /// Open todos' short ids (the first 8 characters, which every todo command takes).
    static let todo = CompletionKind.custom { words, _, prefix in
        await offer(words, prefix, .store, TodoCommands.List()) {
            $0.todos.map { String($0.id.prefix(8)) }
        }
    }

    /// Plans' and lists' names.
    static let collection = CompletionKind.custom { words, _, prefix in
        await offer(words, prefix, .store, CollectionCommands.List()) {
            $0.collections.map(\.name)
        }
    }

    /// The household's members.
    static let member = CompletionKind.custom { words, _, prefix in
        await offer(words, prefix, .store, MemberCommands.List()) {
            $0.members.map(\.name)
        }
    }

    /// The people the social planner keeps.
    static let person = CompletionKind.custom { words, _, prefix in
        await offer(words, prefix, .store, PeopleCommands.List()) {
            $0.people.map(\.name)
        }
    }

    /// The codes of the games this device can see.
    static let session = CompletionKind.custom { words, _, prefix in
        await offer(words, prefix, .turn, TurnCommands.Sessions()) {
            $0.sessions.map(\.code)
        }
    }

    /// The candidates starting with `prefix` (ignoring case) from `command`'s reply.
    /// - Parameter words: the command line so far, for its `--home`.
    private static func offer<C: HearthCommand>(
        _ words: [String], _ prefix: String, _ service: HearthService, _ command: C,
        _ candidates: (C.Reply) -> [String]
    ) async -> [String] {
        var home: String?
        if let index = words.firstIndex(of: "--home"), index + 1 < words.count { home = words[index + 1] }
        guard let configuration = try? HearthConfiguration.load(home: home) else { return [] }
        let calls = ServiceCalls(configuration: configuration, timeout: .milliseconds(300))
        let reply = try? await calls.call(service, command)
        await calls.close()
        guard let reply else { return [] }
        let lowered = prefix.lowercased()
        return CompletionCandidates.quoted(
            candidates(reply).filter { $0.lowercased().hasPrefix(lowered) }, for: CompletionShell.requesting)
    }
}

extension CompletionCandidates {
    /// `names` as the requesting shell's completion script must read them; with no shell known (a
    /// person running the completion call by hand), as bash.
    static func quoted(_ names: [String], for shell: CompletionShell?) -> [String] {
        let known: Shell =
            switch shell {
            case .zsh: .zsh
            case .fish: .fish
            default: .bash
            }
        return quoted(names, for: known)
    }
}
