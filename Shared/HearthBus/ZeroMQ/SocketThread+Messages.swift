import DequeModule
import Synchronization

extension SocketThread {
    /// The messages of one pass of the socket's thread, handed to the consumer together.
    typealias Batch = Deque<Message>

    /// The messages a socket thread received, one at a time, in order.
    public struct Messages: AsyncSequence, Sendable {
        let batches: AsyncStream<Batch>
        let backlog: Backlog
        let starter: Starter

        public func makeAsyncIterator() -> Iterator {
            starter.start()
            return Iterator(batches: batches.makeAsyncIterator(), backlog: backlog)
        }

        public struct Iterator: AsyncIteratorProtocol {
            var batches: AsyncStream<Batch>.Iterator
            let backlog: Backlog
            var batch = Batch()

            public mutating func next() async -> Message? {
                if batch.isEmpty {
                    guard var next = await batches.next() else { return nil }
                    backlog.add(-next.count)
                    swap(&batch, &next)
                }
                // Moved out, not copied: a copy retained every reference a message holds (a
                // decoded envelope has several) and the batch's end released them all again.
                return batch.popFirst()
            }
        }
    }

    /// What starts the socket's thread, run once.
    final class Starter: Sendable {
        private let started = Atomic<Bool>(false)
        private let launch = Mutex<(@Sendable () -> Void)?>(nil)

        func arm(_ launch: @escaping @Sendable () -> Void) { self.launch.withLock { $0 = launch } }

        func start() {
            guard !started.load(ordering: .acquiring) else { return }
            let pending = launch.withLock { launch -> (@Sendable () -> Void)? in
                defer { launch = nil }
                return launch
            }
            guard let pending else { return }
            started.store(true, ordering: .releasing)
            pending()
        }
    }

    /// How many received messages wait for the consumer.
    final class Backlog: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .relaxed) }
        func add(_ delta: Int) { value.add(delta, ordering: .relaxed) }
    }
}
