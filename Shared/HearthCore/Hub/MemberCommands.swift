/// The family hub's member commands to the store (`store.cmd`), one type each: what the CLI, the
/// page and the calendar feeds send, and what the store decodes. A member is named by name (any
/// case), id or unique id prefix.
public enum MemberCommands {
    /// Adds a member: a `student` or a `parent`.
    public struct Add: HearthCommand {
        public typealias Reply = MemberChange
        public static let name = "member.add"
        public var name: String
        public var role: String
        public init(name: String, role: String) { (self.name, self.role) = (name, role) }
    }

    /// The members, and this device's profile.
    public struct List: HearthCommand {
        public typealias Reply = MemberList
        public static let name = "member.list"
        public init() {}
    }

    /// Renames a member.
    public struct Rename: HearthCommand {
        public typealias Reply = MemberChange
        public static let name = "member.rename"
        public var member: String
        public var name: String
        public init(member: String, name: String) { (self.member, self.name) = (member, name) }
    }

    /// Removes a member and their timetable (history keeps both).
    public struct Remove: HearthCommand {
        public typealias Reply = MemberRemoved
        public static let name = "member.remove"
        public var member: String
        public init(member: String) { self.member = member }
    }

    /// Chooses this device's profile, or none (`member` absent).
    public struct Use: HearthCommand {
        public typealias Reply = ProfileChoice
        public static let name = "member.use"
        public var member: String?
        public init(member: String?) { self.member = member }
    }

    /// A member's next-class notifications: `lead` minutes before each class, or `off`. Without
    /// `member`, this device's profile's.
    public struct Notify: HearthCommand {
        public typealias Reply = MemberChange
        public static let name = "member.notify"
        public var member: String?
        public var off: Bool?
        public var lead: Int?
        public init(member: String? = nil, off: Bool? = nil, lead: Int? = nil) {
            (self.member, self.off, self.lead) = (member, off, lead)
        }
    }
}
