/// The school's calendar, shared by every member, as commands to the store (`store.cmd`), one
/// type each: what the CLI sends and what the store decodes. Dates are `YYYY-MM-DD` (the CLI
/// turns "today" and "tomorrow" into dates before sending). Only a parent's profile, or a device
/// with none, changes them; every change answers with the settings as they now are.
public enum SchoolCommands {
    /// The Week-1 start date, bells, overrides and holidays.
    public struct Settings: HearthCommand {
        public typealias Reply = SchoolSettings
        public static let name = "timetable.settings"
        public init() {}
    }

    /// Sets the Week-1 start date.
    public struct Configure: HearthCommand {
        public typealias Reply = SchoolSettings
        public static let name = "timetable.configure"
        public var week1Start: String
        public init(week1Start: String) { self.week1Start = week1Start }
    }

    /// Sets bell times, one `PERIOD=HH:MM-HH:MM` each (`AM Registration=08:40-09:00`,
    /// `1=09:00-10:00`…, 1–7 of them); periods not named keep theirs.
    public struct Bells: HearthCommand {
        public typealias Reply = SchoolSettings
        public static let name = "timetable.bells"
        public var bells: [String]
        public init(bells: [String]) { self.bells = bells }
    }

    /// Makes `week` (1 or 2) the rotation week from `from` to `to`.
    public struct Override: HearthCommand {
        public typealias Reply = SchoolSettings
        public static let name = "timetable.override"
        public var week: Int
        public var from: String
        public var to: String
        public init(week: Int, from: String, to: String) { (self.week, self.from, self.to) = (week, from, to) }
    }

    /// Removes the overrides that touch `from`–`to`, or every override when neither is given.
    public struct ClearOverrides: HearthCommand {
        public typealias Reply = SchoolSettings
        public static let name = "timetable.override.clear"
        public var from: String?
        public var to: String?
        public init(from: String? = nil, to: String? = nil) { (self.from, self.to) = (from, to) }
    }

    /// Adds a holiday, `from` to `to` included.
    public struct AddHoliday: HearthCommand {
        public typealias Reply = HolidayAdded
        public static let name = "timetable.holiday.add"
        public var from: String
        public var to: String
        public var name: String?
        public init(from: String, to: String, name: String? = nil) {
            (self.from, self.to, self.name) = (from, to, name)
        }
    }

    /// The holidays.
    public struct Holidays: HearthCommand {
        public typealias Reply = HolidayList
        public static let name = "timetable.holiday.list"
        public init() {}
    }

    /// Removes a holiday, named by its name (any case), id or unique id prefix.
    public struct RemoveHoliday: HearthCommand {
        public typealias Reply = HolidayRemoved
        public static let name = "timetable.holiday.remove"
        public var holiday: String
        public init(holiday: String) { self.holiday = holiday }
    }
}
