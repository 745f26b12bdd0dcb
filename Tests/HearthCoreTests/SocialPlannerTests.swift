import HearthCore
import HearthTesting
import Testing

@Suite("Social planner: priority, windows and placement", .timeLimit(.minutes(2)))
struct SocialPlannerTests {
    let today = LocalDate(year: 2026, month: 11, day: 23)!  // a Monday

    // MARK: - Priority

    @Test("the score formula on hand-computed cases")
    func score() {
        // 21 days since, every 14: due 7 days ago; urgency 7/14; 0.7 × 0.5 + 0.3 × 3/4.
        let overdue = SocialPlanner.priority(
            cadence: 14, importance: 4, lastCompleted: today.adding(days: -21), today: today)
        #expect(overdue.due == today.adding(days: -7))
        #expect(overdue.overdueDays == 7)
        #expect(abs(overdue.urgency - 0.5) < 1e-12)
        #expect(abs(overdue.score - 0.575) < 1e-12)
        // Three cadences overdue: 0.7 × 3 + 0.3 × 2/4.
        let late = SocialPlanner.priority(
            cadence: 7, importance: 3, lastCompleted: today.adding(days: -28), today: today)
        #expect(late.overdueDays == 21)
        #expect(abs(late.score - 2.25) < 1e-12)
        // Not yet due: only importance counts.
        let early = SocialPlanner.priority(
            cadence: 14, importance: 5, lastCompleted: today.adding(days: -10), today: today)
        #expect(early.overdueDays == 0)
        #expect(abs(early.score - 0.3) < 1e-12)
        // Never seen: due today, nothing overdue.
        let never = SocialPlanner.priority(cadence: 30, importance: 1, lastCompleted: nil, today: today)
        #expect(never.due == today)
        #expect(never.score == 0)
    }

    @Test("logging an interaction restarts the cadence")
    func restarts() {
        let before = SocialPlanner.priority(
            cadence: 10, importance: 3, lastCompleted: today.adding(days: -30), today: today)
        let after = SocialPlanner.priority(cadence: 10, importance: 3, lastCompleted: today, today: today)
        #expect(before.overdueDays == 20)
        #expect(after.overdueDays == 0)
        #expect(after.due == today.adding(days: 10))
        #expect(after.score < before.score)
    }

    // MARK: - Spelling

    @Test("windows as people write them, and their stored form")
    func windows() throws {
        let weekdays = try AvailabilityWindow(parsing: "Mon-Fri 18:00-21:00")
        #expect(weekdays.days == Set(1...5))
        #expect(weekdays.start == 18 * 60 && weekdays.end == 21 * 60)
        #expect(weekdays.description == "Mon-Fri 18:00-21:00")
        #expect(try AvailabilityWindow(parsing: "sat-mon 10:00-12:30").description == "Mon,Sat,Sun 10:00-12:30")
        #expect(try AvailabilityWindow(parsing: "weekends 10:00-16:00").days == [6, 7])
        #expect(try AvailabilityWindow(parsing: "Tue,Thu 19:00-24:00").end == 1440)
        let stored = AvailabilityWindow.text([weekdays, try AvailabilityWindow(parsing: "Sat 10:00-16:00")])
        #expect(try AvailabilityWindow.list(stored).map(\.description) == ["Mon-Fri 18:00-21:00", "Sat 10:00-16:00"])
        for (text, rule) in [
            ("Funday 10:00-12:00", "unknown day"), ("Mon 12:00-10:00", "end after it starts"),
            ("Mon", "days then times"), ("Mon 25:00-26:00", "HH:MM"),
        ] {
            let error = #expect(throws: RuleError.self) { try AvailabilityWindow(parsing: text) }
            #expect(error?.rule.contains(rule) == true, "\(text): \(String(describing: error))")
        }
    }

    @Test("durations and tags")
    func durations() throws {
        #expect(try Social.duration("30m") == 30)
        #expect(try Social.duration("1h30m") == 90)
        #expect(try Social.duration("2h") == 120)
        #expect(try Social.duration("45") == 45)
        for bad in ["", "0m", "3m", "25h", "1x", "h", "99999"] {
            #expect(throws: RuleError.self, "\(bad)") { try Social.duration(bad) }
        }
        #expect(Social.durationText(90) == "1h30m")
        #expect(try Social.tags(" Family, school ,family") == "family, school")
        #expect(try Social.tags(" , ") == nil)
    }

    // MARK: - Placement

