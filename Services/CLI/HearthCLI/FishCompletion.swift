import ArgumentParser

/// The fish completion script: swift-argument-parser's, with its conditions answered from one
/// parse of the command line a TAB instead of one each.
///
/// fish tests every `complete -c hearth` entry's condition on each TAB, about 1,150 of them for
/// Hearth's commands, and each of the generated script's conditions parsed the whole command line
/// again (`__hearth_parse_tokens`): 1.1–2.7 s a TAB on the 2-core test VM (fish 3.6, `complete -C`),
/// and over 10 s under a loaded CI run, where a person's TAB seemed to hang. The lines appended
/// here redefine the two condition functions to compare against a parse made once, by an entry
/// fish tests first (fish tests a command's entries last-defined first). Only the current
/// command's option entries parse again, for the options already given. 0.18–0.28 s a TAB, the
/// same candidates on every line `CompletionShellsTests` and the fish case of
/// `CompletionScriptTests` try.
enum FishCompletion {
    /// The generated script and the faster conditions.
    static var script: String { Hearth.completionScript(for: .fish) + conditionsFromOneParse }

    /// True when `arguments` (after the program's name) ask for the fish script.
    static func isRequested(by arguments: [String]) -> Bool {
        arguments == ["--generate-completion-script", "fish"] || arguments == ["--generate-completion-script=fish"]
    }

    /// Needs the generated script's `__hearth_parse_tokens` and its two condition functions'
    /// names and arguments; `CompletionScriptTests` fails when a new swift-argument-parser renames
    /// them.
    static let conditionsFromOneParse = """

        # Hearth: the command line parsed once a TAB (see FishCompletion.swift), not once a condition.
        function __hearth_parse_line
            set -l non_repeating_flags_or_options
            set -l non_repeating_flags_or_options_absent 0
            set -l positional_index 0
            set -l commands
            __hearth_parse_tokens
            set -g __hearth_parsed_commands "$commands"
            set -g __hearth_parsed_positional_index $positional_index
        end

        function __hearth_should_offer_completions_for_flags_or_options -a expected_commands
            test "$__hearth_parsed_commands" = "$expected_commands"; or return 1
            set -l non_repeating_flags_or_options $argv[2..]
            set -l non_repeating_flags_or_options_absent 0
            set -l positional_index 0
            set -l commands
            __hearth_parse_tokens
            test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
        end

        function __hearth_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
            test "$__hearth_parsed_commands" = "$expected_commands" -a \\( "$__hearth_parsed_positional_index" "$positional_index_comparison" "$expected_positional_index" \\)
        end

        # Defined last, so tested first: the parse the conditions above read.
        complete -c 'hearth' -n '__hearth_parse_line; false'

        """
}
