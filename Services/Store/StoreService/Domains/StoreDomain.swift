import GRDB
import HearthBus
import HearthCore

/// One household domain in the store: its rules (in `HearthCore`), the tables it keeps, how
/// they are rebuilt from the operation log, and the commands it answers.
///
/// Every domain lives in the one operation log, so sync, history and conflicts need nothing of
/// it; undo and search read what they need of it from here (`kindNames`, `stepName`,
/// `searchSources`, `searchHit`). Adding a domain is a folder here (its conformance, its commands) and one in
/// `HearthCore` (its rules and command types), plus one line in `StoreDomains.all` and one in
/// `HouseholdDomains.all`.
protocol StoreDomain: Sendable {
    /// The domain's rules: its entity kinds and the one validator of their operations.
    associatedtype Rules: DomainRules

    /// The entity kinds it keeps (its rules' kinds).
    static var entityKinds: Set<String> { get }

    /// Checks an operation on one of its kinds by its rules.
    static func validate(_ operation: Operation) throws(RuleError)

    /// Registers the domain's named migrations (after the core's; never edited once landed).
    static func registerMigrations(in migrator: inout DatabaseMigrator)

    /// Rewrites the materialised rows of `entity`, one of its kinds, from its folded log, in the
    /// transaction that applied the operation.
    static func materialize(_ entity: EntityRef, from log: OperationLog, in db: Database) throws

    /// What a `store.<kind>.changed` event says about `entity` after a change, besides the
    /// operation: the card, the suggestion…
    static func describe(_ entity: EntityRef, in db: Database) throws -> [String: JSONValue]

    /// The handler of `command`, if the domain answers it.
    static func handler(for command: String) -> StoreCommands.Handler?

    /// How a person reads `entity` now, for the changes a sync announces ("Mum changed August:
    /// Beach day → Beach weekend"): `""` when it is empty, `nil` when the domain does not
    /// announce its synced changes (the default).
    static func readable(_ entity: EntityRef, in db: Database) throws -> String?

    /// What a person calls each of its entity kinds ("todo", "check-in"), as undo steps and the
    /// Changes view name them: one for every kind (`DomainRegistryTests`).
    static var kindNames: [String: String] { get }

    /// What of its materialised rows the household search indexes, each with the kind its
    /// results are shown as (none by default). A source named in no landed migration gets one of
    /// its own (`SearchIndex.registerMigrations`): declaring it here is all a domain does.
    static var searchSources: [SearchIndex.Source] { get }

    /// A result of one of its sources' `shown` kinds leading to `link`, as the reply shows it;
    /// `nil` when that row has gone since it was indexed.
    static func searchHit(_ shown: String, link: String, in db: Database) throws -> SearchHit?

    /// How an undo step names `entity`, one of its kinds, after what the kind is called: by the
    /// field that names it (`'Buy milk'`), or by what it belongs to (`for 'Sam'`, `on 'Water'
    /// for 2026-12-08`); `nil` to name it by its id (the default).
    static func stepName(of entity: EntityRef, reading fields: StepFields) throws -> String?
}

extension StoreDomain {
    static var entityKinds: Set<String> { Rules.entityKinds }

    static func readable(_ entity: EntityRef, in db: Database) throws -> String? { nil }

    static var searchSources: [SearchIndex.Source] { [] }

    static func searchHit(_ shown: String, link: String, in db: Database) throws -> SearchHit? { nil }

    static func stepName(of entity: EntityRef, reading fields: StepFields) throws -> String? { nil }

    static func validate(_ operation: Operation) throws(RuleError) { try Rules.validate(operation) }
}

/// The domains the store keeps, in the order their migrations run.
enum StoreDomains {
    static let all: [any StoreDomain.Type] = [
        PlannerDomain.self, TodosDomain.self, HubDomain.self, DevicesDomain.self, SocialDomain.self,
    ]

