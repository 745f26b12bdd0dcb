import HearthBus
import HearthCore

/// One message between two devices' turn services: one JSON frame, its kind in `t`.
///
/// - member → leader: `hb {device, seqs {code: seq}}`, `req {id, cmd, device, code, args}`
/// - leader → member: `rep {id, ok, session?, change?, error?}`, `state {session, change?, keys}`,
///   `step {code, base, seq, …}` (a transition that left the players as they were, for a copy at
///   `base`: `TurnSession.Step`), `hb {}` (nothing to update), `gone {code, reason}`: that device
///   is no longer in the session (`ended`: it ended or the device left), this device does not
///   know it at all (`unknown`: it restarted and lost it), or another device leads it now (`moved`)
enum PeerMessage: Sendable, Equatable {
    case heartbeat(Heartbeat)
    case request(Request)
    case reply(Reply)
    case state(State)
    case step(TurnSession.Step)
    case gone(code: String, reason: GoneReason)

    /// Why a leader's device answers `gone`.
    enum GoneReason: String, Codable, Sendable {
        /// The session ended here, or the asking device is no longer in it.
        case ended
        /// This device does not know the session: it restarted since (sessions live in memory).
        case unknown
        /// This device no longer leads it: another device leads a later copy (its beacon says
        /// which), and the asking device moves there when it hears that beacon.
        case moved
    }

    /// A member's heartbeat carries its device and the `seq` of each session it follows there;
    /// a leader's answer carries neither.
    struct Heartbeat: Codable, Sendable, Equatable {
        var device: String?
        var seqs: [String: Int64]?
    }

    /// A member asks the leader's device to join, pass the turn (`done`) or leave.
    struct Request: Codable, Sendable, Equatable {
        enum Command: String, Codable, Sendable {
            case join, done, leave, reverse, back
        }

        struct Arguments: Codable, Sendable, Equatable {
            /// join: the new player's name.
            var name: String?
            /// done, leave, reverse, back: the player's id.
            var player: String?
            /// done, reverse: the session `seq` the player saw.
            var seq: Int64?
        }

        let id: String
        let cmd: Command
        let device: String
        let code: String
        var args: Arguments?
    }

    /// The leader's answer to one request.
    struct Reply: Codable, Sendable, Equatable {
        let id: String?
        let ok: Bool
        var session: TurnSession?
        var change: TurnSession.Change?
        var error: String?

        static func refusal(_ id: String?, _ error: String) -> Reply {
            Reply(id: id, ok: false, session: nil, change: nil, error: error)
        }
    }

    /// A session as its leader holds it, with each device's CURVE key as the leader knows it (so
    /// a device that takes over binds members to their real keys).
    ///
    /// A member sends its own copy this way (`device` set) when its leader's device is behind it:
    /// one that took over holding an older copy.
    struct State: Codable, Sendable, Equatable {
        let session: TurnSession
        var change: TurnSession.Change?
        var keys: [String: String]?
        /// The member offering its copy; absent on a leader's push.
        var device: String?
        /// Milliseconds since the state's turn clock read what it reads, on the sender's clock
        /// (a state sent to catch a copy up may be minutes old): the receiver's clock goes on
        /// from there. Absent: just now.
        var age: Int64?
    }

    /// The device a member's message says it comes from.
    var sender: String? {
        switch self {
        case .heartbeat(let heartbeat): heartbeat.device
        case .request(let request): request.device
        case .state(let state): state.device
        default: nil
        }
    }

    /// The frame to send.
    var bytes: [UInt8] {
        // Cannot fail: every field is a string, a bool, an Int64 or made of them.
        ((try? JSONValue(encoding: self)) ?? .null).jsonBytes
    }

    /// Reads one frame.
    /// - Throws: `PeerMessageError` saying what is wrong, in words for the reply.
    static func decode(_ frame: [UInt8]) throws(PeerMessageError) -> PeerMessage {
        let value: JSONValue
        do {
            value = try JSONValue.parse(frame)
        } catch {
            throw PeerMessageError(id: nil, reason: "message: not JSON (\(error))")
        }
        let message: PeerMessage
        do {
            message = try value.decode(PeerMessage.self)
        } catch let error as DecodingError {
            throw PeerMessageError(id: value["id"]?.stringValue, reason: error.summary)
        } catch {
            throw PeerMessageError(id: value["id"]?.stringValue, reason: "\(error)")
        }
        // A leader continues above a member's seq (`raiseSeq(to: theirs + 1)`): one past the
        // largest a session may carry is refused here, before any arithmetic on it.
        if case .heartbeat(let heartbeat) = message,
            let (code, seq) = heartbeat.seqs?.first(where: { !(0...TurnSession.maximumSeq).contains($0.value) })
        {
            throw PeerMessageError(
                id: nil, reason: "seqs: \(code): \(seq) must be from 0 to \(TurnSession.maximumSeq)")
        }
        return message
    }
}

/// A peer frame that is not a message this protocol knows, with the request id if it had one.
struct PeerMessageError: Error, Sendable {
    let id: String?
    let reason: String
}

extension PeerMessage: Codable {
    private enum Kind: String, Codable {
        case hb, req, rep, state, step, gone
    }

    private enum CodingKeys: String, CodingKey {
        case t, code, reason
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .t) {
        case .hb: self = .heartbeat(try Heartbeat(from: decoder))
        case .req: self = .request(try Request(from: decoder))
        case .rep: self = .reply(try Reply(from: decoder))
        case .state: self = .state(try State(from: decoder))
        case .step: self = .step(try TurnSession.Step(from: decoder))
        case .gone:
            // A device that says no reason is of an earlier build: it meant "ended".
            self = .gone(
                code: try container.decode(String.self, forKey: .code),
                reason: try container.decodeIfPresent(GoneReason.self, forKey: .reason) ?? .ended)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .heartbeat(let heartbeat):
            try container.encode(Kind.hb, forKey: .t)
            try heartbeat.encode(to: encoder)
        case .request(let request):
            try container.encode(Kind.req, forKey: .t)
            try request.encode(to: encoder)
        case .reply(let reply):
            try container.encode(Kind.rep, forKey: .t)
            try reply.encode(to: encoder)
        case .state(let state):
            try container.encode(Kind.state, forKey: .t)
            try state.encode(to: encoder)
        case .step(let step):
            try container.encode(Kind.step, forKey: .t)
            try step.encode(to: encoder)
        case .gone(let code, let reason):
            try container.encode(Kind.gone, forKey: .t)
            try container.encode(code, forKey: .code)
            try container.encode(reason, forKey: .reason)
        }
    }
}
