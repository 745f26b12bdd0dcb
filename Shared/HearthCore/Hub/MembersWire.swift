/// The family hub's members and this device's profile on `store.cmd`. Encoded by `hearth-store`
/// (absent fields as `null`, as replies are), decoded by the command line and the page.

/// A member as the hub's replies show one.
public struct MemberView: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    /// `parent` or `student`.
    public let role: String
    /// Whether next-class notifications are on, and their lead in minutes.
    public let notify: Bool
    public let lead: Int
    /// How many lessons the member's timetable holds.
    public let entries: Int
    /// Whether two devices set a field of the member differently at once.
    public let conflicted: Bool

    public init(
        id: String, name: String, role: String, notify: Bool, lead: Int, entries: Int, conflicted: Bool
    ) {
        (self.id, self.name, self.role, self.notify, self.lead) = (id, name, role, notify, lead)
        (self.entries, self.conflicted) = (entries, conflicted)
    }
}

/// `member.list`: every member by name, and this device's profile's name.
public struct MemberList: Codable, Sendable, Equatable {
    public let members: [MemberView]
    public let profile: String?

    public init(members: [MemberView], profile: String?) { (self.members, self.profile) = (members, profile) }
}

/// The reply to `member.add`, `member.rename` and `member.notify`: the member as it now is,
/// with the operation written (`unchanged` when the values were already so).
public struct MemberChange: Codable, Sendable, Equatable {
    public let member: MemberView
    @OmittedWhenNil public var op: String?
    @OmittedWhenNil public var seq: Int64?
    @OmittedWhenNil public var unchanged: Bool?

    public init(member: MemberView, op: String? = nil, seq: Int64? = nil, unchanged: Bool? = nil) {
        (self.member, self.op, self.seq, self.unchanged) = (member, op, seq, unchanged)
    }
}

/// `member.remove`: the member removed, and how many lessons went with them.
public struct MemberRemoved: Codable, Sendable, Equatable {
    public struct Ref: Codable, Sendable, Equatable {
        public let id: String
    }

    public let member: Ref
    public let op: String
    public let seq: Int64
    public let removedEntries: Int

    enum CodingKeys: String, CodingKey {
        case member, op, seq
        case removedEntries = "removed_entries"
    }
}

/// `member.use`: the profile chosen (`nil`: cleared).
public struct ProfileChoice: Codable, Sendable, Equatable {
    public let profile: MemberView?

    public init(profile: MemberView?) { self.profile = profile }
}
