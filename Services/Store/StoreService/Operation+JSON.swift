import HearthBus
import HearthCore

extension Operation {
    /// The operation as exchanged between homes (`hearth ops export`) and in the change feed,
    /// without its signature (`signed(_:)` adds it).
    public var json: JSONValue {
        [
            "id": .string(id.description), "time": ["wall": .int(time.wall), "logical": .int(Int64(time.logical))],
            "entity": ["kind": .string(entity.kind), "id": .string(entity.id)], "fields": fieldsJSON,
        ]
    }

    /// `json` with its author's signature, as exported.
    public func signed(_ signature: String?) -> JSONValue {
        guard let signature, case .object(var object) = json else { return json }
        object["sig"] = .string(signature)
        return .object(object)
    }

    /// The `fields` object of `json`.
    public var fieldsJSON: JSONValue {
        var fields: [String: JSONValue] = [:]
        for (name, write) in self.fields {
            fields[name] = [
                "value": write.value.json,
                "overwrites": .array(write.overwrites.sorted().map { .string($0.description) }),
            ]
        }
        return .object(fields)
    }

    /// Reads an operation sent by another home, strictly (its signature, `sig`, is read apart).
    /// - Throws: `RuleError` naming the field (`operations[3].time.wall`) and the rule.
    public init(json: JSONValue, at path: String) throws(RuleError) {
        func fail(_ field: String, _ rule: String) -> RuleError {
            RuleError(field: "\(path).\(field)", rule: rule)
        }
        guard let object = json.objectValue else { throw RuleError(field: path, rule: "must be an object") }
        guard let idText = object["id"]?.stringValue, let id = OperationID(idText) else {
            throw fail("id", "must be a string 'device:counter' with a counter of 1 or more")
        }
        guard id.counter <= UInt64(Int64.max) else {
            throw fail("id", "the counter must be 1–\(Int64.max), got \(id.counter)")
        }
        guard let wall = object["time"]?["wall"]?.intValue, let logical = object["time"]?["logical"]?.intValue
        else { throw fail("time", "must be {\"wall\": milliseconds, \"logical\": counter}") }
        guard wall >= 0 else { throw fail("time.wall", "must be 0 or more milliseconds since 1970, got \(wall)") }
        guard (0...Int64(UInt32.max)).contains(logical) else {
            throw fail("time.logical", "must be 0–\(UInt32.max), got \(logical)")
        }
        guard let kind = object["entity"]?["kind"]?.stringValue, let entityID = object["entity"]?["id"]?.stringValue
        else { throw fail("entity", "must be {\"kind\": string, \"id\": string}") }
        guard let fieldObjects = object["fields"]?.objectValue else { throw fail("fields", "must be an object") }
        var fields: [String: FieldWrite] = [:]
        for (name, write) in fieldObjects {
            guard let value = write["value"] else { throw fail("fields.\(name).value", "is required") }
            let fieldValue: FieldValue
            switch value {
            case .null: fieldValue = .null
            case .bool(let flag): fieldValue = .bool(flag)
            case .int(let number): fieldValue = .int(number)
            case .string(let text): fieldValue = .text(text)
            default: throw fail("fields.\(name).value", "must be null, a boolean, an integer or a string")
            }
            var overwrites = Set<OperationID>()
            for (index, parent) in (write["overwrites"]?.arrayValue ?? []).enumerated() {
                guard let text = parent.stringValue, let parentID = OperationID(text) else {
                    throw fail("fields.\(name).overwrites[\(index)]", "must be an operation id 'device:counter'")
                }
                overwrites.insert(parentID)
            }
            fields[name] = FieldWrite(value: fieldValue, overwrites: overwrites)
        }
        self.init(
            id: id, time: HybridTime(wall: wall, logical: UInt32(logical)), entity: EntityRef(kind: kind, id: entityID),
            fields: fields)
    }
}

extension FieldValue {
    public var json: JSONValue {
        switch self {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let number): .int(number)
        case .text(let text): .string(text)
        }
    }
}
