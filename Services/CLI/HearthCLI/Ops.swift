import ArgumentParser
import Foundation
import HearthBus

/// `hearth ops`: move operations between homes by file (sync without a network).
struct Ops: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export and import operations between homes by file.", subcommands: [Export.self, Import.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print operations as JSON: all of them, or those a peer's version vector lacks.",
            discussion: "A file written by `hearth ops export` holds a \"vector\": pass it with --since-vector.")
        @OptionGroup var options: GlobalOptions
        @Flag(help: "Every operation.") var all = false
        @Option(help: "A JSON file with a version vector (or an earlier export, whose vector is used).")
        var sinceVector: String?

        func validate() throws {
            guard all != (sinceVector != nil) else {
                throw ValidationError("give exactly one of --all and --since-vector")
            }
        }

        func run() async throws {
            var arguments: [String: JSONValue] = [:]
            if let sinceVector {
                let value = try Ops.readJSON(sinceVector)
                arguments["since_vector"] = value["vector"] ?? value
            }
            let reply = try await ServiceCall.run(options, .store, "ops.export", arguments)
            Output.json(reply)
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the operations in a file from `hearth ops export`.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The file.") var file: String

        func run() async throws {
            let value = try Ops.readJSON(file)
            guard let operations = value["operations"] else {
                Output.error(
                    "hearth ops import: \(file): 'operations' is missing (is this a `hearth ops export` file?)")
                throw ExitCode(2)
            }
            let reply = try await ServiceCall.run(options, .store, "ops.import", ["operations": operations])
            if options.json { return Output.json(reply) }
            Output.line(
                "received \(reply["received"]?.intValue ?? 0), already had \(reply["already_had"]?.intValue ?? 0), "
                    + "open conflicts \(reply["conflicts"]?.intValue ?? 0)")
        }
    }

    static func readJSON(_ path: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else {
            Output.error("hearth: cannot read \(path)")
            throw ExitCode(2)
        }
        do {
            return try JSONValue.parse(Array(data))
        } catch {
            Output.error("hearth: \(path): \(error)")
            throw ExitCode(2)
        }
    }
}

/// `hearth backup`: a consistent copy of the live database.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the database while the store runs (SQLite online backup).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The new backup file.") var file: String

    func run() async throws {
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let reply = try await ServiceCall.run(options, .store, "backup", ["path": .string(path)])
        if options.json { return Output.json(reply) }
        Output.line("backed up \(reply["bytes"]?.intValue ?? 0) bytes to \(path)")
    }
}

/// `hearth restore`: put a backup back in place, only while the store is stopped.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace the database with a backup (the store must be stopped).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "A file made by `hearth backup`.") var file: String

    func run() async throws {
        let configuration = try options.loadConfiguration()
        guard await ServiceCall.ifRunning(configuration, .store, "ping", timeout: .milliseconds(300)) == nil else {
            Output.error("hearth restore: hearth-store is running; stop it first (it holds the database open)")
            throw ExitCode(1)
        }
        guard let header = FileHandle(forReadingAtPath: file)?.readData(ofLength: 16),
            header == Data("SQLite format 3\u{0}".utf8)
        else {
            Output.error("hearth restore: \(file) is not an SQLite database")
            throw ExitCode(2)
        }
        let target = (configuration.home as NSString).appendingPathComponent("hearth.sqlite")
        let temporary = target + ".restoring"
        try? FileManager.default.removeItem(atPath: temporary)
        try FileManager.default.copyItem(atPath: file, toPath: temporary)
        chmod(temporary, 0o600)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: target + suffix) }
        // rename(2) replaces the database in one step: it is never half-written.
        guard rename(temporary, target) == 0 else {
            Output.error("hearth restore: cannot replace \(target): \(String(cString: strerror(errno)))")
            throw ExitCode(1)
        }
        if options.json { return Output.json(["restored": .string(target)]) }
        Output.line("restored \(target) from \(file)")
    }
}
