/* SPDX-License-Identifier: MIT */
/* status.h - the one table of exit statuses.
**
** scc and scvm exit with these numbers, the VM and every target return
** them, and the installed C API's SCC_E* codes are the same numbers
** (lib/scc_api.c checks that at compile time).  docs/exit-status.md prints
** this table and a test keeps the two equal.  Stable: scripts depend on the
** numbers.  With several inputs a command exits with the highest status of
** theirs. */
#ifndef SC_STATUS_H
#define SC_STATUS_H

#define SC_STATUSES(X)                                                                              \
    X(OK, 0, "ok")                                                                                  \
    X(FAILED, 1, "failed: a source file has errors (scc), or a scenario's check did not hold (scvm)") \
    X(USAGE, 2, "usage error: unknown command or option, missing or bad argument")                 \
    X(IO, 3, "I/O error: an input cannot be read, or the output cannot be written")                \
    X(REJECTED, 4, "rejected: a .scb or pack failed loading or verification")                      \
    X(RUNTIME, 5, "runtime or internal error: out of memory, a target failed, or a bug")

typedef enum ScStatus {
#define X(name, num, text) SC_##name = num,
    SC_STATUSES(X)
#undef X
} ScStatus;

#endif
