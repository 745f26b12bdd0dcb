import CLibICal

/// libical as every part of HearthCalendar uses it.
enum LibICal {
    /// libical aborts the process on an error by default; Hearth's rules are built from checked
    /// values and files come from people, and neither may take a service down. Touch this before
    /// any libical call: a `static let` runs exactly once, thread-safely.
    static let ready: Void = icalerror_set_errors_are_fatal(0)
}
