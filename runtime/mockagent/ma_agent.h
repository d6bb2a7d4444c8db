/* SPDX-License-Identifier: MIT */
/* ma_agent.h - the mock agent as a target (runtime/rt.h): the VM hands it
** the scenario's ops at their times and it plays the agent's side for
** real (docs/mock-agent.md):
**
**   THINK, ASSISTANT, LLM_ERROR, PLAN_UPDATE   printed on the transcript
**   TOOL_START    the tool executed in the work folder (ma_tool.h), an
**                 agent's tool name read back with its profile first
**   TOOL_RESULT   the real result and status compared with the scenario's
**                 (runtime/llm/llm_toolres.h, the real-agent target's rules)
**   FILE_EDIT     the agentEdits rule (runtime/scn_edit.h) applied to the
**                 file, and its line count checked
**   ASSERT        evaluated in the work folder (runtime/scn_assert.h;
**                 text.contains has no screen here and is skipped)
**
** and runs the checkpoint command after each tool and edit.  With an
** input descriptor, each USER_INPUT waits for the prompt the program under
** test passes on (one line per line of the scripted text) and checks it.
** The rest of the user's side, the harness's screenshots and the ACP
** structure are not the agent's: they pass by at their times.  A check that does not hold is
** reported on the diagnostics stream and counted; the run goes on, and
** its status at the end is SC_FAILED.  A signal caught by rt_cancel
** (runtime/rt_cancel.h) stops the run with 128 + its number, the running
** command's process group killed. */
#ifndef SC_MA_AGENT_H
#define SC_MA_AGENT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/buf.h"
#include "formats/bc.h"
#include "runtime/player.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/rt.h"
#include "runtime/rt_clock.h"

typedef struct MaAgentOpts {
    const char *root;               /* the work folder ("" or NULL = ".") */
    const char *file;               /* the input, as messages name it */
    FILE *out;                      /* the transcript, or NULL for none */
    FILE *diag;                     /* diagnostics (mismatches and their diffs) */
    bool color;                     /* ANSI styles on the transcript */
    const char *checkpoint_cmd;     /* `sh -c` after each tool and edit, or NULL */
    const AgentProfile *profile;    /* read agent tool names back, or NULL */
    unsigned timeout_ms;            /* runCmd's default (0 = MA_RUN_TIMEOUT_MS) */
    int input_fd;                   /* >= 0: each userInputs waits for its prompt here */
} MaAgentOpts;

typedef struct MaStats {
    unsigned tools, edits, asserts, checkpoints, inputs;
    unsigned checks, passed, failed;
    unsigned refused;               /* of the failed: paths outside the folder */
    int signal;                     /* the signal that stopped the run, or 0 */
} MaStats;

/* Before anything runs: every tool call of p names a tool the mock agent
** executes, with arguments it takes (an agent's name read back with
** profile, against the folder root).  Returns 0, or SC_USAGE with one line
** per refused call appended to why ("LINE: why"). */
int ma_agent_check(const BcProgram *p, const AgentProfile *profile, const char *root, Buf *why);

/* A new target (destroy with t->vt->destroy), or NULL when out of memory.
** The strings of o must outlive it. */
RtTarget *ma_agent_new(const MaAgentOpts *o);
void ma_agent_stats(const RtTarget *t, MaStats *s);
/* The failed checks as a JSON array of {line, kind, tool?, message}. */
void ma_agent_failures_json(const RtTarget *t, Buf *out);

/* The clock for pacing: real time (rt_clock.h) whose waits end early when
** a signal cancels the run. */
typedef struct MaClock {
    RtClock clock;
    RtRealClock real;
} MaClock;
void ma_clock_init(MaClock *c);

/* The mock agent's op table (runtime/player.h): for the coverage test. */
extern const Player ma_player;

#endif
