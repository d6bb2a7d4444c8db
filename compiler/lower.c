/* SPDX-License-Identifier: MIT */
/* lower.c - Scenario-Format tree -> ops on the reference playback clock.
**
** One walk over the (rules-resolved) tree: the top-level sections are
** checked and recorded as metadata, every timeline event is checked and
** emitted as ops at absolute times.  The clock semantics are those of the
** reference player (docs/timing.md):
**   think/assistant steps   offsets from the start of their element
**   progress steps          cumulative deltas
**   toolExecution events    offsets from the execution start
**   userInputs              absolute; the clock moves to them
**   baseTimeDelta           adds to the clock
** Errors are recorded with line:col and the walk goes on, so one run
** reports every problem.
**
** The walk lives here (the timeline, the top level); the events it
** dispatches to are in lower_content.c and lower_events.c, the helpers in
** lower_util.c (lower_int.h). */
#include "lower_int.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "fe_kit.h"
#include "fe_tables.h"
#include "yaml_value.h"

/* The key and value lists checked below, shared with the schema
** generator (fe_tables.h). */
const char *const SF_REPO_KEYS[] = { "init", "branch", "dir", "files", NULL };
const char *const SF_REPO_FILE_KEYS[] = { "path", "contents", NULL };
const char *const SF_AH_KEYS[] = { "cmd", "flags", "env", NULL };
const char *const SF_SERVER_KEYS[] = { "mode", "llmApiStyle", "coalesceThinkingWithToolUse", NULL };
const char *const SF_SERVER_MODES[] = { "none", "mock", "real", NULL };
const char *const SF_API_STYLES[] = { "openai", "anthropic", NULL };
const char *const SF_ACP_KEYS[] = { "capabilities", "cwd", "mcpServers", "unstable", NULL };
const char *const SF_ACP_CAP_KEYS[] = { "loadSession", "promptCapabilities", "mcpCapabilities", NULL };
const char *const SF_PROMPT_CAP_KEYS[] = { "image", "audio", "embeddedContext", NULL };
const char *const SF_MCP_CAP_KEYS[] = { "http", "sse", NULL };
const char *const SF_MCP_SERVER_KEYS[] = { "name", "command", "args", "env", "url", "type", "headers", "transport", NULL };
const char *const SF_EXPECT_KEYS[] = { "exitCode", "artifacts", NULL };
const char *const SF_ARTIFACT_KEYS[] = { "type", "pattern", NULL };
const char *const SF_COMPAT_KEYS[] = { "allowInlineTerminal", "allowTypeSteps", NULL };

/* The helpers are the front ends' kit (fe_kit.h): err, warn and note at a
** node, suggest the closest of a list of names. */

/* ------------------------------------------------------------------ */
/* the timeline                                                       */

typedef void (*EvFn)(L *l, const YNode *key, const YNode *v, const YNode *item);

enum { IN_TIMELINE = LOWER_IN_TIMELINE, IN_AGENT = LOWER_IN_AGENT, IN_USER = LOWER_IN_USER };

static const struct Event {
    const char *name;
    EvFn fn;
    unsigned where;
    const char *help; /* one line, for scenario-format(5) (format_man.c) */
} EVENTS[] = {
    { "llmResponse", lower_llm, IN_TIMELINE, "the model's answer: think and assistant steps, or an error" },
    { "agentToolUse", lower_tool_use, IN_TIMELINE | IN_AGENT, "a tool call: toolName, args, progress steps, result" },
    { "agentEdits", lower_edits, IN_TIMELINE | IN_AGENT, "the agent edits a file: path, linesAdded, linesRemoved" },
    { "agentActions", lower_actions, IN_TIMELINE, "a list of agent events, in order" },
    { "userActions", lower_actions, IN_TIMELINE, "a list of user events, in order" },
    { "agentPlan", lower_plan, IN_TIMELINE | IN_AGENT, "the agent's plan: entries with content, priority, status" },
    { "setMode", lower_mode, IN_TIMELINE | IN_AGENT | IN_USER, "the session's mode changes (modeId)" },
    { "setModel", lower_mode, IN_TIMELINE | IN_AGENT | IN_USER, "the session's model changes (modelId; needs acp.unstable)" },
    { "userInputs", lower_inputs, IN_TIMELINE | IN_USER, "the user's prompts: [ms, input] or {relativeTime, input}" },
    { "userEdits", lower_user_edits, IN_TIMELINE | IN_USER, "the user applies a patch file" },
    { "userCommand", lower_user_command, IN_TIMELINE | IN_USER, "the user runs a command (cmd, cwd; or program and args)" },
    { "userCancelSession", lower_cancel, IN_TIMELINE | IN_USER, "the user cancels the session" },
    { "baseTimeDelta", lower_delta, IN_TIMELINE, "moves the clock by milliseconds" },
    { "advanceMs", lower_delta, IN_TIMELINE, "moves the clock by milliseconds" },
    { "screenshot", lower_screenshot, IN_TIMELINE, "a screenshot, by its label (compared with its golden)" },
    { "log", lower_log, IN_TIMELINE, "a log message" },
    { "assert", lower_assert, IN_TIMELINE, "checks: fs, text, json, git" },
    { "complete", lower_complete, IN_TIMELINE, "the session completes" },
    { "merge", lower_merge, IN_TIMELINE, "the session's work is merged" },
    { "status", lower_status, IN_TIMELINE, "the session's status" },
    { "sessionStart", lower_session_start, IN_TIMELINE, "an ACP session starts (sessionId)" },
    { "initialize", lower_initialize, IN_TIMELINE, "the ACP initialize exchange" },
    { "agentFileReads", lower_file_reads, IN_TIMELINE | IN_AGENT, "the agent reads files, with their expected content" },
    { "agentPermissionRequest", lower_permission, IN_TIMELINE | IN_AGENT, "the agent asks for a permission; the decision" },
};
enum { N_EVENTS = sizeof EVENTS / sizeof EVENTS[0] };

