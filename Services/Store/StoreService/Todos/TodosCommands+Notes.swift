import GRDB
import HearthBus
import HearthCore

/// Daily notes: one per date, a mood and free text. Two devices writing one day's note at once
/// keep both texts as a conflict (the operation log's rule), never one lost.
extension TodosCommands {
    func setNote(_ command: NoteCommands.Set, _ request: CommandRequest) async throws -> JSONValue {
        let date = try StoreCommands.date(command.date, field: "date")
        var values: [String: FieldValue] = [:]
        let (mood, text) = (command.mood, command.text)
        try check { () throws(RuleError) in
            if let mood { values["mood"] = .text(try Todos.choice(mood, field: "mood", as: Todos.Mood.self).rawValue) }
            if let text {
                try TextRules.check(text, field: "text", maximumLength: Todos.maximumDescriptionLength, multiline: true)
                values["text"] = text.isEmpty ? .null : .text(text)
            }
        }
        guard !values.isEmpty else {
            throw CommandError.invalidArgument("mood", "or 'text' must be given: there is nothing to write")
        }
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            try commit(EntityRef(kind: Todos.noteKind, id: date.description), changes, in: db, outbox: outbox)
        }
    }

    func showNote(_ command: NoteCommands.Show) async throws -> JSONValue {
        let date = try StoreCommands.date(command.date, field: "date")
        return try await database.pool.read { db in
            guard var note = try Self.note(date.description, in: db) else {
                var empty = NoteView(date: date.description, mood: nil, text: nil)
                empty.empty = true
                return try JSONValue(reply: empty)
            }
            // In a conflict, every competing value (the shown one first).
            let entity = EntityRef(kind: Todos.noteKind, id: date.description)
            var conflicts: [String: [FieldJSON]] = [:]
            for (name, state) in try StoreDatabase.log(of: entity, in: db).entity(entity) where state.isConflict {
                conflicts[name] = state.heads.map { $0.value.fieldJSON }
            }
            note.conflicts = conflicts
            return try JSONValue(reply: note)
        }
    }

    /// Notes newest first, from `since` on and of one `mood` if given, with how many of each mood.
    func listNotes(_ command: NoteCommands.List) async throws -> JSONValue {
        let since = try command.since.map { try StoreCommands.date($0, field: "since").description }
        let mood = command.mood
        if let mood {
            try check { () throws(RuleError) in _ = try Todos.choice(mood, field: "mood", as: Todos.Mood.self) }
        }
        return try await database.pool.read { db in
            let dates = try String.fetchAll(
                db,
                sql: """
                    SELECT date FROM daily_note WHERE (? IS NULL OR date >= ?) AND (? IS NULL OR mood = ?)
                      AND (mood IS NOT NULL OR text IS NOT NULL)
                    ORDER BY date DESC
                    """, arguments: [since, since, mood?.lowercased(), mood?.lowercased()])
            let notes = try dates.compactMap { try Self.note($0, in: db) }
            var moods: [String: Int] = [:]
            for note in notes { if let mood = note.mood { moods[mood, default: 0] += 1 } }
            return try JSONValue(reply: NoteList(notes: notes, moods: moods))
        }
    }

    static func note(_ date: String, in db: Database) throws -> NoteView? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM daily_note WHERE date = ?", arguments: [date]) else {
            return nil
        }
        var note = NoteView(date: date, mood: row["mood"], text: row["text"])
        note.modifiedAt = row["modified_at"]
        note.modifiedBy = row["modified_by"]
        note.modifiedByName = try StoreCommands.deviceName(row["modified_by"], in: db).stringValue
        note.conflicted = row["conflicted"]
        return note
    }
}
