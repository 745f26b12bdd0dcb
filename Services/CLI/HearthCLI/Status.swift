import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthHost

/// `hearth status`: is every service up, and how fast does it answer.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Ping every service and print up or down with the round-trip time.",
        discussion: "Exits 1 when any service is down."
    )

    @OptionGroup var options: GlobalOptions

    struct Report: Sendable {
        let service: HearthService
        let endpoint: String
        let result: Result<(rtt: Duration, info: JSONValue), CommandClientError>
    }

    func run() async throws {
        let configuration = try options.loadConfiguration()
        let context = try ZMQContext(configuration: configuration)
        let timeout = options.timeoutDuration
        let reports = await withTaskGroup(of: Report.self) { group in
            for service in HearthService.launched {
                let endpoint = configuration.commandEndpoint(service)
                group.addTask {
                    let client = CommandClient(context: context, endpoint: endpoint, timeout: timeout, attempts: 1)
                    let clock = ContinuousClock()
                    let start = clock.now
                    let result: Result<(rtt: Duration, info: JSONValue), CommandClientError>
                    do {
                        // As it came: each service's own figures too.
                        let info = try await client.request(ServiceCommands.Ping.name)
                        result = .success((clock.now - start, info))
                    } catch let error as CommandClientError {
                        result = .failure(error)
                    } catch {
                        result = .failure(.malformedReply("\(error)"))
                    }
                    await client.close()
                    return Report(service: service, endpoint: endpoint, result: result)
                }
            }
            var reports: [Report] = []
            for await report in group { reports.append(report) }
            return reports.sorted { $0.service.rawValue < $1.service.rawValue }
        }
        await context.terminate()

        let allUp = reports.allSatisfy { if case .success = $0.result { true } else { false } }
        if options.json {
            let services: [JSONValue] = reports.map { report in
                var entry: [String: JSONValue] = [
                    "name": .string(report.service.rawValue), "endpoint": .string(report.endpoint),
                ]
                switch report.result {
                case .success(let (rtt, info)):
                    entry["up"] = true
                    entry["rtt_ms"] = .double((rtt.seconds * 1_000_000).rounded() / 1_000)
                    entry["info"] = info
                case .failure(let error):
                    entry["up"] = false
                    entry["error"] = .string(error.description)
                }
                return .object(entry)
            }
            Output.json(["services": .array(services), "all_up": .bool(allUp)])
        } else {
            for report in reports {
                let name = report.service.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                switch report.result {
                case .success(let (rtt, _)):
                    let ms = String(format: "%.2f ms", rtt.seconds * 1_000)
                    Output.line(
                        "\(name) up    \(ms.padding(toLength: 10, withPad: " ", startingAt: 0)) \(report.endpoint)")
                case .failure(let error):
                    Output.line("\(name) down  \(error)")
                }
            }
        }
        if !allUp { throw ExitCode(1) }
    }
}