/* Keys that may stand beside the event key in a timeline item. */
const char *const LOWER_COMPANIONS[] = { "_meta", "meta", "target", "expectedResponse", NULL };
/* The events the spec writes bare (`- sessionStart`): events without fields. */
const char *const LOWER_BARE_EVENTS[] = { "sessionStart", "userCancelSession", "complete", "merge", NULL };

static const char *event_names[N_EVENTS + LW_N_TOOLS + 1];

static const char *const *all_event_names(void)
{
    if (!event_names[0]) {
        size_t k = 0;
        for (size_t i = 0; i < N_EVENTS; i++)
            event_names[k++] = EVENTS[i].name;
        for (size_t i = 0; i < LW_N_TOOLS; i++)
            event_names[k++] = LW_TOOLS[i].name;
        event_names[k] = NULL;
    }
    return event_names;
}

/* Legacy and foreign shapes: an error that shows the modern form. */
static bool legacy_event(L *l, const YNode *k)
{
    const char *s = k->u.s;
    if (strcmp(s, "think") == 0 || strcmp(s, "assistant") == 0) {
        fe_err(&l->fe, k, "top-level '%s' is a legacy timeline shape and is not supported", s);
        fe_note(&l->fe, k, "wrap it in an llmResponse:  - llmResponse: [{%s: [[ms, \"text\"], ...]}]", s);
    } else if (strcmp(s, "type") == 0) {
        fe_err(&l->fe, k, "type-tagged timeline items are a legacy shape and are not supported");
        fe_note(&l->fe, k, "name the event by its key, e.g.  - agentToolUse: {toolName: ..., args: ...}");
    } else if (strcmp(s, "assertGit") == 0) {
        fe_err(&l->fe, k, "'assertGit' is not a Scenario-Format event");
        fe_note(&l->fe, k, "git checks are written  - assert: {git: {commit: {messageContains: \"...\"}}}");
    } else if (strcmp(s, "applyPatch") == 0) {
        fe_err(&l->fe, k, "'applyPatch' is not a Scenario-Format event");
        fe_note(&l->fe, k, "a patch the user applies is written  - userEdits: {patch: path/to/file.patch}");
    } else if (strcmp(s, "tool") == 0) {
        fe_err(&l->fe, k, "'tool' is a legacy timeline shape and is not supported");
        fe_note(&l->fe, k, "write  - agentToolUse: {toolName: ..., args: {...}}");
    } else {
        return false;
    }
    return true;
}

