#ifndef HEARTH_CLIBICAL_SHIM_H
#define HEARTH_CLIBICAL_SHIM_H
// libical 3.0 (Debian's libical-dev): RFC 5545 recurrence rules and iCalendar.
#include <libical/ical.h>
#endif
