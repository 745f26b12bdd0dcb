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
/// Flat combining, with no extra task: the command that finds nobody committing becomes the
/// leader and commits a batch holding its own command and everything queued; then it hands the
/// lead to the oldest command still waiting, so no command waits behind an endless stream.
/// A command is answered only after the batch that holds it is durable.
final class GroupCommit: Sendable {
    private let pool: DatabasePool
    private let publish: @Sendable ([ChangeEvent]) -> Void
    private let state = Mutex<(queue: [Job], leading: Bool)>(([], false))

    init(pool: DatabasePool, publish: @escaping @Sendable ([ChangeEvent]) -> Void) {
        self.pool = pool
        self.publish = publish
    }

    /// Runs `body` at most once per request id: a repeated id gets the stored reply.
    func once(_ requestID: String, _ body: @escaping Mutation) async throws -> JSONValue {
        let job = Job(requestID: requestID, command: UndoLog.command, body: body)
        let lead = state.withLock { state -> Bool in
            state.queue.append(job)
            if state.leading { return false }
            state.leading = true
            return true
        }
        if lead { await commitBatch() }
        while true {
            switch await job.outcome.outcome() {
            case .done(let result): return try result.get()
            case .lead:
                // Promoted: this job is still queued; commit it with whatever else waits.
                job.outcome.reset()
                await commitBatch()
            }
        }
    }

    private func commitBatch() async {
        let batch = state.withLock { state -> [Job] in
            defer { state.queue.removeAll() }
            return state.queue
        }
        let results: [Result<JSONValue, any Error>]
        do {
            results = try await pool.write { [publish] db in
                var results: [Result<JSONValue, any Error>] = []
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
                // On GRDB's writer queue after the commit: events leave in commit order.
                let committed = events
                db.afterNextTransaction(onCommit: { _ in publish(committed) })
                return results
            }
        } catch {
            results = batch.map { _ in .failure(error) }
        }
        let next = state.withLock { state -> Job? in
            guard let first = state.queue.first else {
                state.leading = false
                return nil
            }
            return first
        }
        next?.outcome.set(.lead)
        for (job, result) in zip(batch, results) { job.outcome.set(.done(result)) }
    }

    /// One queued command.
    private final class Job: Sendable {
        let requestID: String
        /// The command, for its undo step; `nil` for writes no command asked for.
        let command: String?
        let body: Mutation
        let outcome = AsyncLatch<Outcome>()

        init(requestID: String, command: String?, body: @escaping Mutation) {
            self.requestID = requestID
            self.command = command
            self.body = body
        }
    }

    /// What a waiting command learns: its result, or that it now leads.
    private enum Outcome: Sendable {
        case done(Result<JSONValue, any Error>)
        case lead
    }
}
