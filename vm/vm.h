/* SPDX-License-Identifier: MIT */
/* vm.h - the scenario interpreter: plays a verified program against a target.
**
** The program comes from bc_load(), which already checked the container and
** verified every op, so vm_run() never re-validates: it only asserts its
** invariants in debug builds.  Time and output go through the RtClock and
** RtTarget interfaces (runtime/rt.h), so the same loop drives the instant
** simulation and real-time playback. */
#ifndef SC_VM_H
#define SC_VM_H

#include <stdint.h>

#include "common/status.h"
#include "formats/bc.h"
#include "runtime/rt.h"

/* Run statuses: the one table, common/status.h.  Targets return these
** from begin/op/end. */

typedef struct VmOpts {
    /* Multiplier on every scheduled time: < 1 plays faster, > 1 slower;
    ** each op's time is rt_clock_scale(t, speed) (runtime/rt_clock.h), the
    ** function every target scales its own times with.  Values below
    ** RT_SPEED_MIN (and NaN) are treated as RT_SPEED_MIN; the CLI rejects
    ** NaN, infinities and negatives before we get here. */
    double speed;
} VmOpts;

/* Plays prog on target: begin, then for each op waits for the clock to
** reach its scaled time and hands it to the target, stopping after the END
** op or when the target returns nonzero; then end.  clock NULL = virtual
** (instant), opts NULL = speed 1.  Does not allocate.  Returns the first
** nonzero status of begin/op, else end's status (a ScStatus by convention). */
int vm_run(const BcProgram *prog, RtTarget *target, RtClock *clock, const VmOpts *opts);

#endif
