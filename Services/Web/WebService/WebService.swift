import Foundation
import HearthBus
import HearthCore
import HearthHost
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `hearth-web`: the household page for the kitchen screen and the family's phones.
///
/// It serves seven views (year, today, stats, timetable, people, game, devices) rendered from mustache
/// templates, reading and acting only through the owning services' commands (store, turn,
/// sync): it never opens the store's database, and every input is checked by the service that
/// owns it, as on the CLI. It follows the bus and tells every open page, over server-sent
/// events (`/events`), which household area changed; the page fetches its view again (`LiveFeed`).
///
/// Listening on loopback (the default `127.0.0.1:8470`, `[web] listen`), it asks for nothing;
/// beyond loopback, every request needs the household token (`HouseholdGate`, `hearth web token`).
///
/// Commands on `web.cmd`: `ping` (with `url`: the address it serves, and `pages`: open live
/// connections; answered once the server listens, so an answer means the page can be opened)
/// and `token.reload` (read `web-token` again after `hearth web token --revoke`).
public final class WebService: Service {
    private let configuration: HearthConfiguration
    private let logger: Logger
    private let device: String
    private let store: CommandClient
    private let turn: CommandClient
    private let sync: CommandClient
    private let subscriber: Subscriber
    private let live = LiveFeed()
    let cache = PageCache()
    private let token: TokenHolder
    private let commands: CommandServer
    /// The address served, set once the server listens (`http://127.0.0.1:8470`; its port may
    /// be any free one).
    private let url = AsyncLatch<String>()
    /// Now, for the views (a test passes a fixed time).
    private let clock: @Sendable () -> Date

