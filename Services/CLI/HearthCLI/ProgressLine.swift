import Foundation
import HearthBus
import HearthCore
import HearthHost
import Synchronization

/// One line on the terminal that says how far long work has got: `12,345 / 60,000 operations ·
/// 4,100/s · 11 s left`, redrawn in place on standard error, and gone when the work ends.
///
/// Only on a terminal: with standard error a pipe or a file, or with `--json`, nothing is
/// written (a script reads the result, not the line). Work that ends within `delay` shows no
/// line at all, so a quick command never flickers.
final class ProgressLine: Sendable {
    /// Whether a line may be drawn here.
    let enabled: Bool
    /// How long work runs before a line appears.
    static let delay = Duration.milliseconds(400)
    private let started = ContinuousClock.now
    private let drawn = Mutex(false)

    init(_ options: GlobalOptions) {
        enabled = !options.json && isatty(STDERR_FILENO) == 1
    }

    /// Draws `done` of `total` `unit`s (`total` 0 while unknown), `elapsed` since the work
    /// began (the service's clock when it reports, else this line's).
    func show(done: Int, total: Int, unit: String, elapsed: Duration? = nil) {
        let elapsed = elapsed ?? (ContinuousClock.now - started)
        guard enabled, ContinuousClock.now - started >= Self.delay else { return }
        let text = Self.text(done: done, total: total, unit: unit, elapsed: elapsed)
        drawn.withLock { drawn in
            drawn = true
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
        }
    }

    /// Takes the line away (before the result is printed).
    func clear() {
        drawn.withLock { drawn in
            guard drawn else { return }
            drawn = false
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }

    /// `1,000 / 2,000 lessons · 950/s · 1 s left`; without a total, the count and rate only.
    static func text(done: Int, total: Int, unit: String, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var parts = [total > 0 ? "\(grouped(done)) / \(grouped(total)) \(unit)" : "\(grouped(done)) \(unit)"]
        if rate > 0 { parts.append("\(grouped(Int(rate.rounded())))/s") }
        if total > done, rate > 0 {
            let left = Int((Double(total - done) / rate).rounded(.up))
            parts.append(left >= 60 ? "\(left / 60) min \(left % 60) s left" : "\(left) s left")
        }
        return parts.joined(separator: " · ")
    }

    /// `60000` as `60,000`.
    static func grouped(_ number: Int) -> String {
        let digits = String(abs(number))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (number < 0 ? "-" : "") + out
    }
}

extension ServiceCall {
    /// A typed command run as `runShowingProgress` runs one, its reply as its type.
    static func sendShowingProgress<C: HearthCommand>(
        _ options: GlobalOptions, _ service: HearthService, _ command: C
    ) async throws -> C.Reply {
        try await runShowingProgress(options, service, C.name, try command.arguments()).decode(C.Reply.self)
    }

    /// Runs a long `command` on `service` (waiting up to ten minutes, or `--timeout` if longer)
    /// and, on a terminal, shows its progress as the service reports it: the request carries a
    /// fresh `progress` token, and `progress {token}` is asked four times a second beside it.
    static func runShowingProgress(
        _ options: GlobalOptions, _ service: HearthService, _ command: String, _ arguments: [String: JSONValue]
    ) async throws -> JSONValue {
        var patient = options
        patient.timeout = max(options.timeout, 600_000)
        let line = ProgressLine(options)
        guard line.enabled else { return try await run(patient, service, command, arguments) }
        let token = UUID().uuidString.lowercased()
        let configuration = try options.loadConfiguration()
        let poller = Task {
            guard let context = try? ZMQContext(configuration: configuration) else { return }
            let client = CommandClient(
                context: context, endpoint: configuration.commandEndpoint(service), timeout: .seconds(1), attempts: 1)
            // The redraw interval of the line, not a wait for anything.
            try? await Task.sleep(for: ProgressLine.delay)
            while !Task.isCancelled {
                if let report = try? await client.send(ServiceCommands.Progress(token: token)), report.known,
                    !Task.isCancelled
                {
                    line.show(
                        done: report.done ?? 0, total: report.total ?? 0, unit: report.unit ?? "",
                        elapsed: .milliseconds(report.elapsedMs ?? 0))
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
            await client.close()
            await context.terminate()
        }
        let result: Result<JSONValue, any Error>
        do {
            result = .success(
                try await run(patient, service, command, arguments.merging(["progress": .string(token)]) { $1 }))
        } catch {
            result = .failure(error)
        }
        poller.cancel()
        await poller.value
        line.clear()
        return try result.get()
    }
}
