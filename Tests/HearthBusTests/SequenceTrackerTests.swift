import HearthBus
import Testing

@Suite("Sequence tracking", .timeLimit(.minutes(1)))
struct SequenceTrackerTests {
    @Test("in-order events, then a gap naming the missing range")
    func gap() {
        var tracker = SequenceTracker()
        #expect(tracker.observe(source: "turn", device: "a", seq: 5) == .first)
        #expect(tracker.observe(source: "turn", device: "a", seq: 6) == .inOrder)
        let verdict = tracker.observe(source: "turn", device: "a", seq: 10)
        #expect(verdict == .gap(SequenceGap(source: "turn", device: "a", expected: 7, received: 10)))
        if case .gap(let gap) = verdict { #expect(gap.missing == 3) }
        #expect(tracker.lastSeq(source: "turn", device: "a") == 10)
    }

    @Test("a repeated or older event is a duplicate and does not move the position")
    func duplicate() {
        var tracker = SequenceTracker()
        _ = tracker.observe(source: "store", device: "a", seq: 1)
        _ = tracker.observe(source: "store", device: "a", seq: 2)
        #expect(tracker.observe(source: "store", device: "a", seq: 2) == .duplicate)
        #expect(tracker.observe(source: "store", device: "a", seq: 1) == .restarted)
        _ = tracker.observe(source: "store", device: "a", seq: 2)
        _ = tracker.observe(source: "store", device: "a", seq: 3)
        #expect(tracker.observe(source: "store", device: "a", seq: 2) == .duplicate)
        #expect(tracker.lastSeq(source: "store", device: "a") == 3)
    }

    @Test("sources and devices are tracked apart")
    func separate() {
        var tracker = SequenceTracker()
        _ = tracker.observe(source: "turn", device: "a", seq: 1)
        #expect(tracker.observe(source: "turn", device: "b", seq: 9) == .first)
        #expect(tracker.observe(source: "bus", device: "a", seq: 4) == .first)
        #expect(tracker.observe(source: "turn", device: "a", seq: 2) == .inOrder)
    }

    @Test("advancing after a replay closes the gap")
    func advance() {
        var tracker = SequenceTracker()
        _ = tracker.observe(source: "store", device: "a", seq: 1)
        tracker.advance(source: "store", device: "a", to: 50)
        #expect(tracker.observe(source: "store", device: "a", seq: 51) == .inOrder)
    }

    @Test("interleaved publishers keep their own positions")
    func interleaved() {
        var tracker = SequenceTracker()
        #expect(tracker.observe(source: "turn", device: "a", seq: 1) == .first)
        #expect(tracker.observe(source: "store", device: "a", seq: 7) == .first)
        #expect(tracker.observe(source: "turn", device: "a", seq: 2) == .inOrder)
        #expect(tracker.observe(source: "store", device: "a", seq: 8) == .inOrder)
        #expect(tracker.observe(source: "turn", device: "a", seq: 2) == .duplicate)
        #expect(
            tracker.observe(source: "store", device: "a", seq: 11)
                == .gap(SequenceGap(source: "store", device: "a", expected: 9, received: 11)))
        #expect(tracker.observe(source: "turn", device: "a", seq: 3) == .inOrder)
        #expect(tracker.lastSeq(source: "store", device: "a") == 11)
        #expect(tracker.lastSeq(source: "turn", device: "a") == 3)
        tracker.advance(source: "store", device: "a", to: 20)
        #expect(tracker.observe(source: "store", device: "a", seq: 21) == .inOrder)
        #expect(tracker.lastSeq(source: "turn", device: "b") == nil)
    }

    @Test("a jump is a gap, not a new floor: the numbers it skipped still arrive, as late events")
    func jumpIsNotAFloor() {
        var tracker = SequenceTracker()
        _ = tracker.observe(source: "turn", device: "a", seq: 10, epoch: 7)
        // A forged or wild event far ahead…
        #expect(
            tracker.observe(source: "turn", device: "a", seq: 1_000_000_000_000, epoch: 7)
                == .gap(SequenceGap(source: "turn", device: "a", expected: 11, received: 1_000_000_000_000)))
        // …does not mute the real ones that follow.
        #expect(tracker.observe(source: "turn", device: "a", seq: 11, epoch: 7) == .late)
        #expect(tracker.observe(source: "turn", device: "a", seq: 12, epoch: 7) == .late)
        #expect(tracker.observe(source: "turn", device: "a", seq: 12, epoch: 7) == .duplicate)
        #expect(tracker.observe(source: "turn", device: "a", seq: 1_000_000_000_001, epoch: 7) == .inOrder)
    }

    @Test("a publisher's new epoch is a restart: numbering again from 1, or carrying on if durable")
    func epochs() {
        var tracker = SequenceTracker()
        for seq in 1...40 { _ = tracker.observe(source: "bus", device: "a", seq: UInt64(seq), epoch: 100) }
        // Restarted, and this subscriber missed the new run's first events: a gap, then in order.
        #expect(
            tracker.observe(source: "bus", device: "a", seq: 3, epoch: 200)
                == .gap(SequenceGap(source: "bus", device: "a", expected: 1, received: 3)))
        #expect(tracker.observe(source: "bus", device: "a", seq: 4, epoch: 200) == .inOrder)
        #expect(tracker.observe(source: "bus", device: "a", seq: 1, epoch: 300) == .restarted)
        // A durable source (the store) carries its numbering across a restart.
        _ = tracker.observe(source: "store", device: "a", seq: 41, epoch: 100)
        #expect(tracker.observe(source: "store", device: "a", seq: 42, epoch: 200) == .inOrder)
        #expect(
            tracker.observe(source: "store", device: "a", seq: 45, epoch: 300)
                == .gap(SequenceGap(source: "store", device: "a", expected: 43, received: 45)))
    }

    @Test("listening since before a publisher's run began, its first events never seen are a gap from the run's start")
    func missedStartOfRun() {
        var tracker = SequenceTracker(listeningSince: 1_000)
        // A store whose run began after we started listening, first seen at seq 2: seq 1 was missed.
        #expect(
            tracker.observe(source: "store", device: "a", seq: 2, epoch: 2_000, runStart: 1)
                == .gap(SequenceGap(source: "store", device: "a", expected: 1, received: 2)))
        // A durable run that began at 41, seen from its start: nothing missed.
        #expect(tracker.observe(source: "store", device: "b", seq: 41, epoch: 2_000, runStart: 41) == .first)
        // A run that began before we listened: its earlier events were never ours to see.
        #expect(tracker.observe(source: "turn", device: "a", seq: 9, epoch: 500, runStart: 1) == .first)
    }
}
