import HearthCore
import HearthTesting
import Testing

/// A simulated device: its own log, clock and counter.
struct Replica {
    let device: String
    var log = OperationLog()
    var clock = HybridClock()
    var counter: UInt64 = 0

    init(_ device: String) { self.device = device }

    /// Edits `entity` locally and returns the operation to share.
    mutating func set(_ entity: EntityRef, _ values: [String: FieldValue], at now: Int64) throws -> Operation {
        counter += 1
        let operation = log.makeOperation(
            device: device, counter: counter, time: clock.tick(now: now), entity: entity, values: values)
        try log.apply(operation)
        return operation
    }

    /// Takes in everything `other` has that this replica lacks.
    mutating func sync(from other: Replica, at now: Int64) throws {
        for operation in other.log.operations(missingFrom: log.versionVector) {
            try clock.observe(operation.time, now: now)
            try log.apply(operation)
        }
    }
}

let august = EntityRef(kind: "event_card", id: "2026-08")
let july = EntityRef(kind: "event_card", id: "2026-07")

@Suite("Operation log", .timeLimit(.minutes(1)))
struct OperationLogTests {
    @Test("local edits chain: each write replaces the value its author saw")
    func localEdits() throws {
        var mum = Replica("mum")
        let first = try mum.set(august, ["title": .text("Beach day"), "day": .int(14)], at: 1_000)
        let second = try mum.set(august, ["title": .text("Beach weekend")], at: 2_000)
        #expect(first.fields["title"]?.overwrites == [])
        #expect(second.fields["title"]?.overwrites == [first.id])
        #expect(mum.log.field(august, "title")?.value == .text("Beach weekend"))
        #expect(mum.log.field(august, "day")?.value == .int(14))
        #expect(mum.log.conflicts.isEmpty)
        #expect(mum.log.versionVector["mum"] == 2)
    }

    @Test("applying an operation twice changes nothing; a reused id with other contents is refused")
    func idempotent() throws {
        var mum = Replica("mum")
        let operation = try mum.set(august, ["title": .text("Beach day")], at: 1_000)
        #expect(try mum.log.apply(operation) == false)
        #expect(mum.log.operations.count == 1)
        let forged = Operation(
            id: operation.id, time: operation.time, entity: august, fields: ["title": FieldWrite(value: .text("Zoo"))])
        #expect(throws: OperationLogError.conflictingDuplicate(operation.id)) { try mum.log.apply(forged) }
        #expect(mum.log.field(august, "title")?.value == .text("Beach day"))
    }

    @Test("concurrent edits of different fields merge without conflict")
    func differentFields() throws {
        var mum = Replica("mum")
        var dad = Replica("dad")
        try dad.sync(from: mum, at: 0)
        _ = try mum.set(august, ["title": .text("Beach day")], at: 1_000)
        try dad.sync(from: mum, at: 1_000)
        _ = try mum.set(august, ["title": .text("Beach weekend")], at: 2_000)
        _ = try dad.set(august, ["location": .text("Brighton")], at: 2_100)
        try mum.sync(from: dad, at: 3_000)
        try dad.sync(from: mum, at: 3_000)
        for replica in [mum, dad] {
            #expect(replica.log.field(august, "title")?.value == .text("Beach weekend"))
            #expect(replica.log.field(august, "location")?.value == .text("Brighton"))
            #expect(replica.log.conflicts.isEmpty)
        }
    }

