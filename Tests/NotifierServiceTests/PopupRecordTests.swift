import Foundation
import Testing

@testable import NotifierService

/// The notifier's record of the popups on screen: the latest state wins, written privately, and
/// saves that come faster than the disk takes them are coalesced into one write.
@Suite("Popup record", .timeLimit(.minutes(1)))
struct PopupRecordTests {
    /// A run directory of its own, removed afterwards.
    private func withRunDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-popups-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    private static func popups(_ count: Int) -> [String: UInt32] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { ("reminder.\($0)", UInt32($0 + 1)) })
    }

    @Test("saves queued while a write waits are written once, as the newest state")
    func burstCoalesced() async throws {
        try await withRunDirectory { directory in
            let queue = DispatchQueue(label: "popup record test")
            let record = PopupRecord(runDirectory: directory, queue: queue)
            // The disk is busy: nothing is written until the queue resumes.
            queue.suspend()
            for count in 1...200 { record.save(Self.popups(count)) }
            queue.resume()
            await record.flush()
            #expect(record.writes == 1)
            #expect(record.load() == Self.popups(200))
            let attributes = try FileManager.default.attributesOfItem(atPath: record.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
    }

    @Test("a save after a write is written again; the last state wins, an empty one too")
    func savesInTurn() async throws {
        try await withRunDirectory { directory in
            let record = PopupRecord(runDirectory: directory)
            #expect(record.load() == [:])
            record.save(Self.popups(3))
            await record.flush()
            #expect(record.load() == Self.popups(3))
            record.save(["turn.J7X-3": 42])
            await record.flush()
            #expect(record.load() == ["turn.J7X-3": 42])
            record.save([:])
            await record.flush()
            #expect(record.load() == [:])
            #expect(record.writes == 3)
        }
    }

    @Test("saves from many tasks at once end with the last one saved on disk")
    func concurrentSaves() async throws {
        try await withRunDirectory { directory in
            let record = PopupRecord(runDirectory: directory)
            await withTaskGroup(of: Void.self) { group in
                for count in 1...50 { group.addTask { record.save(Self.popups(count)) } }
            }
            record.save(Self.popups(60))
            await record.flush()
            #expect(record.load() == Self.popups(60))
            #expect(record.writes >= 1)
        }
    }
}