    private func person(
        _ id: String, cadence: Int = 7, importance: Int = 3, duration: Int = 60, windows: [String],
        excluded: Set<LocalDate> = [], last: LocalDate? = nil
    ) throws -> SocialPlanner.Person {
        SocialPlanner.Person(
            id: id, name: id, cadence: cadence, importance: importance, duration: duration,
            windows: try windows.map { try AvailabilityWindow(parsing: $0) }, excluded: excluded, lastCompleted: last)
    }

    private var monday9: Int { SocialPlanner.minute(today, LocalTime(hour: 9, minute: 0)!) }

    @Test("highest score first, each at the earliest valid slot; busy time and excluded dates avoided")
    func places() throws {
        var planner = SocialPlanner(
            preferences: Social.Preferences(),
            busy: [.init(start: monday9 + 9 * 60, end: monday9 + 10 * 60)])  // Monday 18:00–19:00
        let plan = planner.plan(
            people: [
                try person("ann", importance: 5, windows: ["Mon-Fri 18:00-21:00"]),
                try person("bob", importance: 2, windows: ["Mon-Fri 18:00-21:00"]),
                try person("cat", importance: 4, windows: ["Mon 18:00-21:00", "Wed 18:00-21:00"], excluded: [today]),
            ], planned: [], today: today, now: monday9)
        let starts = Dictionary(uniqueKeysWithValues: plan.placed.map { ($0.person, $0.start) })
        #expect(starts["ann"] == monday9 + 10 * 60)  // 19:00, after the busy hour
        #expect(starts["cat"] == SocialPlanner.minute(today.adding(days: 2), LocalTime(hour: 18, minute: 0)!))
        #expect(starts["bob"] == monday9 + 11 * 60)  // 20:00, after Ann
        #expect(plan.unplaced.isEmpty)
    }

    @Test("people already planned or not due within the horizon are skipped, with the reason")
    func skips() throws {
        var planner = SocialPlanner(preferences: Social.Preferences())
        let plan = planner.plan(
            people: [
                try person("ann", windows: ["daily 10:00-12:00"]),
                try person("bob", cadence: 60, windows: ["daily 10:00-12:00"], last: today),
            ], planned: ["ann"], today: today, now: monday9)
        #expect(plan.placed.isEmpty)
        #expect(plan.skipped.map(\.person) == ["ann", "bob"])
        #expect(plan.skipped[1].reason.contains("not due until 2027-01-22"))
    }

    @Test("what did not fit says why: no window, capacity, or everything taken")
    func reasons() throws {
        var preferences = Social.Preferences()
        preferences.capacity = 1
        preferences.horizon = 3
        var planner = SocialPlanner(preferences: preferences)
        let plan = planner.plan(
            people: [
                try person("ann", importance: 5, windows: ["Mon-Fri 18:00-21:00"]),
                try person("bob", windows: ["Mon-Fri 18:00-21:00"]),
                try person("cat", windows: ["Sat 10:00-12:00"]),
            ], planned: [], today: today, now: monday9)
        #expect(plan.placed.map(\.person) == ["ann"])
        let reasons = Dictionary(uniqueKeysWithValues: plan.unplaced.map { ($0.person, $0.reason) })
        #expect(reasons["bob"]?.contains("weekly capacity of 1") == true)
        #expect(reasons["cat"]?.contains("no window") == true)
    }

    @Test("a crowded day costs a little: three check-ins already there push the next to the day after")
    func crowding() throws {
        let at = { (day: Int, hour: Int) in
            SocialPlanner.minute(self.today.adding(days: day), LocalTime(hour: hour, minute: 0)!)
        }
        let items = [8, 10, 12].map { SocialPlanner.Booking(start: at(0, $0), end: at(0, $0) + 30) }
        var crowded = SocialPlanner(preferences: Social.Preferences(), items: items)
        let moved = crowded.plan(
            people: [try person("ann", windows: ["daily 14:00-16:00"])], planned: [], today: today, now: monday9)
        #expect(moved.placed.first?.start == at(1, 14))
        // One is not enough to move it a whole day.
        var lighter = SocialPlanner(preferences: Social.Preferences(), items: Array(items.prefix(1)))
        let stays = lighter.plan(
            people: [try person("ann", windows: ["daily 14:00-16:00"])], planned: [], today: today, now: monday9)
        #expect(stays.placed.first?.start == at(0, 14))
    }

