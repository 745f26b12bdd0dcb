/// Places check-ins with people in free time (SPEC part 5): people by score, highest first, each
/// at the best valid slot, where best is the earliest, lightly penalised for a crowded day and
/// biased by when check-ins have happened before.
///
/// Time here is the household's wall clock in whole minutes since 1970-01-01 00:00 (a "wall
/// minute"): windows, quiet hours and days are wall-clock ideas, and the caller converts busy
/// times and items from instants (and back) with the household's time zone. Placement is
/// deterministic: the same inputs give the same plan.
public struct SocialPlanner: Sendable {
    /// A person with a goal, as the planner needs them.
    public struct Person: Hashable, Sendable {
        public let id: String
        public let name: String
        public let cadence: Int
        public let importance: Int
        /// Minutes: the shortest check-in worth having.
        public let duration: Int
        public let windows: [AvailabilityWindow]
        public let excluded: Set<LocalDate>
        /// The last check-in (the goal's date or the latest logged interaction).
        public let lastCompleted: LocalDate?

        public init(
            id: String, name: String, cadence: Int, importance: Int, duration: Int, windows: [AvailabilityWindow],
            excluded: Set<LocalDate> = [], lastCompleted: LocalDate? = nil
        ) {
            self.id = id
            self.name = name
            self.cadence = cadence
            self.importance = importance
            self.duration = duration
            self.windows = windows
            self.excluded = excluded
            self.lastCompleted = lastCompleted
        }
    }

    /// Time taken, in wall minutes: `start` inclusive, `end` exclusive.
    public struct Booking: Hashable, Sendable {
        public let start: Int
        public let end: Int
        /// What holds the time, for a refusal that names it (a busy time's summary).
        public let label: String?

        public init(start: Int, end: Int, label: String? = nil) {
            self.start = start
            self.end = max(start, end)
            self.label = label
        }

        func overlaps(_ start: Int, _ end: Int) -> Bool { self.start < end && start < self.end }
    }

    /// Where a person was placed.
    public struct Placement: Hashable, Sendable {
        public let person: String
        public let start: Int
        public let duration: Int
        public let score: Double
    }

    /// Why a person got no check-in.
    public struct Unplaced: Hashable, Sendable {
        public let person: String
        public let reason: String
    }

    public let preferences: Social.Preferences
    /// Slots start on this grid of minutes.
    public static let step = 15
    private static let crowdPenalty = 0.5
    private static let learningWeight = 1.0

    /// Time taken per day (by day number): check-ins and busy times touching that day.
    private var taken: [Int: [Booking]] = [:]
    /// The busy times alone, per day: a refusal says which one clashed.
    private var busyTimes: [Int: [Booking]] = [:]
    /// Check-ins holding time, per day and per week (the week's Monday's day number).
    private var perDay: [Int: Int] = [:]
    private var perWeek: [Int: Int] = [:]
    /// Check-ins that happened and did not, by weekday and hour of their start (`weekday * 24 + hour`).
    private var learned: [Int: (done: Int, failed: Int)] = [:]

    /// - Parameters:
    ///   - items: check-ins that hold time (pending or done), in wall minutes.
    ///   - busy: busy times from calendars, in wall minutes.
    ///   - history: past check-ins' starts and whether each happened, for learning.
    public init(
        preferences: Social.Preferences, items: [Booking] = [], busy: [Booking] = [],
        history: [(start: Int, succeeded: Bool)] = []
    ) {
        self.preferences = preferences
        for item in items { book(item, holdsCapacity: true) }
        for time in busy {
            book(time, holdsCapacity: false)
            for day in Self.day(time.start)...Self.day(max(time.start, time.end - 1)) {
                busyTimes[day, default: []].append(time)
            }
        }
        for (start, succeeded) in history {
            let key = Self.hourKey(start)
            var counts = learned[key] ?? (0, 0)
            if succeeded { counts.done += 1 } else { counts.failed += 1 }
            learned[key] = counts
        }
    }

    // MARK: - Priority

