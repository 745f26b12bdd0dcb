#ifndef HEARTH_CZEROMQ_SHIM_H
#define HEARTH_CZEROMQ_SHIM_H
#include <zmq.h>
// zmq_poll(3) also waits on plain descriptors; an eventfd wakes a socket's thread for sending.
#include <sys/eventfd.h>
#endif
