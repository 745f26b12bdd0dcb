// libFuzzer target: the bus envelope decoder (and the JSON parser under it). Every input either
// decodes or is refused with a typed `EnvelopeError`; what decodes encodes and decodes again to
// the same envelope.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let frame = Array(UnsafeBufferPointer(start: data, count: size))
    let codec = EnvelopeCodec(maximumBytes: 1 << 20)
    guard let envelope = try? codec.decode(frame) else { return 0 }
    guard let encoded = try? codec.encode(envelope) else { return 0 }
    let again: Envelope
    do {
        again = try codec.decode(encoded)
    } catch {
        fatalError("an envelope Hearth encoded does not decode: \(error)")
    }
    precondition(again == envelope, "an envelope changed in a round trip")
    return 0
}
