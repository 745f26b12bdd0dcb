import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import Testing

@testable import WebService

@Suite("Web: the rendered-view cache", .timeLimit(.minutes(1)))
struct PageCacheTests {
    /// A clock the test moves by hand.
    final class TestClock: Sendable {
        private let offset = Mutex<Duration>(.zero)
        private let start = ContinuousClock.now
        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
        func advance(_ by: Duration) { offset.withLock { $0 += by } }
    }

    static func isRender(_ lookup: PageCache.Lookup) -> Int? {
        if case .render(let generation) = lookup { return generation }
        return nil
    }

    @Test("a kept view is answered until its area changes; another area's change leaves it")
    func invalidation() async throws {
        let cache = PageCache()
        let generation = try #require(Self.isRender(await cache.lookup("year|false|", area: "year")))
        cache.keep("year|false|", status: .ok, body: ByteBuffer(string: "A"), area: "year", generation: generation)
        #expect(Self.isRender(await cache.lookup("year|false|", area: "year")) == nil)
        cache.invalidate("today")
        #expect(Self.isRender(await cache.lookup("year|false|", area: "year")) == nil)
        cache.invalidate("year")
        #expect(Self.isRender(await cache.lookup("year|false|", area: "year")) != nil)
    }

    @Test("a view rendered from reads that began before its area changed is not kept")
    func renderAcrossAChange() async throws {
        let cache = PageCache()
        let generation = try #require(Self.isRender(await cache.lookup("year|false|", area: "year")))
        cache.invalidate("year")  // the change lands while the view is being read
        cache.keep("year|false|", status: .ok, body: ByteBuffer(string: "old"), area: "year", generation: generation)
        #expect(Self.isRender(await cache.lookup("year|false|", area: "year")) != nil)
    }

    @Test("many requests for a view no one has rendered: one renders, the others wait for it")
    func oneRenderAtATime() async throws {
        let cache = PageCache()
        let first = try #require(Self.isRender(await cache.lookup("today|false|", area: "today")))
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    if case .cached(let response) = await cache.lookup("today|false|", area: "today") {
                        return response.status == .ok
                    }
                    return false  // told to render it again
                }
            }
            // Every request is waiting for the render (none can be answered before it is kept).
            while cache.waiting("today|false|") < 20 { await Task.yield() }
            cache.keep("today|false|", status: .ok, body: ByteBuffer(string: "T"), area: "today", generation: first)
            var answers: [Bool] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers == Array(repeating: true, count: 20))
    }

    @Test("a view older than a second is rendered again by one request while the others get it as it was")
    func staleWhileRendering() async throws {
        let clock = TestClock()
        let cache = PageCache(now: { clock.now })
        let first = try #require(Self.isRender(await cache.lookup("game|false|", area: "game")))
        cache.keep("game|false|", status: .ok, body: ByteBuffer(string: "G"), area: "game", generation: first)
        clock.advance(.milliseconds(999))
        #expect(Self.isRender(await cache.lookup("game|false|", area: "game")) == nil)
        clock.advance(.milliseconds(2))
        let again = try #require(Self.isRender(await cache.lookup("game|false|", area: "game")))
        #expect(Self.isRender(await cache.lookup("game|false|", area: "game")) == nil)  // the old one, meanwhile
        cache.abandon("game|false|")
        #expect(Self.isRender(await cache.lookup("game|false|", area: "game")) == again)
    }

    @Test("a feed's part is kept until its area changes; one rendered while every area changed is not kept")
    func feedBlocks() {
        let blocks = FeedBlocks()
        let (none, generation) = blocks.lookup("year:year:", area: "year")
        #expect(none == nil)
        blocks.keep("year:year:", area: "year", text: "CARDS", generation: generation)
        #expect(blocks.lookup("year:year:", area: "year").text == "CARDS")
        blocks.invalidate("today")
        #expect(blocks.lookup("year:year:", area: "year").text == "CARDS")
        blocks.invalidate("year")
        #expect(blocks.lookup("year:year:", area: "year").text == nil)
        // An area no render had asked about before: "*" still makes its render in progress stale.
        let (_, before) = blocks.lookup("timetable:timetable:", area: "timetable")
        blocks.invalidate("*")
        blocks.keep("timetable:timetable:", area: "timetable", text: "OLD", generation: before)
        #expect(blocks.lookup("timetable:timetable:", area: "timetable").text == nil)
    }

    @Test("both caches are bounded in bytes: 100 keys of a megabyte each never keep more than the bound")
    func boundedInBytes() async {
        let cache = PageCache()
        let megabyte = ByteBuffer(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for index in 0..<100 {
            let key = "calendar:all:\(index)"
            guard case .render(let generation) = await cache.lookup(key, area: PageCache.calendarArea) else {
                Issue.record("\(key) was cached before it was rendered")
                continue
            }
            cache.keep(key, status: .ok, body: megabyte, area: PageCache.calendarArea, generation: generation)
            #expect(cache.size.bytes <= PageCache.maximumBytes)
        }
        #expect(cache.size.views >= 1 && cache.size.bytes == cache.size.views << 20)
        cache.invalidate(PageCache.calendarArea)
        #expect(cache.size.bytes == 0)

        let blocks = FeedBlocks()
        let text = String(repeating: "y", count: 1 << 20)
        for index in 0..<100 {
            let (_, generation) = blocks.lookup("timetable:timetable:\(index)", area: "timetable")
            blocks.keep("timetable:timetable:\(index)", area: "timetable", text: text, generation: generation)
            #expect(blocks.size.bytes <= FeedBlocks.maximumBytes)
        }
        #expect(blocks.size.texts >= 1 && blocks.size.bytes == blocks.size.texts << 20)
    }
}
