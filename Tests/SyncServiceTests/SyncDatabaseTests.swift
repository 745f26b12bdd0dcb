import Foundation
import GRDB
import HearthPairing
import HearthTesting
import Testing

@testable import SyncService

@Suite("hearth-sync's state: devices pinned to their keys, and the sync log", .timeLimit(.minutes(1)))
struct SyncDatabaseTests {
    static let mumKey = "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"
    static let eveKey = "e3WrXrk)1Bq+]&<cJ0dFa$>3FQ0(2cxwT!Zvb.fo"
    let mum = "0b0b0000-0000-4000-8000-00000000000a"

    @Test("a paired key admits its device; another key under that id is refused; forgetting refuses the key")
    func pinning() async throws {
        let home = try TemporaryHome()
        let database = try SyncDatabase(path: home.file("sync.sqlite"))
        try await database.pair(device: mum, name: "Mum's phone", key: Self.mumKey, at: Date())
        #expect(try await database.device(forKey: Self.mumKey)?.device == mum)
        #expect(try await database.device(forKey: Self.eveKey) == nil)
        await #expect(throws: SyncDatabaseError.keyMismatch(device: mum)) {
            try await database.pair(device: mum, name: "Mum's phone", key: Self.eveKey, at: Date())
        }
        await #expect(throws: SyncDatabaseError.keyTaken(device: mum)) {
            try await database.pair(
                device: "0b0b0000-0000-4000-8000-00000000000e", name: "Eve", key: Self.mumKey, at: Date())
        }
        #expect(try await database.forget(mum, at: Date()))
        #expect(try await database.device(forKey: Self.mumKey) == nil)
        #expect(try await database.peers().first?.forgottenAt != nil)
        // A new pairing (confirmed by a person) brings it back, with whatever key it confirmed.
        try await database.pair(device: mum, name: "Mum's new phone", key: Self.eveKey, at: Date())
        #expect(try await database.device(forKey: Self.eveKey)?.name == "Mum's new phone")
        #expect(try await database.peers().count == 1)
        #expect(try await database.peers().first?.fingerprint == Pairing.fingerprint(Self.eveKey))
    }

    @Test("the state survives a restart, and the log reads newest first by device and time, private to the user")
    func durable() async throws {
        let home = try TemporaryHome()
        let path = home.file("sync.sqlite")
        do {
            let database = try SyncDatabase(path: path)
            try await database.pair(device: mum, name: "Mum's phone", key: Self.mumKey, at: Date())
            let base = Date(timeIntervalSince1970: 1_795_424_400)
            try await database.log(
                .init(
                    at: base, peer: mum, peerName: "Mum's phone", outcome: .completed, received: 3, sent: 1,
                    bytes: 2_048,
                    duration: .milliseconds(35)))
            try await database.log(
                .init(
                    at: base.addingTimeInterval(600), peer: "other", peerName: "Device 3f2a9c1e", outcome: .refused,
                    detail: "unpaired key 3F2A 9C1E 7B04"))
            try await database.noteSynced(mum, at: base, endpoint: "tcp://127.0.0.1:5680")
        }
        let reopened = try SyncDatabase(path: path)
        let peer = try #require(try await reopened.device(forKey: Self.mumKey))
        #expect(peer.lastSyncAt == Date(timeIntervalSince1970: 1_795_424_400))
        #expect(peer.endpoint == "tcp://127.0.0.1:5680")
        let all = try await reopened.entries()
        #expect(all.map(\.outcome) == [.refused, .completed])
        #expect(all[1].duration == .milliseconds(35) && all[1].received == 3 && all[1].bytes == 2_048)
        #expect(try await reopened.entries(device: mum).count == 1)
        #expect(try await reopened.entries(since: Date(timeIntervalSince1970: 1_795_424_700)).map(\.peer) == ["other"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("fingerprints are twelve hex digits in three groups, stable, and differ between keys")
    func fingerprints() {
        let print = Pairing.fingerprint(Self.mumKey)
        #expect(print.count == 14)
        #expect(print.split(separator: " ").map(\.count) == [4, 4, 4])
        #expect(print == Pairing.fingerprint(Self.mumKey))
        #expect(print != Pairing.fingerprint(Self.eveKey))
    }
}
