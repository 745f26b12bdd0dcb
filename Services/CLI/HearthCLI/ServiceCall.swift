import ArgumentParser
import HearthBus
import HearthCore
import HearthHost

/// Sends one command to a service for a `hearth` subcommand.
enum ServiceCall {
    /// The command's result data. A refusal prints the service's message and exits 2 (bad
    /// input); an unreachable service exits 1.
    static func run(
        _ options: GlobalOptions,
        _ service: HearthService,
        _ command: String,
        _ arguments: [String: JSONValue] = [:],
        patience: Duration? = nil
    ) async throws -> JSONValue {
        switch try await attempt(options, service, command, arguments, patience: patience) {
        case .success(let data): return data
        case .failure(let error): throw failure(error, service, options)
        }
    }

    /// The command's reply as its type in HearthCore. A reply that does not read as its type (a
    /// service of another build) is an error naming the field and what was found there.
    static func run<Reply: Decodable>(
        _ options: GlobalOptions,
        _ service: HearthService,
        _ command: String,
        _ arguments: [String: JSONValue] = [:],
        as type: Reply.Type,
        patience: Duration? = nil
    ) async throws -> Reply {
        let data = try await run(options, service, command, arguments, patience: patience)
        do {
            return try data.decode(Reply.self)
        } catch let error as DecodingError {
            Output.error(
                "hearth: \(service.rawValue)'s reply to \(command) is not what this build reads: \(error.summary)")
            throw ExitCode(1)
        }
    }

    /// A typed command's reply as its type (see `run(_:_:_:_:as:patience:)`).
    static func send<C: HearthCommand>(
        _ options: GlobalOptions, _ service: HearthService, _ command: C, patience: Duration? = nil
    ) async throws -> C.Reply {
        try await run(options, service, C.name, try command.arguments(), as: C.Reply.self, patience: patience)
    }

    /// A typed command's reply as it came, for `--json` and for describing it whole.
    static func reply<C: HearthCommand>(
        _ options: GlobalOptions, _ service: HearthService, _ command: C, patience: Duration? = nil
    ) async throws -> JSONValue {
        try await run(options, service, C.name, try command.arguments(), patience: patience)
    }

    /// The command's result, or why it failed, with nothing printed (for a call whose failure
    /// the subcommand reports in its own words).
    /// - Parameter patience: for a command that takes long by nature (a calendar read over the
    ///   network): one attempt, waiting at least this long.
    static func attempt(
        _ options: GlobalOptions,
        _ service: HearthService,
        _ command: String,
        _ arguments: [String: JSONValue] = [:],
        patience: Duration? = nil
    ) async throws -> Result<JSONValue, CommandClientError> {
        let configuration = try options.loadConfiguration()
        let context = try ZMQContext(configuration: configuration)
        let client = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(service),
            timeout: max(options.timeoutDuration, patience ?? .zero), attempts: patience == nil ? 3 : 1,
            maximumMessageBytes: configuration.maximumMessageBytes)
        let result: Result<JSONValue, CommandClientError>
        do {
            result = .success(try await client.request(command, args: arguments))
        } catch let error as CommandClientError {
            result = .failure(error)
        }
        await client.close()
        await context.terminate()
        return result
    }

    /// Says why a command to `service` failed, the way every subcommand does: a refusal prints
    /// the service's message (exit 2, bad input); an unreachable service exit 1.
    static func failure(_ error: any Error, _ service: HearthService, _ options: GlobalOptions) -> ExitCode {
        if case .refused(let refusal) = error as? CommandClientError {
            if options.json {
                Output.json([
                    "ok": false, "error": ["code": .string(refusal.code), "message": .string(refusal.message)],
                ])
            }
            Output.error("hearth: \(refusal.message)")
            return ExitCode(2)
        }
        if case .tooLarge = error as? CommandClientError {
            Output.error("hearth: \(error)")
            return ExitCode(2)
        }
        Output.error("hearth: \(service.rawValue) is not answering: \(error) (is hearth-\(service.rawValue) running?)")
        return ExitCode(1)
    }

    /// One attempt at `command` on `service` if it is running: its result, or `nil` when nothing
    /// answered within `timeout` (or it refused). For asking whether a service runs, or telling
    /// one that may not.
    static func ifRunning(
        _ configuration: HearthConfiguration,
        _ service: HearthService,
        _ command: String,
        timeout: Duration
    ) async -> JSONValue? {
        guard let context = try? ZMQContext(configuration: configuration) else { return nil }
        let client = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(service), timeout: timeout, attempts: 1)
        let result = try? await client.request(command)
        await client.close()
        await context.terminate()
        return result
    }
}
