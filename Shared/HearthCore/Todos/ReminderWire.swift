/// `reminder.list` on `scheduler.cmd`: this device's upcoming reminders, soonest first, each with
/// when it fires (a snoozed one at its snooze's end). Encoded by the scheduler, decoded by
/// `hearth reminder list`.
public struct ReminderList: Codable, Sendable, Equatable {
    /// One upcoming reminder.
    public struct Upcoming: Codable, Sendable, Equatable {
        /// The reminder's id: the todo's, or `<todo>@<date>` for one day of a repeating todo.
        public let id: String
        public let title: String
        /// When the todo is due (ISO 8601).
        public let due: String
        /// When the reminder pops up: the due time, or the end of its snooze (ISO 8601).
        public let fires: String
        public let snoozed: Bool

        public init(id: String, title: String, due: String, fires: String, snoozed: Bool) {
            (self.id, self.title, self.due, self.fires, self.snoozed) = (id, title, due, fires, snoozed)
        }
    }

    public let reminders: [Upcoming]

    public init(reminders: [Upcoming]) { self.reminders = reminders }
}
