import Foundation
import HearthBus
import HearthCore
import HearthHost
import Testing

@testable import HearthCLI

/// `hearth doctor`'s checks of paired devices, clocks and the beacon port, on given facts.
@Suite("hearth doctor: paired devices, clocks and the beacon port", .timeLimit(.minutes(1)))
struct DoctorChecksTests {
    func device(_ name: String, synced: Date?, offset: Int64?) -> PairedList.Device {
        PairedList.Device(
            id: UUID().uuidString, name: name, fingerprint: "AAAA", pairedAt: "2026-01-01T00:00:00.000Z",
            lastSyncAt: synced.map(Timestamp.format), forgotten: false, heard: false, removedBy: nil,
            clockOffsetMilliseconds: offset, clockMeasuredAt: offset == nil ? nil : "2026-11-28T10:00:00.000Z")
    }

    @Test("a device never synced, or not for over a week, is a warning naming it; recent ones are fine")
    func lastSyncs() {
        let now = Date()
        let fine = DoctorChecks.lastSyncs(
            [device("Bob's phone", synced: now.addingTimeInterval(-7_200), offset: nil)], now: now)
        #expect(fine.status == .ok)
        #expect(fine.verdict == "Bob's phone: synced 2 h ago")
        let stale = DoctorChecks.lastSyncs(
            [
                device("Bob's phone", synced: now.addingTimeInterval(-10 * 86_400), offset: nil),
                device("Gran's tablet", synced: nil, offset: nil),
            ], now: now)
        #expect(stale.status == .warning)
        #expect(stale.verdict == "Bob's phone: synced 10 days ago; Gran's tablet: never synced")
        #expect(stale.fix?.contains("hearth sync now 'Bob's phone'") == true)
        #expect(DoctorChecks.lastSyncs([], now: now).status == .ok)
    }

    @Test("a device with a vouched key and a pinned one is a warning naming both fingerprints and how to settle it")
    func keys() {
        let bob = DeviceList.Device(
            id: "6af7dfc8-d151-41c4-9b15-63f83a0798d7", name: "Bob's phone", local: false, lastSyncAt: nil,
            firstSeenAt: "2026-11-28T10:00:00.000Z", signingKey: "PINN-ED00", vouchedBy: nil)
        let fine = DoctorChecks.keys([bob])
        #expect(fine.status == .ok && fine.verdict == "one signing key for each of 1 device")
        var squatted = bob
        squatted.keyConflict = DeviceList.KeyConflict(
            vouchedFingerprint: "FAKE-0001", vouchedBy: "3cb4ba64-5481-4a95-a7f7-0be9d5a14247",
            pinnedFingerprint: "PINN-ED00", at: "2026-11-28T10:00:00.000Z")
        let warned = DoctorChecks.keys([squatted, bob])
        #expect(warned.status == .warning)
        #expect(
            warned.verdict
                == "Bob's phone has two keys: 3cb4ba64 vouched for FAKE-0001, this device pinned PINN-ED00 (the pin is used)"
        )
        #expect(warned.fix?.contains("hearth device distrust 6af7dfc8") == true)
    }

    @Test("clock skew: within 5 s fine, beyond a warning, beyond the hour syncs allow a problem")
    func clocks() {
        #expect(DoctorChecks.clocks([device("Bob", synced: nil, offset: nil)]).verdict.contains("not measured yet"))
        let close = DoctorChecks.clocks([device("Bob", synced: nil, offset: -300)])
        #expect(close.status == .ok)
        #expect(close.verdict == "Bob's clock is 0.3 s behind")
        let off = DoctorChecks.clocks([device("Bob", synced: nil, offset: 42_000)])
        #expect(off.status == .warning)
        #expect(off.verdict.hasPrefix("Bob's clock is 42.0 s ahead"))
        let far = DoctorChecks.clocks([device("Bob", synced: nil, offset: -2 * 3_600_000)])
        #expect(far.status == .problem)
        #expect(far.verdict.hasPrefix("Bob's clock is 120 min behind"))
        #expect(far.fix?.contains("timedatectl set-ntp true") == true)
    }

    @Test("a loopback broadcast leaves by lo, as the kernel routes it (doctor named eth0: issue 63)")
    func loopbackBroadcastInterface() throws {
        let route = try #require(BroadcastInterfaces.leavingBy("127.255.255.255"))
        #expect(route.name == "lo" && route.address == "127.0.0.1", "\(route)")
        #expect(BroadcastInterfaces.leavingBy("not an address") == nil)
        var settings = DiscoverySettings()
        settings.beaconAddress = "127.255.255.255"
        settings.beaconPort = 40_000 + Int.random(in: 0..<20_000)
        let check = DoctorChecks.beacon(settings, nearby: nil)
        if check.status == .ok {
            #expect(check.verdict.contains("leave by lo (127.0.0.1)"), "\(check)")
        }
    }

    @Test("a beacon port another program holds is a problem naming it and the setting that moves Hearth's")
    func beaconPortHeld() throws {
        // A UDP socket this test process holds, on a port the kernel picked (close-on-exec: a
        // child another test spawns meanwhile would otherwise hold it too).
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let holders = UDPPorts.holders(of: port)
        #expect(holders.count == 1)
        #expect(holders.first?.hasSuffix("(pid \(getpid()))") == true, "\(holders)")
        var settings = DiscoverySettings()
        settings.beaconPort = port
        let check = DoctorChecks.beacon(settings, nearby: nil)
        #expect(check.status == .problem)
        #expect(check.verdict.contains("UDP port \(port) (turn's beacon) is held by"))
        #expect(check.fix?.contains("[discovery] beacon_port") == true)
        #expect(UDPPorts.holders(of: port).count == 1)
    }
}
