/// How long each player's turns took in a game, shown to everyone at `turn end` and forgotten
/// with the game. Counted by the leader's clock (paused time does not count).
///
/// A turn counts for its player when it ends by Done, by the timer passing it, or by the game
/// ending during it; a turn cut short by a skip, by its player sitting out or leaving does not
/// (that player did not play it).
public struct TurnStatistics: Codable, Sendable, Equatable {
    /// The most players a game's statistics remember (players who left count too).
    public static let maximumTallies = 64

    /// One player's turns.
    public struct Tally: Codable, Sendable, Equatable {
        /// The player's id, and name when the first turn was counted.
        public let player: String
        public let name: String
        public var turns: Int64
        /// Milliseconds, all turns together.
        public var total: Int64
        /// Milliseconds, the longest single turn.
        public var longest: Int64

        public init(player: String, name: String, turns: Int64, total: Int64, longest: Int64) {
            (self.player, self.name, self.turns, self.total, self.longest) = (player, name, turns, total, longest)
        }

        /// Milliseconds per turn, rounded down.
        public var average: Int64 { turns == 0 ? 0 : total / turns }

        enum CodingKeys: String, CodingKey {
            case player, name, turns
            case total = "total_ms"
            case longest = "longest_ms"
        }
    }

    /// In the order each player's first turn was counted.
    public private(set) var tallies: [Tally] = []

    public init(tallies: [Tally] = []) { self.tallies = tallies }

    /// Counts one turn of `milliseconds` for `player`.
    mutating func record(_ player: TurnSession.Player, milliseconds: Int64) {
        // Saturating at 2^53 − 1, the largest a received copy may carry (`validate`).
        let time = min(max(0, milliseconds), TurnSession.maximumSeq)
        if let index = tallies.firstIndex(where: { $0.player == player.id }) {
            tallies[index].turns = min(tallies[index].turns + 1, TurnSession.maximumSeq)
            tallies[index].total = min(tallies[index].total + time, TurnSession.maximumSeq)
            tallies[index].longest = max(tallies[index].longest, time)
        } else if tallies.count < Self.maximumTallies {
            tallies.append(Tally(player: player.id, name: player.name, turns: 1, total: time, longest: time))
        }
    }

    /// Turns counted, all players together.
    public var turns: Int64 { tallies.reduce(0) { $0 + $1.turns } }

    /// Milliseconds of play counted, all players together.
    public var total: Int64 { tallies.reduce(0) { $0 + $1.total } }

    /// "1 turn in 45 s", "12 turns in 8 min": the game so far in words.
    public var summary: String {
        "\(turns) turn\(turns == 1 ? "" : "s") in \(TurnClock.spoken(milliseconds: total))"
    }

    /// Who took longest: the player with the longest single turn (the first such, on a tie).
    public var longest: Tally? {
        tallies.reduce(nil) { best, tally in (best?.longest ?? -1) < tally.longest ? tally : best }
    }

    /// Checks a received copy: counts and times from 0 to 2^53 − 1, names as names are.
    func validate() throws(TurnError) {
        guard tallies.count <= Self.maximumTallies else {
            throw .malformed("statistics: more than \(Self.maximumTallies) players")
        }
        for tally in tallies {
            for (field, value) in [("turns", tally.turns), ("total_ms", tally.total), ("longest_ms", tally.longest)]
            where !(0...TurnSession.maximumSeq).contains(value) {
                throw .malformed("statistics: \(field) \(value) must be from 0 to \(TurnSession.maximumSeq)")
            }
            guard tally.longest <= tally.total else {
                throw .malformed("statistics: \(tally.name)'s longest turn is more than all turns together")
            }
            try TurnSession.check(name: tally.name)
        }
    }

    /// Lines for a terminal or a popup: "Ann  4 turns · average 1:02 · longest 2:10 · total 4:08".
    public var lines: [String] {
        tallies.map { tally in
            func time(_ milliseconds: Int64) -> String { TurnClock.text(milliseconds: milliseconds, roundingUp: false) }
            return
                "\(tally.name)  \(tally.turns) turn\(tally.turns == 1 ? "" : "s") · average \(time(tally.average)) · "
                + "longest \(time(tally.longest)) · total \(time(tally.total))"
        }
    }

    /// The same, short enough for one line of a popup (dunst's default width holds about 40
    /// characters): "Ann: 4 turns 4:08, avg 1:02, max 2:10".
    public var shortLines: [String] {
        tallies.map { tally in
            func time(_ milliseconds: Int64) -> String { TurnClock.text(milliseconds: milliseconds, roundingUp: false) }
            return "\(tally.name): \(tally.turns) turn\(tally.turns == 1 ? "" : "s") \(time(tally.total)), "
                + "avg \(time(tally.average)), max \(time(tally.longest))"
        }
    }

    /// "Ann took longest: 2 min 10 s", or `nil` before any turn was counted.
    public var longestLine: String? {
        longest.map { "\($0.name) took longest: \(TurnClock.spoken(milliseconds: $0.longest))" }
    }

    public init(from decoder: any Decoder) throws {
        tallies = try [Tally](from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try tallies.encode(to: encoder)
    }
}
