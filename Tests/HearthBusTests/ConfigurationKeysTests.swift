import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// `HearthConfiguration.keys`, the list `hearth.toml(5)` and `hearth config keys` are made from,
/// against the reader: the list cannot drift from what the reader takes.
@Suite("Configuration keys: the one list of hearth.toml's settings", .timeLimit(.minutes(1)))
struct ConfigurationKeysTests {
    @Test("each key set to its listed default loads exactly the configuration no file gives")
    func defaultsAreTheReaders() throws {
        let home = try TemporaryHome()
        // The system's zone is the default; the test names it so both loads agree on it.
        let plain = try home.configuration()
        for key in HearthConfiguration.keys {
            let value =
                key.defaultValue
                ?? key.defaultText!.replacingOccurrences(of: "$HEARTH_HOME", with: home.path).quotedForTOML
            try "[\(key.section)]\n\(key.key) = \(value)\n".write(
                toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
            if key.name == "household.time_zone" { continue }
            let loaded = try home.configuration()
            #expect(loaded == plain, "\(key.name) = \(value) is not the reader's default")
        }
    }

    @Test("every key has a value in force (hearth config prints them all), and each written back loads the same")
    func valuesInForce() throws {
        let home = try TemporaryHome()
        let plain = try home.configuration()
        for key in HearthConfiguration.keys {
            let value = try #require(plain.value(of: key.name), "\(key.name) has no value in force")
            try "[\(key.section)]\n\(key.key) = \(value.jsonText)\n".write(
                toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
            #expect(try home.configuration() == plain, "\(key.name) = \(value.jsonText) is not the value in force")
        }
        #expect(plain.value(of: "web.port") == nil)
    }

    @Test("a key the list does not name is refused, and a moved one says where it went")
    func unknownKeys() throws {
        for (text, key, rule) in [
            ("[web]\nport = 80\n", "web.port", "is not a Hearth setting"),
            ("[notify]\nemails = true\n", "notify.emails", "is not a Hearth setting"),
            ("[turn]\nbeacon_port = 5670\n", "turn.beacon_port", "has moved to [discovery]"),
        ] {
            let home = try TemporaryHome()
            try text.write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
            let error = try #require(throws: ConfigurationError.self) { try home.configuration() }
            #expect(error.key == key)
            #expect(error.rule.contains(rule), "\(error.rule)")
        }
    }

    @Test("each environment variable the list names is read: a bad value in it is refused naming the key")
    func variablesAreRead() throws {
        let home = try TemporaryHome()
        let keys = HearthConfiguration.keys.filter { $0.environment != nil }
        #expect(keys.count >= 20)
        for key in keys {
            let error = try #require(throws: ConfigurationError.self) {
                try home.configuration([key.environment!: "!"])
            }
            #expect(error.key == key.name, "\(key.environment!) named \(error.key)")
            #expect(error.origin == "environment variable \(key.environment!)")
        }
    }

    @Test("hearth.toml(5) lists every key and variable, and man renders it without a warning")
    func manualPage() async throws {
        let page = ConfigurationManual.page(date: "2026-11-29")
        for key in HearthConfiguration.keys {
            #expect(page.contains(".B \(key.key.replacingOccurrences(of: "-", with: "\\-"))\n"), "\(key.name)")
            if let variable = key.environment {
                #expect(page.contains(variable.replacingOccurrences(of: "-", with: "\\-")))
            }
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/man") else { return }
        let home = try TemporaryHome()
        try page.write(toFile: home.file("hearth.toml.5"), atomically: true, encoding: .utf8)
        let man = try await ChildProcess.run(
            "/usr/bin/man", ["--warnings", "-l", home.file("hearth.toml.5")], environment: ["MANWIDTH": "80"])
        #expect(man.status == 0)
        #expect(man.stderr.isEmpty, "man --warnings: \(man.stderr)")
        #expect(man.stdout.contains("HEARTH.TOML(5)"))
    }
}

extension String {
    fileprivate var quotedForTOML: String { "\"\(self)\"" }
}
