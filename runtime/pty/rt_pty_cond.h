/* SPDX-License-Identifier: MIT */
/* rt_pty_cond.h - evaluating a wait/check condition (formats/cond.h) on a
** screen and a session: one evaluator for the PTY target's steps and the
** session API's waits (scc/session.h), so a condition means the same in a
** scenario and in `scvm driver`. */
#ifndef SC_RT_PTY_COND_H
#define SC_RT_PTY_COND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "formats/cond.h"
#include "rt_pty_screen.h"
#include "rt_pty_session.h"

/* True when c holds on scr (and sess: NULL before the spawn).  last_change
** is the monotonic ms of the screen's last change (screen_stable); scratch
** is a buffer to render into.  A quiet-period condition that does not
** hold yet sets *wake to when it may. */
bool pty_cond_holds(const Cond *c, const PtyScreen *scr, const PtySession *sess, uint64_t last_change,
                    Buf *scratch, uint64_t *wake);
/* Why c does not hold, for messages. */
void pty_cond_why(const Cond *c, const PtyScreen *scr, const PtySession *sess, char *out, size_t n);

#endif