static void lower_item(L *l, const YNode *item, unsigned where, const char *ctx)
{
    if (is_scalar(item) && item->type == YT_STR) {
        /* The spec writes `- sessionStart` bare; events without fields may be. */
        const char *const *bare = LOWER_BARE_EVENTS;
        if (fe_in_list(item->u.s, bare)) {
            for (size_t i = 0; i < N_EVENTS; i++)
                if (fe_streq(EVENTS[i].name, item->u.s))
                    EVENTS[i].fn(l, item, NULL, NULL);
            return;
        }
    }
    if (!is_map(item)) {
        fe_err(&l->fe, item, "%s item must be a mapping with one event key, not %s %s", ctx,
               lw_a_or_an(ykind_name(item)), ykind_name(item));
        if (is_scalar(item) && item->type == YT_STR)
            fe_suggest(&l->fe, item, item->u.s, all_event_names());
        return;
    }
    /* A type-tagged item ({type: think, text: ...}) is one legacy shape:
    ** one error, not one per key. */
    for (uint32_t i = 0; i < item->n; i++)
        if (fe_streq(item->u.pairs[i].key.u.s, "type")) {
            legacy_event(l, &item->u.pairs[i].key);
            return;
        }
    const YNode *ek = NULL, *ev = NULL;
    const struct Event *e = NULL;
    bool tool = false, bad = false;
    for (uint32_t i = 0; i < item->n; i++) {
        const YNode *k = &item->u.pairs[i].key;
        if (fe_in_list(k->u.s, LOWER_COMPANIONS))
            continue;
        const struct Event *found = NULL;
        bool is_tool = false;
        for (size_t j = 0; j < N_EVENTS && !found; j++)
            if (fe_streq(EVENTS[j].name, k->u.s))
                found = &EVENTS[j];
        if (!found && lw_tool_def(k->u.s))
            is_tool = true;
        if (!found && !is_tool) {
            if (!legacy_event(l, k)) {
                fe_err(&l->fe, k, "unknown event '%s' in %s", k->u.s, ctx);
                fe_suggest(&l->fe, k, k->u.s, all_event_names());
            }
            bad = true;
            continue;
        }
        if (ek) {
            fe_err(&l->fe, k, "%s item has two events, '%s' and '%s'; give each its own list item", ctx, ek->u.s, k->u.s);
            bad = true;
            continue;
        }
        unsigned w = is_tool ? IN_TIMELINE | IN_AGENT : found->where;
        if (!(w & where)) {
            fe_err(&l->fe, k, "'%s' cannot appear in %s", k->u.s, ctx);
            bad = true;
            continue;
        }
        ek = k;
        ev = &item->u.pairs[i].val;
        e = found;
        tool = is_tool;
    }
    if (!ek) {
        if (!bad)
            fe_err(&l->fe, item, "%s item has no event", ctx);
        return;
    }
    const YNode *tgt = ymap_get(item, "target");
    if (tgt && strcmp(ek->u.s, "userInputs") != 0)
        fe_warn(&l->fe, "unknown-key", tgt, "'target' only applies to userInputs; it is ignored here");
    const YNode *er = ymap_get(item, "expectedResponse");
    if (er && strcmp(ek->u.s, "initialize") != 0)
        fe_warn(&l->fe, "unknown-key", er, "'expectedResponse' beside '%s' is ignored (it belongs to initialize or a userInputs entry)", ek->u.s);
    if (tool)
        lower_tool_shorthand(l, ek, ev, item);
    else
        e->fn(l, ek, ev, item);
}

void lower_actions(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    bool agent = strcmp(key->u.s, "agentActions") == 0;
    if (!is_seq(v)) {
        lw_want_kind(l, v, key->u.s, "sequence of events");
        return;
    }
    for (uint32_t i = 0; i < v->n; i++)
        lower_item(l, &v->u.items[i], agent ? IN_AGENT : IN_USER, agent ? "agentActions" : "userActions");
}

/* ------------------------------------------------------------------ */
/* top level                                                          */

static void check_repo(L *l, const YNode *r)
{
    if (!is_map(r)) {
        lw_want_kind(l, r, "repo", "mapping");
        return;
    }
    lw_check_keys(l, r, "repo", SF_REPO_KEYS);
    lw_get_bool(l, r, "init", false, "repo");
    lw_get_text(l, r, "branch", false, "repo");
    const YNode *dir = lw_get_text(l, r, "dir", false, "repo");
    if (dir)
        lw_check_rel_path(l, dir, "repo.dir", false);
    const YNode *files = ymap_get(r, "files");
    if (files && !is_seq(files))
        lw_want_kind(l, files, "repo.files", "sequence");
    for (uint32_t i = 0; is_seq(files) && i < files->n; i++) {
        const YNode *f = &files->u.items[i];
        if (!is_map(f)) {
            lw_want_kind(l, f, "a repo file", "mapping");
            continue;
        }
        lw_check_keys(l, f, "a repo file", SF_REPO_FILE_KEYS);
        const YNode *p = lw_get_text(l, f, "path", true, "a repo file");
        if (p)
            lw_check_rel_path(l, p, "repo file path", false);
        const YNode *c = ymap_get(f, "contents");
        if (!c) {
            fe_err(&l->fe, f, "a repo file needs 'contents'");
        } else if (is_map(c)) {
            const YNode *b64 = ymap_get(c, "base64");
            size_t bad;
            if (!b64 || !is_str(b64) || c->n != 1)
                fe_err(&l->fe, c, "repo file contents must be a string or {base64: \"...\"}");
            else if (b64->n && !b64_decode(b64->u.s, b64->n, NULL, &bad))
                fe_err(&l->fe, b64, "repo file contents are not valid base64");
        } else if (!is_scalar(c)) {
            lw_want_kind(l, c, "repo file contents", "string");
        }
    }
}

