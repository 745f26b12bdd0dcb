// libFuzzer target: command requests as every service's command server reads them. Every input
// is a request or a typed `CommandError` naming what is wrong; never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let request = try? CommandRequest.decode(bytes) else { return 0 }
    let again = try? CommandRequest.decode(request.jsonBytes)
    precondition(again == request, "a request changed in a round trip")
    return 0
}