    @Test("concurrent edits of one field conflict: both values kept, the same winner everywhere, then resolved")
    func conflictAndResolution() throws {
        var mum = Replica("mum")
        var dad = Replica("dad")
        _ = try mum.set(august, ["title": .text("Beach day")], at: 1_000)
        try dad.sync(from: mum, at: 1_000)
        let mums = try mum.set(august, ["title": .text("Beach weekend")], at: 2_000)
        let dads = try dad.set(august, ["title": .text("Camping")], at: 2_500)
        try mum.sync(from: dad, at: 3_000)
        try dad.sync(from: mum, at: 3_000)
        for replica in [mum, dad] {
            let state = try #require(replica.log.field(august, "title"))
            #expect(state.isConflict)
            // Dad's edit has the later hybrid time, so it wins on both devices.
            #expect(state.value == .text("Camping"))
            #expect(Set(state.heads.map(\.id)) == [mums.id, dads.id])
            #expect(replica.log.conflicts.count == 1)
        }
        // Mum resolves by keeping her value: the write replaces both heads.
        let resolution = try mum.set(august, ["title": .text("Beach weekend")], at: 4_000)
        #expect(resolution.fields["title"]?.overwrites == [mums.id, dads.id])
        try dad.sync(from: mum, at: 5_000)
        for replica in [mum, dad] {
            #expect(replica.log.conflicts.isEmpty)
            #expect(replica.log.field(august, "title")?.value == .text("Beach weekend"))
            // Nothing is lost: every value ever written is still in the log.
            #expect(replica.log.operations.count == 4)
        }
    }

    @Test("a write that arrives before the write it replaced still wins once both are in")
    func outOfOrder() throws {
        var mum = Replica("mum")
        let first = try mum.set(august, ["title": .text("Beach day")], at: 1_000)
        let second = try mum.set(august, ["title": .text("Beach weekend")], at: 2_000)
        var log = OperationLog()
        try log.apply(second)
        #expect(log.versionVector["mum"] == 0)
        try log.apply(first)
        #expect(log.versionVector["mum"] == 2)
        #expect(log.field(august, "title")?.value == .text("Beach weekend"))
        #expect(log.conflicts.isEmpty)
    }

    @Test("only the operations a peer lacks are offered")
    func versionVectors() throws {
        var mum = Replica("mum")
        var dad = Replica("dad")
        for index in 0..<5 { _ = try mum.set(august, ["day": .int(Int64(index + 1))], at: Int64(index) * 1_000) }
        try dad.sync(from: mum, at: 10_000)
        _ = try mum.set(july, ["title": .text("Picnic")], at: 11_000)
        let missing = mum.log.operations(missingFrom: dad.log.versionVector)
        #expect(missing.map(\.id) == [OperationID(device: "mum", counter: 6)])
        #expect(dad.log.operations(missingFrom: mum.log.versionVector).isEmpty)
    }

    @Test("malformed operations are refused with the rule they break")
    func validation() {
        var log = OperationLog()
        let id = OperationID(device: "mum", counter: 0)
        #expect(throws: OperationLogError.invalidOperation(id, "the counter starts at 1")) {
            try log.apply(
                Operation(id: id, time: HybridTime(wall: 1), entity: august, fields: ["t": FieldWrite(value: .null)]))
        }
        let empty = OperationID(device: "mum", counter: 1)
        #expect(throws: OperationLogError.invalidOperation(empty, "an operation sets at least one field")) {
            try log.apply(Operation(id: empty, time: HybridTime(wall: 1), entity: august, fields: [:]))
        }
        #expect(log.operations.isEmpty)
    }

    @Test("operation ids read back from text")
    func ids() {
        #expect(OperationID("a1b2:42") == OperationID(device: "a1b2", counter: 42))
        #expect(OperationID("x:y:7") == OperationID(device: "x:y", counter: 7))
        #expect(OperationID("nocolon") == nil)
        #expect(OperationID("dev:0") == nil)
        #expect(OperationID(":3") == nil)
    }
}

