import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import Testing

/// The calendar feeds read by calendar clients no one here wrote: vdirsyncer (Debian's) syncs
/// `/calendar.ics` over HTTP into a local vdir, and khal (Debian's) lists what it holds.
@Suite("End to end: vdirsyncer and khal subscribe to the household's calendar", .serialized, .timeLimit(.minutes(2)))
struct CalendarClientsTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test(
        "khal shows the check-ins at their local time across a clock change, a card on its day, a change after the next sync; a wrong token syncs nothing"
    )
    func vdirsyncerAndKhal() async throws {
        for tool in ["/usr/bin/vdirsyncer", "/usr/bin/khal"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool): `make test` installs it")
        }
        let port = try #require(try FreePorts.take(1).first)
        let stack = try await TestStack(
            [.bus, .store, .web],
            environment: ["HEARTH_WEB_LISTEN": "0.0.0.0:\(port)", "HEARTH_TIME_ZONE": "Europe/London"],
            context: context)
        let store = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(5))
        let token = try #require(HouseholdToken.read(home: stack.home.path))
        // British Summer Time starts on Sunday 28 March 2027: 19:00 is 19:00 UTC before, 18:00 after.
        _ = try await store.request("people.add", args: ["name": "Sam"])
        for day in ["2027-03-26", "2027-03-30"] {
            _ = try await store.request(
                "plan.add", args: ["person": "Sam", "at": .string("\(day) 19:00"), "duration": "30m"])
        }
        _ = try await store.request("event.set", args: ["year": 2027, "month": 3, "title": "Easter trip", "day": 27])

        let home = stack.home.path
        func configure(_ address: String, as name: String) throws -> String {
            let file = stack.home.file("vdirsyncer-\(name).conf")
            try """
            [general]
            status_path = "\(home)/vdirsyncer-status/"

            [pair hearth]
            a = "hearth_feed"
            b = "hearth_vdir"
            collections = null
            conflict_resolution = "a wins"

            [storage hearth_feed]
            type = "http"
            url = "\(address)"

            [storage hearth_vdir]
            type = "filesystem"
            path = "\(home)/vdir/"
            fileext = ".ics"

            """.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
        try FileManager.default.createDirectory(atPath: "\(home)/vdir", withIntermediateDirectories: true)
        let khal = stack.home.file("khal.conf")
        try """
        [calendars]
        [[hearth]]
        path = \(home)/vdir/
        type = calendar

        [locale]
        timeformat = %H:%M
        dateformat = %Y-%m-%d
        longdateformat = %Y-%m-%d
        datetimeformat = %Y-%m-%d %H:%M
        longdatetimeformat = %Y-%m-%d %H:%M
        local_timezone = Europe/London
        default_timezone = Europe/London

        """.write(toFile: khal, atomically: true, encoding: .utf8)
        let environment = ["HOME": home, "XDG_CONFIG_HOME": home, "XDG_DATA_HOME": home, "LC_ALL": "C.UTF-8"]
        func sync(_ config: String) async throws -> (status: Int32?, stdout: String, stderr: String) {
            let discovered = try await ChildProcess.run(
                "/usr/bin/vdirsyncer", ["-c", config, "discover", "hearth"], environment: environment,
                timeout: .seconds(60))
            #expect(discovered.status == 0, "\(discovered.stdout)\(discovered.stderr)")
            return try await ChildProcess.run(
                "/usr/bin/vdirsyncer", ["-c", config, "sync"], environment: environment, timeout: .seconds(60))
        }
        func list() async throws -> String {
            let listed = try await ChildProcess.run(
                "/usr/bin/khal", ["-c", khal, "list", "2027-03-25", "2027-04-02"], environment: environment,
                timeout: .seconds(60))
            #expect(listed.status == 0, "\(listed.stderr)")
            return listed.stdout
        }

        let wrong = try await sync(
            try configure("http://127.0.0.1:\(port)/calendar.ics?token=not\(token)", as: "wrong"))
        #expect(wrong.status != 0, "a wrong token synced: \(wrong.stdout)")
        #expect((wrong.stdout + wrong.stderr).contains("401"), "\(wrong.stdout)\(wrong.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(home)/vdir").isEmpty)

        let config = try configure("http://127.0.0.1:\(port)/calendar.ics?token=\(token)", as: "right")
        let first = try await sync(config)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let listed = try await list()
        let lines = listed.split(separator: "\n").map(String.init)
        func after(_ day: String) -> [String] { Array(lines.drop { !$0.hasSuffix(day) }.dropFirst().prefix(1)) }
        #expect(after("2027-03-26").contains { $0.hasPrefix("19:00-19:30") && $0.contains("Sam") }, "\(listed)")
        #expect(after("2027-03-30").contains { $0.hasPrefix("19:00-19:30") && $0.contains("Sam") }, "\(listed)")
        #expect(after("2027-03-27").contains { $0.contains("Easter trip") }, "\(listed)")

        // Changed on another device (as a sync applies it): there after the next sync.
        _ = try await store.request("event.set", args: ["year": 2027, "month": 3, "title": "Easter in Wales"])
        let second = try await sync(config)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        let relisted = try await list()
        #expect(relisted.contains("Easter in Wales") && !relisted.contains("Easter trip"), "\(relisted)")
        await store.close()
        _ = await stack.stop()
    }
}
