import HearthCore
import Testing

@Suite("Wording: ordinals and counts as people say them (issue 63)", .timeLimit(.minutes(1)))
struct WordingTests {
    @Test("1st, 2nd, 3rd, 4th, 11th-13th, 21st, 22nd, 23rd, 31st, 111th")
    func ordinals() {
        let said = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31, 101, 111].map(Ordinal.english)
        #expect(
            said == [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "31st", "101st", "111th",
            ])
    }

    @Test("a game's summary: '1 turn', '2 turns'")
    func turns() {
        let one = TurnStatistics(tallies: [.init(player: "a", name: "Ann", turns: 1, total: 45_000, longest: 45_000)])
        #expect(one.summary.hasPrefix("1 turn in "), "\(one.summary)")
        let two = TurnStatistics(tallies: [.init(player: "a", name: "Ann", turns: 2, total: 90_000, longest: 45_000)])
        #expect(two.summary.hasPrefix("2 turns in "), "\(two.summary)")
    }
}
