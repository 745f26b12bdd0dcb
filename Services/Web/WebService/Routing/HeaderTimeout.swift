import NIOCore
import NIOHTTPTypes

/// Closes a new connection that has not sent its first request's headers within `timeout`: a
/// client that opens connections and sends nothing (or a header a byte at a time) holds no
/// descriptor of the page's for long. Between requests, Hummingbird's idle timeout applies
/// (`[web] idle_timeout`); a partly sent header is not activity to it either.
final class HeaderTimeout: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?
    private var headerSeen = false

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            headerSeen = true
            scheduled?.cancel()
            scheduled = nil
        }
        context.fireChannelRead(data)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard scheduled == nil, !headerSeen else { return }
        let channel = context.channel
        scheduled = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }
}
