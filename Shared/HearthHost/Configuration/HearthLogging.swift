import Foundation
import HearthBus
import Logging

/// How every Hearth process logs: to standard error, at `HEARTH_LOG_LEVEL` (default `info`).
/// Only a process's `main` calls this; libraries take a `Logger`.
public enum HearthLogging {
    public static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let level = environment["HEARTH_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
