import ArgumentParser
import Foundation
import HearthBus
import HearthHost

/// `hearth publish`: put one event on the bus, for scripts and tests.
struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish one event on the bus.",
        discussion: """
            TOPIC is dot-separated segments of letters, digits, '-' and '_' (at most 255 bytes). \
            JSON becomes the envelope's data. A bad topic or bad JSON exits with code 2.
            """
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The topic, such as turn.J7X-3.changed.")
    var topic: String

    @Argument(help: "The event data as JSON, such as '{\"player\":\"Ann\"}'.")
    var data: String

    @Option(help: "The envelope type (default: the topic).")
    var type: String?

    func run() async throws {
        do {
            try Topic.validate(topic)
        } catch {
            Output.error("hearth publish: \(error)")
            throw ExitCode(2)
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            Output.error("hearth publish: JSON: \(error)")
            throw ExitCode(2)
        }
        let configuration = try options.loadConfiguration()
        let device = try DeviceIdentity.load(home: configuration.home)
        let seq = try CLISequence.next(runDirectory: configuration.runDirectory)
        let context = try ZMQContext(configuration: configuration)
        let publisher = try Publisher(
            context: context,
            endpoint: configuration.busPublishEndpoint,
            source: "cli",
            device: device,
            firstSeq: seq,
            maximumMessageBytes: configuration.maximumMessageBytes
        )
        guard await publisher.waitUntilConnected(timeout: options.timeoutDuration) else {
            await publisher.close()
            await context.terminate()
            Output.error(
                "hearth publish: no bus at \(configuration.busPublishEndpoint) within \(options.timeout) ms (is hearth-bus running?)"
            )
            throw ExitCode(1)
        }
        let envelope: Envelope
        do {
            envelope = try publisher.publish(topic: topic, type: type ?? topic, data: value)
        } catch {
            await publisher.close()
            await context.terminate()
            Output.error("hearth publish: \(error)")
            throw ExitCode(2)
        }
        await publisher.close()
        await context.terminate()
        if options.json {
            Output.line(String(decoding: try EnvelopeCodec(maximumBytes: .max).encode(envelope), as: UTF8.self))
        } else {
            Output.line("published \(topic) (cli seq \(envelope.seq))")
        }
    }
}

/// The `cli` source's sequence number, kept in `$HEARTH_HOME/run/cli.seq` so that separate
/// `hearth publish` runs number their events 1, 2, 3… like any other source.
enum CLISequence {
    static func next(runDirectory: String) throws -> UInt64 {
        let path = (runDirectory as NSString).appendingPathComponent("cli.seq")
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemCallError.last("open \(path)") }
        defer { close(fd) }
        // flock serialises concurrent publishers; it is held only for this read-modify-write.
        guard flock(fd, LOCK_EX) == 0 else { throw SystemCallError.last("flock \(path)") }
        defer { flock(fd, LOCK_UN) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        let text = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
        let current = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let next = current + 1
        let bytes = Array("\(next)\n".utf8)
        guard ftruncate(fd, 0) == 0, pwrite(fd, bytes, bytes.count, 0) == bytes.count else {
            throw SystemCallError.last("write \(path)")
        }
        return next
    }
}
