import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthTrust
import StoreService

/// `hearth ops`: move operations between homes by file (sync without a network).
struct Ops: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ops",
        abstract: "Export and import operations between homes by file.",
        subcommands: [Export.self, Import.self, Quarantine.self, Forks.self, Resume.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
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
            // The store answers in pages (each under the largest message); the file holds them all,
            // with the vector of the first page (what the file is known to cover).
            var operations: [JSONValue] = []
            var first: JSONValue?
            var after: JSONValue = .null
            repeat {
                arguments["after"] = after
                let page = try await ServiceCall.run(options, .store, "ops.export", arguments)
                first = first ?? page
                operations += page["operations"]?.arrayValue ?? []
                after = page["next"] ?? .null
            } while after != .null
            var file = first?.objectValue ?? [:]
            file["operations"] = .array(operations)
            file["next"] = nil
            Output.json(.object(file))
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Apply the operations in a file from `hearth ops export`.",
            discussion: """
                Each operation is checked alone (its form, its domain's rules, its author's \
                signature): the ones that pass are applied, each refused one is listed with the \
                field and the rule, and the command then exits 2. Importing the same file again \
                applies nothing twice. A file from a device this household does not know yet is \
                refused until --trust gives its key's fingerprint, read on that device \
                (hearth device list).
                """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The file.") var file: String
        @Option(help: "The exporting device's signing key fingerprint, as `hearth device list` shows it there.")
        var trust: String?

        func run() async throws {
            let value = try Ops.readJSON(file)
            guard let operations = value["operations"] else {
                Output.error(
                    "hearth ops import: \(file): 'operations' is missing (is this a `hearth ops export` file?)")
                throw ExitCode(2)
            }
            guard let format = value["format"]?.stringValue else {
                Output.error("hearth ops import: \(file): 'format' is missing (is this a `hearth ops export` file?)")
                throw ExitCode(2)
            }
            guard let list = operations.arrayValue else {
                Output.error("hearth ops import: \(file): 'operations' must be a list")
                throw ExitCode(2)
            }
            // A large file goes in pages, each under the command size limit and each one
            // transaction, vouches for keys first, then in time order so parents come before the
            // edits that overwrite them. Operations are idempotent: after a failed page, importing
            // the file again finishes the job.
            let limit = try options.loadConfiguration().maximumMessageBytes - 4_096
            var (received, already, conflicts, refusedCount) = (0, 0, 0, 0)
            var (quarantined, refused) = ([HeldOperation](), [OperationsRefusedEvent.Refusal]())
            var common: [String: JSONValue] = ["format": .string(format)]
            if let device = value["device"], let key = value["signing_key"] {
                common["exporter"] = ["device": device, "signing_key": key]
                common["source"] = device
            }
            if let trust { common["trust"] = .string(trust) }
            let pages = Self.pages(list, limit: limit)
            let line = ProgressLine(options)
            var sent = 0
            for (number, page) in pages.enumerated() {
                line.show(done: sent, total: list.count, unit: "operations")
                do {
                    let reply = try await ServiceCall.run(
                        options, .store, "ops.import", common.merging(["operations": .array(page)]) { $1 },
                        as: ImportReport.self)
                    received += reply.received
                    already += reply.alreadyHad
                    conflicts += reply.conflicts
                    quarantined += reply.quarantined
                    refusedCount += reply.refusedCount
                    refused += reply.refused.prefix(max(0, 20 - refused.count))
                    // Pinned once, with the first page: the later pages need no fingerprint.
                    common["trust"] = nil
                    sent += page.count
                    line.show(done: sent, total: list.count, unit: "operations")
                } catch {
                    line.clear()
                    if number > 0 {
                        Output.error(
                            "hearth ops import: page \(number + 1) of \(pages.count) failed; the \(number) before it "
                                + "were applied (import the file again to finish: nothing is applied twice)")
                    }
                    throw error
                }
            }
            line.clear()
            let open = try await ServiceCall.send(options, .store, HistoryCommands.Conflicts()).conflicts.count
            let report: JSONValue = [
                "received": .int(Int64(received)), "already_had": .int(Int64(already)),
                "conflicts": .int(Int64(conflicts)), "open_conflicts": .int(Int64(open)),
                "quarantined": try JSONValue(reply: quarantined), "refused": try JSONValue(reply: refused),
                "refused_count": .int(Int64(refusedCount)), "pages": .int(Int64(pages.count)),
            ]
            if options.json {
                Output.json(report)
            } else {
                Output.line(
                    "received \(received), already had \(already), new conflicts \(conflicts) (open \(open))"
                        + (quarantined.isEmpty ? "" : ", held back \(quarantined.count)")
                        + (refusedCount == 0 ? "" : ", refused \(refusedCount)"))
                for held in quarantined {
                    Output.line("  held back \(held.id): \(held.reason) (tried again on each import)")
                }
                for refusal in refused {
                    Output.line("  refused \(refusal.id ?? "?"): '\(refusal.field)' \(refusal.rule)")
                }
                if refusedCount > refused.count { Output.line("  … and \(refusedCount - refused.count) more") }
            }
            if refusedCount > 0 { throw ExitCode(2) }
        }

        /// `operations` with the vouches for keys first, then in time order, cut into pages of at
        /// most `limit` bytes of JSON (an operation larger than that goes alone, and the client
        /// refuses it naming the limit).
        static func pages(_ operations: [JSONValue], limit: Int) -> [[JSONValue]] {
            func order(_ operation: JSONValue) -> (Int, Int64, Int64, String) {
                (
                    operation["entity"]?["kind"]?.stringValue == "device_key" ? 0 : 1,
                    operation["time"]?["wall"]?.intValue ?? 0, operation["time"]?["logical"]?.intValue ?? 0,
                    operation["id"]?.stringValue ?? ""
                )
            }
            let ordered = operations.sorted { order($0) < order($1) }
            var pages: [[JSONValue]] = []
            var page: [JSONValue] = []
            var bytes = 0
            for operation in ordered {
                let size = operation.jsonBytes.count + 1
                if !page.isEmpty && bytes + size > limit {
                    pages.append(page)
                    (page, bytes) = ([], 0)
                }
                page.append(operation)
                bytes += size
            }
            if !page.isEmpty || pages.isEmpty { pages.append(page) }
            return pages
        }
    }

    struct Quarantine: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "quarantine",
            abstract: "List the operations held back (stamped too far in the future), or empty the quarantine.",
            discussion: """
                An operation stamped more than an hour ahead of this device's clock is held back, \
                and tried again on each later import or sync; each source holds at most 1,000 \
                (1 MiB) of them.
                """)
        @OptionGroup var options: GlobalOptions
        @Flag(help: "Empty the quarantine (the operations come again from their source if still valid).")
        var purge = false

        func run() async throws {
            if purge {
                let reply = try await ServiceCall.send(options, .store, ExchangeCommands.PurgeQuarantine())
                if options.json { return try Output.reply(reply) }
                return Output.line("emptied the quarantine (\(reply.purged) operations)")
            }
            let list = try await ServiceCall.send(options, .store, ExchangeCommands.Quarantine())
            if options.json { return try Output.reply(list) }
            if list.operations.isEmpty { return Output.line("nothing is held back") }
            Output.line("\(list.count) held back (\(list.bytes) bytes):")
            for operation in list.operations {
                Output.line(
                    "  \(operation.id)  \(operation.reason)"
                        + (operation.source.isEmpty ? "" : "  from \(operation.source.prefix(8))"))
            }
        }
    }

    struct Forks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forks",
            abstract: "Operations held here with one content and sent by another device with another.",
            discussion: """
                Possible only for operations from before signing (a signed operation cannot have \
                two contents). Both contents are kept and named; everything else syncs.
                """)
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, ExchangeCommands.Forks())
            if options.json { return try Output.reply(reply) }
            if reply.forks.isEmpty { return Output.line("no forked operations") }
            for fork in reply.forks {
                Output.line(
                    "\(fork.id): held \(try JSONValue(encoding: fork.held.fields).jsonText); "
                        + "\(fork.source.prefix(8)) sent \(try JSONValue(encoding: fork.other.fields).jsonText)")
            }
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
        commandName: "backup",
        abstract: "Copy the database while the store runs (SQLite online backup).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The new backup file.") var file: String

    func run() async throws {
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let reply = try await ServiceCall.send(options, .store, ExchangeCommands.Backup(path: path))
        if options.json { return try Output.reply(reply) }
        Output.line("backed up \(reply.bytes) bytes to \(path)")
    }
}

