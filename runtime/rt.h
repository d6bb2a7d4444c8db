/* SPDX-License-Identifier: MIT */
/* rt.h - the one interface between the VM and the targets it drives.
**
** A target receives every op at its scheduled time; the clock is separate
** and also goes through an interface, so simulation replays exactly
** (virtual clock) and --realtime waits on the monotonic clock. */
#ifndef SC_RT_H
#define SC_RT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/status.h"
#include "formats/bc.h"

typedef struct RtTarget RtTarget;

/* A target returns the statuses of common/status.h: SC_OK to go on,
** SC_FAILED when a check did not hold, SC_IO, SC_RUNTIME. */

typedef struct RtTargetVtbl {
    const char *name;
    /* Called once before the first op (may be NULL).  Returns 0 or a
    ** nonzero status. */
    int (*begin)(RtTarget *t, const BcProgram *p);
    /* Called for every op, in order, when the clock reaches at_ms (the op's
    ** time scaled by the speed).  Returns 0 to continue, nonzero to stop. */
    int (*op)(RtTarget *t, const BcProgram *p, const BcInsn *in, uint64_t at_ms);
    /* Called once after END or after a stop (may be NULL).  Returns the
    ** run's status. */
    int (*end)(RtTarget *t, const BcProgram *p);
    void (*destroy)(RtTarget *t);
} RtTargetVtbl;

struct RtTarget {
    const RtTargetVtbl *vt;
};

typedef struct RtClock RtClock;
struct RtClock {
    /* Blocks until at_ms after the run's start (virtual clocks return at once). */
    void (*wait_until)(RtClock *c, uint64_t at_ms);
};

#endif
