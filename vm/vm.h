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

#include "formats/bc.h"
#include "runtime/rt.h"

/* Run statuses, also scvm's exit statuses (docs/scvm.md).  Targets return
** these from begin/op/end.  Stable: scripts depend on the numbers. */
#define VM_STATUSES(X)                                              \
    X(OK, 0, "ok")                                                  \
    X(FAILED, 1, "scenario failed (a check did not hold)")          \
    X(USAGE, 2, "usage error")                                      \
    X(IO, 3, "I/O error (cannot read input or write output)")       \
    X(REJECTED, 4, "bytecode rejected (load or verify failure)")    \
    X(RUNTIME, 5, "target or runtime error")

typedef enum VmStatus {
#define X(name, num, text) VM_##name = num,
    VM_STATUSES(X)
#undef X
} VmStatus;

/* The smallest speed multiplier; smaller ones are raised to it, so no
** timeline collapses to a single instant (as the Scenario-Format says). */
#define VM_SPEED_MIN 0.01

typedef struct VmOpts {
    /* Multiplier on every scheduled time: < 1 plays faster, > 1 slower.
    ** Values below VM_SPEED_MIN (and NaN) are treated as VM_SPEED_MIN;
    ** the CLI rejects NaN, infinities and negatives before we get here. */
    double speed;
} VmOpts;

/* The time an op at unscaled time t (ms) is played at: llround(t * speed),
** rounding halves away from zero, computed from t alone so there is no
** accumulated drift.  speed 1 is exact for every t; results beyond
** UINT64_MAX saturate. */
uint64_t vm_scale_time(uint64_t t, double speed);

/* Plays prog on target: begin, then for each op waits for the clock to
** reach its scaled time and hands it to the target, stopping after the END
** op or when the target returns nonzero; then end.  clock NULL = virtual
** (instant), opts NULL = speed 1.  Does not allocate.  Returns the first
** nonzero status of begin/op, else end's status (a VmStatus by convention). */
int vm_run(const BcProgram *prog, RtTarget *target, RtClock *clock, const VmOpts *opts);

#endif
