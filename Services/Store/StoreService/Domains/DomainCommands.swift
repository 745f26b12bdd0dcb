import Foundation
import GRDB
import HearthBus
import HearthCore

/// One domain's commands, as a type of its own (`TodosCommands`, `HubCommands`…), over what
/// every command shares (`StoreCommands`: the database, the group commit, the household's time
/// zone, the limits). The store routes each command to its domain by the domain's table
/// (`StoreDomain.handler`); a domain's helpers stay in its own namespace.
protocol DomainCommands: Sendable {
    /// What every command shares.
    var store: StoreCommands { get }

    init(store: StoreCommands)
}

extension DomainCommands {
    var database: StoreDatabase { store.database }
    var writes: GroupCommit { store.writes }
    var timeZone: TimeZone { store.timeZone }
    var progress: ProgressBoard { store.progress }
    var maximumReplyBytes: Int { store.maximumReplyBytes }
    var faults: StoreFaults { store.faults }

    /// `StoreCommands.commit`: appends a local operation in `db`'s transaction.
    @discardableResult
    func commit(
        _ entity: EntityRef, _ values: [String: FieldValue], in db: Database, outbox: ChangeOutbox
    ) throws -> JSONValue {
        try store.commit(entity, values, in: db, outbox: outbox)
    }

    /// `StoreCommands.check`: a domain rule check as the command's refusal.
    @discardableResult
    func check<T>(_ body: () throws(RuleError) -> T) throws -> T { try store.check(body) }
}

/// The planner's commands (`Planner/`).
struct PlannerCommands: DomainCommands {
    let store: StoreCommands
}

/// The todos' commands (`Todos/`).
struct TodosCommands: DomainCommands {
    let store: StoreCommands
}

/// The family hub's commands (`Hub/`).
struct HubCommands: DomainCommands {
    let store: StoreCommands
}

/// The social planner's commands (`Social/`).
struct SocialCommands: DomainCommands {
    let store: StoreCommands
}
