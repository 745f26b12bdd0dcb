import Foundation
import HearthBus
import HearthCore

/// Line-at-a-time output: each line is flushed at once so a pipe reader sees it immediately.
///
/// Text lines and errors never carry a raw control character or direction override to the
/// terminal, whatever is stored (an older database, an import made before the rules): each is
/// shown visibly (`^[` for ESC, `<U+202E>`), so a title cannot recolour, retitle or beep the
/// terminal. JSON escapes control characters itself.
enum Output {
    /// Writes `text` and a newline. A line break the command put in `text` breaks the line (a
    /// session's status is a header and a line per player); every other control character is
    /// made visible.
    static func line(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { visible(String($0)) }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// `1 lesson`, `2 lessons`: a count with its noun in the right number.
    static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }

    /// `text` with control characters (C0 but tab, DEL, C1) and direction overrides made visible.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard isHidden(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            if scalar.value < 0x20 {
                out += "^" + String(UnicodeScalar(UInt8(scalar.value + 0x40)))
            } else if scalar.value == 0x7F {
                out += "^?"
            } else {
                out += String(format: "<U+%04X>", scalar.value)
            }
        }
        return out
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\t" && TextRules.isRefused(scalar, multiline: false)
    }

    static func json(_ value: JSONValue) {
        line(value.jsonText)
    }

    /// A typed reply as the service sent it (replies write every absent field as `null`).
    static func reply<Reply: Encodable>(_ reply: Reply) throws {
        json(try JSONValue(reply: reply))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((visible(text) + "\n").utf8))
    }
}

extension Output {
    /// Writes `text` as is (no newline added), for screen redraws.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
