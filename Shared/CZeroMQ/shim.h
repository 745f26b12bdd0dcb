#ifndef HEARTH_CZEROMQ_SHIM_H
#define HEARTH_CZEROMQ_SHIM_H
#include <zmq.h>
// zmq_poll(3) also waits on plain descriptors; an eventfd wakes a socket's thread for sending.
#include <sys/eventfd.h>
#include <sys/prctl.h>

/// Names the calling thread (a socket's thread shows by name in `top -H` and /proc). prctl(2) is
/// variadic, which Swift cannot call; Linux keeps the first 15 bytes.
static inline void hearth_name_this_thread(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}
#endif
