import Foundation
import GRDB
import HearthBus
import HearthCore
import Synchronization

/// `timetable.import {member?, csv, confirm?}`: a CSV file's rows checked (`TimetableCSV`);
/// without `confirm` a preview that writes nothing, with it the member's timetable replaced by
/// the valid rows in one transaction (the replaced lessons stay in history). The reply has
/// `valid` (count), `rows` (the valid rows), `errors` (`[{line, reason}]`) and `clashes` (with
/// the rest of the household, as the new timetable would have them).
extension StoreCommands {
    /// For the crash tests only: stall an import's transaction this long after half its rows,
    /// having said so on standard error, so a test can kill the store mid-import
    /// (`HEARTH_FAULT_IMPORT_STALL_MS` in `hearth-store`).
    static let importStall = Mutex<Duration?>(nil)

    func importTimetable(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        let given = try arguments.optionalString("member")
        let text = try arguments.requiredString("csv")
        let confirm = try arguments.optionalBool("confirm") ?? false
        let file = TimetableCSV(text)
        let report: @Sendable (Database, Member) throws -> [String: JSONValue] = { db, member in
            let lessons = file.lessons.enumerated().map { index, row in
                TimetableEntry(
                    id: "import-\(index)", member: member.id, week: row.week, day: row.day, period: row.period,
                    subject: row.subject, teacher: row.teacher, room: row.room)
            }
            let others = try Self.entries(in: db).filter { $0.member != member.id }
            let clashes = TimetableClash.find(in: others + lessons, bells: try Self.bells(in: db)).filter {
                $0.first.member == member.id || $0.second.member == member.id
            }
            return [
                "member": .string(member.name), "valid": .int(Int64(lessons.count)),
                "rows": .array(
                    file.lessons.map { row in
                        [
                            "line": .int(Int64(row.line)), "week": .int(Int64(row.week)), "day": .string(row.day.name),
                            "period": .string(row.period.name), "subject": .string(row.subject),
                            "teacher": row.teacher.map(JSONValue.string) ?? .null, "room": .string(row.room),
                        ]
                    }),
                "errors": .array(
                    file.problems.map { ["line": .int(Int64($0.line)), "reason": .string($0.reason)] }),
                "clashes": .array(try clashes.map { try Self.clashJSON($0, in: db) }),
                "delimiter": .string(String(file.delimiter)),
            ]
        }
        guard confirm else {
            return try await database.pool.read { db in
                let member = try Self.access(given, to: "import", in: db)
                var reply = try report(db, member)
                reply["confirmed"] = false
                return .object(reply)
            }
        }
        let stall = Self.importStall.withLock { $0 }
        return try await writes.once(request.id) { db, outbox in
            let member = try Self.access(given, to: "import", in: db)
            let old = try String.fetchAll(
                db, sql: "SELECT id FROM timetable_entry WHERE member = ?", arguments: [member.id])
            for id in old {
                try commit(EntityRef(kind: Hub.entryKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
            }
            for (index, row) in file.lessons.enumerated() {
                if let stall, index == file.lessons.count / 2 {
                    FileHandle.standardError.write(Data("hearth-store: import stalled mid-transaction\n".utf8))
                    // Fault injection: holds GRDB's writer thread (not the cooperative pool).
                    Thread.sleep(forTimeInterval: stall.seconds)
                }
                var values: [String: FieldValue] = [
                    "member": .text(member.id), "week": .int(Int64(row.week)), "day": .int(Int64(row.day.rawValue)),
                    "period": .text(row.period.code), "subject": .text(row.subject), "room": .text(row.room),
                ]
                if let teacher = row.teacher { values["teacher"] = .text(teacher) }
                try commit(EntityRef(kind: Hub.entryKind, id: UUIDText.make()), values, in: db, outbox: outbox)
            }
            var reply = try report(db, member)
            reply["confirmed"] = true
            reply["replaced"] = .int(Int64(old.count))
            return .object(reply)
        }
    }
}

extension Duration {
    fileprivate var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
