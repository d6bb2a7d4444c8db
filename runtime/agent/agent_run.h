/* SPDX-License-Identifier: MIT */
/* agent_run.h - one scenario against a real coding agent, with one
** verdict (docs/real-agents.md): the orchestration beside the agent
** profiles it reads.
**
** The parts: the mock LLM server (runtime/llm/llm.h) on a thread of its
** own, on an ephemeral loopback port, speaking the agent's tool vocabulary
** (its profile, agent_profile.h); the agent in a PTY (runtime/pty/rt_pty.h)
** with the profile's command line and environment, its HOME a fresh
** folder, in a workspace made from the scenario.  The caller plays the
** timeline on the target agent_run_start makes (the VM is a layer above
** runtime/): its agent-side ops wait for the agent (RtPtyAgent), an
** llmResponse's end until the agent has asked for that response and it
** has been sent, a tool's result until the agent has sent the next request
** (which carries the result).  agent_run_finish joins the server's verdict
** (every response served, tool results as expected, workspace assertions,
** strict tools) to the terminal's.
**
**     AgentRun *ar;
**     int st = agent_run_start(&opts, suite, idx, &ar);
**     if (!st)
**         st = vm_run(prog, agent_run_target(ar), rt_pty_clock(agent_run_target(ar)), &vo);
**     st = agent_run_finish(ar, st, &outcome);
**
** Diagnostics go to opts.diag, never elsewhere. */
#ifndef SC_AGENT_RUN_H
#define SC_AGENT_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/suite.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt.h"

typedef struct AgentRunOpts {
    const char *agent;              /* the profile: a shipped name or a file (required) */
    const char *agent_bin;          /* the agent's program instead of the profile's, or NULL */
    char **command;                 /* more arguments for it, or NULL */
    bool interactive;               /* its TUI even when it has a headless mode */
    bool strict_tools;              /* the server refuses tools the profile does not declare */
    double speed;
    unsigned turn_timeout_ms;       /* 0: 180 s */
    unsigned type_delay_ms;         /* when type_delay_set, else the profile's */
    bool type_delay_set;
    const char *path;               /* the scenario's file, for messages */
    /* the PTY target's (RtPtyOpts) */
    const char *scenario_dir, *goldens, *artifacts, *cast, *cancel_key;
    bool update_goldens, raw_goldens, cells, keep_ws, ci;
    bool dm_exit;                   /* the run's status is the data model's error */
    FILE *events, *diag;
} AgentRunOpts;

/* What became of one scenario played against an agent. */
typedef struct AgentOutcome {
    struct RtPtyGoldens goldens;
    char why[1024];             /* the run's error message, or "" */
    char agent[96];             /* "PROFILE MODE" once the run started, else "" */
} AgentOutcome;

typedef struct AgentRun AgentRun;

/* Loads the profile, makes the run's folders, starts the server and makes
** the PTY target for entry idx of suite.  Signals must be caught
** (rt_cancel_install) by the caller.  Returns 0 with *out set, or a status
** (printed to diag) with *out set or NULL: either way call
** agent_run_finish. */
int agent_run_start(const AgentRunOpts *o, const Suite *suite, uint32_t idx, AgentRun **out);

/* The target to play the program on (its clock: rt_pty_clock). */
RtTarget *agent_run_target(AgentRun *a);

/* Ends the run (status: the play's, or agent_run_start's) and frees it
** (a may be NULL): the server stopped, its log kept in the artifacts, the
** folders removed (unless keep_ws).  Returns the run's status (128 + a
** signal when one cancelled it). */
int agent_run_finish(AgentRun *a, int status, AgentOutcome *res);

#endif
