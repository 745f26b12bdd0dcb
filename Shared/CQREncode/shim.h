#ifndef HEARTH_CQRENCODE_SHIM_H
#define HEARTH_CQRENCODE_SHIM_H
// libqrencode 4 (Debian's libqrencode-dev): the QR code `hearth web token` prints for phones.
#include <qrencode.h>
#endif
