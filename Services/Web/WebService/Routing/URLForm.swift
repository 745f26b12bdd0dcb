import Foundation
import HearthBus
import Hummingbird

/// A submitted HTML form (`application/x-www-form-urlencoded`): its fields by name.
struct URLForm: Sendable {
    /// The largest form body read; anything longer is refused before it is parsed.
    static let maximumBytes = 64 * 1024

    let fields: [String: String]

    /// Reads the form with Hummingbird's decoder.
    /// - Throws: `CommandError` (`invalid_form`) with the decoder's reason: a name given twice, a
    ///   bad percent escape, a nested name such as `a[b]`.
    init(_ body: String) throws {
        do {
            fields = try URLEncodedFormDecoder().decode([String: String].self, from: body)
        } catch {
            throw CommandError(code: "invalid_form", message: "the form could not be read: \(error)")
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
