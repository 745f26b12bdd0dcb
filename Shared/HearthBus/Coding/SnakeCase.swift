/// Swift's camelCase names as the wire's snake_case ones: `timerSeconds` is `timer_seconds`,
/// `clockNowMS` is `clock_now_ms`; a name with no capital (already snake_case, or one word)
/// stays as it is, without a copy. Commands' requests are written and read so
/// (`JSONValueEncoder.snakeCaseKeys`, `JSONValueDecoder.snakeCaseKeys`), so their types need no
/// `CodingKeys` that only spell names in snake_case.
enum SnakeCase {
    static func name(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return name }
        let characters = Array(name)
        var result = ""
        result.reserveCapacity(name.utf8.count + 4)
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                // A word starts at a capital after a small letter or digit ("timerSeconds"), and
                // at the last capital of a run that a small letter follows ("URLValue").
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    result.append("_")
                }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    /// The camelCase name a snake_case one is written for (`timer_seconds` → `timerSeconds`), for
    /// a container's `allKeys`.
    static func swiftName(_ name: String) -> String {
        guard name.contains("_") else { return name }
        let words = name.split(separator: "_", omittingEmptySubsequences: false)
        return String(words[0]) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

/// A key as the wire spells it, for coding paths and errors: a refused request names
/// `timer_seconds`, the field the sender wrote, not the Swift property.
struct WireKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
