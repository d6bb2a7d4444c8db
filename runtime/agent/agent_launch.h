/* SPDX-License-Identifier: MIT */
/* agent_launch.h - a real agent's launch from its profile (agent_profile.h;
** docs/real-agents.md, "Profiles"): the profile's files written, its
** command line and its environment expanded with the launch variables
** (prompt, base_url, key, home, workspace, model).  Shared by the agent
** target (scvm run -t agent) and the agent-under-test target's PTY
** transport (scvm run -t aut --via pty --agent NAME). */
#ifndef SC_AGENT_LAUNCH_H
#define SC_AGENT_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/agent/agent_profile.h"

struct cJSON;

typedef struct AgentLaunch {
    char **argv;                /* the command line, NULL-terminated */
    char **envv;                /* "NAME=VALUE", on top of the caller's environment, NULL-terminated
                                ** (NULL: the profile has no env) */
} AgentLaunch;

/* Writes the profile's `files` (each path must expand to a place under home
** or ws) and builds the launch: the profile's command (or bin when not
** NULL), its interactive or headless arguments, then extra (NULL: none);
** its `env`.  Returns 0, or a status (SC_USAGE: a template the variables
** cannot fill or a file outside home and ws; SC_IO: a file cannot be
** written; SC_RUNTIME: out of memory) with the reason in err, naming the
** profile.  agent_launch_fini after, also on failure. */
int agent_launch_prepare(const AgentProfile *p, bool interactive, const struct cJSON *vars, const char *home,
                         const char *ws, const char *bin, char *const *extra, AgentLaunch *out, char *err,
                         size_t cap);

void agent_launch_fini(AgentLaunch *l);

#endif