static void check_ah(L *l, const YNode *a)
{
    if (!is_map(a)) {
        lw_want_kind(l, a, "ah", "mapping");
        return;
    }
    lw_check_keys(l, a, "ah", SF_AH_KEYS);
    lw_get_text(l, a, "cmd", false, "ah");
    lw_want_str_list(l, ymap_get(a, "flags"), "ah.flags");
    const YNode *env = ymap_get(a, "env");
    if (env && !is_map(env))
        lw_want_kind(l, env, "ah.env", "mapping");
    for (uint32_t i = 0; is_map(env) && i < env->n; i++)
        if (!is_scalar(&env->u.pairs[i].val))
            lw_want_kind(l, &env->u.pairs[i].val, "an environment value", "string");
}

static void check_server(L *l, const YNode *s)
{
    if (!is_map(s)) {
        lw_want_kind(l, s, "server", "mapping");
        return;
    }
    lw_check_keys(l, s, "server", SF_SERVER_KEYS);
    lw_check_enum(l, lw_get_text(l, s, "mode", false, "server"), "server mode", SF_SERVER_MODES, true);
    lw_check_enum(l, lw_get_text(l, s, "llmApiStyle", false, "server"), "llmApiStyle", SF_API_STYLES, true);
    lw_get_bool(l, s, "coalesceThinkingWithToolUse", true, "server");
}

static void check_acp(L *l, const YNode *a)
{
    if (!is_map(a)) {
        lw_want_kind(l, a, "acp", "mapping");
        return;
    }
    lw_check_keys(l, a, "acp", SF_ACP_KEYS);
    l->unstable = lw_get_bool(l, a, "unstable", false, "acp");
    const YNode *cwd = lw_get_text(l, a, "cwd", false, "acp");
    if (cwd && cwd->u.s[0] != '/')
        fe_err(&l->fe, cwd, "acp.cwd '%s' must be an absolute path", cwd->u.s);
    const YNode *c = ymap_get(a, "capabilities");
    bool http = false, sse = false;
    if (c) {
        if (!is_map(c)) {
            lw_want_kind(l, c, "acp.capabilities", "mapping");
        } else {
            lw_check_keys(l, c, "acp.capabilities", SF_ACP_CAP_KEYS);
            const YNode *ls = ymap_get(c, "loadSession");
            if (ls) {
                l->load_session = lw_get_bool(l, c, "loadSession", false, "acp.capabilities");
                l->load_session_node = ls;
            }
            const YNode *p = ymap_get(c, "promptCapabilities");
            if (p && !is_map(p))
                lw_want_kind(l, p, "promptCapabilities", "mapping");
            lw_check_keys(l, p, "promptCapabilities", SF_PROMPT_CAP_KEYS);
            int *caps[] = { &l->cap_image, &l->cap_audio, &l->cap_embedded };
            for (size_t i = 0; is_map(p) && SF_PROMPT_CAP_KEYS[i]; i++)
                if (ymap_get(p, SF_PROMPT_CAP_KEYS[i]))
                    *caps[i] = lw_get_bool(l, p, SF_PROMPT_CAP_KEYS[i], false, "promptCapabilities");
            const YNode *m = ymap_get(c, "mcpCapabilities");
            if (m && !is_map(m))
                lw_want_kind(l, m, "mcpCapabilities", "mapping");
            lw_check_keys(l, m, "mcpCapabilities", SF_MCP_CAP_KEYS);
            if (is_map(m)) {
                http = lw_get_bool(l, m, "http", false, "mcpCapabilities");
                sse = lw_get_bool(l, m, "sse", false, "mcpCapabilities");
                if (sse)
                    fe_warn(&l->fe, "deprecated", ymap_get(m, "sse"), "the SSE transport for MCP is deprecated in ACP");
            }
        }
    }
    const YNode *servers = ymap_get(a, "mcpServers");
    if (servers && !is_seq(servers))
        lw_want_kind(l, servers, "acp.mcpServers", "sequence");
    for (uint32_t i = 0; is_seq(servers) && i < servers->n; i++) {
        const YNode *s = &servers->u.items[i];
        if (!is_map(s)) {
            lw_want_kind(l, s, "an MCP server", "mapping");
            continue;
        }
        lw_check_keys(l, s, "an MCP server", SF_MCP_SERVER_KEYS);
        const YNode *name = lw_get_text(l, s, "name", true, "an MCP server");
        if (name && name->n == 0)
            fe_err(&l->fe, name, "MCP server 'name' is empty");
        const YNode *cmd = lw_get_text(l, s, "command", false, "an MCP server");
        if (cmd && cmd->n == 0)
            fe_err(&l->fe, cmd, "MCP server '%s' has an empty command", name ? name->u.s : "");
        if (!cmd) {
            const YNode *tn = lw_get_text(l, s, "type", false, "an MCP server");
            if (!tn)
                tn = lw_get_text(l, s, "transport", false, "an MCP server");
            bool is_sse = tn && strcmp(tn->u.s, "sse") == 0;
            if (is_sse ? !sse : !http)
                fe_err(&l->fe, s, "MCP server '%s' uses the %s transport, which mcpCapabilities does not allow",
                       name ? name->u.s : "", is_sse ? "sse" : "http");
        }
        const YNode *env = ymap_get(s, "env");
        if (env && !is_map(env) && !is_seq(env))
            lw_want_kind(l, env, "MCP server env", "mapping or sequence");
    }
}