    /// SPEC part 5's priority: overdue days past the cadence, urgency as cadences overdue, and the
    /// score weighing urgency 0.7 and importance (1–5 made 0–1) 0.3. No last check-in: due today.
    public static func priority(
        cadence: Int, importance: Int, lastCompleted: LocalDate?, today: LocalDate
    ) -> (due: LocalDate, overdueDays: Int, urgency: Double, score: Double) {
        let due = lastCompleted?.adding(days: cadence) ?? today
        let overdue = max(0, today.dayNumber - due.dayNumber)
        let urgency = Double(overdue) / Double(max(cadence, 1))
        return (due, overdue, urgency, 0.7 * urgency + 0.3 * Double(importance - 1) / 4)
    }

    // MARK: - Planning

    /// Places every person who needs a check-in: those without one pending (`planned`) whose due
    /// date falls inside the horizon. Highest score first (then name and id, so ties are
    /// stable); each at its best valid slot from `now` to the horizon's end.
    /// - Returns: what was placed, what did not fit and why, and who was skipped and why.
    public mutating func plan(
        people: [Person], planned: Set<String>, today: LocalDate, now: Int
    ) -> (placed: [Placement], unplaced: [Unplaced], skipped: [Unplaced]) {
        let horizonEnd = (today.dayNumber + preferences.horizon) * 1440
        var skipped: [Unplaced] = []
        var candidates: [(person: Person, score: Double)] = []
        for person in people {
            let priority = Self.priority(
                cadence: person.cadence, importance: person.importance, lastCompleted: person.lastCompleted,
                today: today)
            if planned.contains(person.id) {
                skipped.append(Unplaced(person: person.id, reason: "already has a check-in planned"))
            } else if priority.due.dayNumber * 1440 >= horizonEnd {
                skipped.append(Unplaced(person: person.id, reason: "not due until \(priority.due)"))
            } else {
                candidates.append((person, priority.score))
            }
        }
        candidates.sort { ($1.score, $0.person.name, $0.person.id) < ($0.score, $1.person.name, $1.person.id) }
        var placed: [Placement] = []
        var unplaced: [Unplaced] = []
        for (person, score) in candidates {
            if let start = best(for: person, from: now, until: horizonEnd) {
                book(Booking(start: start, end: start + person.duration), holdsCapacity: true)
                placed.append(Placement(person: person.id, start: start, duration: person.duration, score: score))
            } else {
                unplaced.append(
                    Unplaced(person: person.id, reason: whyNot(person, from: now, until: horizonEnd)))
            }
        }
        return (orderByScore(placed, people: candidates.map(\.person)), unplaced, skipped)
    }

