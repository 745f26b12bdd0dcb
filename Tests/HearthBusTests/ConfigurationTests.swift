import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

@Suite("Configuration", .timeLimit(.minutes(1)))
struct ConfigurationTests {
    @Test("defaults are ipc sockets in a 0700 run directory under HEARTH_HOME")
    func defaults() throws {
        let home = try TemporaryHome()
        try FileManager.default.createDirectory(
            atPath: home.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let configuration = try HearthConfiguration.load(environment: ["HEARTH_HOME": home.path])
        #expect(configuration.home == home.path)
        #expect(configuration.busPublishEndpoint == "ipc://\(home.path)/run/bus-pub.sock")
        #expect(configuration.busSubscribeEndpoint == "ipc://\(home.path)/run/bus-sub.sock")
        #expect(configuration.commandEndpoint(.bus) == "ipc://\(home.path)/run/bus-cmd.sock")
        let mode = try FileManager.default.attributesOfItem(atPath: home.file("run"))[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("without HEARTH_HOME the XDG data directory is used, else ~/.local/share")
    func xdg() throws {
        let base = try TemporaryHome()
        let xdg = try HearthConfiguration.load(environment: ["XDG_DATA_HOME": base.path])
        #expect(xdg.home == base.path + "/hearth")
        let plain = try HearthConfiguration.load(environment: ["HOME": base.path])
        #expect(plain.home == base.path + "/.local/share/hearth")
    }

    @Test("hearth.toml overrides defaults and environment variables override hearth.toml")
    func overrides() throws {
        let home = try TemporaryHome()
        try """
        [bus]
        pub = "tcp://127.0.0.1:7101"
        sub = "tcp://127.0.0.1:7102"
        cmd = "tcp://127.0.0.1:7103"
        heartbeat_ms = 500
        idle_spin_us = 20

        [limits]
        max_message_bytes = 65536
        """.write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let fromFile = try home.configuration()
        #expect(fromFile.busPublishEndpoint == "tcp://127.0.0.1:7101")
        #expect(fromFile.commandEndpoint(.bus) == "tcp://127.0.0.1:7103")
        #expect(fromFile.maximumMessageBytes == 65_536)
        #expect(fromFile.heartbeatMilliseconds == 500)
        #expect(fromFile.idleSpinMicroseconds == 20)
        let fromEnvironment = try home.configuration([
            "HEARTH_BUS_PUB": "tcp://127.0.0.1:8101", "HEARTH_MAX_MESSAGE_BYTES": "2048",
        ])
        #expect(fromEnvironment.busPublishEndpoint == "tcp://127.0.0.1:8101")
        #expect(fromEnvironment.busSubscribeEndpoint == "tcp://127.0.0.1:7102")
        #expect(fromEnvironment.maximumMessageBytes == 2_048)
        #expect(try home.configuration(["HEARTH_BUS_IDLE_SPIN_US": "0"]).idleSpinMicroseconds == 0)
        #expect(
            try TemporaryHome().configuration().idleSpinMicroseconds == HearthConfiguration.defaultIdleSpinMicroseconds)
        let tooLong = #expect(throws: ConfigurationError.self) {
            try home.configuration(["HEARTH_BUS_IDLE_SPIN_US": "20000"])
        }
        #expect(tooLong?.key == "bus.idle_spin_us")
        #expect(tooLong?.rule == "20000 is outside 0...10000")
    }

    @Test("[sync]: endpoint and interval from the file and the environment; an interval under 5 minutes is refused")
    func syncSettings() throws {
        let home = try TemporaryHome()
        let defaults = try home.configuration()
        #expect(defaults.sync.endpoint == "tcp://*:*")
        #expect(defaults.sync.interval == .seconds(300))
        try "[sync]\nendpoint = \"tcp://0.0.0.0:7400\"\ninterval = \"1h\"\ncmd = \"ipc:///tmp/s.sock\"\n".write(
            toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let fromFile = try home.configuration()
        #expect(fromFile.sync.endpoint == "tcp://0.0.0.0:7400")
        #expect(fromFile.sync.interval == .seconds(3_600))
        #expect(fromFile.commandEndpoint(.sync) == "ipc:///tmp/s.sock")
        #expect(try home.configuration(["HEARTH_SYNC_INTERVAL": "10m"]).sync.interval == .seconds(600))
        #expect(
            throws: ConfigurationError(
                origin: "environment variable HEARTH_SYNC_INTERVAL", key: "sync.interval",
                rule: "must be at least 5m (two devices sync at most once every 5 minutes), got \"2m\"")
        ) {
            try home.configuration(["HEARTH_SYNC_INTERVAL": "2m"])
        }
        try "[sync]\ninterval = \"299s\"\n".write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let short = #expect(throws: ConfigurationError.self) { try home.configuration() }
        #expect(short?.origin == "hearth.toml")
        #expect(short?.key == "sync.interval")
        try "[sync]\nendpoint = \"ipc:///x\"\n".write(
            toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try home.configuration() }
    }

    @Test("[web]: the page's names, timeouts and connection cap from the file and the environment; bad ones named")
    func webSettings() throws {
        let home = try TemporaryHome()
        let defaults = try home.configuration()
        #expect(defaults.web.headerTimeout == .seconds(10))
        #expect(defaults.web.idleTimeout == .seconds(60))
        #expect(defaults.web.maximumConnections == 256)
        #expect(defaults.web.hostNames.isEmpty)
        try """
        [web]
        listen = "0.0.0.0:8470"
        host_names = ["Kitchen.local", "hearth.example"]
        header_timeout = "5s"
        idle_timeout = "2m"
        max_connections = 64
        """.write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let fromFile = try home.configuration()
        #expect(fromFile.web.host == "0.0.0.0")
        #expect(fromFile.web.hostNames == ["kitchen.local", "hearth.example"])
        #expect(fromFile.web.headerTimeout == .seconds(5))
        #expect(fromFile.web.idleTimeout == .seconds(120))
        #expect(fromFile.web.maximumConnections == 64)
        let overridden = try home.configuration(["HEARTH_WEB_HOST_NAMES": "a.local, b.local"])
        #expect(overridden.web.hostNames == ["a.local", "b.local"])
        #expect(overridden.web.maximumConnections == 64)
        for (text, key) in [
            ("host_names = [\"evil/x\"]", "web.host_names"), ("header_timeout = \"soon\"", "web.header_timeout"),
            ("max_connections = 0", "web.max_connections"), ("idle_timeout = 5", "web.idle_timeout"),
        ] {
            try "[web]\n\(text)\n".write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
            let error = #expect(throws: ConfigurationError.self) { try home.configuration() }
            #expect(error?.key == key, "\(text)")
        }
    }

    @Test("every bad setting is reported at once: the file's keys, then the environment's")
    func allErrors() throws {
        let home = try TemporaryHome()
        try """
        [bus]
        heartbeat_ms = "often"
        colour = "blue"

        [sync]
        interval = "2m"

        [web]
        max_connections = 0

        [weather]
        sunny = true
        """.write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let error = try #require(
            #expect(throws: ConfigurationError.self) {
                try home.configuration(["HEARTH_BUS_SUB": "http://x", "HEARTH_BUS_IDLE_SPIN_US": "lots"])
            })
        let keys = error.all.map(\.key)
        #expect(
            Set(keys) == [
                "bus.heartbeat_ms", "bus.colour", "sync.interval", "web.max_connections", "weather.sunny", "bus.sub",
                "bus.idle_spin_us",
            ], "\(error)")
        #expect(keys.count == 7, "each once: \(keys)")
        #expect(error.description.split(separator: "\n").count == 7, "one line each: \(error)")
        #expect(error.description.contains("environment variable HEARTH_BUS_SUB: bus.sub: 'http://x'"))
        // A good file with one bad key still names just that one.
        try "[bus]\nheartbeat_ms = 10\n".write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let one = #expect(throws: ConfigurationError.self) { try home.configuration() }
        #expect(one?.all.count == 1 && one?.key == "bus.heartbeat_ms")
    }

    @Test("a bad setting names the key, where it came from, and the rule")
    func errors() throws {
        let home = try TemporaryHome()
        #expect(
            throws: ConfigurationError(
                origin: "environment variable HEARTH_BUS_SUB", key: "bus.sub",
                rule: "'http://x' must be an endpoint starting with ipc://, tcp:// or inproc://")
        ) {
            try home.configuration(["HEARTH_BUS_SUB": "http://x"])
        }
        try "[bus]\ncolour = \"red\"\n".write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError(origin: "hearth.toml", key: "bus.colour", rule: "is not a Hearth setting")) {
            try home.configuration()
        }
        try "[limits]\nmax_message_bytes = \"big\"\n".write(
            toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        #expect(
            throws: ConfigurationError(
                origin: "hearth.toml", key: "limits.max_message_bytes", rule: "must be a whole number")
        ) {
            try home.configuration()
        }
        try "[bus\n".write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigurationError.self) { try home.configuration() }
        #expect(error?.origin == "hearth.toml")
    }

    @Test("the device id is created once, kept with mode 0600, and stable")
    func deviceIdentity() throws {
        let home = try TemporaryHome()
        let first = try DeviceIdentity.load(home: home.path)
        let second = try DeviceIdentity.load(home: home.path)
        #expect(first == second)
        #expect(UUID(uuidString: first) != nil)
        let mode = try FileManager.default.attributesOfItem(atPath: home.file("device-id"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("the CURVE key pair is created once, kept with mode 0600, and a bad key file is refused")
    func deviceKeyPair() throws {
        let home = try TemporaryHome()
        let first = try DeviceIdentity.keyPair(home: home.path)
        #expect(try DeviceIdentity.keyPair(home: home.path) == first)
        #expect(try CurveKeyPair.publicKey(forSecretKey: first.secretKey) == first.publicKey)
        let path = home.file("curve-secret-key")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        // Found readable by others (a copied home): private again when next read.
        chmod(path, 0o644)
        #expect(try DeviceIdentity.keyPair(home: home.path) == first)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        try "not a key\n".write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigurationError.self) { try DeviceIdentity.keyPair(home: home.path) }
        #expect(error?.key == path)
    }
}
