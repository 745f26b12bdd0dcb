import Foundation
import HearthBus
import HearthCore
import Testing

extension StoreTodosTests {
    @Test(
        "a habit's streak and strength in todo.list: counted in its due days, today pending, a day done on two devices once"
    )
    func habitStreaks() async throws {
        try await withTwoStores(context: context) { a, b in
            _ = try await a.request("collection.add", args: ["name": "Habits", "kind": "habit"])
            let added = try await a.request(
                "todo.add", args: ["title": "Stretch", "collection": "habits", "due": "2026-03-01", "repeat": "daily"])
            let id = try #require(try added.decode(TodoChange.self).todo?.id)
            try await exchange(a, b)
            // Done 1–5 March (the 5th on both devices), missed the 6th, done the 7th and 8th.
            for day in ["01", "02", "03", "04", "05", "07", "08"] {
                _ = try await a.request("todo.done", args: ["id": .string(id), "date": .string("2026-03-\(day)")])
            }
            _ = try await b.request("todo.done", args: ["id": .string(id), "date": "2026-03-05"])
            try await exchange(a, b)
            for store in [a, b] {
                // The 9th, not done yet, does not break the streak; the 6th did.
                let list = try await store.request("todo.list", args: ["today": "2026-03-09"]).decode(TodoList.self)
                let habit = try #require(list.todos.first?.habit)
                #expect(habit.current == 2 && habit.best == 5 && habit.unit == "day", "\(habit)")
                #expect(habit.streakText == "2-day streak")
                // 5 done, a miss, 2 done, with a half-life of 13 days.
                let m = pow(0.5, 1.0 / 13)
                let expected = ((1 - pow(m, 5)) * m) * m * m + (1 - m) * m + (1 - m)
                #expect(abs(habit.strength - expected) < 1e-9, "\(habit.strength) vs \(expected)")
                // The 10th: the 9th is over and missed.
                let later = try await store.request("todo.list", args: ["today": "2026-03-10"]).decode(TodoList.self)
                #expect(later.todos.first?.habit?.current == 0)
            }
            // todo.show carries it too, as of the household's today (long after: a streak of 0).
            let shown = try await a.request("todo.show", args: ["id": .string(id)]).decode(TodoView.self)
            #expect(shown.habit?.best == 5)
        }
    }
}

