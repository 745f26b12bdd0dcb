import HearthBus

/// An encrypted link to another device's peer socket: a CURVE client DEALER.
final class PeerLink: Sendable {
    let device: String
    let socket: SocketThread<[Frame]>

    init(context: ZMQContext, device: String, endpoint: String, serverKey: String, keyPair: CurveKeyPair) throws {
        self.device = device
        socket = try SocketThread(context: context, kind: .dealer, name: "turn link \(device.prefix(8))") { socket in
            try socket.makeCurveClient(keyPair: keyPair, serverKey: serverKey)
            try socket.setLinger(milliseconds: 0)
            try socket.setHighWaterMarks(send: 100, receive: 1_000)
            try socket.setMaximumMessageSize(256 * 1024)
            try socket.connect(endpoint)
        }
    }
}