    @Test("learning: a weekday and hour where check-ins happen wins over one where they slip; no history, no effect")
    func learning() throws {
        let ann = try person("ann", windows: ["Mon 18:00-21:00"])
        let lastMonday = today.adding(days: -7)
        var history: [(start: Int, succeeded: Bool)] = []
        for week in 0..<5 {
            let day = lastMonday.adding(days: -7 * week)
            history.append((SocialPlanner.minute(day, LocalTime(hour: 18, minute: 0)!), false))
            history.append((SocialPlanner.minute(day, LocalTime(hour: 20, minute: 0)!), true))
        }
        var learned = SocialPlanner(preferences: Social.Preferences(), history: history)
        let biased = learned.plan(people: [ann], planned: [], today: today, now: monday9)
        #expect(biased.placed.first?.start == SocialPlanner.minute(today, LocalTime(hour: 20, minute: 0)!))
        var fresh = SocialPlanner(preferences: Social.Preferences())
        let plain = fresh.plan(people: [ann], planned: [], today: today, now: monday9)
        #expect(plain.placed.first?.start == SocialPlanner.minute(today, LocalTime(hour: 18, minute: 0)!))
    }

    @Test("reschedule offers three or more valid slots on different days; a moved check-in skips a clash")
    func slots() throws {
        let ann = try person("ann", windows: ["Mon-Fri 18:00-21:00"])
        let planner = SocialPlanner(
            preferences: Social.Preferences(), busy: [.init(start: monday9 + 9 * 60, end: monday9 + 12 * 60)])
        let slots = planner.slots(for: ann, after: monday9, count: 5, days: 14)
        #expect(slots.count == 5)
        #expect(Set(slots.map(SocialPlanner.day)).count == 5)
        #expect(slots.first == SocialPlanner.minute(today.adding(days: 1), LocalTime(hour: 18, minute: 0)!))
        #expect(slots.allSatisfy { planner.fitsWindow(ann, $0) && planner.isFree($0, $0 + 60) })
        // +1 hour from 17:30 lands in the busy evening: moved to Tuesday 18:00.
        #expect(planner.moved(ann, duration: 60, to: monday9 + 9 * 60 + 30, days: 14) == slots.first)
        // A free time in her window stays where it was asked for (Tuesday 19:00)…
        let tuesday19 = SocialPlanner.minute(today.adding(days: 1), LocalTime(hour: 19, minute: 0)!)
        #expect(planner.moved(ann, duration: 60, to: tuesday19, days: 14) == tuesday19)
        // …and one outside it (Monday 10:00, free but not hers) moves on to her next valid slot.
        #expect(planner.moved(ann, duration: 60, to: monday9 + 60, days: 14) == slots.first)
        #expect(planner.refusal(for: ann, at: monday9 + 60)?.contains("outside ann's windows") == true)
        #expect(planner.refusal(for: ann, at: monday9 + 9 * 60)?.contains("busy time") == true)
        #expect(planner.refusal(for: ann, at: tuesday19) == nil)
        // Quiet hours (22:00–07:00 by default) are never free.
        #expect(!planner.isFree(monday9 + 13 * 60 + 30, monday9 + 14 * 60 + 30))
    }

    // MARK: - Properties on random inputs

