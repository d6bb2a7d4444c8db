/* SPDX-License-Identifier: MIT */
/* rt_cancel.h - cancelling a run by signal: SIGTERM, SIGINT and SIGHUP are
** recorded instead of ending the process, so the run stops the way a
** budget stops it (programs terminated and reaped, artifacts finished)
** and the caller then exits with 128 + the signal's number.
**
** The state is process-wide.  rt_cancel_install() may be called again in a
** forked child: the child gets a pipe of its own, and a signal that
** arrived before is not lost (the new pipe is made readable at once). */
#ifndef SC_RT_CANCEL_H
#define SC_RT_CANCEL_H

/* Catches SIGTERM, SIGINT and SIGHUP (without SA_RESTART, so a blocking
** wait returns EINTR and the caller can look).  0, or -1 with errno. */
int rt_cancel_install(void);

/* Restores the default actions (for a child about to exec). */
void rt_cancel_uninstall(void);

/* Readable once a signal arrived; -1 when not installed, and in a child
** of fork(3) until it installs its own (no system call: it runs before
** every wait of a run). */
int rt_cancel_fd(void);

/* The first signal that arrived, 0 for none. */
int rt_cancel_signal(void);

#endif
