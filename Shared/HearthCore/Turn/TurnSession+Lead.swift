/// Who leads a session, and which of two copies of it is the game.
extension TurnSession {
    /// The order of two copies of one session: the higher `term` first (the lead passed on
    /// after the other copy was made); within a term, the copy led by the device whose id sorts
    /// first (two devices that took over apart, from copies that differed, chose different
    /// leaders: every device picks the same one); then the higher `seq`. A total order, so
    /// every device settles on the same copy, whatever order the copies reach it in.
    public struct Rank: Comparable, Sendable {
        public let term: Int64
        public let leaderDevice: String
        public let seq: Int64

        public init(term: Int64, leaderDevice: String, seq: Int64) {
            (self.term, self.leaderDevice, self.seq) = (term, leaderDevice, seq)
        }

        public static func < (lhs: Rank, rhs: Rank) -> Bool {
            if lhs.term != rhs.term { return lhs.term < rhs.term }
            if lhs.leaderDevice != rhs.leaderDevice { return lhs.leaderDevice > rhs.leaderDevice }
            return lhs.seq < rhs.seq
        }
    }

    /// This copy's place in the order of copies.
    public var rank: Rank { Rank(term: term, leaderDevice: leaderPlayer?.device ?? "", seq: seq) }

    /// A device gone for good: its players leave (the turn and leadership pass as for any
    /// leaving player). What a device does when it takes over from a leader's vanished device.
    public mutating func remove(device: String) -> [Change] {
        var changes: [Change] = []
        for player in players where player.device == device {
            if let left = try? leave(player.id) { changes += left }
        }
        return changes
    }

    /// The leader's device restarted and lost the session: leadership passes to the next player
    /// (in order) at another device, and the players at `device` stay in the game, away until
    /// their device is heard again. Nothing changes when no player sits elsewhere.
    /// - Returns: the changes made (leader, then away).
    public mutating func handOver(from device: String) -> [Change] {
        guard state != .ended, let index = players.firstIndex(where: { $0.id == leader }) else { return [] }
        let order = players[(index + 1)...] + players[..<index]
        guard let successor = order.first(where: { $0.device != device }) else { return [] }
        var changes: [Change] = []
        if leaderPlayer?.device == device {
            leader = successor.id
            term += 1
            changes.append(bump(.leader, successor))
        }
        if let away = setPresence(device: device, present: false) { changes.append(away) }
        return changes
    }

    /// Lifts `seq` to at least `floor` (a new leader continuing after copies that saw more).
    public mutating func raiseSeq(to floor: Int64) {
        if seq < floor { seq = floor }
    }
}