extension StoreTodosTests {
    @Test(
        "skip and pause: skipped days neither break nor extend a streak, sync, remind nobody, and a day done stays done"
    )
    func skipAndPause() async throws {
        try await withTwoStores(context: context) { a, b in
            _ = try await a.request("collection.add", args: ["name": "Habits", "kind": "habit"])
            let added = try await a.request(
                "todo.add",
                args: [
                    "title": "Swim", "collection": "habits", "due": "2026-03-01", "time": "07:00", "repeat": "daily",
                    "remind": true,
                ])
            let id = try #require(try added.decode(TodoChange.self).todo?.id)
            try await exchange(a, b)
            for day in ["01", "02", "07"] {
                _ = try await a.request("todo.done", args: ["id": .string(id), "date": .string("2026-03-\(day)")])
            }
            // The pool was closed on the 3rd (said on Bob's device); a holiday from the 4th to the 6th.
            let skipped = try await b.request("todo.skip", args: ["id": .string(id), "date": "2026-03-03"])
            #expect(try skipped.decode(TodoChange.self).completion?.skipped == true)
            let paused = try await a.request(
                "todo.pause", args: ["id": .string(id), "from": "2026-03-04", "to": "2026-03-06"]
            ).decode(TodoPaused.self)
            #expect(paused.days == ["2026-03-04", "2026-03-05", "2026-03-06"])
            // Skipping a day done leaves it done.
            _ = try await a.request("todo.skip", args: ["id": .string(id), "date": "2026-03-01"])
            try await exchange(a, b)
            for store in [a, b] {
                let list = try await store.request("todo.list", args: ["today": "2026-03-08"]).decode(TodoList.self)
                let habit = try #require(list.todos.first?.habit)
                #expect(habit.current == 3 && habit.best == 3, "\(habit)")
                let shown = try await store.request("todo.show", args: ["id": .string(id)]).decode(TodoView.self)
                #expect(shown.skips == ["2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06"])
                #expect(shown.completions == ["2026-03-01", "2026-03-02", "2026-03-07"])
                // Occurrences say which days were skipped or paused (they showed as not done).
                let occurrences = try await store.request(
                    "todo.occurrences", args: ["id": .string(id), "from": "2026-03-01", "to": "2026-03-07"]
                ).decode(TodoOccurrences.self).occurrences
                #expect(
                    occurrences.filter { $0.skipped == true }.map(\.date) == [
                        "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06",
                    ], "\(occurrences)")
                #expect(occurrences.filter(\.done).map(\.date) == ["2026-03-01", "2026-03-02", "2026-03-07"])
                // Neither a day done nor a skipped one reminds anybody.
                let sources = try await store.request("reminder.sources").decode(ReminderSources.self)
                #expect(
                    sources.reminders.first?.completions == [
                        "2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06",
                        "2026-03-07",
                    ])
            }
            // The 3rd no longer skipped: it was missed, and the streak is the 7th alone.
            _ = try await a.request("todo.skip", args: ["id": .string(id), "date": "2026-03-03", "skipped": false])
            let after = try await a.request("todo.list", args: ["today": "2026-03-08"]).decode(TodoList.self)
            #expect(after.todos.first?.habit?.current == 1)
            _ = try await a.request(
                "todo.pause", args: ["id": .string(id), "from": "2026-03-04", "to": "2026-03-06", "resume": true])
            #expect(
                try await a.request("todo.show", args: ["id": .string(id)]).decode(TodoView.self).skips == nil)
            // A pause still to come, resumed without naming its days: every day from today on.
            let today = LocalDate(Date(), in: TimeZone(identifier: "UTC")!)
            _ = try await a.request(
                "todo.pause",
                args: [
                    "id": .string(id), "from": .string(today.adding(days: 2).description),
                    "to": .string(today.adding(days: 4).description),
                ])
            let resumed = try await a.request("todo.pause", args: ["id": .string(id), "resume": true])
                .decode(TodoPaused.self)
            #expect(resumed.days == (2...4).map { today.adding(days: $0).description }, "\(resumed.days)")
            #expect(
                try await a.request("todo.show", args: ["id": .string(id)]).decode(TodoView.self).skips == nil)
            do {
                _ = try await a.request("todo.pause", args: ["id": .string(id), "resume": true])
                Issue.record("a resume with nothing paused ahead was taken")
            } catch {
                #expect("\(error)".contains("no day from today"), "\(error)")
            }

            // Refusals name the field and the rule.
            let once = try await a.request("todo.add", args: ["title": "Once", "collection": "habits"])
            let onceID = try #require(try once.decode(TodoChange.self).todo?.id)
            for (arguments, field) in [
                (["id": JSONValue.string(onceID), "date": "2026-03-03"], "'id'"),
                (["id": .string(id), "date": "2026-02-27"], "'date'"),
                (["id": .string(id)], "'date'"),
            ] as [([String: JSONValue], String)] {
                do {
                    _ = try await a.request("todo.skip", args: arguments)
                    Issue.record("todo.skip \(arguments) was taken")
                } catch {
                    #expect("\(error)".contains(field), "\(error)")
                }
            }
            do {
                _ = try await a.request(
                    "todo.pause", args: ["id": .string(id), "from": "2026-03-01", "to": "2027-03-02"])
                Issue.record("a pause of more than 366 days was taken")
            } catch {
                #expect("\(error)".contains("'to'"), "\(error)")
            }
        }
    }
}

