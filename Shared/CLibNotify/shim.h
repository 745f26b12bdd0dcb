#ifndef HEARTH_CLIBNOTIFY_SHIM_H
#define HEARTH_CLIBNOTIFY_SHIM_H
#include <gio/gio.h>
#include <libnotify/notify.h>
#include <unistd.h>

// GObject's property and signal calls and GVariant's constructors are variadic or macros, which
// Swift cannot call; these wrappers give them fixed signatures.

/// Releases one reference to a GObject (a connection).
static inline void hearth_object_unref(gpointer object) { g_object_unref(object); }

// MARK: - The freedesktop notification interface over GDBus (asynchronous calls)

#define HEARTH_NOTIFICATIONS_NAME "org.freedesktop.Notifications"
#define HEARTH_NOTIFICATIONS_PATH "/org/freedesktop/Notifications"

/// A private connection to the bus at `bus_address`, or the session bus when it is NULL
/// (blocking: call it off the cooperative pool). A private one, so a bus that goes away closes
/// only it: the next call opens another.
static inline GDBusConnection *hearth_session_connect(const char *bus_address, GError **error) {
    gchar *address = bus_address != NULL ? g_strdup(bus_address)
                                         : g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, NULL, error);
    if (address == NULL) return NULL;
    GDBusConnection *connection = g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
        NULL, NULL, error);
    g_free(address);
    if (connection != NULL) g_dbus_connection_set_exit_on_close(connection, FALSE);
    return connection;
}

/// Sends `Notify` without waiting for its reply, with what libnotify 0.8 sends for the same
/// notification: an empty app icon, the icon as the `image-path` hint, the `urgency` byte, the
/// `category` and `sound-name` when given, and `sender-pid`. `actions` is a NULL-terminated list
/// of key, label, key, label…; `callback` runs on the calling thread's default main context.
static inline void hearth_notify_send(
    GDBusConnection *connection, const char *app_name, guint32 replaces_id, const char *summary, const char *body,
    const char *icon, const char *const *actions, guchar urgency, const char *category, const char *sound,
    gint32 timeout, GAsyncReadyCallback callback, gpointer data) {
    GVariantBuilder action_list, hints;
    g_variant_builder_init(&action_list, G_VARIANT_TYPE("as"));
    for (const char *const *action = actions; action != NULL && *action != NULL; action++) {
        g_variant_builder_add(&action_list, "s", *action);
    }
    g_variant_builder_init(&hints, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&hints, "{sv}", "urgency", g_variant_new_byte(urgency));
    if (category != NULL && *category != '\0') {
        g_variant_builder_add(&hints, "{sv}", "category", g_variant_new_string(category));
    }
    if (sound != NULL) g_variant_builder_add(&hints, "{sv}", "sound-name", g_variant_new_string(sound));
    if (icon != NULL && *icon != '\0') {
        g_variant_builder_add(&hints, "{sv}", "image-path", g_variant_new_string(icon));
    }
    g_variant_builder_add(&hints, "{sv}", "sender-pid", g_variant_new_int64(getpid()));
    g_dbus_connection_call(
        connection, HEARTH_NOTIFICATIONS_NAME, HEARTH_NOTIFICATIONS_PATH, HEARTH_NOTIFICATIONS_NAME, "Notify",
        g_variant_new(
            "(susssasa{sv}i)", app_name, replaces_id, "", summary, body, &action_list, &hints, timeout),
        G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, callback, data);
}

/// Sends `CloseNotification(id)` without waiting for its reply.
static inline void hearth_notify_close(
    GDBusConnection *connection, guint32 id, GAsyncReadyCallback callback, gpointer data) {
    g_dbus_connection_call(
        connection, HEARTH_NOTIFICATIONS_NAME, HEARTH_NOTIFICATIONS_PATH, HEARTH_NOTIFICATIONS_NAME,
        "CloseNotification", g_variant_new("(u)", id), NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, callback, data);
}

/// The reply to a call: `TRUE` with the id a `Notify` returned in `id` (when not NULL), or
/// `FALSE` with the error.
static inline gboolean hearth_notify_finish(
    GDBusConnection *connection, GAsyncResult *result, guint32 *id, GError **error) {
    GVariant *reply = g_dbus_connection_call_finish(connection, result, error);
    if (reply == NULL) return FALSE;
    if (id != NULL) g_variant_get(reply, "(u)", id);
    g_variant_unref(reply);
    return TRUE;
}

/// Subscribes to the notification server's signals (`ActionInvoked` is the one read);
/// `free_data` runs once no callback can come any more (after unsubscribing, GDBus may still
/// dispatch one already queued).
static inline guint hearth_notify_subscribe(
    GDBusConnection *connection, GDBusSignalCallback callback, gpointer data, GDestroyNotify free_data) {
    return g_dbus_connection_signal_subscribe(
        connection, HEARTH_NOTIFICATIONS_NAME, HEARTH_NOTIFICATIONS_NAME, NULL, HEARTH_NOTIFICATIONS_PATH, NULL,
        G_DBUS_SIGNAL_FLAGS_NONE, callback, data, free_data);
}

/// Subscribes to the bus's `NameOwnerChanged` for the notification server's name: it comes when
/// a server takes the name (starts, or restarts after a crash), gives it up, or is replaced.
static inline guint hearth_owner_subscribe(
    GDBusConnection *connection, GDBusSignalCallback callback, gpointer data, GDestroyNotify free_data) {
    return g_dbus_connection_signal_subscribe(
        connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
        HEARTH_NOTIFICATIONS_NAME, G_DBUS_SIGNAL_FLAGS_NONE, callback, data, free_data);
}

/// `NameOwnerChanged(s name, s old_owner, s new_owner)`'s new owner ("" when the name was given
/// up); `FALSE` for any other signature. `owner` points into `parameters`.
static inline gboolean hearth_signal_new_owner(GVariant *parameters, const char **owner) {
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sss)"))) return FALSE;
    g_variant_get(parameters, "(&s&s&s)", NULL, NULL, owner);
    return TRUE;
}

/// `ActionInvoked(u id, s action)`'s arguments; `FALSE` for any other signature. `action`
/// points into `parameters`.
static inline gboolean hearth_signal_action(GVariant *parameters, guint32 *id, const char **action) {
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(us)"))) return FALSE;
    g_variant_get(parameters, "(u&s)", id, action);
    return TRUE;
}

#endif
