/// The household's devices as replies show them: the store's `device.list` and `device.rename`,
/// and `hearth-sync`'s devices heard nearby and paired. Encoded by the service that owns them,
/// decoded by the command line and the page.

/// A device named in an event or a reply: its id and its name here.
public struct PeerRef: Codable, Sendable, Equatable {
    public let device: String
    public let name: String

    public init(device: String, name: String) { (self.device, self.name) = (device, name) }
}

/// `device.list` (the store's): every device this household's operations name.
public struct DeviceList: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public let id: String
        public let name: String
        /// This device.
        public let local: Bool
        public let lastSyncAt: String?
        public let firstSeenAt: String
        /// The fingerprint of the key its operations are verified with, and the device that
        /// vouched for that key (itself for this one).
        public let signingKey: String?
        public let vouchedBy: String?
        /// A key another device vouched for, which this device's own pin replaced: for a person
        /// to settle (absent when there is none).
        @OmittedWhenNil public var keyConflict: KeyConflict?
        /// Its key revoked (`device forget`): operations it numbered after this counter are
        /// refused (absent when the key is in force).
        @OmittedWhenNil public var revokedAfter: Int64?

        public init(
            id: String, name: String, local: Bool, lastSyncAt: String?, firstSeenAt: String, signingKey: String?,
            vouchedBy: String?, keyConflict: KeyConflict? = nil, revokedAfter: Int64? = nil
        ) {
            (self.id, self.name, self.local, self.lastSyncAt) = (id, name, local, lastSyncAt)
            (self.firstSeenAt, self.signingKey, self.vouchedBy) = (firstSeenAt, signingKey, vouchedBy)
            (self.keyConflict, self.revokedAfter) = (keyConflict, revokedAfter)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, local
            case lastSyncAt = "last_sync_at"
            case firstSeenAt = "first_seen_at"
            case signingKey = "signing_key"
            case vouchedBy = "vouched_by"
            case keyConflict = "key_conflict"
            case revokedAfter = "revoked_after"
        }
    }

    /// Two keys for one device: one another device vouched for, and the one pinned here.
    public struct KeyConflict: Codable, Sendable, Equatable {
        public let vouchedFingerprint: String
        public let vouchedBy: String
        public let pinnedFingerprint: String
        public let at: String

        public init(vouchedFingerprint: String, vouchedBy: String, pinnedFingerprint: String, at: String) {
            (self.vouchedFingerprint, self.vouchedBy, self.pinnedFingerprint, self.at) = (
                vouchedFingerprint, vouchedBy, pinnedFingerprint, at
            )
        }

        enum CodingKeys: String, CodingKey {
            case vouchedFingerprint = "vouched_fingerprint"
            case vouchedBy = "vouched_by"
            case pinnedFingerprint = "pinned_fingerprint"
            case at
        }
    }

    public let devices: [Device]

    public init(devices: [Device]) { self.devices = devices }
}

/// `device.rename` (the store's).
public struct DeviceRenamed: Codable, Sendable, Equatable {
    public let id: String
    public let name: String

    public init(id: String, name: String) { (self.id, self.name) = (id, name) }
}

/// `device.distrust` (the store's): the device, whether it had a key here, and that key's
/// fingerprint.
public struct DeviceDistrusted: Codable, Sendable, Equatable {
    public let device: String
    public let removed: Bool
    public let fingerprint: String?

    public init(device: String, removed: Bool, fingerprint: String?) {
        (self.device, self.removed, self.fingerprint) = (device, removed, fingerprint)
    }
}

/// `device.revoke` (the store's, asked by `hearth-sync` when a device is forgotten): whether its
/// key was revoked (false when no key of it is known), after which of its operations, and the
/// key's fingerprint.
public struct DeviceRevoked: Codable, Sendable, Equatable {
    public let device: String
    public let revoked: Bool
    public let revokedAfter: Int64?
    public let fingerprint: String?

    public init(device: String, revoked: Bool, revokedAfter: Int64?, fingerprint: String?) {
        (self.device, self.revoked, self.revokedAfter, self.fingerprint) = (device, revoked, revokedAfter, fingerprint)
    }

    enum CodingKeys: String, CodingKey {
        case device, revoked, fingerprint
        case revokedAfter = "revoked_after"
    }
}

/// A device heard on this network now (`device.nearby`, `sync.diag`).
public struct NearbyDevice: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let fingerprint: String
    public let host: String
    /// Paired with the key it announces.
    public let paired: Bool
    public let lastHeard: String

    public init(id: String, name: String, fingerprint: String, host: String, paired: Bool, lastHeard: String) {
        (self.id, self.name, self.fingerprint, self.host, self.paired, self.lastHeard) = (
            id, name, fingerprint, host, paired, lastHeard
        )
    }

    enum CodingKeys: String, CodingKey {
        case id, name, fingerprint, host, paired
        case lastHeard = "last_heard"
    }
}

