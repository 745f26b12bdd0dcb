// libFuzzer target: an `ops import` file or a sync batch (a page whose operations are `packed`:
// deflated, in base64, unpacked within a bound as hearth-sync does): JSON, then each
// operation read strictly (`Operation(json:at:)`), checked by its domain's rules, and folded
// into an operation log, as the store does before anything is written. Every input is refused
// with a typed error or accepted; never a trap (the huge-counter crash of issue 15 was one).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOperations(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let file = try? JSONValue.parse(bytes) else { return 0 }
    var operations = file["operations"]?.arrayValue ?? []
    if let packed = file["packed"]?.stringValue {
        guard let unpacked = try? PackedPage.unpack(packed, maximumBytes: 1 << 20) else { return 0 }
        operations = unpacked
    }
    var log = OperationLog()
    for (index, item) in operations.enumerated() {
        guard let operation = try? Operation(json: item, at: "operations[\(index)]") else { continue }
        do {
            try HouseholdDomains.validate(operation)
        } catch {
            continue
        }
        _ = try? log.apply(operation)
    }
    _ = log.conflicts
    for entity in log.entities { _ = log.entity(entity) }
    return 0
}
