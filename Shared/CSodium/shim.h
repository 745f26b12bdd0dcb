#ifndef HEARTH_CSODIUM_SHIM_H
#define HEARTH_CSODIUM_SHIM_H
// libsodium 1.0.18 (Debian's libsodium-dev, which libzmq already links): BLAKE2b hashing,
// random bytes and constant-time comparison for pairing.
#include <sodium.h>
#endif
