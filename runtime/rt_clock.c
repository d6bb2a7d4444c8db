/* SPDX-License-Identifier: MIT */
/* rt_clock.c - time scaling, and the virtual and CLOCK_MONOTONIC clocks
** behind RtClock. */
#include "rt_clock.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>

uint64_t rt_clock_scale_long(uint64_t t, double speed)
{
    if (speed == 1.0 || t == 0)
        return t;
    if (!(speed >= RT_SPEED_MIN))
        speed = RT_SPEED_MIN;   /* also catches NaN */
    double x = (double)t * speed;
    if (!(x < 18446744073709551616.0))
        return UINT64_MAX;      /* +inf, or beyond the range */
    /* round half away from zero, as llround() and the reference (Rust
    ** f64::round) do; x >= 0 here.  floor(x + 0.5) would misround the
    ** largest double below 0.5, so use round(). */
    return (uint64_t)round(x);
}

static void virtual_wait(RtClock *c, uint64_t at_ms)
{
    (void)c;
    (void)at_ms;
}

RtClock *rt_clock_virtual(void)
{
    static RtClock clock = { virtual_wait };
    return &clock;
}

/* Far enough that nobody waits for it, small enough that tv_sec + it never
** overflows a 64-bit time_t (or a 32-bit one within its own range). */
#define MAX_WAIT_S ((uint64_t)1 << 30)

static void realtime_wait(RtClock *clk, uint64_t at_ms)
{
    RtRealClock *c = (RtRealClock *)(void *)((char *)clk - offsetof(RtRealClock, clock));
    uint64_t s = at_ms / 1000;
    if (s > MAX_WAIT_S)
        s = MAX_WAIT_S;
    struct timespec dl = c->start;
    dl.tv_sec += (time_t)s;
    dl.tv_nsec += (long)(at_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    /* Absolute deadline: an interrupted sleep resumes toward the same
    ** instant, and a deadline in the past returns at once. */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL) == EINTR)
        ;
}

void rt_clock_realtime_init(RtRealClock *c)
{
    c->clock.wait_until = realtime_wait;
    clock_gettime(CLOCK_MONOTONIC, &c->start);
}

uint64_t rt_clock_realtime_elapsed_ms(const RtRealClock *c)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ns = (int64_t)(now.tv_sec - c->start.tv_sec) * 1000000000LL +
                 (now.tv_nsec - c->start.tv_nsec);
    return ns > 0 ? (uint64_t)ns / 1000000u : 0;
}
