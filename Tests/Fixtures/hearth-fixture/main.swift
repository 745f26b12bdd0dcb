// hearth-fixture: a tiny durable service for end-to-end tests of the command channel.
//
// `ledger.append {value}` appends "<request id> <value>" to a ledger file with fsync and
// remembers applied ids across restarts, the way a durable Hearth service must (the store will
// keep request ids in its SQLite transaction). Options make it stall before or after applying,
// so a test can kill it mid-request:
//   hearth-fixture --endpoint EP --ledger FILE [--hold-before-ms N] [--hold-after-ms N]
import Foundation
import HearthBus
import HearthHost
import Logging
import ServiceLifecycle

func option(_ name: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: name), index + 1 < CommandLine.arguments.count else {
        return nil
    }
    return CommandLine.arguments[index + 1]
}

/// The ledger file and the ids it already holds.
actor Ledger {
    let path: String
    var applied: [String: String] = [:]

    init(path: String) {
        self.path = path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { applied[String(parts[0])] = String(parts[1]) }
        }
    }

    func contains(_ id: String) -> Bool { applied[id] != nil }

    func append(id: String, value: String) throws {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CommandError(code: "io", message: "cannot open \(path)") }
        defer { close(fd) }
        let line = Array("\(id) \(value)\n".utf8)
        guard write(fd, line, line.count) == line.count, fsync(fd) == 0 else {
            throw CommandError(code: "io", message: "cannot write \(path)")
        }
        applied[id] = value
    }
}

func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

HearthLogging.bootstrap()
let logger = Logger(label: "hearth.fixture")
guard let endpoint = option("--endpoint"), let ledgerPath = option("--ledger") else {
    FileHandle.standardError.write(Data("usage: hearth-fixture --endpoint EP --ledger FILE\n".utf8))
    exit(2)
}
let holdBefore = Duration.milliseconds(Int(option("--hold-before-ms") ?? "0") ?? 0)
let holdAfter = Duration.milliseconds(Int(option("--hold-after-ms") ?? "0") ?? 0)
let ledger = Ledger(path: ledgerPath)

do {
    let context = try ZMQContext()
    let server = try CommandServer(
        context: context, endpoint: endpoint, service: "fixture", logger: logger,
        handler: { request in
            guard request.command == "ledger.append" else {
                throw CommandError.unknownCommand(request.command, service: "fixture")
            }
            guard let value = request.arguments["value"]?.stringValue else {
                throw CommandError.invalidArgument("value", "is required and must be a string")
            }
            say("received \(request.id)")
            if await ledger.contains(request.id) {
                return ["applied": false, "already": true]
            }
            try await Task.sleep(for: holdBefore)
            try await ledger.append(id: request.id, value: value)
            say("applied \(request.id)")
            try await Task.sleep(for: holdAfter)
            return ["applied": true, "already": false]
        }
    )
    say("ready \(server.endpoint)")
    try await ServiceGroup(configuration: .hearth(services: [server], logger: logger)).run()
    await context.terminate()
} catch {
    logger.critical("hearth-fixture: \(error)")
    exit(1)
}