static void check_expect(L *l, const YNode *e)
{
    if (!is_map(e)) {
        lw_want_kind(l, e, "expect", "mapping");
        return;
    }
    lw_check_keys(l, e, "expect", SF_EXPECT_KEYS);
    const YNode *ec = ymap_get(e, "exitCode");
    if (ec && !(is_scalar(ec) && ec->type == YT_INT))
        lw_want_kind(l, ec, "expect.exitCode", "integer");
    const YNode *arts = ymap_get(e, "artifacts");
    if (arts && !is_seq(arts))
        lw_want_kind(l, arts, "expect.artifacts", "sequence");
    for (uint32_t i = 0; is_seq(arts) && i < arts->n; i++) {
        const YNode *a = &arts->u.items[i];
        if (!is_map(a)) {
            lw_want_kind(l, a, "an artifact", "mapping");
            continue;
        }
        lw_check_keys(l, a, "an artifact", SF_ARTIFACT_KEYS);
        lw_get_text(l, a, "pattern", true, "an artifact");
    }
}

/* Terminal-Config: {name?, width, height} in a JSON (or YAML-as-JSON) file. */
static void load_terminal(L *l, const YNode *ref, BcMeta *m)
{
    if (!lw_check_rel_path(l, ref, "terminalRef", true))
        return;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", l->o->base_dir ? l->o->base_dir : ".", ref->u.s);
    char *text;
    size_t len;
    int e = file_read_all(full, 1 << 20, &text, &len);
    if (e) {
        fe_err(&l->fe, ref, "cannot read terminalRef '%s': %s", ref->u.s, strerror(e));
        return;
    }
    cJSON *j = cJSON_ParseWithLength(text, len);
    sc_free(text);
    const cJSON *w = j ? cJSON_GetObjectItemCaseSensitive(j, "width") : NULL;
    const cJSON *h = j ? cJSON_GetObjectItemCaseSensitive(j, "height") : NULL;
    if (!j || !cJSON_IsObject(j))
        fe_err(&l->fe, ref, "terminalRef '%s' is not a JSON object", ref->u.s);
    else if (!cJSON_IsNumber(w) || !cJSON_IsNumber(h) || w->valuedouble < 1 || h->valuedouble < 1 ||
             w->valuedouble > 500 || h->valuedouble > 500)
        /* 500: what the PTY target and the tui-use data model allow, and
        ** what the verifier checks (term_width, term_height). */
        fe_err(&l->fe, ref, "terminalRef '%s' needs numeric 'width' and 'height' (1-500)", ref->u.s);
    else {
        m->term_width = (uint32_t)w->valuedouble;
        m->term_height = (uint32_t)h->valuedouble;
    }
    /* The profile name names screenshot folders (<scenario>/<name>/...). */
    const cJSON *name = j ? cJSON_GetObjectItemCaseSensitive(j, "name") : NULL;
    if (name && (!cJSON_IsString(name) || !*name->valuestring ||
                 strlen(name->valuestring) >= sizeof l->term_name || strchr(name->valuestring, '/')))
        fe_err(&l->fe, ref, "terminalRef '%s': 'name' must be a non-empty string under %zu bytes, without '/'",
               ref->u.s, sizeof l->term_name);
    else if (name)
        snprintf(l->term_name, sizeof l->term_name, "%s", name->valuestring);
    cJSON_Delete(j);
}

/* The top-level keys, with a line each for scenario-format(5); `rules` is
** taken out before lowering (rules.c). */
static const struct TopKey {
    const char *name, *help;
} TOP[] = {
    { "name", "the scenario's identifier (required)" },
    { "tags", "a list of strings" },
    { "terminalRef", "a Terminal-Config JSON file {name, width, height}" },
    { "compat", "{allowInlineTerminal, allowTypeSteps}" },
    { "repo", "the workspace's repository: init, branch, dir, files" },
    { "ah", "Agent Harbor's command: cmd, flags, env" },
    { "server", "the mock server: mode, llmApiStyle" },
    { "acp", "ACP: capabilities, cwd, mcpServers, unstable" },
    { "timeline", "the events, in order (below)" },
    { "expect", "{exitCode, artifacts}" },
    { "initialPrompt", "the prompt when there is no userInputs (legacy)" },
    { "clock", "the clock the timeline was written for: spec or reference" },
};
enum { N_TOP = sizeof TOP / sizeof TOP[0] };
static const char *TOP_KEYS[N_TOP + 1];

