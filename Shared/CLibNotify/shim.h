#ifndef HEARTH_CLIBNOTIFY_SHIM_H
#define HEARTH_CLIBNOTIFY_SHIM_H
#include <libnotify/notify.h>

// GObject's property and signal calls are variadic or macros, which Swift cannot call; these
// wrappers give them fixed signatures.

/// The server-assigned id of a shown notification (0 before it is shown).
static inline int hearth_notification_id(NotifyNotification *notification) {
    int id = 0;
    g_object_get(notification, "id", &id, NULL);
    return id;
}

/// Sets the id a notification shows and closes under: one a server assigned to an earlier
/// process's popup, so this process can replace or close it.
static inline void hearth_notification_set_id(NotifyNotification *notification, int id) {
    g_object_set(notification, "id", id, NULL);
}

/// Releases one reference to a notification.
static inline void hearth_notification_unref(NotifyNotification *notification) {
    g_object_unref(notification);
}
#endif
