import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import HearthTrust
import Testing

@testable import StoreService

/// The store folds only each field's heads (`field_head`), not an entity's whole history; these
/// check that this is always what folding everything gives, whatever order operations arrive in.
///
/// Each round runs in one transaction, and the rounds one after another: synchronous SQLite work
/// on the test process's cooperative threads (120 fsync'd transactions × 8 rounds at once) held
/// them long enough for other suites' timers to fire seconds late.
@Suite("hearth-store: field heads equal the whole fold", .serialized, .timeLimit(.minutes(2)))
struct FieldHeadsTests {
    /// Three devices editing three cards, each from its own view (so edits overwrite what that
    /// device saw, and concurrent edits conflict), now and then merging another's operations.
    static func history(seed: UInt64, count: Int) throws -> [HearthCore.Operation] {
        var random = SplitMix(seed: seed)
        let devices = ["dev-a", "dev-b", "dev-c"]
        var views = devices.map { _ in OperationLog() }
        var counters = [UInt64](repeating: 0, count: devices.count)
        var all: [HearthCore.Operation] = []
        var wall: Int64 = 1_000
        for _ in 0..<count {
            let index = Int.random(in: 0..<devices.count, using: &random)
            if Bool.random(using: &random), !all.isEmpty {
                // Merge a random prefix of everything made so far into this device's view.
                for operation in all.prefix(Int.random(in: 1...all.count, using: &random)) {
                    try views[index].apply(operation)
                }
            }
            counters[index] += 1
            wall += Int64.random(in: 1...5, using: &random)
            let entity = EntityRef(kind: "event_card", id: "2026-0\(Int.random(in: 1...3, using: &random))")
            var values: [String: FieldValue] = [:]
            for field in ["title", "location", "day"] where Bool.random(using: &random) {
                values[field] =
                    field == "day"
                    ? .int(Int64.random(in: 1...28, using: &random))
                    : .text("\(field) \(Int.random(in: 0...9, using: &random))")
            }
            if values.isEmpty { values["title"] = .text("t\(counters[index])") }
            let time = max(wall, (views[index].operations.values.map(\.time.wall).max() ?? 0) + 1)
            let operation = views[index].makeOperation(
                device: devices[index], counter: counters[index], time: HybridTime(wall: time), entity: entity,
                values: values)
            try views[index].apply(operation)
            all.append(operation)
        }
        return all
    }

    @Test(
        "random histories applied in random orders: the heads' fold is the whole fold after every operation",
        arguments: 0..<8)
    func randomOrders(_ round: Int) async throws {
        let seed = SplitMix.seed() &+ UInt64(round)
        let home = try TemporaryHome()
        let path = home.file("hearth.sqlite")
        // Every mismatch, described; the assertions are made here, in the test's own task.
        let mismatches = try await offPool { () throws -> [String] in
            var random = SplitMix(seed: seed)
            let operations = try Self.history(seed: seed, count: 120).shuffled(using: &random)
            let database = try StoreDatabase(path: path, localDevice: "dev-local", signer: .generate())
            var reference = OperationLog()
            var found: [String] = []
            try database.pool.write { db in
                for operation in operations {
                    try reference.apply(operation)
                    var folded = try StoreDatabase.log(of: operation.entity, in: db)
                    _ = try StoreDatabase.apply(operation, signature: nil, in: db, folded: &folded)
                    let heads = try StoreDatabase.log(of: operation.entity, in: db)
                    let expected = reference.entity(operation.entity)
                    if folded.entity(operation.entity) != expected { found.append("folded after \(operation.id)") }
                    if heads.entity(operation.entity) != expected { found.append("heads after \(operation.id)") }
                }
                // A local edit made from the heads overwrites exactly the heads (resolving conflicts).
                for month in 1...3 {
                    let entity = EntityRef(kind: "event_card", id: "2026-0\(month)")
                    let (operation, log) = try database.makeOperation(
                        entity, values: ["title": .text("Settled")], in: db)
                    if operation.fields["title"]?.overwrites
                        != Set(reference.field(entity, "title")?.heads.map(\.id) ?? [])
                    {
                        found.append("local edit of \(entity) overwrote other than the heads")
                    }
                    var folded = log
                    _ = try StoreDatabase.apply(operation, signature: nil, in: db, folded: &folded)
                    try reference.apply(operation)
                    if try StoreDatabase.log(of: entity, in: db).entity(entity) != reference.entity(entity)
                        || reference.field(entity, "title")?.isConflict != false
                    {
                        found.append("after the local edit of \(entity)")
                    }
                }
                // The whole fold, once at the end.
                for month in 1...3 {
                    let entity = EntityRef(kind: "event_card", id: "2026-0\(month)")
                    if try StoreDatabase.fullLog(of: entity, in: db).entity(entity) != reference.entity(entity) {
                        found.append("whole fold of \(entity)")
                    }
                }
            }
            return found
        }
        #expect(mismatches.isEmpty, "seed \(seed): \(mismatches.prefix(5))")
    }

    @Test("an existing database gets its heads from the whole fold when it migrates")
    func migration() throws {
        let home = try TemporaryHome()
        let path = home.file("hearth.sqlite")
        let operations = try Self.history(seed: 42, count: 60)
        var reference = OperationLog()
        do {
            let database = try StoreDatabase(path: path, localDevice: "dev-local", signer: .generate())
            try database.pool.write { db in
                for operation in operations {
                    try reference.apply(operation)
                    var folded = try StoreDatabase.log(of: operation.entity, in: db)
                    _ = try StoreDatabase.apply(operation, signature: nil, in: db, folded: &folded)
                }
                // As a database from before the heads were kept: empty them, and forget the migration.
                try db.execute(sql: "DELETE FROM field_head; DELETE FROM field_overwritten")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'core: field heads'")
                try db.execute(
                    sql: "DROP TABLE field_head; DROP TABLE field_overwritten; DROP INDEX operation_entity_time")
            }
        }
        let reopened = try StoreDatabase(path: path, localDevice: "dev-local", signer: .generate())
        for month in 1...3 {
            let entity = EntityRef(kind: "event_card", id: "2026-0\(month)")
            let heads = try reopened.pool.read { db in try StoreDatabase.log(of: entity, in: db).entity(entity) }
            #expect(heads == reference.entity(entity))
        }
    }
}