/// `device.nearby`.
public struct NearbyList: Codable, Sendable, Equatable {
    public let devices: [NearbyDevice]

    public init(devices: [NearbyDevice]) { self.devices = devices }
}

/// `device.paired`: the devices paired here, forgotten ones included.
public struct PairedList: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public let id: String
        public let name: String
        public let fingerprint: String
        public let pairedAt: String
        public let lastSyncAt: String?
        public let forgotten: Bool
        /// Heard on this network now.
        public let heard: Bool
        /// The device that removed this one (it forgot this device first).
        public let removedBy: String?
        /// How far its clock was ahead of this device's (negative: behind), in milliseconds, as
        /// the last sync with it measured, and when; nil before any.
        public let clockOffsetMilliseconds: Int64?
        public let clockMeasuredAt: String?

        public init(
            id: String, name: String, fingerprint: String, pairedAt: String, lastSyncAt: String?, forgotten: Bool,
            heard: Bool, removedBy: String?, clockOffsetMilliseconds: Int64? = nil, clockMeasuredAt: String? = nil
        ) {
            (self.id, self.name, self.fingerprint, self.pairedAt) = (id, name, fingerprint, pairedAt)
            (self.lastSyncAt, self.forgotten, self.heard, self.removedBy) = (lastSyncAt, forgotten, heard, removedBy)
            (self.clockOffsetMilliseconds, self.clockMeasuredAt) = (clockOffsetMilliseconds, clockMeasuredAt)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, fingerprint, forgotten, heard
            case pairedAt = "paired_at"
            case lastSyncAt = "last_sync_at"
            case removedBy = "removed_by"
            case clockOffsetMilliseconds = "clock_offset_ms"
            case clockMeasuredAt = "clock_measured_at"
        }
    }

    public let devices: [Device]

    public init(devices: [Device]) { self.devices = devices }
}

/// `device.forget`: the device forgotten, and whether it was told.
public struct DeviceForgotten: Codable, Sendable, Equatable {
    public let forgotten: String
    public let name: String
    public let told: Bool

    public init(forgotten: String, name: String, told: Bool) {
        (self.forgotten, self.name, self.told) = (forgotten, name, told)
    }
}

/// `device.forgotten`: a paired device forgotten here (by this device, or since it removed this one).
public struct DeviceForgottenEvent: Codable, Sendable, Equatable {
    public let device: String
    public let name: String
    @OmittedWhenNil public var removedBy: String?

    public init(device: String, name: String, removedBy: String? = nil) {
        (self.device, self.name, self.removedBy) = (device, name, removedBy)
    }

    enum CodingKeys: String, CodingKey {
        case device, name
        case removedBy = "removed_by"
    }
}

/// What `store.device_key.changed` says of a device's signing key (its `device_key`): the key in
/// force, who vouched for it (this device for a pin), and a conflict between a vouched key and the
/// one pinned here (the notifier's "Two signing keys" popup).
public struct DeviceKeyChange: Codable, Sendable, Equatable {
    public let device: String
    public let fingerprint: String?
    public let vouchedBy: String?
    @OmittedWhenNil public var keyConflict: DeviceList.KeyConflict?

    public init(device: String, fingerprint: String?, vouchedBy: String?, keyConflict: DeviceList.KeyConflict?) {
        (self.device, self.fingerprint, self.vouchedBy, self.keyConflict) = (
            device, fingerprint, vouchedBy, keyConflict
        )
    }

    enum CodingKeys: String, CodingKey {
        case device, fingerprint
        case vouchedBy = "vouched_by"
        case keyConflict = "key_conflict"
    }

    /// The event's data: `{"device_key": …}` beside the entity and operation.
    public struct Event: Codable, Sendable, Equatable {
        public let deviceKey: DeviceKeyChange

        public init(deviceKey: DeviceKeyChange) { self.deviceKey = deviceKey }

        enum CodingKeys: String, CodingKey { case deviceKey = "device_key" }
    }
}

/// `device.clone`: another device announces this device's id (a copied home).
public struct DeviceCloneEvent: Codable, Sendable, Equatable {
    public let host: String
    public let fingerprint: String
    public let detail: String

    public init(host: String, fingerprint: String, detail: String) {
        (self.host, self.fingerprint, self.detail) = (host, fingerprint, detail)
    }
}
