import Foundation
import GRDB
import HearthBus
import HearthTesting
import HearthTrust
import Testing

@testable import StoreService

/// What `hearth restore` checks before it replaces anything: a database this build would serve,
/// shaped as its migrations make it, every operation readable and every signature verifying.
@Suite("hearth-store: a backup is checked whole before it is restored", .serialized, .timeLimit(.minutes(1)))
struct StoreBackupTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("a reshaped table, an unreadable operation or a changed signature is refused; the backup as made passes")
    func reshapedOrDamaged() async throws {
        let home = try TemporaryHome()
        let backup = home.file("backup.sqlite")
        var ownKey: SigningPublicKey?
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            ownKey = running.store.database.signer.publicKey
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 9, "title": "Fair"])
            _ = try await running.commands.request("backup", args: ["path": .string(backup)])
        }
        #expect(try StoreBackup.check(backup, ownKey: ownKey) == 2)
        let damages: [(String, String)] = [
            ("ALTER TABLE change ADD COLUMN extra TEXT", "table change is"),
            ("UPDATE operation SET fields = '{not json' WHERE counter = 1", "cannot be read"),
            (
                "UPDATE operation SET signature = substr(signature, 1, 10) || (CASE substr(signature, 11, 1) WHEN 'A' THEN 'B' ELSE 'A' END) || substr(signature, 12) WHERE counter = 2",
                "does not verify"
            ),
            ("DROP INDEX operation_time", "index operation_time is missing"),
            ("CREATE TABLE recipes (name TEXT)", "table recipes is not Hearth's"),
        ]
        for (index, (statement, reason)) in damages.enumerated() {
            let damaged = home.file("damaged-\(index).sqlite")
            try FileManager.default.copyItem(atPath: backup, toPath: damaged)
            try await DatabaseQueue(path: damaged).write { db in try db.execute(sql: statement) }
            let refusal = #expect(throws: StoreBackup.Refusal.self, "\(statement)") {
                try StoreBackup.check(damaged, ownKey: ownKey)
            }
            #expect(refusal?.reason.contains(reason) == true, "\(String(describing: refusal))")
        }
        // Checked on a copy: the file itself is unchanged.
        #expect(try StoreBackup.check(backup, ownKey: ownKey) == 2)
    }
}
