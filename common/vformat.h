/* SPDX-License-Identifier: MIT */
/* vformat.h - the message of a printf-like function, in one line.
**
**     static void fail(R *r, const char *fmt, ...)
**     {
**         SC_VFORMAT(r->msg, sizeof r->msg, fmt);
**         ...
**
** formats the arguments after fmt into out (cap bytes, cut and always
** NUL-terminated, as snprintf does). */
#ifndef SC_VFORMAT_H
#define SC_VFORMAT_H

#include <stdarg.h>
#include <stdio.h>

#define SC_VFORMAT(out, cap, fmt)                \
    do {                                         \
        va_list sc_ap_;                          \
        va_start(sc_ap_, fmt);                   \
        vsnprintf((out), (cap), (fmt), sc_ap_);  \
        va_end(sc_ap_);                          \
    } while (0)

#endif
