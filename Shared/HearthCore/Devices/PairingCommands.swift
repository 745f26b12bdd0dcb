/// hearth-sync's commands (`sync.cmd`), one type each: pairing (what `hearth device …` and the
/// pairing popup's buttons send) and syncing (`hearth sync …`, the page's Devices view). A device
/// is named by its id, an id prefix or its name.
public enum PairingCommands {
    /// The devices heard on this network now.
    public struct Nearby: HearthCommand {
        public typealias Reply = NearbyList
        public static let name = "device.nearby"
        public init() {}
    }

    /// Asks a nearby device to pair; the reply carries the code both devices show.
    public struct Pair: HearthCommand {
        public typealias Reply = PairingView
        public static let name = "device.pair"
        public var device: String
        public init(device: String) { self.device = device }
    }

    /// The pairings in progress, with their codes.
    public struct Pending: HearthCommand {
        public typealias Reply = PairingList
        public static let name = "device.pairing"
        public init() {}
    }

    /// Confirms a pairing: with the `code` this device shows (a wrong one ends it), and what to
    /// call the other device (`name`; the name it announces when absent). The popup's Confirm
    /// sends no code: a person compared them on both screens.
    public struct Confirm: HearthCommand {
        public typealias Reply = PairingConfirmed
        public static let name = "device.confirm"
        public var device: String
        public var code: String?
        public var name: String?
        public init(device: String, code: String? = nil, name: String? = nil) {
            (self.device, self.code, self.name) = (device, code, name)
        }
    }

    /// Refuses a pairing request.
    public struct Reject: HearthCommand {
        public typealias Reply = PairingRejected
        public static let name = "device.reject"
        public var device: String
        public init(device: String) { self.device = device }
    }

    /// The paired devices, forgotten ones too.
    public struct Paired: HearthCommand {
        public typealias Reply = PairedList
        public static let name = "device.paired"
        public init() {}
    }

    /// Unpairs a device: refused from now on; what it sent stays.
    public struct Forget: HearthCommand {
        public typealias Reply = DeviceForgotten
        public static let name = "device.forget"
        public var device: String
        public init(device: String) { self.device = device }
    }
}

/// Syncing, asked of hearth-sync.
public enum SyncCommands {
    /// Syncs now with `device` (every paired device heard when absent) and answers when done;
    /// `progress` is a token the caller reads `progress` with meanwhile.
    public struct Now: HearthCommand {
        public typealias Reply = SyncNowReply
        public static let name = "sync.now"
        public var device: String?
        public var progress: String?
        public init(device: String? = nil, progress: String? = nil) {
            (self.device, self.progress) = (device, progress)
        }
    }

    /// The sync log, newest first: of one `device`, `since` a time (ISO 8601), `limit` lines.
    public struct Log: HearthCommand {
        public typealias Reply = SyncLogReply
        public static let name = "sync.log"
        public var device: String?
        public var since: String?
        public var limit: Int?
        public init(device: String? = nil, since: String? = nil, limit: Int? = nil) {
            (self.device, self.since, self.limit) = (device, since, limit)
        }
    }

    /// What this device's sync sees: its identity, ports, the devices heard, refusals.
    public struct Diag: HearthCommand {
        public typealias Reply = SyncDiag
        public static let name = "sync.diag"
        public init() {}
    }
}
