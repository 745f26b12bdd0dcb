import Foundation

/// What any text a person types may hold, in every domain: no control characters (C0 and DEL,
/// except newline and tab in multi-line fields; C1) and no bidirectional overrides (U+202A–U+202E,
/// U+2066–U+2069), which make text read differently than it is stored. Joiners, variation
/// selectors and emoji sequences are text ("👨‍👩‍👧‍👦" is one name).
public enum TextRules {
    /// The characters refused in `multiline` or single-line text.
    public static func isRefused(_ scalar: Unicode.Scalar, multiline: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: !multiline
        case 0x00...0x1F, 0x7F, 0x80...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Checks `text` for `field`.
    /// - Parameters:
    ///   - maximumLength: the most characters (grapheme clusters) allowed.
    ///   - multiline: newline and tab allowed (notes, descriptions).
    /// - Throws: `RuleError` naming the field and the rule.
    public static func check(
        _ text: String, field: String, maximumLength: Int, multiline: Bool = false
    ) throws(RuleError) {
        if let bad = text.unicodeScalars.first(where: { isRefused($0, multiline: multiline) }) {
            let code = String(format: "U+%04X", bad.value)
            throw RuleError(
                field: field,
                rule: "must not contain control characters or direction overrides (found \(code))")
        }
        guard text.count <= maximumLength else {
            throw RuleError(field: field, rule: "must be at most \(maximumLength) characters, got \(text.count)")
        }
    }

    /// `text` trimmed, required (not blank) and checked for `field`.
    /// - Throws: `RuleError` naming the field and the rule.
    public static func required(_ text: String, field: String, maximumLength: Int) throws(RuleError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw RuleError(field: field, rule: "is required and must not be blank") }
        try check(trimmed, field: field, maximumLength: maximumLength)
        return trimmed
    }
}
