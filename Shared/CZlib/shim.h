#ifndef HEARTH_CZLIB_SHIM_H
#define HEARTH_CZLIB_SHIM_H
// zlib (Debian's zlib1g-dev): deflate for the pages of operations hearth-sync sends.
#include <zlib.h>
#endif
