import Dispatch
import GRDB
import HearthBus
import HearthTesting
import Synchronization
import Testing

@testable import StoreService

/// Group commit on a real SQLite file: commands that wait together commit in one transaction,
/// a refused one rolls back alone, a repeated request id runs once, and events leave only after
/// the commit, in order.
@Suite("GroupCommit: waiting commands share one transaction, each in its own savepoint", .timeLimit(.minutes(1)))
struct GroupCommitTests {
    /// Counts the transactions committed on a database.
    final class Commits: TransactionObserver, Sendable {
        let count = Atomic<Int>(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.add(1, ordering: .relaxed) }
        func databaseDidRollback(_ db: Database) {}
    }

    struct Refused: Error {}

    /// A fresh SQLite file with the table of replies group commit keeps and one of items.
    static func database() async throws -> (TemporaryHome, DatabasePool) {
        let home = try TemporaryHome()
        let pool = try DatabasePool(path: home.file("group.sqlite"))
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE request (id TEXT PRIMARY KEY, reply TEXT NOT NULL)")
            try db.execute(sql: "CREATE TABLE item (n INTEGER PRIMARY KEY)")
        }
        return (home, pool)
    }

    /// What the commands and the publisher record, shared with their closures.
    final class Record: Sendable {
        let runs = Atomic<Int>(0)
        let published = Mutex<[[UInt64]]>([])
    }

    @Test(
        "20 commands queued behind a busy writer: one transaction; the refused one alone rolls back; a repeated id runs once; events after the commit, in order"
    )
    func batches() async throws {
        let (home, pool) = try await Self.database()
        defer { withExtendedLifetime(home) {} }
        let commits = Commits()
        try await pool.writeWithoutTransaction { db in db.add(transactionObserver: commits, extent: .databaseLifetime) }
        let record = Record()
        let writes = GroupCommit(pool: pool) { events in record.published.withLock { $0.append(events.map(\.seq)) } }

        // Hold the writer so that every command below queues before any commits. The wait is on
        // GRDB's writer queue (a dispatch thread, not the cooperative pool) and bounded.
        let gate = DispatchSemaphore(value: 0)
        let holding = Task { try await pool.writeWithoutTransaction { _ in _ = gate.wait(timeout: .now() + 20) } }
        let replies = try await withThrowingTaskGroup(of: (Int, Result<JSONValue, any Error>).self) { group in
            for n in 0..<20 {
                // Command 7 is refused after writing; 12 repeats 11's request id.
                let id = n == 12 ? "request-11" : "request-\(n)"
                group.addTask {
                    do {
                        let reply = try await writes.once(id) { db, outbox in
                            record.runs.add(1, ordering: .relaxed)
                            try db.execute(sql: "INSERT INTO item (n) VALUES (?)", arguments: [n])
                            if n == 7 { throw Refused() }
                            outbox.add(ChangeEvent(topic: "store.item.changed", data: .int(Int64(n)), seq: UInt64(n)))
                            return .int(Int64(n))
                        }
                        return (n, .success(reply))
                    } catch {
                        return (n, .failure(error))
                    }
                }
            }
            // Nothing announces a command queued: a bounded poll.
            #expect(await Polling.eventually { writes.waiting == 20 })
            gate.signal()
            var replies: [Int: Result<JSONValue, any Error>] = [:]
            for try await (n, result) in group { replies[n] = result }
            return replies
        }
        try await holding.value

        #expect(commits.count.load(ordering: .relaxed) == 1, "20 waiting commands, one transaction")
        #expect(record.runs.load(ordering: .relaxed) == 19, "the repeated request id ran once")
        for n in 0..<20 where n != 7 && n != 12 {
            #expect(try replies[n]?.get() == .int(Int64(n)))
        }
        #expect(throws: Refused.self) { try replies[7]?.get() }
        // The repeat gets the first's stored reply, whichever of the two ran.
        let first = try #require(try replies[11]?.get())
        #expect(try replies[12]?.get() == first)
        let items = try await pool.read { db in try Int.fetchAll(db, sql: "SELECT n FROM item ORDER BY n") }
        #expect(items.count == 18 && !items.contains(7), "the refused command's row rolled back alone: \(items)")
        let events = record.published.withLock { $0 }
        #expect(events.count == 1, "one publication, after the one commit")
        #expect(Set(events.first ?? []) == Set(items.map(UInt64.init)), "every committed command's event, none other")
    }

    @Test("a command arriving while a drain commits is answered by that drain's next batch or a new drain")
    func keepsDraining() async throws {
        let (home, pool) = try await Self.database()
        defer { withExtendedLifetime(home) {} }
        let writes = GroupCommit(pool: pool) { _ in }
        // 8 clients, each sending its next command as soon as the last is answered.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        let n = client * 1_000 + index
                        let reply = try await writes.once("c\(n)") { db, _ in
                            try db.execute(sql: "INSERT INTO item (n) VALUES (?)", arguments: [n])
                            return .int(Int64(n))
                        }
                        #expect(reply == .int(Int64(n)))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") } == 400)
        #expect(writes.waiting == 0)
    }
}
