import Foundation

/// Text in five-row block capitals, readable on a terminal across a table (`hearth turn watch`).
enum BlockLetters {
    /// Each glyph: five rows of five cells, `#` drawn.
    private static let glyphs: [Character: [String]] = [
        "A": [" ### ", "#   #", "#####", "#   #", "#   #"],
        "B": ["#### ", "#   #", "#### ", "#   #", "#### "],
        "C": [" ####", "#    ", "#    ", "#    ", " ####"],
        "D": ["#### ", "#   #", "#   #", "#   #", "#### "],
        "E": ["#####", "#    ", "#### ", "#    ", "#####"],
        "F": ["#####", "#    ", "#### ", "#    ", "#    "],
        "G": [" ####", "#    ", "#  ##", "#   #", " ### "],
        "H": ["#   #", "#   #", "#####", "#   #", "#   #"],
        "I": ["#####", "  #  ", "  #  ", "  #  ", "#####"],
        "J": ["  ###", "   # ", "   # ", "#  # ", " ##  "],
        "K": ["#   #", "#  # ", "###  ", "#  # ", "#   #"],
        "L": ["#    ", "#    ", "#    ", "#    ", "#####"],
        "M": ["#   #", "## ##", "# # #", "#   #", "#   #"],
        "N": ["#   #", "##  #", "# # #", "#  ##", "#   #"],
        "O": [" ### ", "#   #", "#   #", "#   #", " ### "],
        "P": ["#### ", "#   #", "#### ", "#    ", "#    "],
        "Q": [" ### ", "#   #", "# # #", "#  # ", " ## #"],
        "R": ["#### ", "#   #", "#### ", "#  # ", "#   #"],
        "S": [" ####", "#    ", " ### ", "    #", "#### "],
        "T": ["#####", "  #  ", "  #  ", "  #  ", "  #  "],
        "U": ["#   #", "#   #", "#   #", "#   #", " ### "],
        "V": ["#   #", "#   #", "#   #", " # # ", "  #  "],
        "W": ["#   #", "#   #", "# # #", "## ##", "#   #"],
        "X": ["#   #", " # # ", "  #  ", " # # ", "#   #"],
        "Y": ["#   #", " # # ", "  #  ", "  #  ", "  #  "],
        "Z": ["#####", "   # ", "  #  ", " #   ", "#####"],
        "0": [" ### ", "#  ##", "# # #", "##  #", " ### "],
        "1": ["  #  ", " ##  ", "  #  ", "  #  ", " ### "],
        "2": [" ### ", "#   #", "  ## ", " #   ", "#####"],
        "3": ["#### ", "    #", " ### ", "    #", "#### "],
        "4": ["#   #", "#   #", "#####", "    #", "    #"],
        "5": ["#####", "#    ", "#### ", "    #", "#### "],
        "6": [" ### ", "#    ", "#### ", "#   #", " ### "],
        "7": ["#####", "    #", "   # ", "  #  ", "  #  "],
        "8": [" ### ", "#   #", " ### ", "#   #", " ### "],
        "9": [" ### ", "#   #", " ####", "    #", " ### "],
        " ": ["     ", "     ", "     ", "     ", "     "],
        "-": ["     ", "     ", " ### ", "     ", "     "],
        "'": ["  #  ", "  #  ", "     ", "     ", "     "],
        ".": ["     ", "     ", "     ", "     ", "  #  "],
        "!": ["  #  ", "  #  ", "  #  ", "     ", "  #  "],
        ",": ["     ", "     ", "     ", "  #  ", " #   "],
    ]

    /// The rows of `text` in block capitals (accents folded away), or `nil` if a character has
    /// no glyph or the result is wider than `width` columns.
    static func render(_ text: String, width: Int) -> [String]? {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).uppercased()
        var rows = Array(repeating: "", count: 5)
        for character in folded {
            guard let glyph = glyphs[character] else { return nil }
            for row in 0..<5 { rows[row] += glyph[row].replacingOccurrences(of: "#", with: "█") + " " }
        }
        guard let first = rows.first, first.count <= width else { return nil }
        return rows
    }

    /// The terminal's width in columns (80 when it cannot be asked).
    static var terminalWidth: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
