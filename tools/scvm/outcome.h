/* SPDX-License-Identifier: MIT */
/* outcome.h - what became of a run's scenarios, and its JUnit report
** (outcome.c), shared by the run targets' commands. */
#ifndef SC_SCVM_OUTCOME_H
#define SC_SCVM_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "formats/suite.h"
#include "runtime/pty/rt_pty.h"
#include "scvm.h"

/* What became of one scenario of a suite: one of these a scenario, so a
** pack of 1,000 holds 1,000 of them (176 bytes each; a message is on the
** heap, not inline). */
typedef struct Result {
    Buf out;
    int status;            /* vm_run's */
    bool done, skipped;
    bool has_goldens;      /* the PTY target: what became of the screenshots */
    RtPtyGoldens goldens;
    uint64_t duration;     /* scaled ms of the last op */
    const char *skip_why;  /* why a skipped scenario was not run */
    char *why;             /* the PTY target's error message (result_why), or NULL */
    const char *props;     /* more <property> elements (escaped), or NULL */
    Buf rec;               /* --report: its report.json record */
    uint64_t unchecked;    /* the sim target: the assertions it did not evaluate */
    uint64_t wall_ms;      /* how long it really took */
    Buf sysout;            /* JUnit <system-out>: the transcript's tail, a failure's diagnostics (NUL-ended, or empty) */
} Result;

/* r->why := a copy of why (heap), or NULL when why is NULL or empty or
** memory ran out (the readers then say something general). */
void result_why(Result *r, const char *why);

/* Frees what r holds (its buffers and message) and clears it. */
void result_fini(Result *r);

/* What the simulation did not check, for stderr and JUnit's <skipped>
** (of how many scenarios when more than one).  Returns out. */
const char *scvm_unchecked_text(uint64_t n, size_t scenarios, char *out, size_t cap);

/* JUnit's <system-out> of a PTY or agent run, into out (NUL-ended; left
** empty when there is nothing to say): the last 2 KiB of the run's
** transcript, its escape sequences and carriage returns taken out
** (artifacts: the run's artifacts folder, or NULL: none kept), then, when
** status is not 0, the run's diagnostics (diag[0..n): the failure's
** message and a golden mismatch's diff). */
void scvm_system_out(Buf *out, const char *artifacts, int status, const char *diag, size_t n);

/* --junit: the selection's results (res[k] for entry sel[k]) and totals.
** Returns 0 or SC_IO (printed). */
int scvm_write_junit(const Opts *o, const Suite *s, const uint32_t *sel, size_t n, const Result *res,
                     size_t failed, size_t errors, size_t skipped);

#endif
