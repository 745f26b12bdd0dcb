import Foundation
import HearthBus
import HearthTesting
import Logging
import ServiceLifecycle
import Testing

/// A socket thread as the task executor of its consumer: what must hold for a message to reach
/// its handler with no wake-up of the cooperative pool, and for such a task never to be stranded.
@Suite("SocketThread runs the tasks that prefer it", .timeLimit(.minutes(1)))
struct SocketThreadExecutorTests {
    /// The calling thread's name as the kernel has it (a socket thread names itself after its
    /// socket; the cooperative pool's threads are named otherwise).
    static func threadName() -> String {
        let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return comm?.trimmingCharacters(in: .newlines) ?? "?"
    }

    /// Notes the thread each call runs on.
    actor Recorder {
        private(set) var threads: Set<String> = []
        private(set) var calls = 0

        func record() -> String {
            let name = SocketThreadExecutorTests.threadName()
            threads.insert(name)
            calls += 1
            return name
        }
    }

    /// Two PAIR sockets over ipc: `push` sends, `pull` receives.
    private func pair(
        _ context: ZMQContext, _ home: TemporaryHome
    ) throws -> (push: SocketThread<[Frame]>, pull: SocketThread<[Frame]>) {
        let endpoint = "ipc://\(home.path)/pair.sock"
        let pull = try SocketThread(context: context, kind: .pair, name: "executor pull") { try $0.bind(endpoint) }
        let push = try SocketThread(context: context, kind: .pair, name: "executor push") { try $0.connect(endpoint) }
        return (push, pull)
    }

    @Test("a consumer that prefers the socket's thread handles every message there, and so does the actor it calls")
    func consumerRunsOnSocketThread() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let (push, pull) = try pair(context, home)
        let recorder = Recorder()
        let count = 200
        let consumer = Task(executorPreference: pull) { () -> Set<String> in
            var own: Set<String> = []
            var iterator = pull.incoming.makeAsyncIterator()
            for _ in 0..<count {
                guard await iterator.next() != nil else { break }
                own.insert(Self.threadName())
                _ = await recorder.record()
            }
            return own
        }
        for index in 0..<count { try push.send([Array("\(index)".utf8)]) }
        let own = await consumer.value
        #expect(await recorder.calls == count)
        #expect(own == [pull.name])
        #expect(await recorder.threads == [pull.name])
        await push.close()
        await pull.close()
        await context.terminate()
    }

    @Test("work that finishes on another thread (a timer) wakes the idle socket thread to resume its task")
    func wokenFromOtherThreads() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let (push, pull) = try pair(context, home)
        let resumes = 20
        /// `resumes` short sleeps in a row, each resumed from the timer's thread: how long they
        /// took and where each resume ran.
        @Sendable func sleeps() async -> (Duration, Set<String>) {
            let started = ContinuousClock.now
            var threads: Set<String> = []
            for _ in 0..<resumes {
                try? await Task.sleep(for: .milliseconds(1))
                threads.insert(Self.threadName())
            }
            return (ContinuousClock.now - started, threads)
        }
        // The same sleeps on the pool first: what this machine's timers and wake-ups cost now (a
        // loaded CI machine took 105 ms a resume), so the bound below holds under load too.
        let (onPool, _) = await Task { await sleeps() }.value
        let (onSocket, threads) = await withTaskExecutorPreference(pull) { await sleeps() }
        #expect(threads == [pull.name])
        // Without the wake-up, each resume waits out the idle thread's 250 ms poll: 5 s more in all.
        #expect(onSocket < onPool + .milliseconds(125) * resumes, "on the pool \(onPool), on the socket \(onSocket)")
        await push.close()
        await pull.close()
        await context.terminate()
    }

    @Test("a task that prefers a socket thread finishes on the pool once the socket is closed, even when it closes it")
    func closedSocketForwardsJobs() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let (push, pull) = try pair(context, home)
        let recorder = Recorder()
        let closer = Task(executorPreference: pull) { () -> (before: String, after: String) in
            let before = await recorder.record()
            await pull.close()
            return (before, await recorder.record())
        }
        let (before, after) = await closer.value
        #expect(before == pull.name)
        #expect(after != pull.name)
        let later = Task(executorPreference: pull) { await recorder.record() }
        #expect(await later.value != pull.name)
        #expect(await recorder.calls == 3)
        await push.close()
        await context.terminate()
    }

    @Test("a command server with handlersOnSocketThread runs each handler's actor calls on its socket's thread")
    func commandHandlersOnSocketThread() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let recorder = Recorder()
        var threads: [Bool: String] = [:]
        for onSocketThread in [true, false] {
            let server = try CommandServer(
                context: context, endpoint: "ipc://\(home.path)/cmd-\(onSocketThread).sock", service: "exec",
                handlersOnSocketThread: onSocketThread, logger: Logger(label: "test")
            ) { _ in
                try await Task.sleep(for: .milliseconds(1))  // suspends: the rest runs where the task prefers
                return .string(await recorder.record())
            }
            let client = CommandClient(context: context, endpoint: server.endpoint)
            threads[onSocketThread] = try await withRunning([server]) {
                try await client.request("where").stringValue
            }
            await client.close()
        }
        #expect(threads[true] == "exec.cmd")
        #expect(threads[false] != nil && threads[false] != "exec.cmd")
        await context.terminate()
    }
}
