/* SPDX-License-Identifier: MIT */
/* agent_profile.h - how a real coding agent is launched and which tools it
** has: a profile is a JSON data file (docs/real-agents.md, "Profiles").
**
** Shipped profiles (runtime/agent/profiles/NAME.json) are compiled in; a
** user's file of the same name overrides one (searched in $SCVM_AGENT_PATH,
** then $XDG_CONFIG_HOME/scvm/agents, else ~/.config/scvm/agents), and a
** path loads that file.
**
** Templates.  Strings in `command`, `headless`, `interactive.args`, `env`,
** `files` and the tools' `args` are templates: `{name}` is replaced by the
** variable `name`, `{{` and `}}` are braces.  A string that is one
** placeholder takes the variable's JSON value as it is (a number stays a
** number).  A placeholder is `{name}` or `{name?}` (optional: an object
** member or array element whose value is a missing optional is left out; in
** a longer string it is empty) followed by filters, each `|filter`:
**   abs        a path made absolute against the workspace
**   rel        a path made relative to the workspace (the inverse of abs)
**   sh         one shell word: in single quotes, each ' written '\''  
**   lines:P    every line prefixed with P ("-", "+")
**   tail:N     the last N characters
**   or:NAME    the variable NAME when `name` is missing
** Launch variables: prompt, base_url, key, home, workspace, model.  Tool
** variables: the scenario tool's arguments (runCmd's cmd, editFile's
** path, old_string, new_string, ...) plus workspace.
**
** Tools, both ways.  `tools` maps a scenario tool (runCmd, readFile,
** writeFile, editFile, grep, glob, ...) to {"tool": AGENT_NAME, "args":
** TEMPLATE}.  agent_map_call renders a scenario call as the agent's call;
** agent_unmap_call reads an agent's call back as the scenario's (members
** whose template is one placeholder, with no filter or abs, are read back). */
#ifndef SC_AGENT_PROFILE_H
#define SC_AGENT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

struct cJSON;

typedef struct AgentProfile AgentProfile;

/* The API a profile speaks, as scvm serve llm's endpoints name them. */
typedef enum AgentApi {
    AGENT_API_ANTHROPIC,        /* POST /v1/messages */
    AGENT_API_OPENAI_CHAT,      /* POST /v1/chat/completions */
    AGENT_API_OPENAI_RESPONSES, /* POST /v1/responses */
    AGENT_API_GEMINI,           /* POST /v1beta/models/M:streamGenerateContent */
} AgentApi;

/* The shipped profiles' names, NULL-terminated, in a fixed order. */
extern const char *const agent_profile_builtins[];

/* The shipped bytes of profile name, or NULL. */
const char *agent_profile_builtin(const char *name, size_t *len);

/* Loads a profile by name (user folders, then shipped) or by path (a name
** with a '/' or ending in ".json").  Returns NULL with the reason in err
** (what was tried, or file:line-free JSON position and the field at fault). */
AgentProfile *agent_profile_load(const char *name_or_path, char *err, size_t cap);

/* Parses and validates a profile; origin names it in messages. */
AgentProfile *agent_profile_parse(const char *json, size_t len, const char *origin, char *err, size_t cap);

void agent_profile_free(AgentProfile *p);

const char *agent_profile_name(const AgentProfile *p);
const char *agent_profile_origin(const AgentProfile *p);   /* "built-in" or the file */
AgentApi agent_profile_api(const AgentProfile *p);
const char *agent_api_name(AgentApi a);                    /* "anthropic", ... */
/* The profile as JSON (what `scvm agents show` prints). */
const struct cJSON *agent_profile_json(const AgentProfile *p);

/* Launch templates, as parsed JSON (not owned): the command (a string), the
** headless argv (array), the interactive object ({args, ready, quit,
** typeDelayMs}), env (object), files (object: path template -> string or
** JSON value); NULL when absent. */
const struct cJSON *agent_profile_get(const AgentProfile *p, const char *key);

/* The tool names the tested version declares (`declares`; in interactive
** mode `interactive.declares` when the profile has them), or NULL. */
const struct cJSON *agent_profile_declares(const AgentProfile *p);
void agent_profile_set_interactive(AgentProfile *p, bool on);

/* Expands template t with vars (a JSON object of variables) and
** workspace.  Returns a new value (cJSON_Delete it), or NULL with the
** reason in err.  *omitted is set when t is one missing optional. */
struct cJSON *agent_expand(const struct cJSON *t, const struct cJSON *vars, const char *workspace, bool *omitted,
                           char *err, size_t cap);
/* Expands a template string into out (no JSON); false with err. */
bool agent_expand_str(const char *t, const struct cJSON *vars, const char *workspace, Buf *out, char *err,
                      size_t cap);

/* The scenario's call (tool, args: a JSON object) as the agent's.
** Returns 1 and fills name/args (args as JSON text) when the profile maps
** tool, 0 when it does not (the call is sent as written), -1 with err when
** the mapping needs an argument the call lacks. */
int agent_map_call(const AgentProfile *p, const char *tool, const struct cJSON *args, const char *workspace,
                   Buf *name, Buf *args_out, char *err, size_t cap);

/* An agent's call read back as the scenario's: 1 with name/args, 0 when no
** scenario tool maps to agent_tool. */
int agent_unmap_call(const AgentProfile *p, const char *agent_tool, const struct cJSON *agent_args,
                     const char *workspace, Buf *name, Buf *args_out);

/* A name of the Scenario-Format's tool vocabulary (runCmd, readFile, ...,
** and glob): a profile must map it, or the call cannot reach the agent. */
bool agent_is_scenario_tool(const char *name);

/* The scenario tool that maps to agent_tool, or NULL. */
const char *agent_scenario_tool(const AgentProfile *p, const char *agent_tool);

/* Regex (formats/term/term_regex.h syntax) that marks a tool result as an
** error when the API carries no error flag (`errorPattern`), or NULL. */
const char *agent_profile_error_pattern(const AgentProfile *p);

/* Chooses among ps[0..n) the profile whose `declares` best matches names
** (a JSON array of the tool names a request declares): the largest
** Jaccard overlap, at least one half; ties go to the earlier profile.
** Returns the index, or -1 (the overlap in *score, 0..1). */
int agent_detect(AgentProfile *const *ps, size_t n, const struct cJSON *names, double *score);

/* The tool names a request declares, from its `tools` (Chat Completions
** `function.name`, Responses/Anthropic `name`, Gemini
** `functionDeclarations[].name`), as a new JSON array of strings. */
struct cJSON *agent_declared_tools(const struct cJSON *request_tools);

#endif
