// libFuzzer target: a page of operations from another device through the store's screening
// (`ImportScreening`: each operation read strictly, checked by its domain's rules, its author's
// key found among the trusted ones or vouched for in the page, its signature verified). So that
// the fuzzer reaches past the signature check, every operation that comes without a `sig` is
// signed here with its author's key (three fixed "household" devices, and any other id's own);
// an input that starts with `!` has every signature made here altered by one bit.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// - every accepted operation's signature verifies with the key it was accepted under;
// - with `!`, no operation signed here is accepted;
// - a device's key known before the page is never replaced by one the page vouches for;
// - no operation is both accepted and refused, and none more than once.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignedOperations(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let tamper = bytes.first == UInt8(ascii: "!")
    guard let file = try? JSONValue.parse(tamper ? Array(bytes.dropFirst()) : bytes),
        let list = file["operations"]?.arrayValue
    else { return 0 }
    let household = [
        "a0a00000-0000-4000-8000-00000000000a", "b0b00000-0000-4000-8000-00000000000b",
        "c0c00000-0000-4000-8000-00000000000c",
    ]
    func key(_ device: String) -> SigningKey { SigningKey(seed: Sodium.hash("fuzz/device", [Array(device.utf8)])) }
    let trusted = Dictionary(uniqueKeysWithValues: household.map { ($0, key($0).publicKey) })
    var signedHere: Set<String> = []
    let page = list.enumerated().map { index, item -> JSONValue in
        guard item["sig"] == nil, let operation = try? Operation(json: item, at: "x") else { return item }
        var signature = key(operation.author).sign(operation.signedBytes)
        if tamper { signature[index % signature.count] ^= 0x01 }
        signedHere.insert(operation.id.description)
        return operation.signed(OperationSignature(text: Base64.encode(signature))?.text)
    }
    var screening = ImportScreening(
        localDevice: household[0], keys: trusted, heldSigned: []
    ) { (operation) throws(RuleError) in try HouseholdDomains.validate(operation) }
    screening.verify = { $0.map(\.verifies) }
    screening.screen(page)
    var seen: Set<Int> = []
    for accepted in screening.accepted {
        precondition(seen.insert(accepted.index).inserted, "operation \(accepted.index) accepted twice")
        guard let signature = OperationSignature(text: accepted.signature) else {
            preconditionFailure("bad signature text")
        }
        precondition(accepted.key.verifies(signature, of: accepted.operation), "accepted an unverified signature")
        if tamper { precondition(!signedHere.contains(accepted.operation.id.description), "accepted a tampered one") }
    }
    for (device, known) in trusted { precondition(screening.keys[device] == known, "a known key was replaced") }
    precondition(screening.accepted.count + screening.refused.count <= page.count, "an operation judged twice")
    return 0
}
