/// A day of the month as people say it: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st…
public enum Ordinal {
    public static func english(_ number: Int) -> String {
        let suffix =
            switch (number % 100, number % 10) {
            case (11...13, _): "th"
            case (_, 1): "st"
            case (_, 2): "nd"
            case (_, 3): "rd"
            default: "th"
            }
        return "\(number)\(suffix)"
    }
}
