import CZeroMQ

/// The libzmq socket patterns Hearth uses.
public enum ZMQSocketKind: Sendable, CustomStringConvertible {
    case pub, sub, xpub, xsub, dealer, router, pair

    var rawValue: Int32 {
        switch self {
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        case .dealer: ZMQ_DEALER
        case .router: ZMQ_ROUTER
        case .pair: ZMQ_PAIR
        }
    }

    public var description: String {
        switch self {
        case .pub: "PUB"
        case .sub: "SUB"
        case .xpub: "XPUB"
        case .xsub: "XSUB"
        case .dealer: "DEALER"
        case .router: "ROUTER"
        case .pair: "PAIR"
        }
    }
}
