/// Completion candidates made safe for the shell that asked for them.
///
/// Names come from household data that any paired device writes (a collection, a member, a
/// person), so a name is never code. swift-argument-parser prints a custom completion's
/// candidates one a line, as they are, and each shell's script reads them its own way:
/// - bash hands them to `compgen -W`, which expands each word (`$(…)`, backticks, `$VAR`,
///   `~`, braces, globs) but honours quoting: each candidate goes single-quoted, so the
///   expansion gives back the literal name. bash then puts the word on the command line with
///   readline's filename quoting (the generated script's `complete -o filenames`), which in bash
///   5.2.15 escapes spaces, quotes, `;`, `|`, `&`, `()`, `<>`, globs and `!` but leaves `$` and
///   backticks as they are: a name holding either would expand or run when the line runs, so
///   bash is not offered those names (typing them still works);
/// - zsh's `_describe` reads `name:description`: a name's `\\` and `:` are escaped;
/// - fish reads a line as `name<TAB>description`, never expanding it.
///
/// A name holding a control character (a newline would split it into two candidates, a tab
/// would end it) is not offered in any shell.
///
/// Free of swift-argument-parser (`Completions` maps its `CompletionShell`), so that the fuzz target
/// `completion-candidates` compiles it alone and checks every output against bash itself.
enum CompletionCandidates {
    /// The shells whose completion scripts swift-argument-parser generates.
    enum Shell: Sendable, CaseIterable {
        case bash, zsh, fish
    }

    /// `names` as `shell`'s completion script must read them to offer each one literally.
    ///
    /// Every check and escape works on Unicode scalars, as the shells read bytes, never on
    /// Swift's characters: a quote or a backslash followed by a combining mark (`'` U+064C) is one
    /// `Character`, which a `String` replacement of `"'"` does not match, while bash still reads
    /// the quote (the fuzz target found `Ky'ٌğ *{x,y} ~` brace-expanded that way).
    static func quoted(_ names: [String], for shell: Shell) -> [String] {
        names.filter { name in
            !name.isEmpty && !name.unicodeScalars.contains(where: isControl)
                && (shell == .zsh || shell == .fish || !name.unicodeScalars.contains { $0 == "$" || $0 == "`" })
        }.map { name in
            switch shell {
            case .zsh: escaping(name, ["\\": "\\\\", ":": "\\:"])
            case .fish: name
            case .bash: "'" + escaping(name, ["'": "'\\''"]) + "'"
            }
        }
    }

    /// `text` with each scalar in `replacements` replaced, scalar by scalar.
    private static func escaping(_ text: String, _ replacements: [Unicode.Scalar: String]) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let replacement = replacements[scalar] {
                out.append(contentsOf: replacement.unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
