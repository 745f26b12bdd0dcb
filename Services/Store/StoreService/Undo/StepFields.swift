import GRDB
import HearthCore

/// What an undo step's name reads of an entity (`StoreDomain.stepName`): the values the step
/// just wrote, else the entity's log, folded only when a name is not among those values (the
/// name is made on the writer, for every step).
final class StepFields {
    let entity: EntityRef
    private let written: [String: FieldValue]
    private let db: Database
    private var folded: OperationLog?

    init(_ entity: EntityRef, written: [String: FieldValue], in db: Database) {
        (self.entity, self.written, self.db) = (entity, written, db)
    }

    /// The first of `fields` that the step wrote as text, quoted: `'Buy milk'`.
    func written(_ fields: [String]) -> String? {
        for field in fields {
            if case .text(let text)? = written[field] { return Self.quoted(text) }
        }
        return nil
    }

    /// The first of `fields` holding text, as the step wrote it, else as the log holds it, quoted.
    func named(_ fields: [String]) throws -> String? {
        if let name = written(fields) { return name }
        for field in fields {
            if let text = try text(field) { return Self.quoted(text) }
        }
        return nil
    }

    /// The text the entity's log holds for `field`.
    func text(_ field: String) throws -> String? {
        if folded == nil { folded = try StoreDatabase.log(of: entity, in: db) }
        guard let state = folded?.field(entity, field), case .text(let text) = state.value else { return nil }
        return text
    }

    /// An entity known by what it belongs to: `word` and `parent`'s title or name (`for 'Sam'`,
    /// `on 'Water'`); `nil` when the parent has neither.
    func owned(by parent: EntityRef, _ word: String) throws -> String? {
        let log = try StoreDatabase.log(of: parent, in: db)
        for field in ["title", "name"] {
            if let state = log.field(parent, field), case .text(let name) = state.value {
                return "\(word) \(Self.quoted(name))"
            }
        }
        return nil
    }

    /// A name as a step shows it: quoted, its first 60 characters.
    private static func quoted(_ text: String) -> String { "'\(text.prefix(60))'" }
}
