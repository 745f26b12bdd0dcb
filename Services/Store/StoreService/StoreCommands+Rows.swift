import GRDB
import HearthBus
import HearthCore

/// Finding rows by what a person types, for every domain's commands: a name in any case, an id
/// or a unique id prefix.
extension StoreCommands {
    /// The id of the row of `table` a command names by its name (any case), its id or a unique id
    /// prefix: a member, a person.
    static func id(named given: String, table: String, what: String, field: String, in db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT id FROM \(table) WHERE lower(name) = lower(?)", arguments: [given])
            ?? uniqueID(given, table: table, what: what, field: field, in: db)
    }

    /// Refuses `name` for a row of `table` (other than `id`) when another row has it, ignoring case.
    static func refuseTakenName(_ name: String, table: String, what: String, except id: String?, in db: Database) throws
    {
        let taken = try String.fetchOne(
            db, sql: "SELECT id FROM \(table) WHERE lower(name) = lower(?) AND id IS NOT ?", arguments: [name, id])
        if taken != nil {
            throw CommandError.invalidArgument(
                "name", "must be unique ignoring case: a \(what) '\(name)' already exists")
        }
    }

    static func uniqueID(_ given: String, table: String, what: String, field: String, in db: Database) throws -> String
    {
        let prefix = given.lowercased()
        guard prefix.count >= 4,
            prefix.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D })
        else {
            throw CommandError(code: "not_found", message: "'\(field)': no \(what) '\(given)'")
        }
        let matches = try String.fetchAll(
            db, sql: "SELECT id FROM \(table) WHERE id >= ? AND id < ? LIMIT 2", arguments: [prefix, prefix + "~"])
        guard matches.count == 1, let id = matches.first else {
            throw CommandError(
                code: matches.isEmpty ? "not_found" : "ambiguous",
                message: matches.isEmpty
                    ? "'\(field)': no \(what) '\(given)'" : "'\(field)': '\(given)' matches more than one \(what)")
        }
        return id
    }
}

extension Arguments {
    func requiredString(_ name: String) throws -> String {
        guard let text = try optionalString(name) else { throw CommandError.invalidArgument(name, "is required") }
        return text
    }

    /// A date `YYYY-MM-DD`, checked.
    func optionalDate(_ name: String) throws -> LocalDate? {
        try optionalString(name).map { try StoreCommands.date($0, field: name) }
    }

    func optionalBool(_ name: String) throws -> Bool? {
        guard let value = values[name], value != .null else { return nil }
        guard case .bool(let flag) = value else {
            throw CommandError.invalidArgument(name, "must be true or false, found \(value.typeName)")
        }
        return flag
    }
}

extension StoreCommands {
    /// A date argument `YYYY-MM-DD` (of a typed command or a named one), refused naming `field`.
    static func date(_ text: String, field: String) throws -> LocalDate {
        do {
            return try LocalDate(parsing: text, field: field)
        } catch {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
    }
}
