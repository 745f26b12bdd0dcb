import HearthBus
import HearthTesting
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The command server starts each request's task on its socket's thread (`CommandIntake`); these
/// check what that must keep: every request answered under load, and a graceful shutdown that
/// takes no new request but lets those in flight finish and reply before the socket closes.
@Suite("Command intake", .timeLimit(.minutes(1)))
struct CommandIntakeTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("many clients at once each get their own answers")
    func manyClients() async throws {
        try await withCommandServer(
            context: context,
            handler: { request in
                // Half answer at once (on the socket's thread), half after crossing to the pool.
                if (request.arguments["n"]?.intValue ?? 0) % 2 == 0 { await Task.yield() }
                return .object(request.arguments)
            }
        ) { (endpoint: String) async throws in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for client in 0..<20 {
                    group.addTask {
                        let commands = CommandClient(context: context, endpoint: endpoint, timeout: .seconds(5))
                        var answered = 0
                        for n in 0..<50 {
                            let args: [String: JSONValue] = ["client": .int(Int64(client)), "n": .int(Int64(n))]
                            if try await commands.request("echo", args: args) == .object(args) { answered += 1 }
                        }
                        await commands.close()
                        return answered
                    }
                }
                var total = 0
                for try await answered in group { total += answered }
                #expect(total == 20 * 50)
            }
        }
    }

    @Test("graceful shutdown takes no new request, and one in flight still finishes and is answered")
    func shutdownWaitsForRequestsInFlight() async throws {
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/intake.sock"
        let started = AsyncSignal()
        let release = AsyncSignal()
        let runs = RunCounter()
        let server = try CommandServer(
            context: context, endpoint: endpoint, service: "test", logger: Logger(label: "test"),
            handler: { request in
                runs.record(request.command)
                guard request.command == "hold" else { return "quick" }
                started.fire()
                _ = await release.wait(timeout: .seconds(20))
                return "finished"
            })
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let held = CommandClient(context: context, endpoint: endpoint, timeout: .seconds(20), attempts: 1)
            async let reply = held.request("hold")
            #expect(await started.wait(timeout: .seconds(10)))

            await group.triggerGracefulShutdown()
            // A request after the shutdown began is not run (nor answered).
            let late = CommandClient(context: context, endpoint: endpoint, timeout: .milliseconds(500), attempts: 1)
            await #expect(throws: CommandClientError.self) { try await late.request("late") }
            #expect(runs.count("late") == 0)

            // The one in flight finishes, and its reply still goes out before the socket closes.
            release.fire()
            #expect(try await reply == "finished")
            try await tasks.waitForAll()
            await held.close()
            await late.close()
        }
    }
}
