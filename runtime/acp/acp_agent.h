/* SPDX-License-Identifier: MIT */
/* acp_agent.h - the mock ACP agent: a suite's scenarios played as the agent
** side of the Agent Client Protocol v1 (newline-delimited JSON-RPC 2.0) for
** the client under test, over a pair of file descriptors (scvm serve acp:
** stdin and stdout).  docs/serve-acp.md is the user's description; the
** protocol facts are in the notes (mock-protocols.md section 6).
**
** What it plays, per session:
**   initialize      answered from the scenario's initialize.expectedResponse,
**                   then acp.capabilities for what that does not name; the
**                   client's request is checked against the scripted one
**   session/new     a session of the scenario chosen by --scenario, the
**                   request's _meta "scvm.scenario", the only candidate, or
**                   (packs) the first prompt's nearest initial prompt
**   session/load    the scenario whose sessionStart.sessionId (or name) is
**                   the id (unknown ids are refused); its history, the ops
**                   before sessionStart, is replayed as session/update
**   session/prompt  plays the session's next turn of the live ops (after
**                   sessionStart) at their compiled times scaled by speed:
**                   updates, and the client calls agentFileReads,
**                   agentEdits, agentPermissionRequest and runCmd (when the
**                   client has terminals) make, whose answers are checked
**   session/cancel, set_mode, set_model (acp.unstable), authenticate
** A client answer that differs from the script is a failed check: reported
** on the log with a diff, counted, and the session goes on. */
#ifndef SC_ACP_AGENT_H
#define SC_ACP_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/suite.h"
#include "runtime/player.h"

typedef struct AcpServeOpts {
    double speed;               /* multiplies scripted times; 0 = no waiting */
    const uint32_t *only;       /* the candidate entries (NULL: all) */
    size_t n_only;
    unsigned client_timeout_ms; /* a client call unanswered this long fails (0 = 30000) */
    unsigned tool_timeout_ms;   /* a runCmd without args.timeout is killed after (0 = 600000) */
    const char *passthrough;    /* non-NULL: a runCmd's terminal runs `PROGRAM show-sandbox-execution CMD
                                ** --id TOOLCALLID` (the spec's passthrough mode; Agent Harbor's is `ah`) */
    size_t max_line;            /* longest message accepted (0 = 16 MiB) */
    int cancel_fd;              /* readable = stop (a signal arrived), or -1 */
    FILE *log;                  /* diagnostics and failures; NULL = stderr */
    bool quiet;                 /* no per-message log lines */
} AcpServeOpts;

typedef struct AcpCounts {
    unsigned messages;          /* JSON-RPC messages received */
    unsigned sessions, prompts, updates, client_calls;
    unsigned passed, failed, skipped;   /* checks */
    unsigned protocol_errors;   /* error responses sent for bad messages */
} AcpCounts;

/* Serves one client on in_fd/out_fd until in_fd ends (the client closed
** it) or cancel_fd becomes readable.  Returns 0 (the counts in *c; failed
** checks are in c->failed, not in the return), or an errno: EPIPE when the
** client stopped reading, ENOMEM, or a read error. */
int acp_serve(const Suite *s, const AcpServeOpts *o, int in_fd, int out_fd, AcpCounts *c);

/* The ACP tool kind of a tool name (read, edit, delete, move, search,
** execute, think, fetch, switch_mode, other): scenario names and the real
** agents' own (Bash, Edit, run_shell_command ...), case-insensitive. */
const char *acp_tool_kind(const char *tool);

/* The op tables of live play (a prompt turn) and of history replay
** (session/load), which share handlers (runtime/player.h): for the
** coverage test. */
extern const Player acp_live_player, acp_history_player;

#endif
