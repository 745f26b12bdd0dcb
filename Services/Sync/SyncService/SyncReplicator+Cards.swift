import Foundation
import HearthBus
import HearthCore

/// The year planner's cards a sync changes, for "Mum changed August: Beach day → Beach weekend":
/// each card read as a person sees it before the first page that touches it and after the last.
extension SyncReplicator {
    /// A card that operations arriving by sync changed, as a person saw it before and after.
    struct CardChange: Equatable, Sendable {
        let year: Int
        let month: Int
        /// The device whose operation changed it last in the batch, and its household name.
        let by: String
        let byName: String
        let before: String?
        let after: String?

        var event: CardsChangedEvent.Change {
            CardsChangedEvent.Change(
                year: year, month: month, by: PeerRef(device: by, name: byName), before: before, after: after)
        }
    }

    /// The cards operations arriving by sync touch: each as a person read it before the first
    /// page that touched its year, and the device that wrote it last. Kept across the pages of
    /// one sync, so the cards are read once before and once after, not around every page.
    struct CardWatch: Sendable {
        var before: [Card: String?] = [:]
        var years: Set<Int> = []
        var latest: [Card: Stamp] = [:]
        var received = 0
    }

    struct Stamp: Sendable {
        let wall: Int64
        let logical: Int64
        let device: String

        func isAfter(_ other: Stamp) -> Bool { (wall, logical) >= (other.wall, other.logical) }
    }

    /// A page of a peer's operations, ready for this device's store.
    struct PreparedPage: Sendable {
        let format: JSONValue
        let packed: JSONValue
        let operations: [JSONValue]
        /// Whether it vouches for keys: the pages after it are checked with them, so it is
        /// applied before the next is sent to the store.
        let vouches: Bool
    }

    /// Unpacks a page and reads, in `watch`, the cards it touches as they were before it.
    /// - Returns: `nil` for an empty page.
    func preparePage(
        format: JSONValue, packed: JSONValue?, from peer: SyncDatabase.Peer, watching watch: inout CardWatch
    ) async throws -> PreparedPage? {
        let operations = try unpacked(packed)
        guard let packed, !operations.isEmpty else { return nil }
        let touched = Self.touchedCards(operations)
        let unread = Set(touched.keys.map(\.year)).subtracting(watch.years)
        watch.before.merge(try await cardTexts(years: unread)) { known, _ in known }
        watch.years.formUnion(unread)
        for (card, stamp) in touched where watch.latest[card].map(stamp.isAfter) ?? true {
            watch.latest[card] = stamp
        }
        return PreparedPage(
            format: format, packed: packed, operations: operations,
            vouches: operations.contains { $0["entity"]?["kind"]?.stringValue == Devices.keyKind })
    }

    /// The cards `watch` saw touched that now read differently, each with who changed it last.
    func changes(in watch: CardWatch, from peer: SyncDatabase.Peer) async throws -> [CardChange] {
        guard watch.received > 0, !watch.latest.isEmpty else { return [] }
        let after = try await cardTexts(years: watch.years)
        let names = try await deviceNames()
        return watch.latest.sorted { ($0.key.year, $0.key.month) < ($1.key.year, $1.key.month) }.compactMap {
            card, stamp in
            guard watch.before[card] != after[card] else { return nil }
            return CardChange(
                year: card.year, month: card.month, by: stamp.device, byName: names[stamp.device] ?? peer.name,
                before: watch.before[card] ?? nil, after: after[card] ?? nil)
        }
    }

    struct Card: Hashable {
        let year: Int
        let month: Int
    }

    /// The cards `operations` write, each with the latest operation's time and device.
    private static func touchedCards(_ operations: [JSONValue]) -> [Card: Stamp] {
        var latest: [Card: Stamp] = [:]
        for operation in operations where operation["entity"]?["kind"]?.stringValue == YearPlanner.entityKind {
            guard let id = operation["entity"]?["id"]?.stringValue,
                let (year, month) = YearPlanner.yearAndMonth(of: EntityRef(kind: YearPlanner.entityKind, id: id)),
                let author = operation["id"]?.stringValue?.split(separator: ":").first
            else { continue }
            let stamp = Stamp(
                wall: operation["time"]?["wall"]?.intValue ?? 0, logical: operation["time"]?["logical"]?.intValue ?? 0,
                device: String(author))
            let card = Card(year: year, month: month)
            if let known = latest[card], !stamp.isAfter(known) { continue }
            latest[card] = stamp
        }
        return latest
    }

    /// Each card of `years` as a person reads it ("Beach day, 14th, Porthcurno"; nil when empty).
    private func cardTexts(years: Set<Int>) async throws -> [Card: String?] {
        var texts: [Card: String?] = [:]
        for year in years {
            let list = try await local("event.list", ["year": .int(Int64(year))]).decode(CardList.self)
            for card in list.cards {
                let parts = [card.title, card.day.map { "day \($0)" }, card.location].compactMap { $0 }
                texts[Card(year: year, month: card.month)] = parts.isEmpty ? .some(nil) : parts.joined(separator: ", ")
            }
        }
        return texts
    }

    /// The household's device names, as the store knows them (names travel as operations).
    private func deviceNames() async throws -> [String: String] {
        let list = try await local("device.list").decode(DeviceList.self)
        return Dictionary(list.devices.map { ($0.id, $0.name) }) { first, _ in first }
    }
}
