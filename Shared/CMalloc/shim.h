#ifndef HEARTH_CMALLOC_SHIM_H
#define HEARTH_CMALLOC_SHIM_H
// glibc's malloc extensions (malloc_trim), which Swift's Glibc module does not carry: hearth-bus
// gives back what libzmq freed of a dropped subscriber's queue (StuckSubscribers).
#include <malloc.h>
#endif
