import Foundation
import HearthBus

/// Waiting on what no event announces (beacons heard, another device's store): a bounded poll.
public enum Polling {
    /// Polls `condition` every 100 ms for up to `timeout`; whether it came true.
    public static func eventually(
        timeout: Duration = .seconds(10), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

extension ChildProcess {
    /// For a `hearth monitor --json` process: the data of the next `type` event it printed
    /// (from line `start` on) that satisfies `predicate`, or `nil` after `timeout`.
    public func busEvent(
        _ type: String, timeout: Duration = .seconds(10), from start: Int = 0,
        where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async -> JSONValue? {
        let line = await output.waitForLine(timeout: timeout, from: start) { line in
            guard let event = MonitorLine.event(line), event.type == type else { return false }
            return predicate(event.data ?? .null)
        }
        return line.flatMap { MonitorLine.event($0)?.data ?? .null }
    }
}

/// One line of `hearth monitor --json`: `{"event": {"type": …, "data": …, …}}`.
private struct MonitorLine: Decodable {
    struct Event: Decodable {
        let type: String
        let data: JSONValue?
    }

    let event: Event?

    static func event(_ line: String) -> Event? {
        (try? JSONValue.parse(line))?.decodeIfPossible(MonitorLine.self)?.event
    }
}

extension JSONValue {
    fileprivate func decodeIfPossible<T: Decodable>(_ type: T.Type) -> T? { try? decode(type) }
}