    /// A higher score never waits longer than a lower one when each could take the other's slot:
    /// the crowd penalty and learning may have put the first person later; such pairs swap.
    /// Swapping equal durations keeps every time, day count and week count as it was.
    private func orderByScore(_ placements: [Placement], people: [Person]) -> [Placement] {
        var placed = placements
        let byID = Dictionary(people.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var swapped = true
        var passes = 0
        while swapped && passes < placed.count {
            swapped = false
            passes += 1
            for higher in placed.indices {
                for lower in placed.indices where lower > higher {
                    let (first, second) = (placed[higher], placed[lower])
                    guard first.score > second.score, first.start > second.start, first.duration == second.duration,
                        let firstPerson = byID[first.person], let secondPerson = byID[second.person],
                        fitsWindow(firstPerson, second.start), fitsWindow(secondPerson, first.start)
                    else { continue }
                    placed[higher] = Placement(
                        person: first.person, start: second.start, duration: first.duration, score: first.score)
                    placed[lower] = Placement(
                        person: second.person, start: first.start, duration: second.duration, score: second.score)
                    swapped = true
                }
            }
        }
        return placed
    }

    /// The best valid slot for `person` starting in `from..<until`, if any.
    public func best(for person: Person, from: Int, until: Int) -> Int? {
        var best: (cost: Double, start: Int)?
        forEachValidStart(person, from: from, until: until) { start in
            // Costs are days from `from`, give or take under a day of penalty and bias: nothing
            // later than a day past the best so far can win.
            let days = Double(start - from) / 1440
            if let best, days - Self.learningWeight / 2 > best.cost { return false }
            let cost = days + Self.crowdPenalty * Double(perDay[Self.day(start), default: 0]) - bias(start)
            if best == nil || cost < best!.cost { best = (cost, start) }
            return true
        }
        return best?.start
    }

    /// Up to `count` valid slots for `person` after `from`, the earliest on each of successive
    /// days (so a person choosing sees different days), searching `days` days ahead.
    public func slots(for person: Person, after from: Int, count: Int, days: Int) -> [Int] {
        var found: [Int] = []
        var lastDay = Int.min
        forEachValidStart(person, from: from, until: from + days * 1440) { start in
            if Self.day(start) != lastDay {
                found.append(start)
                lastDay = Self.day(start)
            }
            return found.count < count
        }
        return found
    }

    /// Where a check-in moved to `start` lands: there when every rule placement keeps holds
    /// (`refusal`), else the next valid slot after it within `days` days (inside the person's
    /// windows: a snooze never lands outside them).
    public func moved(_ person: Person, duration: Int, to start: Int, days: Int) -> Int? {
        let sized = Person(
            id: person.id, name: person.name, cadence: person.cadence, importance: person.importance,
            duration: duration, windows: person.windows, excluded: person.excluded,
            lastCompleted: person.lastCompleted)
        if refusal(for: sized, at: start) == nil { return start }
        var found: Int?
        forEachValidStart(sized, from: start, until: start + days * 1440) { candidate in
            found = candidate
            return false
        }
        return found
    }

    // MARK: - Slots

    /// Feeds each valid start for `person` in `from..<until`, in time order, to `body` until it
    /// returns `false`.
    private func forEachValidStart(_ person: Person, from: Int, until: Int, _ body: (Int) -> Bool) {
        let first = Self.roundUp(from)
        var day = Self.day(first)
        while day * 1440 < until {
            defer { day += 1 }
            let date = LocalDate(dayNumber: day)
            guard !person.excluded.contains(date), perWeek[Self.monday(day), default: 0] < preferences.capacity else {
                continue
            }
            let starts = person.windows.filter { $0.days.contains(date.weekday) }
                .flatMap { window in
                    stride(
                        from: day * 1440 + window.start, through: day * 1440 + window.end - person.duration,
                        by: Self.step)
                }
            for start in Set(starts).sorted() where start >= first && start < until {
                if isFree(start, start + person.duration) && !body(start) { return }
            }
        }
    }

    /// Whether `start..<end` is outside quiet hours and clashes with nothing taken.
    public func isFree(_ start: Int, _ end: Int) -> Bool {
        for day in Self.day(start)...Self.day(max(start, end - 1)) {
            if quiet(on: day).contains(where: { $0.overlaps(start, end) }) { return false }
            if taken[day]?.contains(where: { $0.overlaps(start, end) }) == true { return false }
        }
        return true
    }

    /// Which of placement's rules a check-in for `person` (of their duration) at `start` breaks,
    /// said for a person, or `nil` when it keeps them all: a day their goal excludes, outside
    /// their windows, a week at capacity, quiet hours, a busy time (named), another check-in.
    public func refusal(for person: Person, at start: Int) -> String? {
        let end = start + person.duration
        let date = LocalDate(dayNumber: Self.day(start))
        let whose = person.name.isEmpty ? "their" : "\(person.name)'s"
        if person.excluded.contains(date) { return "\(whose) goal excludes \(date)" }
        if !fitsWindow(person, start) {
            return "it is outside \(whose) windows (\(AvailabilityWindow.text(person.windows)))"
        }
        if perWeek[Self.monday(Self.day(start)), default: 0] >= preferences.capacity {
            return "that week already has the weekly capacity of \(preferences.capacity) check-ins"
        }
        return clash(start, end)
    }

    /// What `start..<end` clashes with, said for a person, or `nil` when it is free: quiet hours,
    /// a busy time (named), another check-in.
    public func clash(_ start: Int, _ end: Int) -> String? {
        for day in Self.day(start)...Self.day(max(start, end - 1)) {
            if quiet(on: day).contains(where: { $0.overlaps(start, end) }) {
                return "it falls in quiet hours (\(preferences.quietStart.short)–\(preferences.quietEnd.short))"
            }
            if let busy = busyTimes[day]?.first(where: { $0.overlaps(start, end) }) {
                return "it clashes with a busy time" + (busy.label.map { " ('\($0)')" } ?? "")
            }
        }
        return isFree(start, end) ? nil : "it clashes with another check-in"
    }

    /// Whether `start` lies in one of `person`'s windows with its duration, on a day not excluded.
    public func fitsWindow(_ person: Person, _ start: Int) -> Bool {
        let day = Self.day(start)
        let date = LocalDate(dayNumber: day)
        let minute = start - day * 1440
        return !person.excluded.contains(date)
            && person.windows.contains {
                $0.days.contains(date.weekday) && minute >= $0.start && minute + person.duration <= $0.end
            }
    }

    /// The quiet hours touching `day`, as bookings.
    private func quiet(on day: Int) -> [Booking] {
        let (start, end) = (preferences.quietStart.minutes, preferences.quietEnd.minutes)
        let base = day * 1440
        if start == end { return [] }
        if start < end { return [Booking(start: base + start, end: base + end)] }
        return [Booking(start: base, end: base + end), Booking(start: base + start, end: base + 1440)]
    }

    /// The learning bias of a start: the completion rate of its weekday and hour, made to lie in
    /// -0.5…0.5 around an even chance (Laplace's rule: no history is exactly even, no effect).
    private func bias(_ start: Int) -> Double {
        guard let counts = learned[Self.hourKey(start)] else { return 0 }
        let rate = Double(counts.done + 1) / Double(counts.done + counts.failed + 2)
        return Self.learningWeight * (rate - 0.5)
    }

    /// Why `person` found no slot: no window at all, every week full, or everything taken.
    private func whyNot(_ person: Person, from: Int, until: Int) -> String {
        var sawWindow = false
        var sawRoom = false
        var day = Self.day(from)
        while day * 1440 < until {
            let date = LocalDate(dayNumber: day)
            if !person.excluded.contains(date) && person.windows.contains(where: { $0.days.contains(date.weekday) }) {
                sawWindow = true
                if perWeek[Self.monday(day), default: 0] < preferences.capacity { sawRoom = true }
            }
            day += 1
        }
        let windows = AvailabilityWindow.text(person.windows)
        if !sawWindow { return "no window (\(windows)) falls in the next \(preferences.horizon) days" }
        if !sawRoom { return "the weekly capacity of \(preferences.capacity) check-ins is reached" }
        return "every \(Social.durationText(person.duration)) slot in \(windows) is busy, taken or in quiet hours"
    }

    private mutating func book(_ booking: Booking, holdsCapacity: Bool) {
        for day in Self.day(booking.start)...Self.day(max(booking.start, booking.end - 1)) {
            taken[day, default: []].append(booking)
        }
        if holdsCapacity {
            perDay[Self.day(booking.start), default: 0] += 1
            perWeek[Self.monday(Self.day(booking.start)), default: 0] += 1
        }
    }

    // MARK: - Wall minutes

    /// The day number of a wall minute.
    public static func day(_ minute: Int) -> Int { Int((Double(minute) / 1440).rounded(.down)) }

    /// The wall minute of `time` on `date`.
    public static func minute(_ date: LocalDate, _ time: LocalTime) -> Int { date.dayNumber * 1440 + time.minutes }

    private static func monday(_ day: Int) -> Int { day - (LocalDate(dayNumber: day).weekday - 1) }

    private static func roundUp(_ minute: Int) -> Int { Int((Double(minute) / Double(step)).rounded(.up)) * step }

    private static func hourKey(_ minute: Int) -> Int {
        LocalDate(dayNumber: day(minute)).weekday * 24 + (minute - day(minute) * 1440) / 60
    }
}
