/// The school's calendar on `store.cmd`: bells, week overrides and holidays. Encoded by
/// `hearth-store` (absent fields as `null`, as replies are), decoded by the command line.

/// A period's bell times.
public struct BellView: Codable, Sendable, Equatable {
    /// As a person reads it (`AM Registration`, `1`), and as stored (`am_registration`).
    public let period: String
    public let code: String
    /// `HH:MM`.
    public let start: String
    public let end: String

    public init(period: String, code: String, start: String, end: String) {
        (self.period, self.code, self.start, self.end) = (period, code, start, end)
    }
}

/// Dates made a given rotation week.
public struct WeekOverrideView: Codable, Sendable, Equatable {
    public let id: String
    public let week: Int
    public let from: String
    public let to: String

    public init(id: String, week: Int, from: String, to: String) {
        (self.id, self.week, self.from, self.to) = (id, week, from, to)
    }
}

/// A school holiday, its dates included.
public struct HolidayView: Codable, Sendable, Equatable {
    public let id: String
    public let name: String?
    public let from: String
    public let to: String

    public init(id: String, name: String?, from: String, to: String) {
        (self.id, self.name, self.from, self.to) = (id, name, from, to)
    }
}

/// `timetable.settings` and the reply to every change of them: the Week-1 start date, bells,
/// overrides and holidays; `cleared` on `timetable.override.clear`.
public struct SchoolSettings: Codable, Sendable, Equatable {
    public let week1Start: String?
    public let bells: [BellView]
    public let overrides: [WeekOverrideView]
    public let holidays: [HolidayView]
    /// How many overrides `timetable.override.clear` removed.
    @OmittedWhenNil public var cleared: Int?

    public init(
        week1Start: String?, bells: [BellView], overrides: [WeekOverrideView], holidays: [HolidayView],
        cleared: Int? = nil
    ) {
        (self.week1Start, self.bells, self.overrides, self.holidays) = (week1Start, bells, overrides, holidays)
        self.cleared = cleared
    }

    enum CodingKeys: String, CodingKey {
        case week1Start = "week1_start"
        case bells, overrides, holidays, cleared
    }
}

/// `timetable.holiday.add`: the holiday added.
public struct HolidayAdded: Codable, Sendable, Equatable {
    public let holiday: HolidayView?

    public init(holiday: HolidayView?) { self.holiday = holiday }
}

/// `timetable.holiday.remove`: the holiday removed (its id: history keeps the rest), and its
/// operation.
public struct HolidayRemoved: Codable, Sendable, Equatable {
    public struct Ref: Codable, Sendable, Equatable {
        public let id: String
    }

    public let holiday: Ref
    public let op: String
    public let seq: Int64

    enum CodingKeys: String, CodingKey {
        case holiday = "school_holiday"
        case op, seq
    }
}

/// `timetable.holiday.list`.
public struct HolidayList: Codable, Sendable, Equatable {
    public let holidays: [HolidayView]

    public init(holidays: [HolidayView]) { self.holidays = holidays }
}
