import HearthBus
import HearthCore

extension HearthConfiguration {
    /// The value in force of `key` (a name in `keys`), as `hearth.toml` would write it; `nil`
    /// for a name `keys` does not have. `ConfigurationKeysTests` proves every key has one, so a
    /// key added to `keys` is printed by `hearth config` too.
    public func value(of key: String) -> JSONValue? {
        func seconds(_ duration: Duration) -> JSONValue {
            let total = duration.components.seconds
            return .string(total % 60 == 0 && total > 0 ? "\(total / 60)m" : "\(total)s")
        }
        if let endpoint = endpoints[key] { return .string(endpoint) }
        if key.hasPrefix("notify."), let category = NotifySettings.Category(rawValue: String(key.dropFirst(7))) {
            return .bool(notify.enabled.contains(category))
        }
        switch key {
        case "household.time_zone": return .string(household.timeZone.identifier)
        case "household.week_start": return .string(household.weekStart == 7 ? "sunday" : "monday")
        case "reminders.snooze": return seconds(household.snooze)
        case "notify.quiet_hours": return .string(notify.quietHours?.description ?? "")
        case "notify.critical_breaks_quiet_hours": return .bool(notify.criticalBreaksQuietHours)
        case "notify.sounds": return .bool(notify.sounds)
        case "discovery.beacon_port": return .int(Int64(discovery.beaconPort))
        case "discovery.beacon_address": return .string(discovery.beaconAddress)
        case "discovery.peers": return .array(discovery.staticPeers.map(JSONValue.string))
        case "turn.peer": return .string(turn.peerEndpoint)
        case "sync.endpoint": return .string(sync.endpoint)
        case "sync.interval": return seconds(sync.interval)
        case "sync.pairing_port": return .int(Int64(sync.pairingPort))
        case "web.listen": return .string("\(web.host):\(web.port)")
        case "web.host_names": return .array(web.hostNames.map(JSONValue.string))
        case "web.header_timeout": return seconds(web.headerTimeout)
        case "web.idle_timeout": return seconds(web.idleTimeout)
        case "web.max_connections": return .int(Int64(web.maximumConnections))
        case "limits.max_message_bytes": return .int(Int64(maximumMessageBytes))
        case "bus.heartbeat_ms": return .int(Int64(heartbeatMilliseconds))
        case "bus.idle_spin_us": return .int(Int64(idleSpinMicroseconds))
        default: return nil
        }
    }
}
