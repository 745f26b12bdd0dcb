import Foundation
import GRDB
import HearthBus
import HearthCore

/// `timetable.import {member?, csv | layout, confirm?, replace_anyway?}`: a CSV file's rows
/// (`TimetableCSV`) or a PDF's grid, from its words and their positions (`TimetableGrid`),
/// checked; without `confirm` a preview that writes nothing, with it the member's timetable
/// replaced by the valid lessons in one transaction (the replaced lessons stay in history). A file that is probably not the timetable meant — one that would replace lessons
/// with none, or whose bad rows outnumber its good ones (an empty file, a misnamed header, an
/// `.ics` given by mistake) — is refused on `confirm` with the counts, unless `replace_anyway`;
/// the preview says so first (`refusal`). The reply has
/// `valid` and `invalid` (counts), `rows` (the valid rows), `errors` (`[{line, reason}]`, or
/// `[{page, x, y, reason}]` from a PDF), `notes` (what the PDF reader assumed) and
/// `clashes` (with the rest of the household, as the new timetable would have them); lists too
/// long for one message are cut, and `omitted` says how many of each were left out.
extension HubCommands {
    func importTimetable(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = try request.arguments(as: TimetableImportArguments.self)
        let (given, confirm) = (arguments.member, arguments.confirm ?? false)
        let replaceAnyway = arguments.replaceAnyway ?? false
        switch (arguments.csv, arguments.layout) {
        case (nil, nil): throw CommandError.invalidArgument("csv", "is required (or layout, a PDF's words)")
        case (_?, _?): throw CommandError.invalidArgument("layout", "must not be given with csv: one file at a time")
        case (nil, let layout?) where !layout.hasText:
            throw CommandError.invalidArgument("layout", TextLayout.noTextRefusal)
        default: break
        }
        // Reading a file is CPU work that grows with it: on a thread of its own, not the pool's.
        let file = await offPool {
            arguments.layout.map { TimetableGrid($0).reading } ?? TimetableCSV(arguments.csv ?? "").reading
        }
        let budget = maximumReplyBytes
        let report: @Sendable (Database, Member) throws -> TimetableImportReport = { db, member in
            let lessons = file.lessons.enumerated().map { index, row in
                TimetableEntry(
                    id: "import-\(index)", member: member.id, week: row.week, day: row.day, period: row.period,
                    subject: row.subject, teacher: row.teacher, room: row.room)
            }
            let others = try Self.entries(in: db).filter { $0.member != member.id }
            let clashes = TimetableClash.find(in: others + lessons, bells: try Self.bells(in: db)).filter {
                $0.first.member == member.id || $0.second.member == member.id
            }
            // The reply stays under the bus's largest message: every count is exact, and the
            // lists are cut (errors first, then rows, then clashes) with what was left out said.
            var room = budget - 4_096
            func take<T, View>(_ items: [T], bytes: (T) -> Int, json: (T) throws -> View) rethrows -> [View] {
                var out: [View] = []
                for item in items {
                    let size = bytes(item)
                    guard size <= room else { break }
                    room -= size
                    out.append(try json(item))
                }
                return out
            }
            let errors = take(file.problems, bytes: { 40 + $0.reason.utf8.count }) {
                TimetableImportReport.Problem(place: $0.place.wire, reason: $0.reason)
            }
            let rows = take(file.lessons, bytes: { 130 + $0.subject.utf8.count + $0.room.utf8.count }) { row in
                TimetableImportReport.Row(
                    place: row.place.wire, week: row.week, day: row.day.name, period: row.period.name,
                    subject: row.subject,
                    teacher: row.teacher, room: row.room)
            }
            let shownClashes = try take(clashes, bytes: { _ in 700 }) { try Self.clashView($0, in: db) }
            return TimetableImportReport(
                member: member.name, valid: lessons.count, invalid: file.problems.count, clashesTotal: clashes.count,
                rows: rows, errors: errors, clashes: shownClashes,
                omitted: .init(
                    rows: file.lessons.count - rows.count, errors: file.problems.count - errors.count,
                    clashes: clashes.count - shownClashes.count),
                format: file.format, delimiter: file.delimiter.map(String.init), notes: file.notes)
        }
        guard confirm else {
            return try await database.pool.read { db in
                let member = try Self.access(given, to: "import", in: db)
                var reply = try report(db, member)
                let held =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM timetable_entry WHERE member = ?", arguments: [member.id]) ?? 0
                if let refusal = Self.wouldLoseLessons(file, replacing: held, of: member.name) {
                    reply.refusal = refusal
                }
                return try JSONValue(reply: reply)
            }
        }
        let stall = faults.importStall
        let (progress, token) = (progress, ProgressBoard.token(request.arguments))
        defer { progress.finish(token) }
        return try await writes.once(request.id) { db, outbox in
            let member = try Self.access(given, to: "import", in: db)
            let old = try String.fetchAll(
                db, sql: "SELECT id FROM timetable_entry WHERE member = ?", arguments: [member.id])
            if !replaceAnyway, let refusal = Self.wouldLoseLessons(file, replacing: old.count, of: member.name) {
                throw CommandError(code: "would_lose_lessons", message: refusal)
            }
            for id in old {
                try commit(EntityRef(kind: Hub.entryKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
            }
            for (index, row) in file.lessons.enumerated() {
                if index % 10 == 0 {
                    progress.report(token, done: index, total: file.lessons.count, unit: "lessons")
                }
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
            reply.confirmed = true
            reply.replaced = old.count
            return try JSONValue(reply: reply)
        }
    }
}

extension HubCommands {
    /// Why replacing `held` lessons with `file`'s would probably lose a timetable by mistake: it
    /// has no valid row where there are lessons, or more bad rows than good. `nil` when it looks
    /// like a timetable.
    static func wouldLoseLessons(_ file: TimetableReading, replacing held: Int, of name: String) -> String? {
        let (valid, invalid) = (file.lessons.count, file.problems.count)
        let unit = file.format == "pdf" ? "cell" : "row"
        let counts =
            "\(valid) valid lesson\(valid == 1 ? "" : "s") and \(invalid) bad \(unit)\(invalid == 1 ? "" : "s")"
        if valid == 0 && held > 0 {
            return
                "refused: the file has \(counts), and would replace \(name)'s \(held) lessons with none; nothing was written (\(file.hint) --replace-anyway replaces them)"
        }
        if invalid > valid {
            return
                "refused: the file has \(counts): more bad \(unit)s than good (\(file.format == "pdf" ? "a grid laid out another way" : "a misnamed column"), or another kind of file?); nothing was written (--replace-anyway imports the valid ones)"
        }
        return nil
    }
}

extension Duration {
    fileprivate var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
