import Foundation

/// One event on the bus: who published it, its place in the publisher's sequence, and its data.
///
/// On the wire it is the second frame, after the topic:
/// `{"v":1,"id":"<uuid>","src":"turn","dev":"<device id>","seq":42,"ep":1795000000000,"ts":"<ISO 8601 UTC>","type":"turn.changed","data":{…}}`
/// (and `"run":41` after `ep` when the run's numbering did not start at 1).
public struct Envelope: Sendable, Hashable {
    /// The envelope version this build reads and writes.
    public static let currentVersion: Int64 = 1

    /// Unique id of this event (a UUID).
    public var id: String
    /// The publishing service, such as `turn` or `store`.
    public var source: String
    /// The device whose stack published it.
    public var device: String
    /// The publisher's sequence number for `source`, starting at 1, with no holes.
    public var seq: UInt64
    /// Which run of the publisher sent it: the millisecond its process started (0 when not
    /// given). A restarted publisher is a new epoch, so its numbering starting again is a restart,
    /// never a run of duplicates.
    public var epoch: UInt64
    /// The first sequence number of this run (1 unless the numbering is durable and carries on
    /// from an earlier run, as the store's does): a subscriber that was listening before the run
    /// began knows that whatever came before the first event it saw was missed.
    public var runStart: UInt64
    /// When it was published, to the millisecond.
    public var timestamp: Date
    /// The event type, such as `turn.changed`.
    public var type: String
    /// The event's own payload.
    public var data: JSONValue

    public init(
        id: String = UUIDText.make(),
        source: String,
        device: String,
        seq: UInt64,
        epoch: UInt64 = 0,
        runStart: UInt64 = 1,
        timestamp: Date = Date(),
        type: String,
        data: JSONValue
    ) {
        self.id = id
        self.source = source
        self.device = device
        self.seq = seq
        self.epoch = epoch
        self.runStart = runStart
        self.timestamp = Envelope.wholeMilliseconds(timestamp)
        self.type = type
        self.data = data
    }

    /// A new epoch for a publisher starting now: the current millisecond.
    public static func newEpoch() -> UInt64 {
        UInt64(max(0, Timestamp.milliseconds(Date())))
    }

    /// Envelopes carry millisecond time; dropping the rest up front keeps round trips exact.
    static func wholeMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(Timestamp.milliseconds(date)) / 1000)
    }
}