static void top_keys_init(void)
{
    for (size_t i = 0; i < N_TOP; i++)
        TOP_KEYS[i] = TOP[i].name;
}

const char *lower_top_key(size_t i, const char **help)
{
    if (i >= N_TOP)
        return NULL;
    *help = TOP[i].help;
    return TOP[i].name;
}

unsigned lower_event_where(size_t i)
{
    return i < N_EVENTS ? EVENTS[i].where : 0;
}

const char *lower_event(size_t i, const char **help, const char **also_in)
{
    if (i >= N_EVENTS)
        return NULL;
    *help = EVENTS[i].help;
    unsigned w = EVENTS[i].where & (IN_AGENT | IN_USER);
    *also_in = w == (IN_AGENT | IN_USER) ? "agentActions, userActions"
             : w == IN_AGENT             ? "agentActions"
             : w == IN_USER              ? "userActions"
                                         : NULL;
    return EVENTS[i].name;
}

static uint32_t defines_value(L *l)
{
    const Symtab *t = l->o->syms;
    size_t n = t ? t->n : 0;
    bcb_val_begin(l->b);
    bcb_val_map(l->b, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        const Sym *s = &t->v[i];
        bcb_val_key(l->b, lw_cs(l, s->name));
        switch (s->type) {
        case SYM_BOOL: bcb_val_bool(l->b, s->b); break;
        case SYM_INT: bcb_val_int(l->b, s->i); break;
        case SYM_STR: bcb_val_str(l->b, lw_cs(l, s->s)); break;
        }
    }
    return bcb_val_end(l->b);
}

/* The key node of map[name] (for positions), or NULL. */
static const YNode *key_node(const YNode *map, const char *name)
{
    for (uint32_t i = 0; is_map(map) && i < map->n; i++)
        if (strcmp(map->u.pairs[i].key.u.s, name) == 0)
            return &map->u.pairs[i].key;
    return NULL;
}

/* A mapping without a 'timeline' is not a Scenario-Format scenario:
** compiled, it would play nothing and check nothing, and a run of it
** would pass.  Say what it looks like instead (docs/dialects.md). */
static bool no_timeline(L *l, const YNode *root)
{
    static const struct {
        const char *key1, *key2;  /* both present (key2 NULL: key1 alone) */
        const char *what;
    } SHAPES[] = {
        { "base_scenario", "matrix", "an ElizaOS scenario matrix ('base_scenario', 'matrix')" },
        { "run", "judgment", "an ElizaOS scenario ('run', 'judgment')" },
        { "run", "environment", "an ElizaOS scenario ('run', 'environment')" },
        { "id", "input", "a Yao agent-test case ('id', 'input')" },
        { "turns", NULL, "an Agent Harbor mock-agent playbook ('turns')" },
        { "steps", NULL, "a file whose 'steps' are not tui-use steps (a tui-use scenario has 'run' and 'steps')" },
    };
    for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++) {
        const YNode *k1 = key_node(root, SHAPES[i].key1);
        if (!k1 || (SHAPES[i].key2 && !ymap_get(root, SHAPES[i].key2)))
            continue;
        fe_err(&l->fe, k1, "this looks like %s, not a scenario scc compiles: it has no 'timeline'", SHAPES[i].what);
        fe_note(&l->fe, k1, "as a Scenario-Format scenario (--dialect=scenario); scc also compiles tui-use, ElizaOS and "
                       "Yao files (--dialect=tui-use, eliza, yao); docs/dialects.md says what it does with the others");
        return false;
    }
    fe_err(&l->fe, root, "a scenario needs a 'timeline' (a sequence of events); without one it would play nothing "
                    "and check nothing");
    return false;
}

