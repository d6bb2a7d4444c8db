/* SPDX-License-Identifier: MIT */
/* monotime.h - the monotonic clock in milliseconds, the one every loop,
** deadline and timeout here reads (CLOCK_MONOTONIC: never steps back). */
#ifndef SC_MONOTIME_H
#define SC_MONOTIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t sc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#endif