/// `hearth restore`: put a backup back in place, only while the store is stopped.
extension Ops {
    /// `hearth ops resume`: lets a restored device write again without syncing first.
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume",
            abstract: "Let a device restored from a backup write again without taking its operations back from a peer.",
            discussion: """
                Only for a household with no other device: a device that made changes after the \
                backup and synced them would reuse their numbers, and its peers would refuse its \
                new changes.
                """)
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, ExchangeCommands.Resume())
            if options.json { return try Output.reply(reply) }
            Output.line(reply.resumed ? "This device writes again." : "This device was not waiting after a restore.")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the database with a backup (the store must be stopped).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "A file made by `hearth backup`.") var file: String

    func run() async throws {
        let configuration = try options.loadConfiguration()
        // Holding the store's own lock proves it is stopped, and keeps it from starting until
        // the new database is in place.
        let lock: ServiceLock
        do {
            lock = try ServiceLock(service: HearthService.store.rawValue, configuration: configuration)
        } catch .alreadyRunning(_, _, let pid) {
            Output.error(
                "hearth restore: hearth-store is running" + (pid.map { " (pid \($0))" } ?? "")
                    + "; stop it first (it holds the database open)")
            throw ExitCode(1)
        } catch {
            Output.error("hearth restore: \(error)")
            throw ExitCode(1)
        }
        defer { withExtendedLifetime(lock) {} }
        let operations: Int
        do {
            // This device's own operations in it are checked against its own key.
            let ownKey = SigningKey.derived(
                fromCurveSecret: try DeviceIdentity.keyPair(home: configuration.home).secretKey
            ).publicKey
            operations = try StoreBackup.check(file, ownKey: ownKey)
        } catch {
            Output.error("hearth restore: \(error)")
            throw ExitCode(2)
        }
        let target = (configuration.home as NSString).appendingPathComponent("hearth.sqlite")
        let temporary = target + ".restoring"
        try? FileManager.default.removeItem(atPath: temporary)
        try FileManager.default.copyItem(atPath: file, toPath: temporary)
        chmod(temporary, 0o600)
        // Until it has taken back from a peer what it made after this backup, the device writes
        // nothing (its next counters may be taken by operations the peers hold): marked before
        // the database appears, so a store never opens it unmarked.
        guard
            FileManager.default.createFile(
                atPath: target + ".restored", contents: Data((Timestamp.format(Date()) + "\n").utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            Output.error("hearth restore: cannot write \(target).restored; nothing was replaced")
            throw ExitCode(1)
        }
        // The database being replaced is kept beside it, whole: its WAL moves with it (committed
        // changes may still be only there).
        var kept: String?
        if FileManager.default.fileExists(atPath: target) {
            let stamp = Timestamp.format(Date()).replacingOccurrences(of: ":", with: "")
            let keep = target + ".replaced-" + stamp
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: target + suffix) {
                guard rename(target + suffix, keep + suffix) == 0 else {
                    Output.error("hearth restore: cannot keep \(target + suffix): \(String(cString: strerror(errno)))")
                    throw ExitCode(1)
                }
            }
            kept = keep
        }
        // rename(2) puts the backup in place in one step: the database is never half-written.
        guard rename(temporary, target) == 0 else {
            Output.error("hearth restore: cannot replace \(target): \(String(cString: strerror(errno)))")
            throw ExitCode(1)
        }
        if options.json {
            return Output.json([
                "restored": .string(target), "operations": .int(Int64(operations)),
                "replaced_kept_at": kept.map(JSONValue.string) ?? .null,
            ])
        }
        Output.line(
            "restored \(target) from \(file) (\(operations) operations)"
                + (kept.map { "; the database it replaced is kept at \($0)" } ?? ""))
        Output.line(
            "Before this device writes again it takes back what it made since the backup from a paired device: hearth sync now (with no other device: hearth ops resume)."
        )
    }
}
