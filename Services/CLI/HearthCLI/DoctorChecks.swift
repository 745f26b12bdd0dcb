import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost

/// The checks of `hearth doctor` that look at this machine rather than ask a service.
enum DoctorChecks {
    // MARK: - The data directory

    /// The most entries of the data directory the home check looks at.
    static let maximumExamined = 20_000

    /// The data directory is this user's, and no one else can read or write it or anything in
    /// it, at any depth: each one open to others is counted, the first five named.
    static func home(_ home: String) -> DoctorCheck {
        var status = stat()
        guard stat(home, &status) == 0 else {
            return .problem(
                "home", "\(home) cannot be read: \(String(cString: strerror(errno)))", fix: "chmod 700 \(home)")
        }
        if status.st_uid != getuid() {
            return .problem(
                "home", "\(home) belongs to user \(status.st_uid), not to you (\(getuid()))",
                fix: "chown -R $(id -un): \(home), or run Hearth as its owner")
        }
        var open: [String] = []
        if status.st_mode & 0o077 != 0 { open.append("\(home) (mode \(String(status.st_mode & 0o777, radix: 8)))") }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: home)) ?? []
        // Every file and folder inside, at any depth (calendars, logs, backups), up to a bound.
        var examined = 0
        let walker = FileManager.default.enumerator(atPath: home)
        while examined < maximumExamined, let name = walker?.nextObject() as? String {
            examined += 1
            let path = (home as NSString).appendingPathComponent(name)
            var entry = stat()
            guard lstat(path, &entry) == 0, entry.st_mode & S_IFMT == S_IFREG || entry.st_mode & S_IFMT == S_IFDIR
            else { continue }
            if entry.st_mode & 0o077 != 0 { open.append("\(name) (mode \(String(entry.st_mode & 0o777, radix: 8)))") }
        }
        if !open.isEmpty {
            let named = open.sorted().prefix(5).joined(separator: ", ")
            return .problem(
                "home",
                "others can reach the household's data: \(Output.count(open.count, "entry", plural: "entries")): \(named)"
                    + (open.count > 5 ? " and \(open.count - 5) more" : ""),
                fix: "chmod -R go-rwx \(home)")
        }
        guard access(home, W_OK) == 0 else {
            return .problem("home", "\(home) is not writable", fix: "chmod u+rwx \(home)")
        }
        return .ok(
            "home",
            "\(home) is yours alone (\(Output.count(entries.count, "entry", plural: "entries")), none open to others)")
    }

    // MARK: - Time

    /// The household's zone against this system's: the same rules, or said to differ.
    static func timeZone(household: TimeZone, system: TimeZone) -> DoctorCheck {
        // Two names for one zone (UTC and Etc/UTC) agree when their offsets agree through a year.
        let now = Date()
        let same =
            household.identifier == system.identifier
            || stride(from: 0, to: 366, by: 15).allSatisfy { day in
                let date = now.addingTimeInterval(Double(day) * 86_400)
                return household.secondsFromGMT(for: date) == system.secondsFromGMT(for: date)
            }
        if same { return .ok("time zone", "the household's \(household.identifier) is this system's too") }
        let offset = { (zone: TimeZone) in
            let seconds = zone.secondsFromGMT(for: now)
            return String(
                format: "UTC%@%02d:%02d", seconds < 0 ? "-" : "+", abs(seconds) / 3600, abs(seconds) % 3600 / 60)
        }
        return .warning(
            "time zone",
            "the household's zone is \(household.identifier) (\(offset(household))), this system's is \(system.identifier) (\(offset(system))): Hearth shows the household's times in \(household.identifier)",
            fix:
                "if this device lives in the household, set its zone: timedatectl set-timezone \(household.identifier); if the household's is wrong, set [household] time_zone in hearth.toml"
        )
    }

    /// Each paired device's last sync: never, or over a week ago, is said.
    static func lastSyncs(_ devices: [PairedList.Device], now: Date) -> DoctorCheck {
        guard !devices.isEmpty else { return .ok("paired devices", "none paired (hearth device pair adds one)") }
        var lines: [String] = []
        var stale: [String] = []
        for device in devices {
            guard let text = device.lastSyncAt, let date = Timestamp.parse(text) else {
                lines.append("\(device.name): never synced")
                stale.append(device.name)
                continue
            }
            let age = now.timeIntervalSince(date)
            lines.append("\(device.name): synced \(Self.age(age)) ago")
            if age > 7 * 86_400 { stale.append(device.name) }
        }
        let verdict = lines.joined(separator: "; ")
        if stale.isEmpty { return .ok("paired devices", verdict) }
        return .warning(
            "paired devices", verdict,
            fix:
                "with both devices on the household's network and Hearth running on each, run: hearth sync now '\(stale[0])'"
        )
    }

    /// A device with two keys (one another device vouched for, one this device pinned): the pin
    /// is used, and a person settles which is the device's (issue 62).
    static func keys(_ devices: [DeviceList.Device]) -> DoctorCheck {
        let conflicts = devices.compactMap { device in device.keyConflict.map { (device, $0) } }
        guard let (first, _) = conflicts.first else {
            return .ok(
                "device keys", "one signing key for each of \(devices.count) device\(devices.count == 1 ? "" : "s")")
        }
        let lines = conflicts.map { device, conflict in
            "\(device.name) has two keys: \(conflict.vouchedBy.prefix(8)) vouched for \(conflict.vouchedFingerprint), "
                + "this device pinned \(conflict.pinnedFingerprint) (the pin is used)"
        }
        return .warning(
            "device keys", lines.joined(separator: "; "),
            fix:
                "compare the pinned fingerprint with the one '\(first.name)' shows (hearth device list on it): "
                + "if they differ, hearth device distrust \(first.id.prefix(8)), then pair with it again")
    }

    /// Clock skew against each paired device, as the last sync with it measured.
    static func clocks(_ devices: [PairedList.Device]) -> DoctorCheck {
        let measured = devices.compactMap { device in device.clockOffsetMilliseconds.map { (device.name, $0) } }
        guard !measured.isEmpty else {
            return .ok("clocks", "not measured yet (each sync measures the other device's clock)")
        }
        let words = { (offset: Int64) in
            let seconds = Double(abs(offset)) / 1000
            let amount = seconds < 120 ? String(format: "%.1f s", seconds) : "\(Int(seconds / 60)) min"
            return "\(amount) \(offset >= 0 ? "ahead" : "behind")"
        }
        let lines = measured.map { "\($0.0)'s clock is \(words($0.1))" }.joined(separator: "; ")
        let fix =
            "turn on network time on both devices (timedatectl set-ntp true), or set the wrong clock right"
        if measured.contains(where: { abs($0.1) > HybridClock.maximumDrift }) {
            return .problem(
                "clocks", lines + " (over the \(HybridClock.maximumDrift / 60_000) min allowed: syncs are refused)",
                fix: fix)
        }
        if measured.contains(where: { abs($0.1) > 5_000 }) {
            return .warning("clocks", lines + " (edits' order follows the clocks)", fix: fix)
        }
        return .ok("clocks", lines)
    }

    static func age(_ seconds: TimeInterval) -> String {
        switch seconds {
        case ..<120: "\(Int(seconds)) s"
        case ..<7_200: "\(Int(seconds / 60)) min"
        case ..<172_800: "\(Int(seconds / 3_600)) h"
        default: "\(Int(seconds / 86_400)) days"
        }
    }

    // MARK: - Disk and databases

    /// Free space where the data directory is: under 100 MiB is a problem (SQLite needs room to
    /// commit), under 1 GiB a warning.
    static func disk(_ home: String) -> DoctorCheck {
        var status = statvfs()
        guard statvfs(home, &status) == 0 else {
            return .problem("disk", "cannot read the free space of \(home)", fix: "check that \(home) is mounted")
        }
        let free = Double(status.f_bavail) * Double(status.f_frsize)
        let text =
            free >= 1_073_741_824 ? String(format: "%.1f GiB", free / 1_073_741_824) : "\(Int(free / 1_048_576)) MiB"
        if free < 100 * 1_048_576 {
            return .problem(
                "disk", "only \(text) free for \(home): writes may fail", fix: "free space on that file system")
        }
        if free < 1_073_741_824 {
            return .warning("disk", "\(text) free for \(home)", fix: "free space on that file system soon")
        }
        return .ok("disk", "\(text) free for \(home)")
    }

    /// SQLite's `integrity_check` of the household's database and the sync service's, read-only
    /// (a running store keeps writing; the check reads one consistent snapshot).
    static func databases(_ home: String, supervisor: StackSupervisor) async -> DoctorCheck {
        var lines: [String] = []
        var broken: [String] = []
        for name in ["hearth.sqlite", "sync.sqlite"] {
            let path = (home as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let result: String
            do {
                result = try await offPool { () throws -> String in
                    var configuration = Configuration()
                    configuration.readonly = true
                    configuration.busyMode = .timeout(5)
                    let queue = try DatabaseQueue(path: path, configuration: configuration)
                    defer { try? queue.close() }
                    return try queue.read { db in
                        try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
                    }
                }
            } catch {
                result = "cannot be read: \(error)"
            }
            lines.append("\(name) \(result == "ok" ? "passes SQLite's integrity check" : result)")
            if result != "ok" { broken.append(name) }
        }
        guard !lines.isEmpty else { return .ok("databases", "none yet (the store makes hearth.sqlite when it starts)") }
        if broken.isEmpty { return .ok("databases", lines.joined(separator: "; ")) }
        return .problem(
            "databases", lines.joined(separator: "; "),
            fix:
                "stop the stack (\(supervisor.stopAll)), then restore the latest backup: hearth restore FILE; or sync from a paired device into a fresh data directory"
        )
    }
}
