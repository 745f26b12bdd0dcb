import Synchronization

extension SocketThread {
    /// The messages a socket thread received, one at a time, in order.
    public struct Messages: AsyncSequence, Sendable {
        let batches: AsyncStream<[Message]>
        let backlog: Backlog
        let starter: Starter

        public func makeAsyncIterator() -> Iterator {
            starter.start()
            return Iterator(batches: batches.makeAsyncIterator(), backlog: backlog)
        }

        public struct Iterator: AsyncIteratorProtocol {
            var batches: AsyncStream<[Message]>.Iterator
            let backlog: Backlog
            var batch: [Message] = []
            var position = 0

            public mutating func next() async -> Message? {
                if position == batch.count {
                    guard let next = await batches.next() else { return nil }
                    backlog.add(-next.count)
                    batch = next
                    position = 0
                }
                defer { position += 1 }
                return batch[position]
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
