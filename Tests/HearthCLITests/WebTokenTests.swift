import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

@testable import HearthCLI

@Suite("hearth web token", .timeLimit(.minutes(1)))
struct WebTokenTests {
    @Test("the QR code printed for phones reads back as the address (decoded by zbarimg)")
    func qrCodeDecodes() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg"), "zbar-tools: `make test` installs it")
        let address = "http://192.168.1.20:8470/?token=" + String(repeating: "0123456789abcdef", count: 4)
        let modules = try #require(Web.qrModules(address))
        // The drawn lines: every module pair in one character, the quiet zone around.
        let lines = Web.draw(modules)
        #expect(lines.count == (modules.count + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == modules.count + 4 })
        // As a picture (4 pixels a module, a quiet zone of four modules), read by a real decoder.
        let scale = 4
        let size = (modules.count + 8) * scale
        var pbm = "P1\n\(size) \(size)\n"
        for y in 0..<size {
            let row = (0..<size).map { x -> String in
                let (r, c) = (y / scale - 4, x / scale - 4)
                let dark = r >= 0 && r < modules.count && c >= 0 && c < modules.count && modules[r][c]
                return dark ? "1" : "0"
            }
            pbm += row.joined(separator: " ") + "\n"
        }
        let home = try TemporaryHome()
        let file = home.file("code.pbm")
        try pbm.write(toFile: file, atomically: true, encoding: .utf8)
        let decoded = try await ChildProcess.run("/usr/bin/zbarimg", ["--quiet", "--raw", file])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(decoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == address)
    }

    @Test("beyond loopback it prints the address with the token; --revoke replaces the token; on loopback none")
    func token() async throws {
        let home = try TemporaryHome()
        let hearth = "\(ChildProcess.binaryDirectory)/hearth"
        let wide = ["HEARTH_HOME": home.path, "HEARTH_WEB_LISTEN": "0.0.0.0:8470"]
        let first = try await ChildProcess.run(hearth, ["web", "token", "--json"], environment: wide)
        #expect(first.status == 0, "\(first.stderr)")
        let token = try #require(HouseholdToken.read(home: home.path))
        #expect(first.stdout.contains("?token=\(token)"))
        #expect(first.stdout.contains(":8470/"))
        let again = try await ChildProcess.run(hearth, ["web", "token", "--json"], environment: wide)
        #expect(again.stdout.contains("?token=\(token)"))

        let revoked = try await ChildProcess.run(
            hearth, ["web", "token", "--revoke", "--no-qr", "--timeout", "200"], environment: wide)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let new = try #require(HouseholdToken.read(home: home.path))
        #expect(new != token)
        #expect(revoked.stdout.contains("?token=\(new)"))
        #expect(revoked.stdout.contains("Revoked: hearth-web is not running"))
        #expect(revoked.stderr.isEmpty, "a stopped page is reported once, in the CLI's words: \(revoked.stderr)")
        let permissions =
            try FileManager.default.attributesOfItem(atPath: HouseholdToken.path(home: home.path))[
                .posixPermissions] as? Int
        #expect(permissions == 0o600)

        let local = try await ChildProcess.run(
            hearth, ["web", "token"], environment: ["HEARTH_HOME": home.path, "HEARTH_WEB_LISTEN": "127.0.0.1:8470"])
        #expect(local.stdout.hasPrefix("http://127.0.0.1:8470/\n"))
        #expect(!local.stdout.contains("token="))
    }

    @Test("web feed prints the webcal:// address of an area, with the token beyond loopback; a bad area exits 2")
    func feed() async throws {
        let home = try TemporaryHome()
        let hearth = "\(ChildProcess.binaryDirectory)/hearth"
        let wide = ["HEARTH_HOME": home.path, "HEARTH_WEB_LISTEN": "0.0.0.0:8470"]
        _ = try await ChildProcess.run(hearth, ["web", "token"], environment: wide)
        let token = try #require(HouseholdToken.read(home: home.path))
        let feed = try await ChildProcess.run(
            hearth, ["web", "feed", "timetable", "--member", "Ann", "--json"], environment: wide)
        #expect(feed.status == 0, "\(feed.stderr)")
        let reply = try JSONValue.parse(feed.stdout)
        let address = try #require(reply["webcal"]?.stringValue)
        #expect(
            address.hasPrefix("webcal://") && address.contains(":8470/calendar/timetable.ics?member=Ann&token=\(token)")
        )
        let local = try await ChildProcess.run(
            hearth, ["web", "feed", "--no-qr"], environment: ["HEARTH_HOME": home.path])
        #expect(local.stdout.hasPrefix("webcal://127.0.0.1:8470/calendar.ics\n"), "\(local.stdout)")
        let bad = try await ChildProcess.run(hearth, ["web", "feed", "shopping"], environment: wide)
        #expect(bad.status == 2 && bad.stderr.contains("'area' must be one of"))
    }
}
