import Foundation

/// A submitted HTML form (`application/x-www-form-urlencoded`): its fields by name, the first
/// value of each kept.
struct URLForm: Sendable {
    /// The largest form body read; anything longer is refused before it is parsed.
    static let maximumBytes = 64 * 1024

    private(set) var fields: [String: String] = [:]

    /// Parses `a=1&b=two+words`; a field without `=` is an empty value; bytes that are not UTF-8
    /// after decoding make the field empty rather than failing the form (the owning service then
    /// names it as missing).
    init(_ body: String) {
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            guard !name.isEmpty, fields[name] == nil else { continue }
            fields[name] = parts.count > 1 ? Self.decode(parts[1]) : ""
        }
    }

    subscript(_ name: String) -> String? { fields[name] }

    /// A field's value trimmed, or `nil` when it is missing or blank.
    func text(_ name: String) -> String? {
        guard let value = fields[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            return nil
        }
        return value
    }

    private static func decode(_ part: Substring) -> String {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
    }

    /// Percent-escapes a query value.
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values (the templates do
    /// this themselves; this is for the few answers written without one).
    static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