    private static let byKind: [String: any StoreDomain.Type] = {
        var kinds: [String: any StoreDomain.Type] = [:]
        for domain in all {
            for kind in domain.entityKinds {
                precondition(kinds[kind] == nil, "entity kind \(kind) is claimed by two domains")
                kinds[kind] = domain
            }
        }
        return kinds
    }()

    /// What a person calls each entity kind, from every domain's `kindNames`.
    static let kindNames: [String: String] = {
        var names: [String: String] = [:]
        for domain in all { names.merge(domain.kindNames) { first, _ in first } }
        return names
    }()

    /// Every domain's search sources, in the domains' order.
    static let searchSources: [SearchIndex.Source] = all.flatMap { $0.searchSources }

    /// The domain whose sources show each kind of search result.
    private static let searchDomains: [String: any StoreDomain.Type] = {
        var domains: [String: any StoreDomain.Type] = [:]
        for domain in all {
            for source in domain.searchSources { domains[source.shown] = domains[source.shown] ?? domain }
        }
        return domains
    }()

    /// The result a search shows for a hit of the `shown` kind leading to `link`, from the
    /// domain whose source shows that kind; `nil` when none does or the row has gone.
    static func searchHit(_ shown: String, link: String, in db: Database) throws -> SearchHit? {
        try searchDomains[shown]?.searchHit(shown, link: link, in: db)
    }

    /// The domain that keeps `kind`.
    /// - Throws: `RuleError` for a kind no domain keeps (an unknown `bank_account` is refused,
    ///   not stored).
    static func domain(of kind: String) throws(RuleError) -> any StoreDomain.Type {
        guard let domain = byKind[kind] else {
            throw RuleError(
                field: "entity.kind",
                rule: "'\(kind)' is not kept here (known: \(byKind.keys.sorted().joined(separator: ", ")))")
        }
        return domain
    }

    /// A domain's command table: each command runs on a fresh `Commands` (its domain's type) over
    /// what every command shares; `writes` hold their reply for the fault-injection delay
    /// (`StoreCommands.delayed`).
    /// `typedReads` and `typedWrites` are typed commands (`HearthCommand`): each request decoded
    /// as its type before its handler runs, so a missing or mistyped argument is refused naming it.
    static func table<Commands: DomainCommands>(
        _: Commands.Type,
        reads untypedReads: [String: @Sendable (Commands, CommandRequest) async throws -> JSONValue] = [:],
        writes untypedWrites: [String: @Sendable (Commands, CommandRequest) async throws -> JSONValue] = [:],
        typedReads: [TypedEntry<Commands>] = [], typedWrites: [TypedEntry<Commands>] = []
    ) -> [String: StoreCommands.Handler] {
        var reads = untypedReads
        var writes = untypedWrites
        for entry in typedReads { reads[entry.name] = entry.handler }
        for entry in typedWrites { writes[entry.name] = entry.handler }
        var handlers: [String: StoreCommands.Handler] = [:]
        for (name, handler) in reads {
            handlers[name] = { store, request in try await handler(Commands(store: store), request) }
        }
        for (name, handler) in writes {
            handlers[name] = { store, request in
                try await store.delayed(try await handler(Commands(store: store), request))
            }
        }
        return handlers
    }

    /// One typed command's entry in a table: its name, and its handler given the decoded command
    /// and the request (whose id makes a retried write run once).
    struct TypedEntry<Commands: DomainCommands> {
        let name: String
        let handler: @Sendable (Commands, CommandRequest) async throws -> JSONValue
    }

    static func command<Commands: DomainCommands, C: HearthCommand>(
        _: C.Type, _ handler: @escaping @Sendable (Commands, C, CommandRequest) async throws -> JSONValue
    ) -> TypedEntry<Commands> {
        TypedEntry(name: C.name) { commands, request in try await handler(commands, try request.decode(C.self), request)
        }
    }

    /// The handler of `command` in whichever domain answers it.
    static func handler(for command: String) -> StoreCommands.Handler? {
        for domain in all {
            if let handler = domain.handler(for: command) { return handler }
        }
        return nil
    }
}