@Suite("Operation log convergence", .timeLimit(.minutes(1)))
struct ConvergenceTests {
    /// Three devices edit a few cards while apart, syncing only now and then; every order of
    /// applying the resulting operations must give the same state.
    /// Three devices edit a few cards while apart, syncing only now and then.
    static func scenario(seed: UInt64) throws -> (replicas: [Replica], operations: [Operation], now: Int64) {
        var random = SplitMix(seed: seed)
        var replicas = [Replica("mum"), Replica("dad"), Replica("kid")]
        let cards = [august, july, EntityRef(kind: "event_card", id: "2026-12")]
        let fields = ["title", "location", "day"]
        var now: Int64 = 1_000
        for _ in 0..<60 {
            now += Int64(random.next() % 500)
            let who = Int(random.next() % 3)
            if random.next() % 4 == 0 {
                let other = (who + 1 + Int(random.next() % 2)) % 3
                try replicas[who].sync(from: replicas[other], at: now)
            } else {
                let card = cards[Int(random.next() % 3)]
                let field = fields[Int(random.next() % 3)]
                let value: FieldValue =
                    field == "day" ? .int(Int64(random.next() % 28 + 1)) : .text("v\(random.next() % 100)")
                _ = try replicas[who].set(card, [field: value], at: now)
            }
        }
        let all = replicas.reduce(into: [OperationID: Operation]()) { result, replica in
            result.merge(replica.log.operations) { first, _ in first }
        }
        return (replicas, Array(all.values), now)
    }

    @Test("the random scenarios really do edit concurrently (so the next test can fail)")
    func scenariosConflict() throws {
        var conflicted = 0
        for seed in UInt64(1)...20 {
            var log = OperationLog()
            for operation in try Self.scenario(seed: seed).operations { try log.apply(operation) }
            if !log.conflicts.isEmpty { conflicted += 1 }
        }
        #expect(conflicted >= 10)
    }

    /// Every order of applying a scenario's operations must give the same state.
    @Test("any order of applying the same operations gives the same state", arguments: UInt64(1)...20)
    func randomOrders(seed: UInt64) throws {
        var (replicas, operations, now) = try Self.scenario(seed: seed)
        var random = SplitMix(seed: seed &* 31)

        func fold(_ order: [Operation]) throws -> OperationLog {
            var log = OperationLog()
            for operation in order { try log.apply(operation) }
            // And once more: re-applying changes nothing.
            for operation in order.prefix(10) { try log.apply(operation) }
            return log
        }
        let reference = try fold(operations.sorted { $0.id < $1.id })
        for _ in 0..<5 {
            let shuffled = try fold(operations.shuffled(using: &random))
            for entity in reference.entities {
                #expect(shuffled.entity(entity) == reference.entity(entity))
            }
            #expect(shuffled.conflicts == reference.conflicts)
            #expect(shuffled.versionVector == reference.versionVector)
        }
        // Full sync between live replicas reaches the same state too.
        for index in 0..<3 {
            for other in 0..<3 where other != index {
                try replicas[index].sync(from: replicas[other], at: now + 10_000)
            }
        }
        for replica in replicas {
            for entity in reference.entities { #expect(replica.log.entity(entity) == reference.entity(entity)) }
        }
    }
}

@Suite("Hybrid logical clock", .timeLimit(.minutes(1)))
struct HybridClockTests {
    @Test("readings never go backwards, even when the wall clock does")
    func monotonic() {
        var clock = HybridClock()
        let a = clock.tick(now: 1_000)
        let b = clock.tick(now: 1_000)
        let c = clock.tick(now: 900)
        let d = clock.tick(now: 2_000)
        #expect(a < b && b < c && c < d)
        #expect(c.wall == 1_000 && c.logical == 2)
        #expect(d == HybridTime(wall: 2_000))
    }

    @Test("after hearing a later remote time, the next reading is later still")
    func observe() throws {
        var clock = HybridClock()
        _ = clock.tick(now: 1_000)
        try clock.observe(HybridTime(wall: 5_000, logical: 3), now: 1_100)
        #expect(clock.tick(now: 1_200) > HybridTime(wall: 5_000, logical: 3))
    }

    @Test("a remote clock far ahead is refused")
    func drift() {
        var clock = HybridClock()
        let far = HybridTime(wall: 1_000 + HybridClock.maximumDrift + 1)
        #expect(throws: OperationLogError.self) { try clock.observe(far, now: 1_000) }
        #expect(clock.last == HybridTime(wall: 0))
    }
}
