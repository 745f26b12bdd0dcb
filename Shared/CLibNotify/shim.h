#ifndef HEARTH_CLIBNOTIFY_SHIM_H
#define HEARTH_CLIBNOTIFY_SHIM_H
#include <libnotify/notify.h>
#endif
