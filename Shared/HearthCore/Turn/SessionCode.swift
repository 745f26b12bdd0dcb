/// Short session codes such as `J7X-3`, from an alphabet without look-alike characters (no 0/O,
/// no 1/I/L), so a code read across a table is typed right.
public enum SessionCode {
    /// The characters codes use.
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    /// A new code, different from every code in `taken`.
    public static func make(avoiding taken: Set<String>, using generator: inout some RandomNumberGenerator) -> String {
        while true {
            let characters = (0..<4).map { _ in alphabet.randomElement(using: &generator)! }
            let code = String(characters[0..<3]) + "-" + String(characters[3])
            if !taken.contains(code) { return code }
        }
    }

    /// Whether `text` has the shape of a code (upper case; see `normalized`).
    public static func isValid(_ text: String) -> Bool {
        let characters = Array(text)
        return characters.count == 5 && characters[3] == "-"
            && characters.enumerated().allSatisfy { $0.offset == 3 || alphabet.contains($0.element) }
    }

    /// A code as a person may type it (`j7x3`, `J7X 3`) in canonical form, or `nil`.
    public static func normalized(_ text: String) -> String? {
        let letters = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 4 else { return nil }
        let code = String(letters.prefix(3)) + "-" + String(letters.suffix(1))
        return isValid(code) ? code : nil
    }
}
