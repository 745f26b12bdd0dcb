import Foundation
import HearthBus
import HearthTesting
import Testing

/// `hearth plan busy subscribe|refresh|list|unsubscribe` against real `hearth-bus`,
/// `hearth-store` and `hearth-scheduler` processes and a real HTTP server process (Python's
/// `http.server`, which answers `If-Modified-Since` with a 304 from the file's time).
@Suite("Busy times subscribed by URL from the command line", .serialized, .timeLimit(.minutes(2)))
struct BusySubscriptionCommandLineTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    static func calendar(_ summary: String, _ start: String) -> String {
        """
        BEGIN:VCALENDAR\r
        BEGIN:VEVENT\r
        UID:\(summary.lowercased())@nas\r
        SUMMARY:\(summary)\r
        DTSTART;TZID=Europe/London:\(start)\r
        DURATION:PT2H\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    @Test(
        "subscribe reads at once; list shows the source's last read; refresh of an unchanged file is a 304; a changed one replaces its busy times; a 404 is shown; unsubscribe removes them"
    )
    func commandLine() async throws {
        let stack = try await TestStack(
            [.bus, .store, .scheduler], environment: ["HEARTH_TIME_ZONE": "Europe/London"], context: context)
        func hearth(_ arguments: [String]) async throws -> (status: Int32?, stdout: String, stderr: String) {
            try await stack.hearth(arguments)
        }
        let served = stack.home.file("nas")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let file = (served as NSString).appendingPathComponent("work.ics")
        try Self.calendar("Conference", "20261209T100000").write(toFile: file, atomically: true, encoding: .utf8)
        let server = try await ChildProcess(
            "/usr/bin/python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", served])
        defer { server.signal(SIGKILL) }
        let serving = try #require(await server.output.waitForLine { $0.hasPrefix("Serving HTTP on 127.0.0.1 port ") })
        let port = try #require(serving.split(separator: " ").dropFirst(5).first)
        let url = "http://127.0.0.1:\(port)/work.ics"

        let subscribed = try await hearth(["plan", "busy", "subscribe", "webcal://127.0.0.1:\(port)/work.ics"])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        #expect(subscribed.stdout.contains("subscribed to \(url)"), "\(subscribed.stdout)")
        #expect(subscribed.stdout.contains("\(url): 1 events, 1 busy times"), "\(subscribed.stdout)")
        var list = try await hearth(["plan", "busy", "list"])
        #expect(list.stdout.contains("\(url) · read "), "\(list.stdout)")
        #expect(list.stdout.contains(": 1 events, 1 busy times · next "), "\(list.stdout)")
        #expect(list.stdout.contains("Wed 9 Dec 10:00–12:00  Conference"), "\(list.stdout)")

        // Unchanged on the server: a 304, the copy kept read again.
        let unchanged = try await hearth(["plan", "busy", "refresh"])
        #expect(
            unchanged.stdout.contains("\(url): 1 events, 1 busy times (unchanged since the last read)"),
            "\(unchanged.stdout)")

        // Changed (a later modification time): the new calendar replaces the old one's busy times.
        try Self.calendar("Offsite", "20261210T140000").write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(10)], ofItemAtPath: file)
        let changed = try await hearth(["plan", "busy", "refresh", url])
        #expect(changed.stdout.contains("\(url): 1 events, 1 busy times") && !changed.stdout.contains("unchanged"))
        list = try await hearth(["plan", "busy", "list"])
        #expect(list.stdout.contains("Offsite") && !list.stdout.contains("Conference"), "\(list.stdout)")

        // A calendar that is not there: said, and kept to be tried again.
        let missing = try await hearth(["plan", "busy", "subscribe", "http://127.0.0.1:\(port)/gone.ics"])
        #expect(
            missing.stdout.contains("✗ http://127.0.0.1:\(port)/gone.ics: the server answered HTTP 404"),
            "\(missing.stdout)")
        list = try await hearth(["plan", "busy", "list"])
        #expect(list.stdout.contains("gone.ics · not read yet · ✗ "), "\(list.stdout)")
        // A refresh with a calendar that could not be read says so and exits 1 (it exited 0).
        let failing = try await hearth(["plan", "busy", "refresh"])
        #expect(failing.status == 1 && failing.stdout.contains("✗ http://127.0.0.1:\(port)/gone.ics"), "\(failing)")
        let notSubscribed = try await hearth(["plan", "busy", "refresh", "http://127.0.0.1:\(port)/other.ics"])
        #expect(notSubscribed.status == 2 && notSubscribed.stderr.contains("is not subscribed to"))
        let bad = try await hearth(["plan", "busy", "subscribe", "ftp://nas/work.ics"])
        #expect(bad.status == 2 && bad.stderr.contains("'url' must start with http://, https:// or webcal://"))

        let gone = try await hearth(["plan", "busy", "unsubscribe", url])
        #expect(gone.stdout.contains("unsubscribed from \(url); removed 1 busy times"), "\(gone.stdout)")
        list = try await hearth(["plan", "busy", "list"])
        #expect(!list.stdout.contains("Offsite") && !list.stdout.contains("work.ics"), "\(list.stdout)")
        _ = await stack.stop()
    }
}
