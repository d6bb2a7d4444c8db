/* SPDX-License-Identifier: MIT */
/* run_target.h - the table of targets a program plays on
** (docs/architecture.md, "The run library").  One row per target: its
** name (`scvm run -t NAME`; the mock agent is `scvm agent`), how to make
** one for a scenario, what it refuses, and whether each scenario needs a
** process of its own, which is how the worker pool (run_pool.h) runs it
** for -j.  A new target is a row here and its vtable (runtime/rt.h). */
#ifndef SC_RUN_TARGET_H
#define SC_RUN_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/rt.h"
#include "runtime/run/run_pool.h"

/* Options the command line was given that some target refuses, as bits
** (the command line's parser sets them; the table says who refuses). */
enum {
    RUN_OPT_CAST = 1u << 0,         /* --cast: records one session */
    RUN_OPT_DM_EXIT = 1u << 1,      /* --data-model-exit: one scenario's statuses */
    RUN_OPT_EXPLAIN = 1u << 2,      /* --explain-policy: one scenario's policy */
};

typedef struct RunTarget {
    const char *name;
    /* A target for one scenario from its own options (RtSimOpts,
    ** RtPtyOpts, AutTargetOpts, MaAgentOpts); NULL when out of memory.
    ** Destroy with t->vt->destroy. */
    RtTarget *(*create)(const void *opts);
    /* NULL, or why the options given (RUN_OPT_* bits) do not go with this
    ** target: suite is true for a pack or a selection. */
    const char *(*check)(unsigned given, bool suite);
    /* Each scenario in a process of its own (SIGCHLD handling, orphan
    ** sweeps and the cancel pipe are process-wide): -j forks. */
    bool needs_process;
} RunTarget;

/* The rows, and their number. */
extern const RunTarget run_targets[];
extern const size_t run_n_targets;

/* The row named name, or NULL. */
const RunTarget *run_target(const char *name);

/* How the pool runs a suite on t: threads or a process each. */
static inline RunPoolMode run_target_pool(const RunTarget *t)
{
    return t->needs_process ? RUN_POOL_PROCESSES : RUN_POOL_THREADS;
}

#endif
