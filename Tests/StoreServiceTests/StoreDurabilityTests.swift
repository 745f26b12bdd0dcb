import Foundation
import GRDB
import HearthTesting
import HearthTrust
import Testing

@testable import StoreService

@Suite("hearth-store: a commit is on the disk before it is answered", .timeLimit(.minutes(1)))
struct StoreDurabilityTests {
    @Test(
        "the writer commits with synchronous = FULL (GRDB's pool sets NORMAL with WAL mode), in WAL mode, temporary files in memory"
    )
    func writerSettings() throws {
        let home = try TemporaryHome()
        let database = try StoreDatabase(
            path: home.file("hearth.sqlite"), localDevice: "dev-local", signer: .generate())
        let (synchronous, journal, temporary) = try database.pool.writeWithoutTransaction { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA temp_store")
            )
        }
        // 2 is FULL (1 NORMAL); 2 for temp_store is MEMORY.
        #expect(synchronous == 2)
        #expect(journal == "wal")
        #expect(temporary == 2)
    }
}
