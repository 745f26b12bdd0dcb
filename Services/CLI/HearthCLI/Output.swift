import Foundation
import HearthBus

/// Line-at-a-time output: each line is flushed at once so a pipe reader sees it immediately.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func json(_ value: JSONValue) {
        line(value.jsonText)
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

extension Output {
    /// Writes `text` as is (no newline added), for screen redraws.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
