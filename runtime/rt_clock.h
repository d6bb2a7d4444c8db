/* SPDX-License-Identifier: MIT */
/* rt_clock.h - the two clocks: virtual (simulation) and real time.
**
** The virtual clock makes simulation instant and exactly repeatable: it
** never reads the system time.  The real-time clock sleeps on
** CLOCK_MONOTONIC until start + at_ms, where start is when it was
** initialised, so scheduling error never accumulates across ops. */
#ifndef SC_RT_CLOCK_H
#define SC_RT_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "rt.h"

/* The smallest speed multiplier; smaller ones (0, negatives, NaN) are
** raised to it, so no timeline collapses to a single instant (as the
** Scenario-Format says). */
#define RT_SPEED_MIN 0.01

/* THE time scaling: the time (ms) that unscaled time t is played at under
** a speed multiplier (< 1 faster, > 1 slower): round(t * speed), halves
** away from zero, computed from t alone so there is no accumulated drift.
** speed 1 is exact for every t; results beyond UINT64_MAX saturate.  The
** VM scales op times with it and every target its own delays, so one run
** has one notion of scaled time (docs/timing.md). */
uint64_t rt_clock_scale_long(uint64_t t, double speed);
/* Inline for the common case: the VM scales every op's time. */
static inline uint64_t rt_clock_scale(uint64_t t, double speed)
{
    if (speed == 1.0 || t == 0)
        return t;               /* exact even above 2^53 */
    return rt_clock_scale_long(t, speed);
}

/* A clock whose wait_until returns at once.  Stateless and shared. */
RtClock *rt_clock_virtual(void);

/* Caller-owned real-time clock; pass &c->clock to vm_run(). */
typedef struct RtRealClock {
    RtClock clock;
    struct timespec start;  /* CLOCK_MONOTONIC at init */
} RtRealClock;

/* Starts the clock now: at_ms 0 is the moment of this call.  Waits retry
** after signals (EINTR) and return at once for times already past. */
void rt_clock_realtime_init(RtRealClock *c);

/* Milliseconds since rt_clock_realtime_init (for tests and diagnostics). */
uint64_t rt_clock_realtime_elapsed_ms(const RtRealClock *c);

#endif
