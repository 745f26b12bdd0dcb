import Foundation
import HearthBus
import HearthCore

/// Edits over every domain, as a family makes them on their devices: cards, todos and their
/// completions, notes, lessons, people and their interactions, check-ins. Each is sent to one
/// device's store; an edit counts once the store acknowledged it.
public enum HouseholdEdits {
    /// What every device shares before the edits: a todo list, and the school (a member, the
    /// fortnight's start, five periods), made on `device`, then synced.
    public static func school(on device: LANDevice) async throws {
        for kid in ["Kid", "Kid 2", "Kid 3", "Kid 4", "Kid 5"] {
            _ = try await device.send(MemberCommands.Add(name: kid, role: "student"))
        }
        _ = try await device.send(CollectionCommands.Add(name: "Home", kind: "list"))
        _ = try await device.send(SchoolCommands.Configure(week1Start: "2026-11-02"))
        _ = try await device.send(
            SchoolCommands.Bells(bells: [
                "1=09:00-10:00", "2=10:00-11:00", "3=11:15-12:15", "4=13:15-14:15", "5=14:15-15:15",
            ]))
    }

    /// Edit number `n` on `device`: which domain by `n`, names and times from the device and `n`
    /// (so two devices may pick the same card or lesson: a conflict, which must converge too).
    /// - Returns: `nil` when the store acknowledged it, else why not.
    public static func edit(
        _ n: Int, on device: LANDevice, todos: inout [String], people: inout [String]
    ) async -> String? {
        let tag = "\(device.name) \(n)"
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri"]
        do {
            switch n % 8 {
            case 0:
                _ = try await device.send(EventCommands.Set(year: 2027, month: n % 12 + 1, title: tag))
            case 1:
                let reply = try await device.send(
                    TodoCommands.Add(title: "Todo \(tag)", collection: "Home", due: "2026-12-\(10 + n % 18)"))
                if let id = reply.todo?.id { todos.append(id) }
            case 2 where !todos.isEmpty:
                _ = try await device.send(TodoCommands.Done(id: todos.removeLast()))
            case 4:
                // A slot of its own for every n up to 2,000: 50 a member (two weeks, five days,
                // five periods), five members.
                let (slot, kid) = (n / 8 % 50, n / 400)
                _ = try await device.send(
                    TimetableCommands.Add(
                        week: SlotText("\(slot % 2 + 1)"), day: SlotText(days[slot / 2 % 5]),
                        period: SlotText("\(slot / 10 + 1)"), subject: tag, room: "R\(n)",
                        member: kid == 0 ? "Kid" : "Kid \(kid + 1)"))
            case 5:
                let name = "Friend of \(tag)"
                _ = try await device.send(PeopleCommands.Add(name: name))
                people.append(name)
            case 6 where !people.isEmpty:
                _ = try await device.send(PeopleCommands.Log(person: people[people.count - 1], outcome: "call"))
            case 7 where !people.isEmpty:
                let person = people[people.count - 1]
                // A day of its own from 1 December, at each device's own hour: no clashes.
                let start = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z
                    .addingTimeInterval(Double(n / 8) * 86_400 + Double(9 + 2 * device.index) * 3_600)
                _ = try await device.send(
                    PlanCommands.Add(person: person, at: .text(Timestamp.format(start)), duration: "30m"))
            default:
                // A note; and what a completion, a log or a check-in becomes when there is
                // nothing yet to complete or log.
                _ = try await device.send(NoteCommands.Set(date: "2026-12-\(10 + n % 18)", text: tag))
            }
            return nil
        } catch {
            return "\(device.name): edit \(n) refused: \(error)"
        }
    }

    /// `count` edits spread over `devices`, each device editing at the same time as the others,
    /// numbered from `start` (a second run goes on from where the first stopped: its names and
    /// lessons' slots are new).
    /// - Returns: how many were acknowledged, and why the others were not.
    public static func run(
        _ count: Int, on devices: [LANDevice], from start: Int = 0
    ) async -> (acknowledged: Int, refusals: [String]) {
        await withTaskGroup(of: (Int, [String]).self) { group in
            for (slot, device) in devices.enumerated() {
                group.addTask {
                    var (todos, people): ([String], [String]) = ([], [])
                    var (acknowledged, refusals) = (0, [String]())
                    for n in stride(from: start + slot, to: start + count, by: devices.count) {
                        if let refusal = await edit(n, on: device, todos: &todos, people: &people) {
                            refusals.append(refusal)
                        } else {
                            acknowledged += 1
                        }
                    }
                    return (acknowledged, refusals)
                }
            }
            return await group.reduce((0, [])) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
    }
}

extension HouseholdEdits {
    /// Edit `n` on `device` as the chaos run makes them: each carries a tag of its own (a card's
    /// title, a todo's, a note, a person's name, a lesson's subject), so that its operation can
    /// be found on every device at the end.
    /// - Returns: the tag, when the store acknowledged the edit.
    public static func tagged(_ n: Int, on device: LANDevice) async -> String? {
        let tag = "chaos \(device.name) \(n)"
        do {
            switch n % 5 {
            case 0: _ = try await device.send(EventCommands.Set(year: 2028, month: n % 12 + 1, title: tag))
            case 1: _ = try await device.send(TodoCommands.Add(title: tag, collection: "Home"))
            case 2: _ = try await device.send(NoteCommands.Set(date: "2027-01-\(10 + n % 18)", text: tag))
            case 3: _ = try await device.send(PeopleCommands.Add(name: tag))
            default:
                _ = try await device.send(
                    TimetableCommands.Add(
                        week: SlotText("\(n % 2 + 1)"), day: SlotText(["Mon", "Tue", "Wed"][n % 3]),
                        period: SlotText("\(n % 5 + 1)"), subject: tag, room: "R1", member: "Kid"))
            }
            return tag
        } catch {
            return nil
        }
    }
}

extension HouseholdLAN {
    /// Sync rounds on every device (`hearth sync now`) until every device holds the same
    /// operations and the same rows, or `timeout` passes.
    /// - Returns: how long it took, or `nil`; and the rounds run.
    public static func converge(
        _ devices: [LANDevice], timeout: Duration = .seconds(120)
    ) async throws -> (Duration?, Int) {
        let started = ContinuousClock.now
        var rounds = 0
        while ContinuousClock.now - started < timeout {
            rounds += 1
            for device in devices {
                // A round may fail on a lossy link (a timeout): the next one tries again.
                _ = try await device.stack.hearth(
                    ["sync", "now", "--timeout", "30000", "--json"], timeout: .seconds(60))
            }
            let held = try devices.map { try $0.replicated() }
            if held.allSatisfy({ $0 == held[0] }) { return (ContinuousClock.now - started, rounds) }
        }
        return (nil, rounds)
    }

    /// What differs between the devices' replicated state, table by table (for a failure
    /// message).
    public static func differences(_ devices: [LANDevice]) throws -> [String] {
        let held = try devices.map { try $0.replicated() }
        return held[0].keys.sorted().compactMap { table in
            let versions = held.map { $0[table] ?? "" }
            guard Set(versions).count > 1 else { return nil }
            return "\(table): "
                + zip(devices, versions).map { "\($0.name) \($1.split(separator: "\n").count) rows" }
                .joined(separator: ", ")
        }
    }
}
