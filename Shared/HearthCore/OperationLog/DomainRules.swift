/// The rules of one household domain (the year planner, todos, the timetable, the social
/// planner) for the operations on its entity kinds.
///
/// This is the one validator: the store runs it on every operation it applies, made here by a
/// command or arriving from another device, so nothing another device sends can be stored that
/// this one would refuse to write.
public protocol DomainRules: SendableMetatype {
    /// The entity kinds the domain keeps in the operation log, such as `event_card`.
    static var entityKinds: Set<String> { get }

    /// Checks one operation on one of `entityKinds`: the entity id's form, and every field's
    /// name, type and rule.
    /// - Throws: `RuleError` naming the field and the rule.
    static func validate(_ operation: Operation) throws(RuleError)
}

/// An input that breaks a domain rule: the field and the rule, in words for the person who
/// typed it (or the sync log that names the peer).
public struct RuleError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let rule: String

    public init(field: String, rule: String) {
        self.field = field
        self.rule = rule
    }

    public var description: String { "'\(field)' \(rule)" }
}

/// What one field of an operation may hold.
public struct FieldRule: Sendable {
    private let check: @Sendable (String, FieldValue) throws(RuleError) -> Void

    init(_ check: @escaping @Sendable (String, FieldValue) throws(RuleError) -> Void) {
        self.check = check
    }

    /// Text by `TextRules`, at most `maximumLength` characters; `null` clears it when `nullable`.
    /// - Parameter blank: whether an all-space text is allowed.
    public static func text(
        maximumLength: Int, nullable: Bool = true, blank: Bool = true, multiline: Bool = false
    ) -> FieldRule {
        FieldRule { (name, value) throws(RuleError) in
            switch value {
            case .null where nullable: return
            case .text(let text):
                try TextRules.check(text, field: name, maximumLength: maximumLength, multiline: multiline)
                if !blank && text.allSatisfy(\.isWhitespace) {
                    throw RuleError(field: name, rule: "must not be blank")
                }
            default: throw RuleError(field: name, rule: "must be text\(nullable ? " or null" : ""), got \(value.kind)")
            }
        }
    }

    /// A whole number in `range`.
    public static func integer(_ range: ClosedRange<Int64>, nullable: Bool = true) -> FieldRule {
        FieldRule { (name, value) throws(RuleError) in
            switch value {
            case .null where nullable: return
            case .int(let number):
                guard range.contains(number) else {
                    throw RuleError(field: name, rule: "must be \(range.lowerBound)–\(range.upperBound), got \(number)")
                }
            default:
                throw RuleError(
                    field: name, rule: "must be a whole number\(nullable ? " or null" : ""), got \(value.kind)")
            }
        }
    }

    /// One of `choices`, as text.
    public static func oneOf(_ choices: [String]) -> FieldRule {
        FieldRule { (name, value) throws(RuleError) in
            guard case .text(let text) = value, choices.contains(text) else {
                throw RuleError(field: name, rule: "must be one of \(choices.joined(separator: ", ")), got \(value)")
            }
        }
    }

    /// `true` or `false`.
    public static let boolean = FieldRule { (name, value) throws(RuleError) in
        guard case .bool = value else { throw RuleError(field: name, rule: "must be true or false, got \(value.kind)") }
    }

    func check(_ name: String, _ value: FieldValue) throws(RuleError) { try check(name, value) }
}

extension Operation {
    /// Checks that every field the operation sets is one `schema` names, with a value its rule
    /// allows.
    /// - Throws: `RuleError` for an unknown field or a value its rule refuses.
    public func check(fields schema: [String: FieldRule]) throws(RuleError) {
        for (name, write) in fields.sorted(by: { $0.key < $1.key }) {
            guard let rule = schema[name] else {
                throw RuleError(
                    field: name,
                    rule: "is not a field of \(entity.kind) (known: \(schema.keys.sorted().joined(separator: ", ")))")
            }
            try rule.check(name, write.value)
        }
    }

    /// The value this operation sets for `name`, if any.
    public func value(_ name: String) -> FieldValue? { fields[name]?.value }
}
