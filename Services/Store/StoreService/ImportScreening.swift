import HearthBus
import HearthCore
import HearthTrust

/// What an import checks of each operation before its transaction, off the cooperative pool:
/// read strictly, checked by its domain's one validator, and its signature verified with its
/// author's key. An operation that fails is refused alone, naming the field and the rule; the
/// others go on (a refused operation never blocks the rest of its page, or a later sync).
///
/// Keys come from `TrustedKeys` (every key the store holds was verified before it was stored)
/// and from the page itself: a `device_key` operation by a trusted device vouches for another
/// device's key, so the page's vouches are checked first, in as many rounds as a chain of them
/// needs (the exporter sends them first, `ExportCursor.trust`). A vouch naming another key for a
/// device whose key is known is refused, as is any vouch past `Devices.maximumDevices`, or past
/// `Devices.maximumVouchesPerDevice` by one voucher.
struct ImportScreening: Sendable {
    /// An operation that passed, with the key its signature verified with.
    struct Accepted: Sendable {
        let index: Int
        let operation: Operation
        let signature: String
        let key: SigningPublicKey
    }

    /// An operation refused: its place in the page, its id when it had one, the field and rule.
    struct Refusal: Sendable, Equatable {
        let id: String?
        let field: String
        let rule: String

        /// As replies carry it.
        var wire: OperationsRefusedEvent.Refusal { .init(id: id, field: field, rule: rule) }
    }

    /// A device's key revoked after its operation `after` (nil: in force again), by `by`, at `time`
    /// (`TrustedKeys.revocations` reads them; here, beside the screening, so the fuzz target that
    /// compiles this file alone has it).
    struct Revocation: Sendable, Equatable {
        let after: UInt64?
        let by: String
        let time: HybridTime
    }

    let localDevice: String
    /// The keys trusted so far: the store's, then those the page vouches for.
    private(set) var keys: [String: SigningPublicKey]
    /// Ids the store holds with a signature: verified when they were stored, not again.
    let heldSigned: Set<String>
    /// Checks an operation by its domain's rules (the store's `StoreDomains`).
    let validate: @Sendable (Operation) throws(RuleError) -> Void
    /// Verifies a batch of signatures (`SignatureBatch.verify`).
    var verify: @Sendable ([SignatureCheck]) -> [Bool] = SignatureBatch.verify

    private(set) var accepted: [Accepted] = []
    private(set) var refused: [Refusal] = []
    /// Keys first learnt from this page's vouches, by device.
    private(set) var vouched: [String: SigningPublicKey] = [:]
    /// How many keys each device has vouched for, in the store and then in this page.
    private var vouchesBy: [String: Int]
    /// Forgotten devices' keys, revoked after their operation `after`: the store's, then the
    /// page's newer ones.
    private(set) var revocations: [String: Revocation]

    init(
        localDevice: String, keys: [String: SigningPublicKey], heldSigned: Set<String>,
        vouchesBy: [String: Int] = [:], revocations: [String: Revocation] = [:],
        validate: @escaping @Sendable (Operation) throws(RuleError) -> Void
    ) {
        self.localDevice = localDevice
        self.keys = keys
        self.heldSigned = heldSigned
        self.vouchesBy = vouchesBy
        self.revocations = revocations
        self.validate = validate
    }

    /// Screens a page of operations in the exchange format.
    mutating func screen(_ list: [JSONValue]) {
        var vouches: [(Int, Operation, OperationSignature)] = []
        var others: [(Int, Operation, OperationSignature)] = []
        for (index, item) in list.enumerated() {
            guard let (operation, signature) = read(item, at: index) else { continue }
            if operation.entity.kind == Devices.keyKind {
                vouches.append((index, operation, signature))
            } else {
                others.append((index, operation, signature))
            }
        }
        // Vouches in rounds: one whose author's key a later vouch of the page brings waits for it.
        var waiting = vouches
        while !waiting.isEmpty {
            let before = waiting.count
            waiting = waiting.filter { index, operation, signature in
                guard let key = keys[operation.author] else { return true }
                admitVouch(operation, signature: signature, at: index, authorKey: key)
                return false
            }
            if waiting.count == before { break }
        }
        for (index, operation, _) in waiting { refuseUnknownAuthor(operation, at: index) }
        var items: [SignatureCheck] = []
        var pending: [(Int, Operation, OperationSignature)] = []
        for (index, operation, signature) in others {
            guard let key = keys[operation.author] else {
                refuseUnknownAuthor(operation, at: index)
                continue
            }
            // Held already: made before any revocation could name it.
            if heldSigned.contains(operation.id.description) {
                accepted.append(Accepted(index: index, operation: operation, signature: signature.text, key: key))
                continue
            }
            if refuseRevoked(operation, at: index) { continue }
            items.append(SignatureCheck(operation: operation, signature: signature, key: key))
            pending.append((index, operation, signature))
        }
        for ((index, operation, signature), (item, valid)) in zip(pending, zip(items, verify(items))) {
            if valid {
                accepted.append(Accepted(index: index, operation: operation, signature: signature.text, key: item.key))
            } else {
                refuseBadSignature(operation, at: index, key: item.key)
            }
        }
        accepted.sort { $0.index < $1.index }
    }

    // MARK: - Reading one operation

