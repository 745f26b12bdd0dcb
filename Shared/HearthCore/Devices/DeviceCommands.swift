/// The store's commands on the household's devices (`store.cmd`), one type each: their names,
/// when this device last synced with each, and the signing keys it trusts. (Pairing, nearby
/// devices and forgetting one are hearth-sync's.) A device is named by its id (a lower-case
/// UUID) where hearth-sync sends it, and by a name or id prefix where a person does.
public enum DeviceCommands {
    /// Every device this household's operations name.
    public struct List: HearthCommand {
        public typealias Reply = DeviceList
        public static let name = "device.list"
        public init() {}
    }

    /// Names a device for the whole household (an operation, so the name syncs).
    public struct Rename: HearthCommand {
        public typealias Reply = DeviceRenamed
        public static let name = "device.rename"
        /// Its id, id prefix or current name.
        public var id: String
        public var name: String
        public init(id: String, name: String) { (self.id, self.name) = (id, name) }
    }

    /// Notes when this device last synced with device `id` (hearth-sync, after each sync).
    public struct Synced: HearthCommand {
        public typealias Reply = DeviceSynced
        public static let name = "device.synced"
        public var id: String
        /// A time such as `2026-11-23T09:00:00Z`.
        public var at: String
        public init(id: String, at: String) { (self.id, self.at) = (id, at) }
    }

    /// Pins `key` (base64, 32 bytes) as `device`'s signing key, learnt `via` pairing (the
    /// default), sync (vouched for by a trusted device) or a file.
    public struct Trust: HearthCommand {
        public typealias Reply = DeviceTrusted
        public static let name = "device.trust"
        public var device: String
        public var key: String
        public var via: String?
        public init(device: String, key: String, via: String? = nil) {
            (self.device, self.key, self.via) = (device, key, via)
        }
    }

    /// Forgets `device`'s signing key: its operations are refused until a key comes again.
    public struct Distrust: HearthCommand {
        public typealias Reply = DeviceDistrusted
        public static let name = "device.distrust"
        public var device: String
        public init(device: String) { self.device = device }
    }

    /// Revokes `device`'s key after the last of its operations held here (a device forgotten).
    public struct Revoke: HearthCommand {
        public typealias Reply = DeviceRevoked
        public static let name = "device.revoke"
        public var device: String
        public init(device: String) { self.device = device }
    }
}

/// `device.synced`: the device, the time noted, and whether it changed anything.
public struct DeviceSynced: Codable, Sendable, Equatable {
    public let id: String
    public let lastSyncAt: String
    public let changed: Bool

    public init(id: String, lastSyncAt: String, changed: Bool) {
        (self.id, self.lastSyncAt, self.changed) = (id, lastSyncAt, changed)
    }

    enum CodingKeys: String, CodingKey {
        case id, changed
        case lastSyncAt = "last_sync_at"
    }
}

/// `device.trust`: the device, its key's fingerprint and how the pin went: `new`, `known` (the
/// key was trusted already), `restored` (a revoked key pinned again) or `replaced` (over a key
/// another device vouched for, whose fingerprint `replacedFingerprint` gives).
public struct DeviceTrusted: Codable, Sendable, Equatable {
    public let device: String
    public let fingerprint: String
    public let pinned: String
    /// How the key came (absent for `known`).
    @OmittedWhenNil public var via: String?
    @OmittedWhenNil public var replacedFingerprint: String?

    public init(
        device: String, fingerprint: String, pinned: String, via: String? = nil, replacedFingerprint: String? = nil
    ) {
        (self.device, self.fingerprint, self.pinned) = (device, fingerprint, pinned)
        (self.via, self.replacedFingerprint) = (via, replacedFingerprint)
    }

    enum CodingKeys: String, CodingKey {
        case device, fingerprint, pinned, via
        case replacedFingerprint = "replaced_fingerprint"
    }
}
