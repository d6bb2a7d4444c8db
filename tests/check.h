/* SPDX-License-Identifier: MIT */
/* check.h - the one CHECK of the C unit tests.  A condition that does not
** hold is printed as `FILE:LINE: check failed: COND` (CHECKF adds a
** printf-style message after it) and counted in `failures`; the test goes
** on, and its main returns non-zero when failures is.  A test made of
** several files defines CHECK_FAILURES as its one counter (declared extern)
** before including this (tests/formats/tf.h).  Fuzz targets keep their own
** CHECK, which aborts: libFuzzer sees a crash, not a count. */
#ifndef SC_TESTS_CHECK_H
#define SC_TESTS_CHECK_H

#include <stdio.h>

#ifndef CHECK_FAILURES
#define CHECK_FAILURES failures
static int failures;
#endif

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            CHECK_FAILURES++;                                                       \
        }                                                                           \
    } while (0)

#define CHECKF(cond, ...)                                                           \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            CHECK_FAILURES++;                                                       \
        }                                                                           \
    } while (0)

/* Two unsigned numbers equal, both shown when not. */
#define CHECK_U64(got, want)                                                        \
    do {                                                                            \
        unsigned long long g_ = (got), w_ = (want);                                 \
        if (g_ != w_) {                                                             \
            fprintf(stderr, "%s:%d: %s = %llu, expected %llu\n", __FILE__, __LINE__, #got, g_, w_); \
            CHECK_FAILURES++;                                                       \
        }                                                                           \
    } while (0)

#endif
