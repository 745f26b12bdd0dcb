import ArgumentParser
import CQREncode
import Foundation
import HearthBus
import HearthCore
import HearthHost

/// `hearth web`: the household page's address, and the token phones need to reach it.
struct Web: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "The household page (hearth-web): its address, and the token phones need.",
        subcommands: [Token.self, Feed.self]
    )

    struct Feed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "feed",
            abstract: "Print the webcal:// address calendar apps subscribe to, and a QR code.",
            discussion: """
                AREA is year, checkins, todos (VTODO), todo-events (the same as events, for apps that \
                ignore VTODO) or timetable (with --member); without it, everything. \
                Beyond loopback the address carries the household token, which calendar apps send on \
                every refresh.
                """
        )
        @OptionGroup var options: GlobalOptions
        @Argument(help: "year, checkins, todos, todo-events or timetable (default: everything).") var area: String?
        @Option(help: "With timetable: one member's lessons.") var member: String?
        @Flag(help: "Leave out the QR code.") var noQR = false

        func run() async throws {
            let areas = ["year", "checkins", "todos", "todo-events", "timetable"]
            if let area, !areas.contains(area) {
                Output.error("hearth: 'area' must be one of \(areas.joined(separator: ", ")), got '\(area)'")
                throw ExitCode(2)
            }
            let configuration = try options.loadConfiguration()
            let web = configuration.web
            let base = web.url(host: Web.reachableHost(web.host))
            var query: [String] = []
            if let member {
                query.append(
                    "member=\(member.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? member)")
            }
            if !web.isLoopback { query.append("token=\(try HouseholdToken.current(home: configuration.home))") }
            let path = area.map { "/calendar/\($0).ics" } ?? "/calendar.ics"
            let http = base + path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
            let address = "webcal://" + http.drop { $0 != ":" }.dropFirst(3)
            if options.json { return Output.json(["webcal": .string(address), "url": .string(http)]) }
            Output.line(address)
            if !noQR, let modules = Web.qrModules(address) {
                for line in Web.draw(modules) { Output.line(line) }
            }
            if web.isLoopback {
                Output.line(
                    "(on this machine only: for phones, set [web] listen = \"0.0.0.0:\(web.port)\" in hearth.toml)")
            }
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print the page's address with the household token, and a QR code for phones.",
            discussion: """
                On loopback (the default [web] listen = "127.0.0.1:8470") the page asks for no token. \
                Listening beyond loopback ([web] listen = "0.0.0.0:8470"), every request needs the \
                household token: open the printed address once on each phone (or scan the code) and \
                it is kept. --revoke makes a new token: every device holding the old one is refused.
                """
        )
        @OptionGroup var options: GlobalOptions
        @Flag(help: "Replace the token: devices holding the old one must open the new address.") var revoke = false
        @Flag(help: "Leave out the QR code.") var noQR = false

        func run() async throws {
            let configuration = try options.loadConfiguration()
            let web = configuration.web
            let base = web.url(host: Web.reachableHost(web.host)) + "/"
            if web.isLoopback {
                if options.json { return Output.json(["url": .string(base), "token": .null]) }
                Output.line(base)
                Output.line(
                    "The page listens on this machine only, with no token. For phones, set [web] listen = "
                        + "\"0.0.0.0:\(web.port)\" in hearth.toml, restart hearth-web, and run this again.")
                return
            }
            let token =
                revoke
                ? try HouseholdToken.replace(home: configuration.home)
                : try HouseholdToken.current(home: configuration.home)
            let address = "\(base)?token=\(token)"
            // A running page takes the new token at once; a stopped one reads it when it starts.
            var reloaded = false
            if revoke, case .success = try await ServiceCall.attempt(options, .web, WebCommands.ReloadToken.name) {
                reloaded = true
            }
            if options.json { return Output.json(["url": .string(address), "token": .string(token)]) }
            Output.line(address)
            if !noQR, let modules = Web.qrModules(address) {
                for line in Web.draw(modules) { Output.line(line) }
            }
            if revoke {
                Output.line(
                    reloaded
                        ? "Revoked: the old token is refused from now on."
                        : "Revoked: hearth-web is not running; it refuses the old token when it starts.")
            }
        }
    }

    /// The address to print for `host`: for a wildcard (`0.0.0.0`, `::`), this machine's first
    /// non-loopback IPv4 address, which phones on the same network reach.
    static func reachableHost(_ host: String) -> String {
        guard host == "0.0.0.0" || host == "::" else { return host }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return ProcessInfo.processInfo.hostName }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0, entry.pointee.ifa_flags & UInt32(IFF_UP) != 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return ProcessInfo.processInfo.hostName
    }

    /// `text` as a QR code's modules (libqrencode, error correction M), `true` for dark, rows of
    /// columns; `nil` if libqrencode cannot encode it.
    static func qrModules(_ text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        return (0..<width).map { row in (0..<width).map { code.pointee.data[row * width + $0] & 1 == 1 } }
    }

    /// The modules drawn with half blocks, two rows per line, light modules as blocks (for a
    /// terminal's dark background) inside a quiet zone of two modules.
    static func draw(_ modules: [[Bool]]) -> [String] {
        let quiet = 2
        let size = modules.count + 2 * quiet
        func light(_ row: Int, _ column: Int) -> Bool {
            let (r, c) = (row - quiet, column - quiet)
            guard r >= 0, r < modules.count, c >= 0, c < modules.count else { return row < size }
            return !modules[r][c]
        }
        return stride(from: 0, to: size, by: 2).map { row in
            String(
                (0..<size).map { column -> Character in
                    switch (light(row, column), light(row + 1, column)) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                })
        }
    }
}
