import CZeroMQ

/// Waits on several sockets and plain file descriptors at once (zmq_poll(3)).
public struct ZMQPoller {
    private var items: [zmq_pollitem_t] = []

    public init() {}

    /// Adds a socket; returns its index for `isReadable` and `setWantsOutput`.
    @discardableResult
    public mutating func add(_ socket: ZMQSocket) -> Int {
        items.append(zmq_pollitem_t(socket: socket.handle, fd: -1, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Adds a file descriptor (such as an eventfd) to wait on for input.
    @discardableResult
    public mutating func add(fileDescriptor: Int32) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Asks also to wake when the item at `index` can take output.
    public mutating func setWantsOutput(_ index: Int, _ wants: Bool) {
        items[index].events = Int16(ZMQ_POLLIN) | (wants ? Int16(ZMQ_POLLOUT) : 0)
    }

    /// Blocks up to `timeoutMilliseconds` (-1: forever) and returns how many items are ready.
    public mutating func poll(timeoutMilliseconds: Int) throws -> Int {
        let count = Int32(items.count)
        let rc = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, count, timeoutMilliseconds) }
        if rc < 0 {
            let error = ZMQError.last("zmq_poll")
            if error.code == EINTR { return 0 }
            throw error
        }
        return Int(rc)
    }

    public func isReadable(_ index: Int) -> Bool { items[index].revents & Int16(ZMQ_POLLIN) != 0 }
    public func isWritable(_ index: Int) -> Bool { items[index].revents & Int16(ZMQ_POLLOUT) != 0 }
}
