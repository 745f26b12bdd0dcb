import HearthBus
import HearthCore
import HearthTrust

/// The device a file says exported it, and whether a person vouched for its key (`trust`).
struct ImportExporter {
    let device: String
    let key: SigningPublicKey
    let trust: String?

    init?(_ arguments: Arguments) throws {
        guard let exporter = arguments.values["exporter"], exporter != .null else { return nil }
        guard let device = exporter["device"]?.stringValue, DeviceID.isValid(device) else {
            throw CommandError.invalidArgument("exporter.device", "must be a device id (a lower-case UUID)")
        }
        guard let text = exporter["signing_key"]?.stringValue, let key = SigningPublicKey(text: text) else {
            throw CommandError.invalidArgument("exporter.signing_key", "must be a signing key: 32 bytes in base64")
        }
        self.device = device
        self.key = key
        trust = try arguments.optionalString("trust")
    }

    /// The pin to write for an exporter a person vouched for (unknown, or known only by a key
    /// another device vouched for); `nil` when its key is the one known.
    /// - Throws: when this device pinned another key for it, or it is not vouched for.
    func check(
        against keys: [String: SigningPublicKey], pinned: Set<String>
    ) throws -> (device: String, key: SigningPublicKey)? {
        if let known = keys[device] {
            if known == key { return nil }
            guard !pinned.contains(device) else {
                throw CommandError(
                    code: "key_mismatch",
                    message:
                        "the file says device \(device.prefix(8)) exported it with key \(key.fingerprint), but this device pinned that device by \(known.fingerprint): nothing was imported"
                )
            }
            // Known only through another device's vouch: the fingerprint a person typed decides.
        }
        let normalised = trust.map { $0.uppercased().filter { !$0.isWhitespace } }
        guard normalised == key.fingerprint.filter({ !$0.isWhitespace }) else {
            throw CommandError(
                code: "untrusted_exporter",
                message: (trust == nil ? "" : "'trust' does not match: ")
                    + "the file was exported by device \(device.prefix(8)) with key \(key.fingerprint), which this household does not know yet; check that fingerprint on that device (hearth device list) and import again with --trust '\(key.fingerprint)'"
            )
        }
        return (device, key)
    }
}
