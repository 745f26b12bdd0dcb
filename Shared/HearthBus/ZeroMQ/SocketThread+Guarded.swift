import DequeModule

extension SocketThread {
    /// Everything that touches the socket, under the one lock the socket's thread and its
    /// senders share (`guarded`); only `SocketThread` itself holds one.
    struct Guarded: ~Copyable {
        /// `nil` once the thread closed it.
        var socket: ZMQSocket?
        /// Messages libzmq could not take yet, in order; every later send queues behind them.
        var outbox: Deque<[Frame]> = []
        /// Work to run with the socket on its thread (`perform`), in order.
        var chores: [@Sendable (ZMQSocket?) -> Void] = []
        /// Tasks' jobs that prefer this thread (`enqueue`), in order.
        var jobs: [UnownedJob] = []
        /// The loop has ended: jobs go to the global concurrent executor.
        var jobsForwarded = false
        /// The thread is (about to be) blocked in `poll` and needs the eventfd to wake.
        var parked = false
        var closing = false
    }
}
