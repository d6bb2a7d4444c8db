/* SPDX-License-Identifier: MIT */
/* run_target.c - the table of targets (run_target.h).  Before it, which
** target a name meant, how -j ran it and what it refused were an if-chain
** in tools/scvm/cmd_run.c and a runner of its own per target. */
#include <string.h>

#include "runtime/aut/aut_target.h"
#include "runtime/mockagent/ma_agent.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt_sim.h"
#include "runtime/run/run_target.h"

static RtTarget *sim_create(const void *o) { return rt_sim_new(o); }
static RtTarget *pty_create(const void *o) { return rt_pty_new(o); }
static RtTarget *aut_create(const void *o) { return rt_aut_new(o); }
static RtTarget *mockagent_create(const void *o) { return ma_agent_new(o); }

/* A PTY session (or an agent's, in a PTY) records, exits with and explains
** one scenario: not a pack or a selection. */
static const char *session_check(unsigned given, bool suite)
{
    if (!suite)
        return NULL;
    return given & RUN_OPT_CAST      ? "--cast records one session: not with a pack or a selection"
           : given & RUN_OPT_DM_EXIT ? "--data-model-exit needs one scenario: not a pack or a selection"
           : given & RUN_OPT_EXPLAIN ? "--explain-policy needs one scenario: not a pack or a selection"
                                     : NULL;
}

const RunTarget run_targets[] = {
    /* the simulation: events at their scheduled times, instantly */
    { "sim", sim_create, NULL, false },
    /* a program in a pseudo-terminal (runtime/pty) */
    { "pty", pty_create, session_check, true },
    /* a real agent's TUI in a PTY against the mock LLM server
    ** (tools/scvm/cmd_agent.c orchestrates; docs/real-agents.md) */
    { "agent", pty_create, session_check, true },
    /* an agent under test, case by case (runtime/aut) */
    { "aut", aut_create, NULL, true },
    /* the mock agent (`scvm agent`; runtime/mockagent) */
    { "mockagent", mockagent_create, NULL, true },
};
const size_t run_n_targets = sizeof run_targets / sizeof run_targets[0];

const RunTarget *run_target(const char *name)
{
    for (size_t i = 0; name && i < run_n_targets; i++)
        if (strcmp(run_targets[i].name, name) == 0)
            return &run_targets[i];
    return NULL;
}
