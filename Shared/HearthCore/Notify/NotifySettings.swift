/// What the notifier may show: each category on or off, and quiet hours. Kept in the `[notify]`
/// table of `hearth.toml`; `hearth notify settings` changes it.
///
///     [notify]
///     reminders = false
///     quiet_hours = "22:00-07:00"
///     critical_breaks_quiet_hours = true
///     sounds = false
public struct NotifySettings: Sendable, Equatable {
    /// The kinds of notification a person can turn off.
    public enum Category: String, Sendable, CaseIterable, Comparable {
        case turns, reminders, snoozes, sync, suggestions, classes

        public static func < (lhs: Category, rhs: Category) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Categories shown; every one by default.
    public var enabled: Set<Category> = Set(Category.allCases)
    /// When nothing but (if allowed) critical notices pops up; none by default.
    public var quietHours: QuietHours?
    /// Whether a critical notice ("Your turn") may pop up during quiet hours. Off by default: the
    /// person must allow it.
    public var criticalBreaksQuietHours = false
    /// Whether popups carry their sound (the freedesktop `sound-name` hint: `bell` for "Your
    /// turn", `dialog-warning` for a turn's time running out, `message-new-instant` for
    /// reminders). On by default; never during quiet hours.
    public var sounds = true

    public init() {}
}
