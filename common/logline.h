/* SPDX-License-Identifier: MIT */
/* logline.h - one line of a server's log: its prefix ("scvm serve rest: "),
** the message, a newline, flushed (a log read by a test or a person while
** the server runs must not wait in a buffer). */
#ifndef SC_LOGLINE_H
#define SC_LOGLINE_H

#include <stdarg.h>
#include <stdio.h>

static inline void sc_log_line(FILE *f, const char *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static inline void sc_log_line(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
    fputs(prefix, f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    fflush(f);
}

#endif
