/// The household's devices: their names (`device`, id the device's id, field `name`) and their
/// signing keys as vouched for by the devices that paired with them (`device_key`, id the
/// vouched device's id, field `key`).
///
/// Names are operations in the log, so a rename on one device reaches every device through sync,
/// and a device relayed through another shows the family's name for it, not "Device 3f2a9c1e".
///
/// Keys are how a device trusts operations it did not receive from their author: a device that
/// pairs with another (or imports a file whose fingerprint a person confirmed) writes a
/// `device_key` operation naming the other's signing key, signed by itself. A third device that
/// trusts the writer then trusts the key it vouches for (the introducer model of Syncthing), and
/// every operation the vouched device signed. A device never vouches for itself, and a vouch
/// never replaces a known key: one naming another key for it is refused. A key this device pinned
/// itself beats a vouch: pairing with the device (or a fingerprint a person typed) replaces a key
/// another device vouched for, and the conflict is kept for a person to see (`device list`).
///
/// A forgotten device's key is revoked for what it makes after: a `device_key` operation naming
/// its key with `revoked_after`, the last of its operations the forgetting device held. Every
/// device that trusts the forgetting one refuses that device's later operations, relayed or
/// imported from a file; the newest revocation wins (a pairing again writes `revoked_after` null).
public enum Devices: DomainRules {
    public static let kind = "device"
    /// A signing key vouched for by the operation's author.
    public static let keyKind = "device_key"
    public static let maximumNameLength = 60
    /// The most devices whose keys a store holds (this one included): a household has a handful;
    /// the cap keeps a hostile paired device from vouching for thousands of invented ones, which
    /// would make every version vector, and every sync, too large.
    public static let maximumDevices = 256
    /// The most devices one other device may vouch for: a household has a handful, and a hostile
    /// paired device vouching for 252 invented keys filled the store's slots (issue 62). This
    /// device's own pins (pairing, a fingerprint a person typed) are not counted, nor capped.
    public static let maximumVouchesPerDevice = 16
    public static let entityKinds: Set<String> = [kind, keyKind]

    private static let fields: [String: FieldRule] = [
        "name": .text(maximumLength: maximumNameLength, nullable: false, blank: false)
    ]

    public static func validate(_ operation: Operation) throws(RuleError) {
        guard entityKinds.contains(operation.entity.kind) else {
            throw RuleError(field: "entity.kind", rule: "'\(operation.entity.kind)' is not a device kind")
        }
        guard DeviceID.isValid(operation.entity.id) else {
            throw RuleError(
                field: "entity.id", rule: "must be a device id (a lower-case UUID), got '\(operation.entity.id)'")
        }
        guard operation.entity.kind == keyKind else { return try operation.check(fields: fields) }
        guard operation.entity.id != operation.author else {
            throw RuleError(
                field: "entity.id", rule: "a device cannot vouch for its own key (the device that paired with it does)")
        }
        try operation.check(fields: ["key": keyRule, "revoked_after": .integer(0...(1 << 53))])
        guard operation.fields["key"] != nil else { throw RuleError(field: "key", rule: "is required") }
    }

    /// A signing public key as written: 32 bytes in base64, 44 characters ending in `=` (the
    /// store reads it strictly when it verifies with it).
    private static let keyRule = FieldRule { (name, value) throws(RuleError) in
        guard case .text(let text) = value, text.utf8.count == 44, text.hasSuffix("="),
            text.utf8.dropLast().allSatisfy({ byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
            })
        else { throw RuleError(field: name, rule: "must be a signing key: 32 bytes in base64 (44 characters)") }
    }
}
