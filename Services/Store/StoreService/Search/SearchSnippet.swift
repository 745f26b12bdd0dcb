import Foundation
import HearthCore

/// A search result's snippet, marked here rather than by FTS5's `snippet()`: that function runs
/// the full-text query again for each result, and twenty of them added 5–13 ms to a search over
/// 100,000 rows (measured with `hearth-bench todos`'s queries), while marking the words of one
/// title or body takes microseconds. Words are told apart as the index's tokenizer does (letters,
/// numbers, private-use characters and symbols such as emoji; accents and case ignored), and a
/// word is marked when one of the searched words begins it.
enum SearchSnippet {
    /// About this many words around the first match.
    static let width = 12

    /// The snippet of the first of `texts` (a title, then a body) that has a match.
    static func parts(_ texts: [String], words query: String) -> [SnippetPart] {
        let wanted = query.split(whereSeparator: \.isWhitespace).flatMap {
            runs(String($0)).filter(\.word).map { fold($0.text) }
        }
        for text in texts {
            let runs = runs(text)
            let matches = runs.indices.filter { runs[$0].word && wanted.contains(where: fold(runs[$0].text).hasPrefix) }
            guard let first = matches.first else { continue }
            // From a few words before the first match, about `width` words.
            let words = runs.indices.filter { runs[$0].word }
            let position = words.firstIndex(of: first) ?? 0
            let from = words[max(0, position - 3)]
            let through = words[min(words.count - 1, max(position - 3, 0) + width - 1)]
            var parts: [SnippetPart] = from > 0 ? [SnippetPart(text: "…", match: false)] : []
            // To the end of the text when its last word is in (the full stop after it too).
            let end = through == words.last ? runs.count - 1 : through
            for index in from...end {
                let match = matches.contains(index)
                if let last = parts.last, last.match == match, !match {
                    parts[parts.count - 1] = SnippetPart(text: last.text + runs[index].text, match: false)
                } else {
                    parts.append(SnippetPart(text: runs[index].text, match: match))
                }
            }
            if end < runs.count - 1 {
                parts.append(SnippetPart(text: "…", match: false))
            }
            return parts
        }
        return []
    }

    /// `text` as runs of word characters and of the rest, in order.
    static func runs(_ text: String) -> [(text: String, word: Bool)] {
        var runs: [(text: String, word: Bool)] = []
        for character in text {
            let word = character.unicodeScalars.contains(where: isWordScalar)
            if let last = runs.last, last.word == word {
                runs[runs.count - 1].text.append(character)
            } else {
                runs.append((String(character), word))
            }
        }
        return runs
    }

    /// The tokenizer's word characters: `L*`, `N*`, `Co`, `So` (and combining marks with them).
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII's word characters are its letters and digits (none of its symbols is `So`), told
        // apart without the Unicode property lookup.
        if scalar.isASCII {
            return ("0"..."9").contains(scalar) || ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar)
        }
        return switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber, .privateUse, .otherSymbol, .nonspacingMark:
            true
        default: false
        }
    }

    /// `text` without case or accents. An ASCII word is only lower-cased: Foundation's folding
    /// was half of the snippets' 0.37 ms in a search (20 results' titles and bodies, word by word),
    /// and an ASCII word has no accent to fold.
    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
