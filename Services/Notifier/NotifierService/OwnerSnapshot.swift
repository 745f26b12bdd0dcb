import HearthBus
import HearthCore

/// What a service that owns popups says is current, asked for when the notifier starts and
/// after it missed events from that service (a gap): the popups under `keyPrefix` that are not
/// live any more are closed, and `events` bring what is live back on screen.
struct OwnerSnapshot: Sendable {
    /// The popup keys this owner speaks for, such as `turn.` or `suggestion.`.
    let keyPrefix: String
    /// Whether a key under the prefix is still current.
    let isLive: @Sendable (String) -> Bool
    /// Events, as the owner would publish them, that show what is current.
    let events: [(topic: String, envelope: Envelope)]
    /// For turns: each live game's `seq` as its owner has it now. The owner is authoritative, so
    /// these replace whatever newer-looking `seq` the notifier saw (a forged or wild event must
    /// not mute a game's real updates).
    var turnSeqs: [String: Int64]?

    /// The games this device plays in, from `hearth-turn`: whose turn it is in each game being
    /// played; popups of games that ended are over. `nil` when it does not answer.
    static func turns(_ client: CommandClient, device: String) async -> OwnerSnapshot? {
        guard let list = try? await client.send(TurnCommands.Sessions()) else { return nil }
        var live: Set<String> = []
        var seqs: [String: Int64] = [:]
        var events: [(topic: String, envelope: Envelope)] = []
        for entry in list.sessions where entry.joined {
            live.insert(entry.code)
            guard entry.state == .playing,
                case .held(let session)? = try? await client.send(TurnCommands.Status(code: entry.code)).game,
                let yourTurn = YourTurnEvent(session), let data = try? JSONValue(encoding: yourTurn)
            else { continue }
            seqs[entry.code] = session.seq
            events.append(
                (
                    "turn.\(entry.code).your-turn",
                    Envelope(source: "turn", device: device, seq: 0, type: "turn.your-turn", data: data)
                ))
        }
        return OwnerSnapshot(
            keyPrefix: "turn.",
            isLive: { [live] key in
                let parts = key.split(separator: ".")
                return parts.count >= 2 && live.contains(String(parts[1]))
            },
            events: events, turnSeqs: seqs)
    }

    /// The year planner's open suggestions, from `hearth-store`; decided ones are over. `nil`
    /// when it does not answer.
    static func suggestions(_ client: CommandClient, device: String) async -> OwnerSnapshot? {
        guard let open = try? await client.send(EventCommands.Suggestions(status: "open")).suggestions else {
            return nil
        }
        let live = Set(open.map { "suggestion.\($0.id)" })
        return OwnerSnapshot(
            keyPrefix: "suggestion.", isLive: { [live] in live.contains($0) },
            events: open.map { suggestion in
                (
                    "store.suggestion.changed",
                    Envelope(
                        source: "store", device: device, seq: 0, type: "store.changed",
                        data: ["suggestion": (try? JSONValue(reply: suggestion)) ?? .null])
                )
            })
    }

    /// The reminders on screen by `hearth-scheduler`'s record (fired, not done, not snoozed);
    /// the rest are over. `nil` when it does not answer.
    static func reminders(_ client: CommandClient, device: String) async -> OwnerSnapshot? {
        guard let showing = try? await client.send(SchedulerQueries.Showing()).reminders
        else { return nil }
        let live = Set(showing.map { "reminder.\($0.reminder.id)" })
        return OwnerSnapshot(
            keyPrefix: "reminder.", isLive: { [live] in live.contains($0) },
            events: showing.compactMap { event in
                guard let data = try? JSONValue(encoding: event) else { return nil }
                return (
                    "reminder.due",
                    Envelope(source: "scheduler", device: device, seq: 0, type: "reminder.due", data: data)
                )
            })
    }
}