    /// The operation at `index` and its signature, or `nil` once refused.
    private mutating func read(_ item: JSONValue, at index: Int) -> (Operation, OperationSignature)? {
        let path = "operations[\(index)]"
        let id = item["id"]?.stringValue
        let operation: Operation
        do {
            operation = try Operation(json: item, at: path)
        } catch {
            refused.append(Refusal(id: id, field: error.field, rule: error.rule))
            return nil
        }
        do {
            try operation.validate()
        } catch {
            refused.append(Refusal(id: id, field: path, rule: error.description))
            return nil
        }
        do {
            try validate(operation)
        } catch {
            let field = error.field.hasPrefix("entity.") ? error.field : "fields.\(error.field)"
            refused.append(Refusal(id: id, field: "\(path).\(field)", rule: error.rule))
            return nil
        }
        guard operation.author == localDevice || DeviceID.isValid(operation.author) else {
            refused.append(
                Refusal(
                    id: id, field: "\(path).id",
                    rule: "'\(operation.author)' is not a device id (a device id is a lower-case UUID)"))
            return nil
        }
        guard let text = item["sig"]?.stringValue else {
            refused.append(
                Refusal(
                    id: id, field: "\(path).sig",
                    rule:
                        "is required: every operation carries its author's signature (one written before signing is sent again by its author, signed)"
                ))
            return nil
        }
        guard let signature = OperationSignature(text: text) else {
            refused.append(
                Refusal(id: id, field: "\(path).sig", rule: "must be an Ed25519 signature: 64 bytes in base64"))
            return nil
        }
        return (operation, signature)
    }

    // MARK: - Keys

    private mutating func admitVouch(
        _ operation: Operation, signature: OperationSignature, at index: Int, authorKey: SigningPublicKey
    ) {
        let path = "operations[\(index)]"
        let id = operation.id.description
        if !heldSigned.contains(id), refuseRevoked(operation, at: index) { return }
        guard
            heldSigned.contains(id)
                || verify([SignatureCheck(operation: operation, signature: signature, key: authorKey)]) == [true]
        else { return refuseBadSignature(operation, at: index, key: authorKey) }
        guard case .text(let text)? = operation.value("key"), let key = SigningPublicKey(text: text) else {
            refused.append(
                Refusal(id: id, field: "\(path).fields.key", rule: "must be a signing key: 32 bytes in base64"))
            return
        }
        let device = operation.entity.id
        if let known = keys[device] {
            guard known == key else {
                refused.append(
                    Refusal(
                        id: id, field: "\(path).fields.key",
                        rule:
                            "vouches for device \(device.prefix(8)) with key \(key.fingerprint), but this household knows it by key \(known.fingerprint): a device's key is never replaced"
                    ))
                return
            }
        } else {
            guard keys.count < Devices.maximumDevices else {
                refused.append(
                    Refusal(
                        id: id, field: "\(path).entity.id",
                        rule:
                            "would be device \(keys.count + 1) of this household; a store holds the keys of at most \(Devices.maximumDevices) devices"
                    ))
                return
            }
            let voucher = operation.author
            guard voucher == localDevice || vouchesBy[voucher, default: 0] < Devices.maximumVouchesPerDevice else {
                refused.append(
                    Refusal(
                        id: id, field: "\(path).entity.id",
                        rule:
                            "device \(voucher.prefix(8)) has vouched for \(Devices.maximumVouchesPerDevice) devices already, the most one device may vouch for"
                    ))
                return
            }
            vouchesBy[voucher, default: 0] += 1
            keys[device] = key
            vouched[device] = key
        }
        if let revoked = operation.fields["revoked_after"] {
            guard device != localDevice else {
                refused.append(
                    Refusal(
                        id: id, field: "\(path).entity.id",
                        rule: "revokes this device's own key: a device that forgot this one has no say in what it signs"
                    ))
                return
            }
            // The newest revocation or pairing again wins, as in the store.
            if revocations[device].map({ $0.time < operation.time }) ?? true {
                let after: UInt64? = if case .int(let counter) = revoked.value { UInt64(counter) } else { nil }
                revocations[device] = .init(after: after, by: operation.author, time: operation.time)
            }
        }
        accepted.append(Accepted(index: index, operation: operation, signature: signature.text, key: authorKey))
    }

    /// Refuses an operation its author made after its key was revoked (the device was forgotten).
    private mutating func refuseRevoked(_ operation: Operation, at index: Int) -> Bool {
        guard let revocation = revocations[operation.author], let after = revocation.after,
            operation.id.counter > after
        else { return false }
        refused.append(
            Refusal(
                id: operation.id.description, field: "operations[\(index)].id",
                rule:
                    "was made by device \(operation.author.prefix(8)) after its key was revoked (device \(revocation.by.prefix(8)) forgot it after its operation \(after)): pair it again to take what it makes"
            ))
        return true
    }

    private mutating func refuseUnknownAuthor(_ operation: Operation, at index: Int) {
        refused.append(
            Refusal(
                id: operation.id.description, field: "operations[\(index)].id",
                rule:
                    "was signed by device \(operation.author.prefix(8)), whose key no device of this household vouched for (it never paired with one)"
            ))
    }

    private mutating func refuseBadSignature(_ operation: Operation, at index: Int, key: SigningPublicKey) {
        refused.append(
            Refusal(
                id: operation.id.description, field: "operations[\(index)].sig",
                rule:
                    "does not verify with the key of device \(operation.author.prefix(8)) (\(key.fingerprint)): the operation was changed on the way, or that device did not make it"
            ))
    }
}
