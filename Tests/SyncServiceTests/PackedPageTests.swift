import Foundation
import HearthBus
import HearthTesting
import Testing

@testable import SyncService

@Suite("Packed pages: operations deflated for the wire, unpacked within bounds")
struct PackedPageTests {
    static let operations: [JSONValue] = (1...36).map { index in
        [
            "id": .string("0b0b0000-0000-4000-8000-00000000000a:\(index)"),
            "time": ["wall": .int(1_795_000_000_000 + Int64(index)), "logical": 0],
            "entity": ["kind": "event_card", "id": .string("2027-\(index % 12 + 10)")],
            "fields": ["title": ["value": .string("Plan \(index)"), "overwrites": []]],
        ]
    }

    @Test("a page comes back as it went, in a fraction of its JSON size")
    func roundTrip() async throws {
        let packed = await offPool { PackedPage.pack(Self.operations) }
        #expect(try PackedPage.unpack(packed, maximumBytes: 1 << 20) == Self.operations)
        let json = JSONValue.array(Self.operations).jsonBytes.count
        #expect(packed.utf8.count * 3 < json, "\(packed.utf8.count) packed against \(json) as JSON")
    }

    @Test("a page that would inflate past the bound is refused without inflating it (5 MB in a few KB)")
    func bomb() async throws {
        // Megabytes compressed and inflated: off the shared cooperative threads.
        let (size, failure) = await offPool { () -> (Int, String?) in
            let huge = PackedPage.pack([.string(String(repeating: "a", count: 5_000_000))])
            do {
                _ = try PackedPage.unpack(huge, maximumBytes: 1 << 20)
                return (huge.utf8.count, nil)
            } catch {
                return (huge.utf8.count, "\(error)")
            }
        }
        #expect(size < 20_000)
        #expect(failure == "packed: inflates beyond 1048576 bytes")
    }

    @Test("not base64, a cut stream, or plain bytes: each a typed error")
    func malformed() throws {
        func failure(_ text: String) -> String? {
            do {
                _ = try PackedPage.unpack(text, maximumBytes: 1 << 20)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(failure("not base64!") == "packed: must be base64")
        let packed = PackedPage.pack(Self.operations)
        let cut = Data(Data(base64Encoded: packed)!.prefix(40)).base64EncodedString()
        #expect(failure(cut)?.hasPrefix("packed: not a zlib stream") == true, "\(failure(cut) ?? "")")
        #expect(failure(Data("plain".utf8).base64EncodedString())?.hasPrefix("packed: not a zlib stream") == true)
    }
}
