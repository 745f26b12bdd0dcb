import GRDB
import HearthBus
import Synchronization

/// A change to publish once the transaction that made it has committed.
struct ChangeEvent: Sendable {
    let topic: String
    let data: JSONValue
    let seq: UInt64
}

/// The events one command produced; kept only if its savepoint commits.
final class ChangeOutbox {
    private(set) var events: [ChangeEvent] = []
    /// The operations this device wrote in the command, in order: its undo step (`UndoLog`).
    private(set) var written: [Operation] = []

    func wrote(_ operation: Operation) { written.append(operation) }

    func add(_ event: ChangeEvent) { events.append(event) }

    /// Queues `store.<kind>.changed` for an operation applied as change `seq`: the entity, the
    /// operation, and what its domain says of the entity now (`StoreDomain.describe`).
    /// - Returns: the domain's description, for the command's reply.
    @discardableResult
    func add(_ operation: Operation, seq: Int64, in db: Database) throws -> [String: JSONValue] {
        let description = try StoreDomains.domain(of: operation.entity.kind).describe(operation.entity, in: db)
        add(operation, seq: seq, description: description)
        return description
    }

    /// Queues `store.<kind>.changed` with a description already read (an import describes each
    /// entity once for all its operations: they are settled together before any event).
    func add(_ operation: Operation, seq: Int64, description: [String: JSONValue]) {
        let entity = operation.entity
        let data = description.merging([
            "entity": ["kind": .string(entity.kind), "id": .string(entity.id)],
            "op": .string(operation.id.description), "operation": operation.json,
        ]) { $1 }
        add(ChangeEvent(topic: "store.\(entity.kind).changed", data: .object(data), seq: UInt64(seq)))
    }
}

/// A mutating command's work inside the shared transaction.
typealias Mutation = @Sendable (Database, ChangeOutbox) throws -> JSONValue

/// Commits concurrent commands together: one transaction (one fsync) for every command waiting
/// at that moment, each in its own savepoint so a refused command rolls back alone.
///
/// The command that finds nobody writing starts a drain: one access to the database's writer that
/// commits a batch of everything queued, answers it, and takes the next batch straight away while
/// more wait, on the writer's own thread. Commands that arrive meanwhile join the next batch, so
/// no command waits behind an endless stream. Until 2026-12-07 each batch's leader was a waiting
/// command's task, woken after the previous batch; the two hops between batches (that task back on
/// the pool, then onto the writer's queue) left the writer idle half the time under 8 clients and
/// held batches to about 3 commands (1,280 fsyncs for 4,000 commands). A command is answered only
/// after the batch that holds it is durable.
final class GroupCommit: Sendable {
    private let pool: DatabasePool
    private let publish: @Sendable ([ChangeEvent]) -> Void
    private let state = Mutex<(queue: [Job], draining: Bool)>(([], false))
    /// Batches one access to the writer commits before it lets other writers in (a sync's import,
    /// a backup's checkpoint) and queues itself again behind them.
    static let batchesPerAccess = 16

    /// The batch's last write, after every command's savepoint (the store's: `SearchIndex.flush`).
    private let finish: @Sendable (Database) throws -> Void

    init(
        pool: DatabasePool, finish: @escaping @Sendable (Database) throws -> Void = { _ in },
        publish: @escaping @Sendable ([ChangeEvent]) -> Void
    ) {
        self.pool = pool
        self.finish = finish
        self.publish = publish
    }

    /// Commands queued for the next batch.
    var waiting: Int { state.withLock { $0.queue.count } }

    /// Runs `body` at most once per request id: a repeated id gets the stored reply.
    func once(_ requestID: String, _ body: @escaping Mutation) async throws -> JSONValue {
        let job = Job(requestID: requestID, command: UndoLog.command, body: body)
        let starts = state.withLock { state -> Bool in
            state.queue.append(job)
            if state.draining { return false }
            state.draining = true
            return true
        }
        // The drain answers this command with its first batch and goes on while others wait.
        if starts { Task { await self.drain() } }
        // Waited for even if this task is cancelled: the command may be committed already.
        return try await job.outcome.outcome().get()
    }

    /// The queued commands, taken; or none, and the drain over (atomically with `once`'s check, so
    /// a command queued just now is never left without one).
    private func take() -> [Job]? {
        state.withLock { state -> [Job]? in
            if state.queue.isEmpty {
                state.draining = false
                return nil
            }
            defer { state.queue.removeAll() }
            return state.queue
        }
    }

    private func drain() async {
        var more = true
        while more {
            do {
                more = try await pool.writeWithoutTransaction { db -> Bool in
                    for _ in 0..<Self.batchesPerAccess {
                        guard let batch = self.take() else { return false }
                        let results: [Result<JSONValue, any Error>]
                        do {
                            results = try self.commit(batch, in: db)
                        } catch {
                            results = batch.map { _ in .failure(error) }
                        }
                        for (job, result) in zip(batch, results) { job.outcome.set(result) }
                    }
                    return true
                }
            } catch {
                // No access to the writer at all (the pool is closed): everything queued fails.
                while let batch = take() {
                    for job in batch { job.outcome.set(.failure(error)) }
                }
                more = false
            }
        }
    }

    /// One batch in one transaction: each command in a savepoint of its own.
    private func commit(_ batch: [Job], in db: Database) throws -> [Result<JSONValue, any Error>] {
        var results: [Result<JSONValue, any Error>] = []
        var committed: [ChangeEvent] = []
        try db.inTransaction {
            results = []
            var events: [ChangeEvent] = []
            for job in batch {
                let outbox = ChangeOutbox()
                var reply: JSONValue = .null
                do {
                    try db.inSavepoint {
                        if let stored = try String.fetchOne(
                            try db.cachedStatement(sql: "SELECT reply FROM request WHERE id = ?"),
                            arguments: [job.requestID])
                        {
                            reply = try JSONValue.parse(stored)
                            return .commit
                        }
                        reply = try job.body(db, outbox)
                        if let command = job.command {
                            try UndoLog.record(
                                command: command, request: job.requestID, operations: outbox.written, in: db)
                        }
                        try db.cachedStatement(sql: "INSERT INTO request (id, reply) VALUES (?, ?)")
                            .execute(arguments: [job.requestID, reply.jsonText])
                        return .commit
                    }
                    results.append(.success(reply))
                    events.append(contentsOf: outbox.events)
                } catch {
                    results.append(.failure(error))
                }
            }
            try finish(db)
            committed = events
            return .commit
        }
        // Published once `inTransaction` returns, i.e. after its COMMIT succeeded, still on the
        // writer's thread: events leave in commit order. Not `db.afterNextTransaction`: each call
        // adds a GRDB transaction observer, and adding or removing one evicts every cached
        // statement that can delete rows (an `INSERT OR REPLACE` of a materialised row, the
        // heads' `DELETE`), so every batch prepared them again: 12% of the store's CPU under
        // 8 clients of `event.set` (perf, 2026-12-07).
        publish(committed)
        return results
    }

    /// One queued command.
    private final class Job: Sendable {
        let requestID: String
        /// The command, for its undo step; `nil` for writes no command asked for.
        let command: String?
        let body: Mutation
        let outcome = AsyncLatch<Result<JSONValue, any Error>>()

        init(requestID: String, command: String?, body: @escaping Mutation) {
            self.requestID = requestID
            self.command = command
            self.body = body
        }
    }
}