extension StoreTodosTests {
    @Test(
        "todo.stats: a habit's days, rates and streak runs equal a hand count, done on either device once; a collection adds its one-off todos; bad weeks and collections refused by name"
    )
    func statistics() async throws {
        try await withTwoStores(context: context) { a, b in
            _ = try await a.request("collection.add", args: ["name": "Habits", "kind": "habit"])
            _ = try await a.request("collection.add", args: ["name": "Home", "kind": "list"])
            let added = try await a.request(
                "todo.add", args: ["title": "Stretch", "collection": "habits", "due": "2026-03-02", "repeat": "daily"])
            let id = try #require(try added.decode(TodoChange.self).todo?.id)
            _ = try await a.request("todo.add", args: ["title": "Fence", "collection": "home", "due": "2026-03-04"])
            let bins = try await a.request(
                "todo.add", args: ["title": "Bins", "collection": "home", "due": "2026-03-10"])
            _ = try await a.request("todo.done", args: ["id": .string(try #require(bins["todo"]?["id"]?.stringValue))])
            try await exchange(a, b)
            // Monday 2 March to Wednesday 11th: done 2–4 (the 4th on both devices), 6, 9 and 10;
            // the 5th skipped; the 7th and 8th missed; the 11th (today) pending.
            for day in ["02", "03", "04", "06", "09", "10"] {
                _ = try await a.request("todo.done", args: ["id": .string(id), "date": .string("2026-03-\(day)")])
            }
            _ = try await b.request("todo.done", args: ["id": .string(id), "date": "2026-03-04"])
            _ = try await b.request("todo.skip", args: ["id": .string(id), "date": "2026-03-05"])
            try await exchange(a, b)
            for store in [a, b] {
                let reply = try await store.request("todo.stats", args: ["weeks": 2, "today": "2026-03-11"])
                let stats = try reply.decode(TodoStatistics.self)
                // The store builds the reply by hand (for speed): exactly what Codable would send.
                #expect(reply == (try JSONValue(reply: stats)))
                #expect(stats.from == "2026-03-02" && stats.to == "2026-03-11" && stats.weeks == 2)
                let habit = try #require(stats.habits.first)
                #expect(stats.habits.count == 1 && habit.title == "Stretch" && habit.collection == "Habits")
                #expect(habit.days == "dddsdmmddp")
                #expect(
                    habit.marks.map(\.rawValue).joined(separator: " ")
                        == "done done done skipped done missed missed done done pending")
                #expect(habit.weeks.map(\.due) == [6, 2] && habit.weeks.map(\.done) == [4, 2])
                #expect(habit.streaks.map(\.length) == [4, 2])
                #expect(habit.progress.current == 2 && habit.progress.best == 4)
                let home = try #require(stats.collections.first { $0.name == "Home" })
                // The fence (due the 4th, open) and the bins (due the 10th, done).
                #expect(home.open == 1 && home.done == 1)
                #expect(home.weeks.map(\.due) == [1, 1] && home.weeks.map(\.done) == [0, 1])
                let habits = try #require(stats.collections.first { $0.name == "Habits" })
                #expect(habits.weeks == habit.weeks)
            }
            // A reminder's source carries the streak it shows today (today's own mark left open).
            let today = LocalDate(Date(), in: .current)  // the household's zone in a home with no hearth.toml
            let water = try await a.request(
                "todo.add",
                args: [
                    "title": "Water", "collection": "habits", "due": .string(today.adding(days: -5).description),
                    "time": "07:00", "repeat": "daily", "remind": true,
                ])
            let waterID = try #require(try water.decode(TodoChange.self).todo?.id)
            for back in 0...4 {
                _ = try await a.request(
                    "todo.done", args: ["id": .string(waterID), "date": .string(today.adding(days: -back).description)])
            }
            let sources = try await a.request("reminder.sources", args: ["ids": [.string(waterID)]])
                .decode(ReminderSources.self)
            #expect(
                sources.reminders.first?.streak
                    == ReminderStreak(through: today.description, current: 4, unit: "day"))
            let everything = try await a.request("todo.stats", args: ["weeks": 53])
            #expect(everything == (try JSONValue(reply: try everything.decode(TodoStatistics.self))))
            let home = try await a.request("todo.stats", args: ["collection": "Home", "today": "2026-03-11"])
                .decode(TodoStatistics.self)
            #expect(home.habits.isEmpty && home.collections.map(\.name) == ["Home"] && home.weeks == 12)
            for (arguments, field) in [
                (["weeks": JSONValue.int(0)], "'weeks'"), (["weeks": 54], "'weeks'"),
                (["collection": "Nope"], "collection"),
                (["today": "March"], "'today'"),
            ] as [([String: JSONValue], String)] {
                do {
                    _ = try await a.request("todo.stats", args: arguments)
                    Issue.record("todo.stats \(arguments) was answered")
                } catch {
                    #expect("\(error)".contains(field), "\(error)")
                }
            }
        }
    }
}
