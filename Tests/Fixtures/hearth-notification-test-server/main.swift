// hearth-notification-test-server: a freedesktop notification server for tests and headless
// machines (org.freedesktop.Notifications, specification 1.2), over GDBus.
//
// It owns the name on the session bus (`DBUS_SESSION_BUS_ADDRESS`), answers like a real server,
// and prints every call as one JSON object per line on standard output, written as Python's
// `json.dumps(record, sort_keys=True)` writes it (the format of the Python server it replaced,
// which tests match line by line), e.g.
//   {"actions": ["done", "Done"], "app_icon": "", "app_name": "hearth", "arrived": 1795000000.123401,
//    "body": "...", "call": "Notify", "category": "...", "expire_timeout": 0, "hints": {...},
//    "id": 1, "replaces_id": 0, "summary": "...", "t": 1795000000.123456, "urgency": 2}
// A test presses a button with:
//   dbus-send --session --dest=org.freedesktop.Notifications /org/freedesktop/Notifications \
//       org.hearth.NotificationTest.Press uint32:ID string:ACTION
// which emits ActionInvoked(ID, ACTION) and then NotificationClosed(ID, 2), as a real server does.
// It prints {"name": "org.freedesktop.Notifications", "ready": true, ...} once it owns the name,
// and exits with status 1 if another server has it.
//
// A Notify record carries two wall-clock stamps (seconds since 1970):
// - "arrived": when the call reached this process, taken by a GDBus message filter on GDBus's
//   worker thread as the message is read from the socket. Latency figures use it.
// - "t": when the call was handled on the main loop and its record written.
//
// Why not Python any more (issue 49): the earlier dbus-python server handled about one call per
// 250 µs and could only stamp a call as it dispatched it, so in a burst each stamp waited for the
// calls before it (100 calls sent in 2.5 ms were stamped over 35.7 ms). Rewritten on Gio with the
// filter on GDBus's thread, its stamps still waited for Python's interpreter lock: measured against
// `dbus-monitor --profile` under `hearth-bench scheduler` (20 reminders a second), the Python
// stamp came 1.7–2.0 ms after the monitor's at the median and 7.7–14 ms at p99. Here the filter
// takes the stamp without waiting for anything.
import CLibNotify
import Foundation
import HearthBus
import Synchronization

let busName = "org.freedesktop.Notifications"
let objectPath = "/org/freedesktop/Notifications"

let introspection = """
    <node>
      <interface name="org.freedesktop.Notifications">
        <method name="Notify">
          <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
          <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
          <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/>
        </method>
        <method name="CloseNotification"><arg type="u" direction="in"/></method>
        <method name="GetCapabilities"><arg type="as" direction="out"/></method>
        <method name="GetServerInformation">
          <arg type="s" direction="out"/><arg type="s" direction="out"/>
          <arg type="s" direction="out"/><arg type="s" direction="out"/>
        </method>
        <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
        <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
      </interface>
      <interface name="org.hearth.NotificationTest">
        <method name="Press"><arg type="u" direction="in"/><arg type="s" direction="in"/></method>
      </interface>
    </node>
    """

/// The server's state. The filter runs on GDBus's worker thread and the methods on the main
/// loop's, so everything is behind mutexes.
final class NotificationServer: Sendable {
    /// GDBus documents `GDBusConnection` as thread-safe, and the pointer never changes.
    nonisolated(unsafe) let connection: OpaquePointer
    /// Notify calls' sender and serial → when the filter saw them arrive.
    private let arrivals = Mutex<[String: Double]>([:])
    private let popups = Mutex<(nextID: UInt32, open: Set<UInt32>)>((0, []))

    init(connection: OpaquePointer) { self.connection = connection }

    /// On GDBus's worker thread, for every message read or written.
    func filter(_ message: OpaquePointer, incoming: Bool) {
        guard incoming, g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL,
            let member = g_dbus_message_get_member(message), strcmp(member, "Notify") == 0
        else { return }
        let stamp = Date().timeIntervalSince1970
        let key = Self.callKey(g_dbus_message_get_sender(message), g_dbus_message_get_serial(message))
        arrivals.withLock { $0[key] = stamp }
    }

    /// On the main loop: one method call.
    func call(_ method: String, _ parameters: OpaquePointer, _ invocation: OpaquePointer) {
        switch method {
        case "Notify":
            let message = g_dbus_method_invocation_get_message(invocation)
            let key = Self.callKey(g_dbus_message_get_sender(message), g_dbus_message_get_serial(message))
            let id = notify(parameters, arrived: arrivals.withLock { $0.removeValue(forKey: key) })
            g_dbus_method_invocation_return_value(invocation, tuple([g_variant_new_uint32(id)]))
        case "CloseNotification":
            close(GVariantReader(parameters).uint32(0))
            g_dbus_method_invocation_return_value(invocation, nil)
        case "Press":
            let arguments = GVariantReader(parameters)
            press(arguments.uint32(0), action: arguments.string(1))
            g_dbus_method_invocation_return_value(invocation, nil)
        case "GetCapabilities":
            let names: [String] = ["actions", "body", "body-markup", "persistence"]
            let capabilities = names.map { g_variant_new_string($0) }
            let list = capabilities.withUnsafeBufferPointer {
                g_variant_new_array(g_variant_type_checked_("s"), $0.baseAddress, UInt($0.count))
            }
            g_dbus_method_invocation_return_value(invocation, tuple([list]))
        case "GetServerInformation":
            let information: [String] = ["hearth-notification-test-server", "hearth", "1.0", "1.2"]
            g_dbus_method_invocation_return_value(invocation, tuple(information.map { g_variant_new_string($0) }))
        default:
            g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
        }
    }

