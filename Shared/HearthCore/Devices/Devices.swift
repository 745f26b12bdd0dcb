/// The household's devices by name (`device`, id the device's id, field `name`): names are
/// operations in the log, so a rename on one device reaches every device through sync, and a
/// device relayed through another shows the family's name for it, not "Device 3f2a9c1e".
public enum Devices: DomainRules {
    public static let kind = "device"
    public static let maximumNameLength = 60
    public static let entityKinds: Set<String> = [kind]

    private static let fields: [String: FieldRule] = [
        "name": .text(maximumLength: maximumNameLength, nullable: false, blank: false)
    ]

    public static func validate(_ operation: Operation) throws(RuleError) {
        guard operation.entity.kind == kind else {
            throw RuleError(field: "entity.kind", rule: "'\(operation.entity.kind)' is not a device kind")
        }
        guard DeviceID.isValid(operation.entity.id) else {
            throw RuleError(
                field: "entity.id", rule: "must be a device id (a lower-case UUID), got '\(operation.entity.id)'")
        }
        try operation.check(fields: fields)
    }
}
