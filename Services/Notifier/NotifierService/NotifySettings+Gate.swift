import Foundation
import HearthBus
import HearthCore
import HearthNotify

/// What the settings let happen to a popup.
enum Gate: Equatable {
    case show
    /// Kept back until `until` (the end of quiet hours), then shown if still current.
    case hold(reason: String, until: Date)
    case drop(reason: String)
}

extension NotifySettings {
    /// Decides whether a popup of `category` shows at `date`.
    func gate(
        _ category: Category, _ notification: DesktopNotification, at date: Date, calendar: Calendar = .current
    ) -> Gate {
        guard enabled.contains(category) else { return .drop(reason: "\(category.rawValue) notifications are off") }
        guard let quiet = quietHours, quiet.contains(date, calendar: calendar) else { return .show }
        if notification.urgency == .critical && criticalBreaksQuietHours { return .show }
        if notification.timeout == 0 {
            return .hold(
                reason: "quiet hours \(quiet), held until \(quiet.endText)",
                until: quiet.end(after: date, calendar: calendar))
        }
        return .drop(reason: "quiet hours \(quiet)")
    }
}

extension NotifySettings {
    /// `notification` as it may sound at `date`: without its sound when sounds are off or
    /// during quiet hours (a popup that breaks them still shows, silently).
    func audible(
        _ notification: DesktopNotification, at date: Date, calendar: Calendar = .current
    )
        -> DesktopNotification
    {
        guard notification.sound != nil else { return notification }
        guard !sounds || quietHours?.contains(date, calendar: calendar) == true else { return notification }
        var quiet = notification
        quiet.sound = nil
        return quiet
    }
}
