/// Every household domain, as every part of Hearth knows them: the one list a new domain joins
/// (its rules in its own folder here, and a line below). The store keeps each domain's tables
/// (`StoreDomains`, which must name the same domains: a test holds them together), the fuzz
/// targets check operations by it, the page redraws the area it names, and the scheduler follows
/// the domains it serves by name.
public enum HouseholdDomains {
    /// One domain: its name, its entity kinds and validator, and the page's area its changes
    /// redraw.
    public struct Domain: Sendable {
        /// `planner`, `todos`, `hub`, `devices`, `social`.
        public let name: String
        public let entityKinds: Set<String>
        /// The household page's view a change of it redraws (`year`, `today`…).
        public let area: String
        private let rules: @Sendable (Operation) throws(RuleError) -> Void

        init<Rules: DomainRules>(_ name: String, _ rules: Rules.Type, area: String) {
            self.name = name
            self.entityKinds = Rules.entityKinds
            self.area = area
            self.rules = { (operation) throws(RuleError) in try Rules.validate(operation) }
        }

        /// Checks an operation on one of its kinds by its rules.
        public func validate(_ operation: Operation) throws(RuleError) { try rules(operation) }
    }

    /// The domains, in the order the store migrates them.
    public static let all: [Domain] = [
        Domain("planner", YearPlanner.self, area: "year"),
        Domain("todos", Todos.self, area: "today"),
        Domain("hub", Hub.self, area: "timetable"),
        Domain("devices", Devices.self, area: "devices"),
        Domain("social", Social.self, area: "people"),
    ]

    private static let byKind: [String: Domain] = {
        var kinds: [String: Domain] = [:]
        for domain in all {
            for kind in domain.entityKinds {
                precondition(kinds[kind] == nil, "entity kind \(kind) is claimed by two domains")
                kinds[kind] = domain
            }
        }
        return kinds
    }()

    /// Every entity kind some domain keeps.
    public static var entityKinds: Set<String> { Set(byKind.keys) }

    /// The domain that keeps `kind`, or `nil` for a kind no domain keeps.
    public static func domain(of kind: String) -> Domain? { byKind[kind] }

    /// Checks an operation by its domain's rules.
    /// - Throws: `RuleError` naming the field and the rule, or the entity kind no domain keeps.
    public static func validate(_ operation: Operation) throws(RuleError) {
        guard let domain = byKind[operation.entity.kind] else {
            throw RuleError(
                field: "entity.kind",
                rule:
                    "'\(operation.entity.kind)' is not kept here (known: \(byKind.keys.sorted().joined(separator: ", ")))"
            )
        }
        try domain.validate(operation)
    }
}
