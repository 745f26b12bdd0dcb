import Foundation
import GRDB
import HearthBus
import HearthCore

/// The family hub's members and this device's profile: who is asking decides what they may see.
/// A student's profile sees and edits only their own timetable; a parent's, everyone's. A device
/// with no profile chosen acts as a parent's (the household's first run).
extension HubCommands {
    func addMember(_ command: MemberCommands.Add, _ request: CommandRequest) async throws -> JSONValue {
        let (nameText, roleText) = (command.name, command.role)
        let name = try check { () throws(RuleError) in try Hub.name(nameText) }
        let role = try check { () throws(RuleError) in try Todos.choice(roleText, field: "role", as: Hub.Role.self) }
        let entity = EntityRef(kind: Hub.memberKind, id: UUIDText.make())
        return try await writes.once(request.id) { db, outbox in
            try Self.requireParent(to: "add a member", in: db)
            try StoreCommands.refuseTakenName(name, table: "member", what: "member", except: nil, in: db)
            return try commit(
                entity, ["name": .text(name), "role": .text(role.rawValue), "notify": .bool(true)], in: db,
                outbox: outbox)
        }
    }

    func renameMember(_ command: MemberCommands.Rename, _ request: CommandRequest) async throws -> JSONValue {
        let (given, nameText) = (command.member, command.name)
        let name = try check { () throws(RuleError) in try Hub.name(nameText) }
        return try await writes.once(request.id) { db, outbox in
            let member = try Self.access(given, to: "rename", in: db)
            try StoreCommands.refuseTakenName(name, table: "member", what: "member", except: member.id, in: db)
            return try commit(
                EntityRef(kind: Hub.memberKind, id: member.id), ["name": .text(name)], in: db, outbox: outbox)
        }
    }

    /// Removes a member and their timetable, in one transaction (history keeps both).
    func removeMember(_ command: MemberCommands.Remove, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.member
        return try await writes.once(request.id) { db, outbox in
            try Self.requireParent(to: "remove a member", in: db)
            let member = try Self.member(named: given, in: db)
            let entries = try String.fetchAll(
                db, sql: "SELECT id FROM timetable_entry WHERE member = ?", arguments: [member.id])
            for entry in entries {
                try commit(EntityRef(kind: Hub.entryKind, id: entry), ["deleted": .bool(true)], in: db, outbox: outbox)
            }
            try db.execute(sql: "DELETE FROM hub_profile WHERE member = ?", arguments: [member.id])
            var reply =
                try commit(
                    EntityRef(kind: Hub.memberKind, id: member.id), ["deleted": .bool(true)], in: db, outbox: outbox
                )
                .objectValue ?? [:]
            reply["removed_entries"] = .int(Int64(entries.count))
            return .object(reply)
        }
    }

    /// Chooses this device's profile (`member`), or clears it (`null`). Kept on this device only.
    func useMember(_ command: MemberCommands.Use, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.member
        return try await writes.once(request.id) { db, _ in
            guard let given else {
                try db.execute(sql: "DELETE FROM hub_profile")
                return try JSONValue(reply: ProfileChoice(profile: nil))
            }
            let member = try Self.member(named: given, in: db)
            try db.execute(sql: "INSERT OR REPLACE INTO hub_profile (id, member) VALUES (1, ?)", arguments: [member.id])
            return try JSONValue(reply: ProfileChoice(profile: try Self.member(member.id, in: db)))
        }
    }

    /// Sets a member's next-class notifications: `lead` minutes before each class, or `off`.
    func memberNotify(_ command: MemberCommands.Notify, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.member
        let off = command.off ?? false
        let lead = command.lead
        var values: [String: FieldValue] = ["notify": .bool(!off)]
        if let lead {
            guard !off else { throw CommandError.invalidArgument("lead", "cannot be given with 'off'") }
            guard Hub.leadRange.contains(Int64(lead)) else {
                throw CommandError.invalidArgument(
                    "lead", "must be \(Hub.leadRange.lowerBound)–\(Hub.leadRange.upperBound) minutes, got \(lead)")
            }
            values["lead"] = .int(Int64(lead))
        }
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            let member = try Self.access(given, to: "change the notifications of", in: db)
            return try commit(EntityRef(kind: Hub.memberKind, id: member.id), changes, in: db, outbox: outbox)
        }
    }

    func listMembers() async throws -> JSONValue {
        try await database.pool.read { db in
            let ids = try String.fetchAll(db, sql: "SELECT id FROM member ORDER BY lower(name), id")
            let profile = try Self.profile(in: db)
            return try JSONValue(
                reply: MemberList(members: try ids.compactMap { try Self.member($0, in: db) }, profile: profile?.name))
        }
    }

    // MARK: - Who may do what

    /// A member as commands name them: by name (any case), id or unique id prefix.
    struct Member {
        let id: String
        let name: String
        let role: Hub.Role
    }

    static func member(named given: String, in db: Database, field: String = "member") throws -> Member {
        let id = try StoreCommands.id(named: given, table: "member", what: "member", field: field, in: db)
        guard let row = try Row.fetchOne(db, sql: "SELECT name, role FROM member WHERE id = ?", arguments: [id]) else {
            throw CommandError(code: "not_found", message: "'\(field)': no member '\(given)'")
        }
        return Member(id: id, name: row["name"], role: Hub.Role(rawValue: row["role"]) ?? .student)
    }

    /// This device's profile, if one is chosen (and its member still exists).
    static func profile(in db: Database) throws -> Member? {
        guard let id = try String.fetchOne(try db.cachedStatement(sql: "SELECT member FROM hub_profile WHERE id = 1")),
            let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT name, role FROM member WHERE id = ?"), arguments: [id])
        else { return nil }
        return Member(id: id, name: row["name"], role: Hub.Role(rawValue: row["role"]) ?? .student)
    }

    /// The member a command is about: `given`, else this device's profile; refused when a
    /// student's profile asks about anyone else.
    /// - Parameter action: what is being done, for the refusal ("see the timetable of").
    static func access(_ given: String?, to action: String, in db: Database) throws -> Member {
        let profile = try profile(in: db)
        guard let given else {
            guard let profile else {
                throw CommandError.invalidArgument(
                    "member", "is required: this device has no profile (choose one with `hearth member use NAME`)")
            }
            return profile
        }
        let member = try member(named: given, in: db)
        if let profile, profile.role == .student, profile.id != member.id {
            throw CommandError(
                code: "not_allowed",
                message:
                    "this device's profile is \(profile.name)'s, a student's: it may \(action) \(profile.name)'s own timetable and profile only, not \(member.name)'s (a parent's profile may)"
            )
        }
        return member
    }

    /// Refuses a command only a parent may give, on a device whose profile is a student's.
    static func requireParent(to action: String, in db: Database) throws {
        if let profile = try profile(in: db), profile.role == .student {
            throw CommandError(
                code: "not_allowed",
                message:
                    "this device's profile is \(profile.name)'s, a student's: only a parent's profile may \(action)")
        }
    }

    static func member(_ id: String, in db: Database) throws -> MemberView? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT m.*, (SELECT COUNT(*) FROM timetable_entry WHERE member = m.id) AS entries
                    FROM member AS m WHERE m.id = ?
                    """, arguments: [id])
        else { return nil }
        return MemberView(
            id: id, name: row["name"], role: row["role"], notify: row["notify"], lead: row["lead"],
            entries: row["entries"], conflicted: row["conflicted"])
    }
}
