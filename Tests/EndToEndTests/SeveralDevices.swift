import Testing

/// The suites that run a whole stack per device (turns, sync) take turns: each of their tests
/// starts two or three stacks, and running them side by side loaded a 2-core CI machine enough
/// to break the timing of turn take-overs. `.serialized` holds for the nested suites too.
@Suite("End to end: several devices on one machine", .serialized)
enum SeveralDevices {}
