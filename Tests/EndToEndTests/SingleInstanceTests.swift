import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// One instance of each service per home: a second refuses to start and names the first, and a
/// crashed one never blocks its restart.
@Suite("End to end: one instance per service", .serialized, .timeLimit(.minutes(2)))
struct SingleInstanceTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    func pid(of service: HearthService, in stack: TestStack) async -> Int64? {
        let client = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(service), timeout: .milliseconds(500),
            attempts: 1)
        let pid = try? await client.request("ping")["pid"]?.intValue
        await client.close()
        return pid
    }

    @Test("a second instance of each service exits 1 naming the first; the first keeps serving")
    func secondInstanceRefused() async throws {
        let environment = LoopbackTurns.environment(port: LoopbackTurns.randomPort())
        let stack = try await TestStack(HearthService.launched, environment: environment, context: context)
        for service in HearthService.launched {
            let first = try #require(stack.processes[service])
            let second = try await TestStack.start(service, environment: stack.environment)
            let status = await second.waitForExit(timeout: .seconds(10))
            await second.errors.waitUntilFinished(timeout: .seconds(5))
            #expect(
                status == 1, "hearth-\(service.rawValue): a second instance exited with \(String(describing: status))")
            #expect(
                second.errors.text.contains(
                    "hearth-\(service.rawValue) already runs for \(stack.home.path) (pid \(first.pid))"),
                "its log: \(second.errors.text)")
            #expect(
                await pid(of: service, in: stack) == Int64(first.pid), "hearth-\(service.rawValue) lost its endpoint")
        }
        for (service, status) in await stack.stop() { #expect(status == 0, "hearth-\(service.rawValue)") }
    }

    @Test("every service SIGKILLed leaves its sockets behind, and a restart on the same home still binds them")
    func restartAfterCrash() async throws {
        let environment = LoopbackTurns.environment(port: LoopbackTurns.randomPort())
        let stack = try await TestStack(HearthService.launched, environment: environment, context: context)
        for process in stack.processes.values {
            process.signal(SIGKILL)
            #expect(await process.waitForExit(timeout: .seconds(5)) == -SIGKILL)
        }
        for service in HearthService.launched {
            let path = String(stack.configuration.commandEndpoint(service).dropFirst("ipc://".count))
            #expect(FileManager.default.fileExists(atPath: path), "no stale socket for \(service.rawValue)")
        }
        let restarted = try await TestStack(
            HearthService.launched, home: stack.home, environment: environment, context: context)
        for service in HearthService.launched {
            #expect(await pid(of: service, in: restarted) == Int64(restarted.processes[service]!.pid))
        }
        for (service, status) in await restarted.stop() { #expect(status == 0, "hearth-\(service.rawValue)") }
    }
}
