extension DecodingError {
    /// One line naming the field at fault and the rule it breaks, such as
    /// `players.0.present: must be true or false, found a string`, for replies a person reads.
    public var summary: String {
        let (field, rule) = fieldAndRule
        return field.isEmpty ? rule : "\(field): \(rule)"
    }

    /// The field at fault as a dotted path (`players.0.present`; empty for the value itself) and
    /// the rule it breaks, apart (a refused argument names them so).
    public var fieldAndRule: (field: String, rule: String) {
        let (path, rule): ([any CodingKey], String) =
            switch self {
            case .keyNotFound(let key, let context): (context.codingPath + [key], "is required")
            case .typeMismatch(_, let context): (context.codingPath, context.debugDescription)
            case .valueNotFound(_, let context): (context.codingPath, context.debugDescription)
            case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
            @unknown default: ([], "\(self)")
            }
        return (path.map(\.stringValue).joined(separator: "."), rule)
    }
}