bool lower_scenario(const YDoc *doc, const LowerOpts *o, BcBuilder *b, Diags *diags)
{
    L l = { .doc = doc, .o = o, .b = b, .fe = { .d = diags, .file = doc->file }, .load_session = -1,
            .cap_image = -1, .cap_audio = -1, .cap_embedded = -1 };
    size_t errors_before = diags->errors;
    l.null_val = bcb_null(b);
    const YNode *root = doc->root;
    if (!root || is_null(root)) {
        diag_error(diags, doc->file, 0, 0, "empty scenario: expected a mapping with 'name' and 'timeline'");
        return false;
    }
    if (!is_map(root)) {
        lw_want_kind(&l, root, "a scenario", "mapping");
        return false;
    }
    if (!ymap_get(root, "timeline") && !ymap_get(root, "events") && !ymap_get(root, "assertions"))
        return no_timeline(&l, root);
    if (!TOP_KEYS[0])
        top_keys_init();
    for (uint32_t i = 0; i < root->n; i++) {
        const YNode *k = &root->u.pairs[i].key;
        if (strcmp(k->u.s, "events") == 0 || strcmp(k->u.s, "assertions") == 0) {
            fe_err(&l.fe, k, "'%s' is a legacy key; only 'timeline' is supported", k->u.s);
            fe_note(&l.fe, k, "put the events in  timeline: [...]  and the checks in  - assert: {...}  events");
        } else if (!fe_in_list(k->u.s, TOP_KEYS)) {
            fe_warn(&l.fe, "unknown-key", k, "unknown top-level key '%s'; it is ignored", k->u.s);
            fe_suggest(&l.fe, k, k->u.s, TOP_KEYS);
        }
    }
    BcMeta m = { 0 };
    const YNode *name = lw_get_text(&l, root, "name", false, "a scenario");
    if (!name || name->n == 0 || strspn(name->u.s, " \t\r\n") == name->n) {
        fe_err(&l.fe, name ? name : root, "a scenario needs a non-empty 'name'");
        m.name = lw_cs(&l, "");
    } else if (o->variant) {
        Buf full;
        buf_init(&full);
        buf_printf(&full, "%s@%s", name->u.s, o->variant);
        m.name = full.oom ? lw_str_of(&l, name) : bcb_str(b, (const char *)full.data, full.len);
        buf_fini(&full);
    } else {
        m.name = lw_str_of(&l, name);
    }
    /* The name and the tags are shown and matched; a "variant:NAME" tag is
    ** what scc --variant adds, and its NAME becomes part of a file name
    ** (scvm extract: <stem>@NAME.scb), so a scenario may not write one of
    ** its own (docs/security.md; the verifier refuses what gets past). */
    if (name && name->n && !bc_text_ok(name->u.s, name->n))
        fe_err(&l.fe, name, "the scenario's name has a control character");
    const YNode *tags = ymap_get(root, "tags");
    lw_want_str_list(&l, tags, "tags");
    for (uint32_t i = 0; is_seq(tags) && i < tags->n; i++) {
        const YNode *t = &tags->u.items[i];
        if (!is_str(t))
            continue;
        if (t->n >= 8 && memcmp(t->u.s, "variant:", 8) == 0)
            fe_err(&l.fe, t, "the tag '%.60s' is reserved: 'variant:' tags are made by scc --pack --variant NAME:DEFINES",
                   t->u.s);
        else if (!bc_text_ok(t->u.s, t->n))
            fe_err(&l.fe, t, "the tag has a control character");
    }
    if (o->variant) {
        /* the scenario's tags and "variant:NAME" */
        uint32_t nt = is_seq(tags) ? tags->n : 0;
        Buf vt;
        buf_init(&vt);
        buf_printf(&vt, "variant:%s", o->variant);
        uint32_t vs = vt.oom ? lw_cs(&l, "variant") : bcb_str(b, (const char *)vt.data, vt.len);
        buf_fini(&vt);
        bcb_val_begin(b);
        bcb_val_array(b, nt + 1);
        for (uint32_t i = 0; i < nt; i++)
            bcb_val_str(b, is_str(&tags->u.items[i]) ? lw_str_of(&l, &tags->u.items[i]) : lw_cs(&l, ""));
        bcb_val_str(b, vs);
        m.tags = bcb_val_end(b);
    } else if (is_seq(tags)) {
        m.tags = lw_val_of(&l, tags);
    } else {
        m.tags = bcb_empty_array(b);
    }
    const YNode *sec;
    if ((sec = ymap_get(root, "repo")))
        check_repo(&l, sec);
    if ((sec = ymap_get(root, "ah")))
        check_ah(&l, sec);
    if ((sec = ymap_get(root, "server")))
        check_server(&l, sec);
    if ((sec = ymap_get(root, "acp")))
        check_acp(&l, sec);
    if ((sec = ymap_get(root, "expect")))
        check_expect(&l, sec);
    if ((sec = ymap_get(root, "compat"))) {
        if (!is_map(sec))
            lw_want_kind(&l, sec, "compat", "mapping");
        lw_check_keys(&l, sec, "compat", SF_COMPAT_KEYS);
    }
    const YNode *term = lw_get_text(&l, root, "terminalRef", false, "a scenario");
    if (term)
        load_terminal(&l, term, &m);
    const YNode *legacy_prompt = lw_get_text(&l, root, "initialPrompt", false, "a scenario");
    if (legacy_prompt)
        fe_warn(&l.fe, "deprecated", legacy_prompt,
                "'initialPrompt' is not part of the Scenario-Format; the prompt is the first userInputs");

    /* The clock the timeline was written for: the file says, else the
    ** command line (docs/timing.md, "Two clocks"). */
    l.spec = o->spec_clock;
    const YNode *clock = lw_get_text(&l, root, "clock", false, "a scenario");
    if (clock && strcmp(clock->u.s, "spec") == 0) {
        l.spec = true;
    } else if (clock && strcmp(clock->u.s, "reference") == 0) {
        l.spec = false;
    } else if (clock) {
        fe_err(&l.fe, clock, "clock must be 'spec' or 'reference', not '%s'", clock->u.s);
        fe_note(&l.fe, clock, "docs/timing.md describes both");
    }

    /* The reference player always starts with these two statuses. */
    lw_op(&l, NULL, OP_STATUS, lw_cs(&l, "queued"));
    lw_op(&l, NULL, OP_STATUS, lw_cs(&l, "running"));
    const YNode *tl = ymap_get(root, "timeline");
    if (tl && !is_seq(tl))
        lw_want_kind(&l, tl, "timeline", "sequence of events");
    size_t ops_before = lw_ops_so_far(&l);
    for (uint32_t i = 0; is_seq(tl) && i < tl->n; i++)
        lower_item(&l, &tl->u.items[i], IN_TIMELINE, "timeline");
    /* Only when nothing else is wrong: then it is the one thing to say. */
    if (is_seq(tl) && lw_ops_so_far(&l) == ops_before && diags->errors == errors_before)
        fe_warn(&l.fe, "empty-scenario", key_node(root, "timeline"), "the timeline plays nothing and checks nothing; a run of it passes "
                                          "without testing anything");
    if (l.spec) {
        /* the run ends with its last event, a concurrent user input too */
        for (size_t i = 0; i < l.n_pend; i++)
            if (l.pend[i].t > l.t)
                l.t = l.pend[i].t;
    }
    if (!l.completed)
        lw_op(&l, NULL, OP_STATUS, lw_cs(&l, "completed"));
    if (l.spec)
        lw_flush_pending(&l);
    lw_op(&l, NULL, OP_END);

    if (l.load_session == 1 && l.session_starts == 0) {
        fe_err(&l.fe, l.load_session_node, "acp.capabilities.loadSession is true, so the timeline needs a sessionStart");
    } else if (l.session_starts && l.load_session != 1) {
        if (l.load_session == 0)
            fe_err(&l.fe, l.session_node, "the timeline has a sessionStart but acp.capabilities.loadSession is false");
        else
            fe_warn(&l.fe, "session-start", l.session_node,
                    "the timeline has a sessionStart but acp.capabilities.loadSession is not set; the spec requires it");
    }

    /* Metadata: the prompt, the resolved top-level sections, the defines. */
    if (l.prompt_after)
        m.prompt = bcb_strval(b, bcb_str(b, l.prompt_after, l.prompt_after_len));
    else if (l.prompt_any)
        m.prompt = bcb_strval(b, bcb_str(b, l.prompt_any, l.prompt_any_len));
    else if (legacy_prompt)
        m.prompt = bcb_strval(b, lw_str_of(&l, legacy_prompt));
    else
        m.prompt = l.null_val;
    static const char *const config_keys[] = { "terminalRef", "compat", "repo", "ah", "server", "acp", "expect", NULL };
    /* config: the top-level sections as written (rules resolved), plus
    ** `terminal: {name?, width, height}` when terminalRef was loaded. */
    uint32_t n_config = (m.term_width != 0) + l.spec;
    for (size_t i = 0; config_keys[i]; i++)
        n_config += ymap_get(root, config_keys[i]) != NULL;
    bcb_val_begin(b);
    bcb_val_map(b, n_config);
    for (size_t i = 0; config_keys[i]; i++) {
        const YNode *v = ymap_get(root, config_keys[i]);
        if (v) {
            bcb_val_key(b, lw_cs(&l, config_keys[i]));
            yaml_value_emit(l.b, v);
        }
    }
    if (l.spec) {
        /* recorded only when not the default, so reference bytecode is unchanged */
        bcb_val_key(b, lw_cs(&l, "clock"));
        bcb_val_str(b, lw_cs(&l, "spec"));
    }
    if (m.term_width) {
        bcb_val_key(b, lw_cs(&l, "terminal"));
        bcb_val_map(b, 2 + (l.term_name[0] != 0));
        if (l.term_name[0]) {
            bcb_val_key(b, lw_cs(&l, "name"));
            bcb_val_str(b, lw_cs(&l, l.term_name));
        }
        bcb_val_key(b, lw_cs(&l, "width"));
        bcb_val_int(b, m.term_width);
        bcb_val_key(b, lw_cs(&l, "height"));
        bcb_val_int(b, m.term_height);
    }
    m.config = bcb_val_end(b);
    m.defines = defines_value(&l);
    m.source = lw_cs(&l, o->source_name ? o->source_name : "");
    bcb_set_meta(b, &m);
    return diags->errors == errors_before && !diags->oom;
}
