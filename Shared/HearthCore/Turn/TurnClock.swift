/// A game's turn timer: how long each turn may take, and whether the turn passes by itself when
/// the time is up. Set at `turn create --timer 90s` or by the leader with `turn timer`.
public struct TurnTimer: Codable, Sendable, Equatable {
    /// The shortest and longest limit a timer takes, in milliseconds: 5 s to 24 h.
    public static let limits: ClosedRange<Int64> = 5_000...86_400_000

    /// How long a turn may take, in milliseconds.
    public let limit: Int64
    /// Whether the turn passes to the next player when the time is up (`--timer-pass`).
    public let passes: Bool

    /// - Throws: `TurnError.invalidTimer` when `limit` is outside `limits`.
    public init(limit: Int64, passes: Bool = false) throws(TurnError) {
        guard Self.limits.contains(limit) else {
            throw .invalidTimer("must be from 5 s to 24 h, not \(TurnClock.text(milliseconds: limit))")
        }
        (self.limit, self.passes) = (limit, passes)
    }

    /// Seconds from a limit as a person writes it: `90s`, `2m`, `1m30s`, `1h`, `90` (seconds),
    /// `1:30` (minutes and seconds).
    /// - Throws: `TurnError.invalidTimer` naming the forms, or the range when it is outside 5 s to 24 h.
    public static func seconds(parsing text: String) throws(TurnError) -> Int64 {
        let plain = text.lowercased().filter { !$0.isWhitespace }
        let invalid = TurnError.invalidTimer("must be a time such as 90s, 2m, 1m30s or 1:30, not '\(text)'")
        var total: Int64 = 0
        if plain.contains(":") {
            let parts = plain.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let minutes = Int64(parts[0]), let seconds = Int64(parts[1]),
                parts[1].count == 2, seconds < 60, parts[0].count <= 4
            else { throw invalid }
            total = minutes * 60 + seconds
        } else {
            var number = ""
            for character in plain {
                if character.isASCII && character.isNumber {
                    number.append(character)
                    continue
                }
                let unit: Int64? = ["h": 3_600, "m": 60, "s": 1][character]
                guard let unit, let value = Int64(number), number.count <= 6 else { throw invalid }
                total += value * unit
                number = ""
            }
            if !number.isEmpty {
                guard let value = Int64(number), number.count <= 6, total == 0 else { throw invalid }
                total = value
            }
            guard !plain.isEmpty else { throw invalid }
        }
        guard limits.contains(total * 1_000) else {
            throw .invalidTimer("must be from 5 s to 24 h, not \(TurnClock.text(milliseconds: total * 1_000))")
        }
        return total
    }

    /// The time left at which the warning goes out: 10 s, or a fifth of the limit when that is
    /// less (whichever comes later in the turn), so a 30 s timer warns at 6 s, not a third in.
    public var warnAt: Int64 { min(10_000, limit / 5) }

    enum CodingKeys: String, CodingKey {
        case limit = "limit_ms"
        case passes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            limit: try container.decode(Int64.self, forKey: .limit),
            passes: try container.decodeIfPresent(Bool.self, forKey: .passes) ?? false)
    }
}

/// The clock of the turn in play: how much of it has been played, the timer, whether the game
/// is paused. Every copy of a session holds it as of its `seq`; how far it ran since is for each
/// device's own clock (the leader's is the one that counts, see `TurnEngine`).
public struct TurnClock: Codable, Sendable, Equatable {
    /// Where the current turn's timer is: warned and expired each happen once a turn.
    public enum Stage: String, Codable, Sendable {
        case running, warned, expired
    }

    public var timer: TurnTimer?
    /// Milliseconds of the current turn played so far (the clock stops while paused).
    public var used: Int64 = 0
    /// `used` when the timer started for this turn: the turn's start, or when the timer was set.
    public var timerBase: Int64 = 0
    public var stage: Stage = .running
    public var paused = false

    public init(timer: TurnTimer? = nil) { self.timer = timer }

    /// Milliseconds left on the timer when `used` of the turn has been played; `nil` without one.
    public func left(at used: Int64) -> Int64? { timer.map { $0.limit - (used - timerBase) } }

    /// Milliseconds left as of this state.
    public var left: Int64? { left(at: used) }

    /// A new turn: nothing played, the timer full.
    mutating func restart() {
        (used, timerBase, stage) = (0, 0, .running)
    }

    enum CodingKeys: String, CodingKey {
        case timer, stage, paused
        case used = "used_ms"
        case timerBase = "timer_base_ms"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timer = try container.decodeIfPresent(TurnTimer.self, forKey: .timer)
        used = try container.decodeIfPresent(Int64.self, forKey: .used) ?? 0
        timerBase = try container.decodeIfPresent(Int64.self, forKey: .timerBase) ?? 0
        stage = try container.decodeIfPresent(Stage.self, forKey: .stage) ?? .running
        paused = try container.decodeIfPresent(Bool.self, forKey: .paused) ?? false
    }

    /// "1:30", "0:07", "1:02:03" (hours when there are any); negative times count as 0.
    /// - Parameter roundingUp: whole seconds rounded up, as a countdown shows them (0.2 s left
    ///   is still 0:01); else down, as a time taken is told.
    public static func text(milliseconds: Int64, roundingUp: Bool = true) -> String {
        let seconds = max(0, milliseconds + (roundingUp ? 999 : 0)) / 1000
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }

    /// A turn's length as a person says it: "12 s", "1 min 30 s", "1 h 2 min".
    public static func spoken(milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds) / 1000
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds / 60) min \(seconds % 60) s" }
        return "\(seconds / 3600) h \(seconds / 60 % 60) min"
    }
}

/// The live reading of a game's clock on one device, as the turn service gives it with
/// `status` and its events: the clock as of the session's `seq` moved on by the time since.
public struct TurnClockReading: Codable, Sendable, Equatable {
    /// Milliseconds of the current turn played.
    public let used: Int64
    /// Milliseconds left on the timer (negative once it is up); absent without a timer.
    public let left: Int64?
    public let paused: Bool

    public init(used: Int64, left: Int64?, paused: Bool) { (self.used, self.left, self.paused) = (used, left, paused) }

    /// The reading of `clock` moved on by `elapsed` milliseconds (not while paused).
    public init(_ clock: TurnClock, elapsed: Int64) {
        let used = clock.used + (clock.paused ? 0 : max(0, elapsed))
        self.init(used: used, left: clock.left(at: used), paused: clock.paused)
    }

    enum CodingKeys: String, CodingKey {
        case paused
        case used = "used_ms"
        case left = "left_ms"
    }

    /// What carries a reading beside a session: `status` replies and turn events (`"clock_now"`).
    public struct Carrier: Codable, Sendable {
        public let clockNow: TurnClockReading?
        enum CodingKeys: String, CodingKey { case clockNow = "clock_now" }
    }
}
