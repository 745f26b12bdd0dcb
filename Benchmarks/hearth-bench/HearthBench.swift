import ArgumentParser
import HearthBus

/// `hearth-bench`: Hearth's speed figures, each reported as a ratio against raw libzmq (and, for
/// the store, raw SQLite) measured in the same run.
@main
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
struct HearthBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-bench",
        abstract: "Benchmarks of Hearth against raw libzmq, in one run on this machine.",
        version: HearthVersion.line("hearth-bench"),
        subcommands: [
            BusBenchmark.self, StoreBenchmark.self, NotifyBenchmark.self, TurnBenchmark.self, SchedulerBenchmark.self,
            CodecBenchmark.self, TimetableBenchmark.self, SocialBenchmark.self, SyncBenchmark.self, SoakBenchmark.self,
            WebBenchmark.self, LANBenchmark.self, TodosBenchmark.self,
        ]
    )
}
