import Foundation
import HTTPTypes
import HearthBus
import HearthCalendar
import HearthCore
import Hummingbird
import NIOCore

/// The calendar feeds' routes (`CalendarFeeds`): `/calendar.ics` and `/calendar/<area>.ics`
/// (`?member=` for one member's timetable). Each answer carries an `ETag` of its body (64-bit
/// FNV-1a): an app that asks again with `If-None-Match` and nothing changed gets 304 and no body.
/// Beyond loopback the household token comes as `?token=`, which calendar apps can send (the gate
/// takes it without the cookie redirect for these addresses).
extension WebRouter {
    func addCalendarRoutes(_ router: Router<BasicRequestContext>) {
        let feeds = CalendarFeeds(store: pages.store, timeZone: pages.timeZone, blocks: pages.cache.feedBlocks)
        let cache = pages.cache
        router.get("/calendar.ics") { request, _ in await Self.feed(request, feeds, cache, area: nil) }
        router.get("/calendar/:file") { request, context in
            let file = try context.parameters.require("file")
            guard file.hasSuffix(".ics"), let area = CalendarFeeds.Area(rawValue: String(file.dropLast(4))) else {
                return Response(
                    status: .notFound,
                    headers: [.contentType: "text/plain; charset=utf-8"],
                    body: ResponseBody(
                        byteBuffer: ByteBuffer(
                            string:
                                "No such feed: the feeds are /calendar.ics and /calendar/{\(CalendarFeeds.Area.allCases.map(\.rawValue).joined(separator: ","))}.ics\n"
                        )))
            }
            return await Self.feed(request, feeds, cache, area: area)
        }
    }

    /// A feed, rendered at most once a second and once per change of the household (`PageCache`,
    /// in its `calendar` area: 50 apps refreshing at once cost one render), or 304 when the app
    /// already has it.
    private static func feed(
        _ request: Request, _ feeds: CalendarFeeds, _ cache: PageCache, area: CalendarFeeds.Area?
    ) async -> Response {
        // `?member=` narrows the timetable (alone or in the whole feed) to a member the household
        // has, in its own spelling, and is no part of another feed's key: each different value
        // was a new render and a new cache entry (issue 62).
        var member: String?
        if let asked = request.uri.queryParameters.get("member"), area == nil || area == .timetable {
            do {
                member = try await feeds.member(named: asked)
            } catch {
                return storeFailure(error)
            }
            guard member != nil else {
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "No such member: ?member= names nobody here\n")))
            }
        }
        let key = "calendar:\(area?.rawValue ?? "all"):\(member ?? "")"
        switch await cache.lookup(key, area: PageCache.calendarArea) {
        case .cached(let response):
            return notModified(request, response)
        case .render(let generation):
            let text: String
            do {
                text = try await feeds.ics(area, member: member)
            } catch {
                cache.abandon(key)
                return storeFailure(error)
            }
            let headers: HTTPFields = [
                .eTag: "\"\(etag(text))\"", .cacheControl: "no-cache", .contentType: "text/calendar; charset=utf-8",
            ]
            let body = ByteBuffer(string: text)
            cache.keep(
                key, status: .ok, body: body, area: PageCache.calendarArea, generation: generation, headers: headers)
            return notModified(request, Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body)))
        }
    }

    private static func storeFailure(_ error: any Error) -> Response {
        Response(
            status: .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "The household's store did not answer: \(error)\n")))
    }

    /// 304 with no body when the request's `If-None-Match` names the answer's `ETag`.
    private static func notModified(_ request: Request, _ response: Response) -> Response {
        guard let tag = response.headers[.eTag], let given = request.headers[.ifNoneMatch],
            given.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag })
        else { return response }
        return Response(status: .notModified, headers: [.eTag: tag, .cacheControl: "no-cache"])
    }

    /// The feed's `FNV1a`, in hex, leaving out its `DTSTAMP` lines: each render stamps the time
    /// it was made, which is no change to what the feed says.
    static func etag(_ text: String) -> String {
        var hash = FNV1a()
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false)
        where !line.hasPrefix("DTSTAMP:") {
            hash.add(line.utf8)
            hash.add(CollectionOfOne(0x0A))
        }
        return String(hash.value, radix: 16)
    }
}