    @Test("placement properties on seeded random households", arguments: 0..<40)
    func properties(_ round: Int) throws {
        let seed = SplitMix.seed() &+ UInt64(round)
        var random = SplitMix(seed: seed)
        var preferences = Social.Preferences()
        preferences.capacity = Int.random(in: 2...12, using: &random)
        preferences.horizon = Int.random(in: 3...21, using: &random)
        preferences.quietStart = LocalTime(hour: Int.random(in: 20...23, using: &random), minute: 0)!
        preferences.quietEnd = LocalTime(hour: Int.random(in: 5...9, using: &random), minute: 30)!
        let windowSets = [
            ["Mon-Fri 18:00-21:00"], ["Sat-Sun 10:00-16:00"], ["Mon,Wed 07:00-09:00", "Sat 09:00-12:00"],
            ["daily 12:00-14:00", "Fri 19:00-23:30"],
        ]
        let excludedSets: [Set<LocalDate>] = [
            [], [today.adding(days: 2)], [today.adding(days: 5), today.adding(days: 6)],
        ]
        let now = SocialPlanner.minute(today, LocalTime(hour: Int.random(in: 0...23, using: &random), minute: 7)!)
        let horizonEnd = (today.dayNumber + preferences.horizon) * 1440
        var people: [SocialPlanner.Person] = []
        for index in 0..<Int.random(in: 5...40, using: &random) {
            let cadence = Int.random(in: 3...30, using: &random)
            people.append(
                try person(
                    "p\(index)", cadence: cadence, importance: Int.random(in: 1...5, using: &random),
                    duration: [30, 60][Int.random(in: 0...1, using: &random)],
                    windows: windowSets[Int.random(in: 0..<windowSets.count, using: &random)],
                    excluded: excludedSets[Int.random(in: 0..<excludedSets.count, using: &random)],
                    last: Bool.random(using: &random)
                        ? nil : today.adding(days: -Int.random(in: 0...60, using: &random))))
        }
        let busy = (0..<Int.random(in: 0...20, using: &random)).map { _ in
            let start = now + Int.random(in: 0...(preferences.horizon * 1440), using: &random)
            return SocialPlanner.Booking(start: start, end: start + Int.random(in: 15...240, using: &random))
        }
        let existing = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            let start = now + Int.random(in: 0...(preferences.horizon * 1440), using: &random)
            return SocialPlanner.Booking(start: start, end: start + 30)
        }
        var history: [(start: Int, succeeded: Bool)] = []
        for _ in 0..<Int.random(in: 0...30, using: &random) {
            history.append((now - Int.random(in: 1...(60 * 1440), using: &random), Bool.random(using: &random)))
        }
        let make = { SocialPlanner(preferences: preferences, items: existing, busy: busy, history: history) }
        var planner = make()
        let plan = planner.plan(people: people, planned: [], today: today, now: now)
        var again = make()
        #expect(again.plan(people: people, planned: [], today: today, now: now).placed == plan.placed, "seed \(seed)")

        let byID = Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0) })
        let quiet = { (minute: Int) -> Bool in
            let ofDay = ((minute % 1440) + 1440) % 1440
            let (start, end) = (preferences.quietStart.minutes, preferences.quietEnd.minutes)
            return start < end ? (start..<end).contains(ofDay) : ofDay >= start || ofDay < end
        }
        var weekCounts: [Int: Int] = [:]
        for booking in existing {
            let day = SocialPlanner.day(booking.start)
            weekCounts[day - LocalDate(dayNumber: day).weekday + 1, default: 0] += 1
        }
        for (index, item) in plan.placed.enumerated() {
            let who = try #require(byID[item.person])
            let end = item.start + item.duration
            let day = SocialPlanner.day(item.start)
            let date = LocalDate(dayNumber: day)
            let ofDay = item.start - day * 1440
            #expect(item.start >= now && end <= horizonEnd, "seed \(seed): \(item) outside the horizon")
            #expect(
                who.windows.contains {
                    $0.days.contains(date.weekday) && ofDay >= $0.start && ofDay + item.duration <= $0.end
                },
                "seed \(seed): \(item) outside \(who.windows)")
            #expect(!who.excluded.contains(date), "seed \(seed): \(item) on an excluded date")
            #expect(!(item.start..<end).contains(where: quiet), "seed \(seed): \(item) in quiet hours")
            #expect(
                !(busy + existing).contains { $0.start < end && item.start < $0.end }, "seed \(seed): \(item) clashes")
            for other in plan.placed[(index + 1)...] {
                #expect(!(other.start < end && item.start < other.start + other.duration), "seed \(seed): overlap")
            }
            weekCounts[day - date.weekday + 1, default: 0] += 1
        }
        #expect(weekCounts.values.allSatisfy { $0 <= max(preferences.capacity, existing.count) }, "seed \(seed)")
        // Higher scores never wait longer than lower ones with the same windows, dates and length.
        let placedAt = Dictionary(uniqueKeysWithValues: plan.placed.map { ($0.person, $0) })
        let unplaced = Set(plan.unplaced.map(\.person))
        for first in people {
            for second in people where first.id != second.id {
                guard first.windows == second.windows, first.excluded == second.excluded,
                    first.duration == second.duration
                else { continue }
                let scores = [first, second].map {
                    SocialPlanner.priority(
                        cadence: $0.cadence, importance: $0.importance, lastCompleted: $0.lastCompleted, today: today
                    ).score
                }
                guard scores[0] > scores[1] else { continue }
                if let higher = placedAt[first.id], let lower = placedAt[second.id] {
                    #expect(higher.start <= lower.start, "seed \(seed): \(first.id) after \(second.id)")
                }
                if placedAt[second.id] != nil {
                    #expect(!unplaced.contains(first.id), "seed \(seed): \(first.id) left out for \(second.id)")
                }
            }
        }
    }
}
