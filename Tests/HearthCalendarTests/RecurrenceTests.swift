import Foundation
import HearthCore
import HearthTesting
import Testing

@testable import HearthCalendar

@Suite("Recurrence (libical, floating dates)", .timeLimit(.minutes(1)))
struct RecurrenceTests {
    private func date(_ text: String) -> LocalDate { try! LocalDate(parsing: text, field: "date") }

    private func dates(_ rule: Recurrence, _ from: String, _ through: String) -> [String] {
        rule.occurrences(from: date(from), through: date(through)).map(\.description)
    }

    @Test("Jan 31 monthly skips the short months (RFC 5545); clamped, it falls on their last day")
    func monthEnds() {
        let skip = Recurrence(frequency: .monthly, start: date("2025-01-31"))
        #expect(dates(skip, "2025-01-01", "2025-07-31") == ["2025-01-31", "2025-03-31", "2025-05-31", "2025-07-31"])
        let clamp = Recurrence(frequency: .monthly, start: date("2025-01-31"), clampsMonthEnd: true)
        #expect(
            dates(clamp, "2025-01-01", "2025-05-31") == [
                "2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30", "2025-05-31",
            ])
        // Clamping never moves the day for good: after February it is back on the 31st.
        #expect(dates(clamp, "2026-02-01", "2026-03-31") == ["2026-02-28", "2026-03-31"])
    }

    @Test("Feb 29 yearly falls only in leap years, or on Feb 28 when clamped")
    func leapDay() {
        let skip = Recurrence(frequency: .yearly, start: date("2024-02-29"))
        #expect(dates(skip, "2024-01-01", "2032-12-31") == ["2024-02-29", "2028-02-29", "2032-02-29"])
        let clamp = Recurrence(frequency: .yearly, start: date("2024-02-29"), clampsMonthEnd: true)
        #expect(dates(clamp, "2025-01-01", "2028-12-31") == ["2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"])
    }

    @Test("an end date ends it; a range far from the start jumps there; first and last occurrences")
    func rangesAndEnds() {
        let weekly = Recurrence(frequency: .weekly, start: date("2025-01-31"), until: date("2025-02-21"))
        #expect(dates(weekly, "2000-01-01", "2030-01-01") == ["2025-01-31", "2025-02-07", "2025-02-14", "2025-02-21"])
        #expect(dates(weekly, "2025-02-22", "2030-01-01") == [])
        let daily = Recurrence(frequency: .daily, start: date("1990-06-15"))
        #expect(dates(daily, "2026-03-30", "2026-04-01") == ["2026-03-30", "2026-03-31", "2026-04-01"])
        #expect(daily.first(onOrAfter: date("1980-01-01")) == date("1990-06-15"))
        let leap = Recurrence(frequency: .yearly, start: date("2000-02-29"))
        #expect(leap.last(onOrBefore: date("2027-06-01")) == date("2024-02-29"))
        #expect(leap.last(onOrBefore: date("1999-06-01")) == nil)
        #expect(leap.occurs(on: date("2096-02-29")))
        #expect(!leap.occurs(on: date("2100-02-28")))
    }

    /// One random rule and the window it is expanded over.
    private struct Case {
        let rule: Recurrence
        let from: LocalDate
        let through: LocalDate

        var json: String {
            #"{"freq":"\#(rule.frequency.rawValue)","start":"\#(rule.start)","until":"#
                + (rule.until.map { "\"\($0)\"" } ?? "null")
                + #","from":"\#(from)","through":"\#(through)"}"#
        }
    }

    private static func randomCase(_ random: inout SplitMix, clamp: Bool) -> Case {
        // Starts favour the month ends and 29 February, where the rules differ.
        let year = Int.random(in: 1996...2030, using: &random)
        let month = Int.random(in: 1...12, using: &random)
        let lastDay = YearPlanner.days(inMonth: month, year: year)
        let day =
            Bool.random(using: &random)
            ? Int.random(in: max(1, lastDay - 3)...lastDay, using: &random)
            : Int.random(in: 1...lastDay, using: &random)
        let leapDay = Int.random(in: 0..<8, using: &random) == 0
        let start =
            leapDay
            ? LocalDate(year: [1996, 2000, 2004, 2024][Int.random(in: 0..<4, using: &random)], month: 2, day: 29)!
            : LocalDate(year: year, month: month, day: day)!
        let frequency = Recurrence.Frequency.allCases.randomElement(using: &random)!
        let span = [120, 900, 4000, 12000][Recurrence.Frequency.allCases.firstIndex(of: frequency)!]
        let until = Bool.random(using: &random) ? start.adding(days: Int.random(in: 0...span, using: &random)) : nil
        let from = start.adding(days: Int.random(in: -30...span, using: &random))
        let through = from.adding(days: Int.random(in: 0...span, using: &random))
        return Case(
            rule: Recurrence(frequency: frequency, start: start, until: until, clampsMonthEnd: clamp),
            from: from, through: through)
    }

    @Test("400 random rules with month-end skips agree with python-dateutil's rrule")
    func skipMatchesDateutil() async throws {
        let seed = SplitMix.seed()
        var random = SplitMix(seed: seed)
        let cases = (0..<400).map { _ in Self.randomCase(&random, clamp: false) }
        let script = """
            import json, sys
            from datetime import datetime
            from dateutil.rrule import rrule, DAILY, WEEKLY, MONTHLY, YEARLY
            freqs = {"daily": DAILY, "weekly": WEEKLY, "monthly": MONTHLY, "yearly": YEARLY}
            day = lambda s: datetime.strptime(s, "%Y-%m-%d")
            out = []
            for c in json.loads(sys.argv[1]):
                until = day(c["until"]) if c["until"] else None
                rule = rrule(freqs[c["freq"]], dtstart=day(c["start"]), until=until)
                out.append([d.strftime("%Y-%m-%d") for d in rule.between(day(c["from"]), day(c["through"]), inc=True)])
            print(json.dumps(out))
            """
        let run = try await ChildProcess.run(
            "/usr/bin/python3", ["-c", script, "[" + cases.map(\.json).joined(separator: ",") + "]"])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try JSONDecoder().decode([[String]].self, from: Data(run.stdout.utf8))
        try #require(expected.count == cases.count)
        var compared = 0
        for (index, item) in cases.enumerated() {
            let ours = item.rule.occurrences(from: item.from, through: item.through).map(\.description)
            #expect(ours == expected[index], "seed \(seed): \(item.json)")
            compared += ours.count
        }
        #expect(compared > 1000, "the random windows held too few occurrences to compare (\(compared))")
    }

    @Test("400 random rules clamped to the month's end agree with a direct month-by-month count")
    func clampMatchesDirectCount() {
        let seed = SplitMix.seed()
        var random = SplitMix(seed: seed)
        for _ in 0..<400 {
            let item = Self.randomCase(&random, clamp: true)
            let rule = item.rule
            var expected: [LocalDate] = []
            switch rule.frequency {
            case .daily, .weekly:
                let step = rule.frequency == .daily ? 1 : 7
                var date = rule.start
                while date <= item.through && (rule.until.map { date <= $0 } ?? true) {
                    if date >= item.from { expected.append(date) }
                    date = date.adding(days: step)
                }
            case .monthly, .yearly:
                let stepMonths = rule.frequency == .monthly ? 1 : 12
                for index in 0... {
                    let months = rule.start.month - 1 + index * stepMonths
                    let year = rule.start.year + months / 12
                    let month = months % 12 + 1
                    let date = LocalDate(
                        year: year, month: month, day: min(rule.start.day, YearPlanner.days(inMonth: month, year: year))
                    )!
                    if date > item.through || rule.until.map({ date > $0 }) == true { break }
                    if date >= item.from { expected.append(date) }
                }
            }
            #expect(rule.occurrences(from: item.from, through: item.through) == expected, "seed \(seed): \(item.json)")
        }
    }

    @Test("a todo's stored fields make its rule in one place: none and unreadable dates give no rule")
    func fromTodoFields() throws {
        let rule = try #require(
            Recurrence(todoRepeat: "monthly", due: "2026-01-31", until: "2026-06-30", monthEnd: "clamp"))
        #expect(rule.rule == "RSCALE=GREGORIAN;FREQ=MONTHLY;UNTIL=20260630;SKIP=BACKWARD")
        #expect(rule.occurrences(from: date("2026-02-01"), through: date("2026-02-28")) == [date("2026-02-28")])
        #expect(
            Recurrence(todoRepeat: "monthly", due: "2026-01-31", until: nil, monthEnd: "skip")?.clampsMonthEnd == false)
        #expect(Recurrence(todoRepeat: "none", due: "2026-01-31", until: nil, monthEnd: "skip") == nil)
        #expect(Recurrence(todoRepeat: "daily", due: "2026-02-30", until: nil, monthEnd: "skip") == nil)
        #expect(Recurrence(todoRepeat: nil, due: "2026-01-31", until: nil, monthEnd: nil) == nil)
    }
}

extension RecurrenceTests {
    @Test("daily and weekly rules counted without libical give exactly libical's dates: random starts, ends and ranges")
    func simpleRulesMatchLibical() throws {
        var random = SystemRandomNumberGenerator()
        let base = try LocalDate(parsing: "2020-01-01", field: "base")
        for round in 0..<2_000 {
            let start = base.adding(days: Int.random(in: 0..<3_000, using: &random))
            let until = round % 3 == 0 ? nil : start.adding(days: Int.random(in: -5..<900, using: &random))
            let rule = Recurrence(frequency: round % 2 == 0 ? .daily : .weekly, start: start, until: until)
            let from = start.adding(days: Int.random(in: -40..<700, using: &random))
            let through = from.adding(days: Int.random(in: -3..<400, using: &random))
            let counted = rule.occurrences(from: from, through: through, countingSimpleRules: true)
            let expanded = rule.occurrences(from: from, through: through, countingSimpleRules: false)
            #expect(counted == expanded, "\(rule.rule) from \(start) over \(from)…\(through)")
            if counted != expanded { return }
        }
    }
}
