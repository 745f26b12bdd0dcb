/// How the benchmark runs Hearth's real service processes (through HearthTesting's `TestStack`).
enum ServiceProcesses {
    /// Service logs kept to warnings, so they do not compete with the figures.
    static let quiet = ["HEARTH_LOG_LEVEL": "warning"]
}
