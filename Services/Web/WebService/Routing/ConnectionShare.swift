import HTTPTypes
import HearthHost
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The page's connection slots beyond loopback, kept for the household: a connection that has not
/// shown the household token is one of at most `share` such, and lives at most `lifetime`.
///
/// - The listener is `TCP_DEFER_ACCEPT` (`deferAccept`): a connection that sends nothing is not
///   handed to the page at all for its first seconds (the kernel holds it; nginx's `deferred`).
/// - The listener accepts `[web] max_connections` plus `share` connections. A connection's first
///   request, in its first read, decides: it shows the token (`HouseholdGate.presentedToken`), and
///   it is the household's, under Hummingbird's idle timeout as before; or it does not (or nothing
///   came within `grace`), and it is "waiting".
/// - When a connection would make more than `share` waiting, the oldest waiting one is closed (one
///   that has sent no whole request first, then one that asked without the token), and a
///   connection that has not shown the token is closed `lifetime` after it opened.
///
/// So a stranger on the LAN holds at most `share` slots for at most `lifetime` each, the listener
/// never stops accepting for them, and a family member's request, which comes in the connection's
/// first packet, is served: a connection is never counted, nor closed for room, before its first
/// read. Before (issue 62 item 10), 600 idle connections reopened as they closed held all 256
/// slots, and a request with the token waited 30 s; counting connections as they opened, 1 in 10
/// of the household's requests under a flood of 100 reopened connections was closed before it was
/// read.
final class ConnectionShare: Sendable {
    /// How many connections without the token may be open at once.
    let share: Int
    /// How long a connection may stay open without showing the token.
    let lifetime: TimeAmount
    let token: TokenHolder

    private struct Waiting {
        let channel: any Channel
        /// Whether a whole request came on it (without the token).
        var asked: Bool
    }

    /// The waiting connections, oldest first.
    private let waiting = Mutex<[Waiting]>([])

    init(share: Int, lifetime: TimeAmount, token: TokenHolder) {
        self.share = share
        self.lifetime = lifetime
        self.token = token
    }

    /// The share for `maximum` household connections: an eighth, at least 4.
    static func share(of maximum: Int) -> Int { max(4, maximum / 8) }

    /// How long a connection that has sent nothing is held by the kernel before the page sees it.
    static let deferAccept = 5
    /// How long after it opens a connection that has sent nothing counts as waiting.
    static let grace = TimeAmount.milliseconds(250)

    /// A connection that did not show the token: counted as waiting; the oldest waiting one is
    /// closed when the share is full.
    func waits(_ channel: any Channel, asked: Bool) {
        let oldest: (any Channel)? = waiting.withLock { list in
            var oldest: (any Channel)?
            if list.count >= share {
                oldest = list.remove(at: list.firstIndex { !$0.asked } ?? 0).channel
            }
            list.append(Waiting(channel: channel, asked: asked))
            return oldest
        }
        oldest?.close(promise: nil)
    }

    /// Whether a request shows the household token.
    func shows(_ head: HTTPRequest) -> Bool {
        guard let given = HouseholdGate.presentedToken(head), let expected = token.current else { return false }
        return HouseholdToken.matches(given, expected)
    }

    /// `channel` closed.
    func closed(_ channel: any Channel) {
        waiting.withLock { list in list.removeAll { $0.channel === channel } }
    }
}

/// Each connection's part of `ConnectionShare`: after its first read (or `grace`), counts it as
/// waiting unless a request showed the token; out when it closes or shows the token; closes it
/// `lifetime` after it opened unless it showed the token.
final class ConnectionShareHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let share: ConnectionShare
    private var started = false
    private var counted = false
    private var proven = false
    private var asked = false
    private var timers: [Scheduled<Void>] = []

    init(share: ConnectionShare) { self.share = share }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { end(context) }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        end(context)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !proven, case .head(let head) = unwrapInboundIn(data) {
            if share.shows(head) {
                proven = true
                end(context)
            } else {
                asked = true
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        countAfterGrace(context.channel)
        context.fireChannelReadComplete()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let (channel, loop) = (context.channel, context.eventLoop)
        timers.append(loop.scheduleTask(in: share.lifetime) { channel.close(promise: nil) })
        let handler = NIOLoopBound(self, eventLoop: loop)
        timers.append(loop.scheduleTask(in: ConnectionShare.grace) { handler.value.countAfterGrace(channel) })
    }

    /// Counts the connection as waiting (after its first read or its grace), once, unless it
    /// showed the token.
    private func countAfterGrace(_ channel: any Channel) {
        guard started, !counted, !proven, channel.isActive else { return }
        counted = true
        share.waits(channel, asked: asked)
    }

    private func end(_ context: ChannelHandlerContext) {
        for timer in timers { timer.cancel() }
        timers = []
        if counted { share.closed(context.channel) }
        counted = false
    }
}