    private func notify(_ parameters: OpaquePointer, arrived: Double?) -> UInt32 {
        let arguments = GVariantReader(parameters)
        let replaces = arguments.uint32(1)
        let id = popups.withLock { popups in
            if replaces != 0 && popups.open.contains(replaces) { return replaces }
            popups.nextID += 1
            popups.open.insert(popups.nextID)
            return popups.nextID
        }
        let hints = arguments.json(6)
        emit([
            "call": "Notify", "id": .int(Int64(id)), "replaces_id": .int(Int64(replaces)),
            "app_name": .string(arguments.string(0)), "app_icon": .string(arguments.string(2)),
            "summary": .string(arguments.string(3)), "body": .string(arguments.string(4)),
            "actions": arguments.json(5), "urgency": hints["urgency"] ?? .null, "category": hints["category"] ?? .null,
            "hints": hints, "expire_timeout": .int(Int64(arguments.int32(7))),
            "arrived": arrived.map { .double($0) } ?? .null,
        ])
        return id
    }

    private func close(_ id: UInt32) {
        emit(["call": "CloseNotification", "id": .int(Int64(id))])
        if popups.withLock({ $0.open.remove(id) }) != nil {
            signal("NotificationClosed", [g_variant_new_uint32(id), g_variant_new_uint32(3)])
        }
    }

    private func press(_ id: UInt32, action: String) {
        emit(["call": "Press", "id": .int(Int64(id)), "action": .string(action)])
        signal("ActionInvoked", [g_variant_new_uint32(id), g_variant_new_string(action)])
        _ = popups.withLock { $0.open.remove(id) }
        signal("NotificationClosed", [g_variant_new_uint32(id), g_variant_new_uint32(2)])
    }

    private func signal(_ name: String, _ values: [OpaquePointer?]) {
        g_dbus_connection_emit_signal(connection, nil, objectPath, busName, name, tuple(values), nil)
    }

    private static func callKey(_ sender: UnsafePointer<CChar>?, _ serial: UInt32) -> String {
        "\(sender.map { String(cString: $0) } ?? "") \(serial)"
    }
}

/// Writes one record, stamped with `t`, as one line.
func emit(_ record: [String: JSONValue]) {
    var record = record
    record["t"] = .double(Date().timeIntervalSince1970)
    FileHandle.standardOutput.write(Data((PythonJSON.text(.object(record)) + "\n").utf8))
}

/// A tuple of `values` (floating references, taken over by the tuple).
func tuple(_ values: [OpaquePointer?]) -> OpaquePointer {
    values.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, UInt($0.count)) }
}

func fail(_ what: String, _ error: UnsafeMutablePointer<GError>? = nil) -> Never {
    let reason = error.map { ": " + String(cString: $0.pointee.message) } ?? ""
    FileHandle.standardError.write(Data("hearth-notification-test-server: \(what)\(reason)\n".utf8))
    exit(1)
}

/// The C callbacks, outside the main actor that top-level code belongs to (GDBus calls the
/// filter on its own thread).
enum Callbacks {
    static let filter: GDBusMessageFilterFunction = { _, message, incoming, data in
        if let message, let data {
            Unmanaged<NotificationServer>.fromOpaque(data).takeUnretainedValue().filter(
                message, incoming: incoming != 0)
        }
        return message
    }

    static let methodCall: GDBusInterfaceMethodCallFunc = { _, _, _, _, method, parameters, invocation, data in
        guard let method, let parameters, let invocation, let data else { return }
        Unmanaged<NotificationServer>.fromOpaque(data).takeUnretainedValue().call(
            String(cString: method), parameters, invocation)
    }
}

// MARK: - Start

var error: UnsafeMutablePointer<GError>?
guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else { fail("no session bus", error) }
let server = NotificationServer(connection: connection)
let context = Unmanaged.passRetained(server).toOpaque()
_ = g_dbus_connection_add_filter(connection, Callbacks.filter, context, nil)

let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)  // for the process's life
vtable.initialize(to: GDBusInterfaceVTable())
vtable.pointee.method_call = Callbacks.methodCall
guard let node = g_dbus_node_info_new_for_xml(introspection, &error) else { fail("bad introspection", error) }
var interfaces = node.pointee.interfaces
while let list = interfaces, let info = list.pointee {
    guard g_dbus_connection_register_object(connection, objectPath, info, vtable, context, nil, &error) != 0 else {
        fail("cannot register \(objectPath)", error)
    }
    interfaces = list + 1
}

let doNotQueue: UInt32 = 4  // DBUS_NAME_FLAG_DO_NOT_QUEUE: fail at once if another server has the name
guard
    let reply = g_dbus_connection_call_sync(
        connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
        tuple([g_variant_new_string(busName), g_variant_new_uint32(doNotQueue)]), g_variant_type_checked_("(u)"),
        G_DBUS_CALL_FLAGS_NONE, -1, nil, &error)
else { fail("cannot ask for \(busName)", error) }
guard GVariantReader(reply).uint32(0) == 1 else {  // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
    fail("\(busName) is already owned on this bus")
}
g_variant_unref(reply)
emit(["ready": true, "name": .string(busName)])
g_main_loop_run(g_main_loop_new(nil, 0))