    public init(
        configuration: HearthConfiguration, context: ZMQContext, device: String, logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.clock = clock
        self.configuration = configuration
        self.device = device
        self.logger = logger
        let limit = configuration.maximumMessageBytes
        store = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.store), timeout: .seconds(2), attempts: 2,
            maximumMessageBytes: limit)
        turn = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.turn), timeout: .seconds(2), attempts: 2,
            maximumMessageBytes: limit)
        sync = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.sync), timeout: .seconds(2), attempts: 2,
            maximumMessageBytes: limit)
        subscriber = try Subscriber(
            context: context, endpoint: configuration.busSubscribeEndpoint,
            prefixes: ["store.", "turn.", "sync.", "pair.", "device.", "plan.", "reminder.", "class."],
            maximumMessageBytes: limit, logger: logger)
        let token = TokenHolder(
            configuration.web.isLoopback ? nil : try HouseholdToken.current(home: configuration.home))
        self.token = token
        let (live, url, home) = (live, url, configuration.home)
        commands = try CommandServer(
            context: context, endpoint: configuration.commandEndpoint(.web), service: "web",
            maximumMessageBytes: limit, logger: logger,
            pingInfo: {
                var info: [String: JSONValue] = ["pages": .int(Int64(await live.count))]
                // Not before the server listens (a few milliseconds after start).
                if let address = await url.wait(timeout: .seconds(5)) { info["url"] = .string(address) }
                return info
            },
            handler: { request in
                guard request.command == WebCommands.ReloadToken.name else {
                    throw CommandError.unknownCommand(request.command, service: "web")
                }
                return try Self.reload(token, home: home)
            })
    }

    /// Reads the token file again (after `hearth web token --revoke`): pages holding the old
    /// token are refused from the next request on.
    func reloadToken() throws -> JSONValue { try Self.reload(token, home: configuration.home) }

    private static func reload(_ token: TokenHolder, home: String) throws -> JSONValue {
        guard token.current != nil else {
            return try JSONValue(reply: TokenReloaded(token: "not used: the page listens on loopback only"))
        }
        token.replace(try HouseholdToken.current(home: home))
        return try JSONValue(reply: TokenReloaded(token: "reloaded"))
    }

    /// The page's routes, with the templates loaded (also for tests, which drive it without a
    /// server through Hummingbird's test client).
    func responder() async throws -> CallbackResponder<BasicRequestContext> {
        let renderer = try await PageRenderer()
        logger.info("hearth-web: templates from \(renderer.folder)")
        let pages = HouseholdPages(
            store: store, turn: turn, sync: sync, device: device, renderer: renderer,
            timeZone: configuration.household.timeZone, weekStart: configuration.household.weekStart,
            cache: cache, clock: clock)
        return WebRouter(
            pages: pages, live: live,
            gate: HouseholdGate(
                tokenRequired: !configuration.web.isLoopback, token: token,
                hosts: HostAllowlist(settings: configuration.web))
        ).build()
    }

    /// Tells the open pages that `area` changed ("*": every area), after dropping its cached
    /// views, so that their refetch reads anew.
    func changed(_ area: String) async {
        cache.invalidate(area)
        await live.broadcast("event: change\ndata: {\"area\":\"\(area)\"}\n\n")
    }

    public func run() async throws {
        let settings = configuration.web
        let responder = try await responder()
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .notice)  // no line per request
        let (url, logger) = (url, logger)
        let headerTimeout = TimeAmount.nanoseconds(Int64(settings.headerTimeout.seconds * 1e9))
        // Beyond loopback, connections that have not shown the token share a few slots of their
        // own, each for a short time (`ConnectionShare`).
        let share: ConnectionShare? =
            settings.isLoopback
            ? nil
            : ConnectionShare(
                share: ConnectionShare.share(of: settings.maximumConnections),
                lifetime: min(headerTimeout, .seconds(2)), token: token)
        let application = Application(
            responder: responder,
            // A connection that sends no request is closed (`HeaderTimeout`), an idle kept-alive
            // one too, and at most `max_connections` are served at once (more wait to be
            // accepted), plus the share of those without the token.
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [HeaderTimeout(timeout: headerTimeout)]
                        + (share.map { [ConnectionShareHandler(share: $0)] } ?? []),
                    idleTimeout: .nanoseconds(Int64(settings.idleTimeout.seconds * 1e9)))),
            configuration: ApplicationConfiguration(
                address: .hostname(settings.host, port: settings.port), serverName: nil,
                availableConnectionsDelegate: .maximum(
                    settings.maximumConnections + (share?.share ?? 0), logger: serverLogger)),
            onServerRunning: { channel in
                if share != nil {
                    do {
                        try await channel.setOption(
                            ChannelOptions.socket(SocketOptionLevel(IPPROTO_TCP), TCP_DEFER_ACCEPT),
                            value: ConnectionShare.deferAccept
                        ).get()
                    } catch {
                        logger.warning("hearth-web: cannot defer accepting silent connections: \(error)")
                    }
                }
                let address = settings.url(port: channel.localAddress?.port)
                url.set(address)
                logger.info("hearth-web up: \(address)\(settings.isLoopback ? "" : " (token required)")")
            },
            logger: serverLogger)
        let (store, turn, sync, subscriber, live) = (store, turn, sync, subscriber, live)
        try await ServiceGroup.parts(
            [
                ServiceResources("web sockets") {
                    await subscriber.close()
                    await store.close()
                    await turn.close()
                    await sync.close()
                },
                ServiceLoop("bus events", followBus), ServiceLoop("keep-alive", keepAlive), application,
                ServiceResources("live pages") { await live.close() }, commands,
            ], logger: logger
        ).run()
    }

    /// Tells the pages which area each bus event changed; after a gap (events lost on the way),
    /// every area, so that every page fetches its view again.
    private func followBus() async {
        for await message in subscriber {
            switch message {
            case .event(let topic, _):
                if let area = LiveFeed.area(of: topic) { await changed(area) }
            case .gap:
                await changed("*")
            case .rejected: continue
            }
        }
    }

    /// A comment line to every page every 15 s: a connection that died quietly (a phone left the
    /// Wi-Fi) fails to write and is forgotten, and proxies do not close an idle stream.
    private func keepAlive() async throws {
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(15))
            await live.broadcast(": keep-alive\n\n")
        }
    }
}
