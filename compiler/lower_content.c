/* SPDX-License-Identifier: MIT */
/* lower_content.c - Scenario-Format content (lower_int.h): content blocks
** and plans, thinking/assistant steps, llmResponse, tool use and the tool
** shorthands, edits, plan and mode events. */
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
const char *const SF_PLAN_ENTRY_KEYS[] = { "content", "priority", "status", "_meta", NULL };
const char *const SF_ANNOTATION_KEYS[] = { "audience", "priority", "lastModified", NULL };
const char *const SF_ROLES[] = { "user", "assistant", NULL };
const char *const SF_BLOCK_KEYS[] = { "type", "annotations", "_meta", NULL };
const char *const SF_TEXT_BLOCK_KEYS[] = { "text", NULL };
const char *const SF_MEDIA_BLOCK_KEYS[] = { "mimeType", "mime_type", "path", "data", "uri", NULL };
const char *const SF_RESOURCE_BLOCK_KEYS[] = { "resource", NULL };
const char *const SF_EMBEDDED_KEYS[] = { "uri", "mimeType", "text", "blob", "_meta", NULL };
const char *const SF_LINK_BLOCK_KEYS[] = { "uri", "name", "mimeType", "title", "description", "size", NULL };
const char *const SF_DIFF_BLOCK_KEYS[] = { "path", "oldText", "newText", "old_text", "new_text", NULL };
const char *const SF_PLAN_BLOCK_KEYS[] = { "entries", NULL };
const char *const SF_STEP_TIME_KEYS[] = { "relativeTime", "timestamp", NULL };
const char *const SF_STEP_EXTRA_KEYS[] = { "expectOutput", "_meta", NULL };
const char *const SF_STEP_BODY_KEYS[] = { "content", "text", NULL };
const char *const SF_LLM_ERROR_KEYS[] = { "errorType", "statusCode", "message", "details", "retryAfterSeconds", NULL };
const char *const SF_LLM_ELEMENTS[] = { "think", "assistant", "error", NULL };
const char *const SF_PROGRESS_BODY_KEYS[] = { "message", "text", "content", NULL };
const char *const SF_EXEC_KEYS[] = { "startTimeMs", "events", NULL };
const char *const SF_EXEC_EVENT_KEYS[] = { "type", "timeMs", "content", "exitCode", NULL };
const char *const SF_EDITS_KEYS[] = { "path", "linesAdded", "linesRemoved", "_meta", NULL };
const char *const SF_TOOL_SIDE_KEYS[] = { "progress", "result", "status", "toolExecution", "toolCallId", "_meta", "meta", NULL };
const char *const SF_SET_MODE_KEYS[] = { "modeId", "_meta", NULL };
const char *const SF_SET_MODEL_KEYS[] = { "modelId", "_meta", NULL };
const char *const SF_AGENT_PLAN_KEYS[] = { "entries", "planUpdate", "_meta", NULL };

/* ------------------------------------------------------------------ */
/* content blocks                                                     */

const char *const SF_CONTENT_TYPES[] = {
    "text", "image", "audio", "resource", "resource_link", "diff", "plan", NULL
};
const char *const SF_PLAN_PRIORITIES[] = { "high", "medium", "low", NULL };
const char *const SF_PLAN_STATUSES[] = { "pending", "in_progress", "completed", NULL };

static void check_plan_entries(L *l, const YNode *entries, const YNode *owner)
{
    if (!entries) {
        fe_err(&l->fe, owner, "plan needs 'entries'");
        return;
    }
    if (!is_seq(entries)) {
        lw_want_kind(l, entries, "plan 'entries'", "sequence");
        return;
    }
    for (uint32_t i = 0; i < entries->n; i++) {
        const YNode *e = &entries->u.items[i];
        if (!is_map(e)) {
            lw_want_kind(l, e, "a plan entry", "mapping");
            continue;
        }
        lw_check_keys(l, e, "a plan entry", SF_PLAN_ENTRY_KEYS);
        const YNode *c = lw_get_text(l, e, "content", true, "a plan entry");
        if (c && c->n == 0)
            fe_err(&l->fe, c, "plan entry 'content' is empty");
        lw_check_enum(l, lw_get_text(l, e, "priority", true, "a plan entry"), "plan priority", SF_PLAN_PRIORITIES, true);
        lw_check_enum(l, lw_get_text(l, e, "status", true, "a plan entry"), "plan status", SF_PLAN_STATUSES, true);
    }
}

/* A field spelled the spec's way (camelCase) or the reference crate's way
** (snake_case); the latter is accepted with a warning. */
static const YNode *get_alias(L *l, const YNode *map, const char *spec, const char *ref)
{
    const YNode *n = ymap_get(map, spec);
    if (n)
        return n;
    n = ymap_get(map, ref);
    if (n) {
        const YNode *k = NULL;
        for (uint32_t i = 0; i < map->n; i++)
            if (&map->u.pairs[i].val == n)
                k = &map->u.pairs[i].key;
        fe_warn(&l->fe, "deprecated", k ? k : n, "'%s' is the reference implementation's spelling; the spec says '%s'", ref, spec);
    }
    return n;
}

static void check_media(L *l, const YNode *blk, const char *type)
{
    const YNode *path = get_alias(l, blk, "path", "path");
    const YNode *data = ymap_get(blk, "data");
    const YNode *mime = get_alias(l, blk, "mimeType", "mime_type");
    if (!path && !data)
        fe_err(&l->fe, blk, "%s content needs 'path' or 'data'", type);
    if (mime && !is_str(mime))
        lw_want_kind(l, mime, "'mimeType'", "string");
    else if (mime && strncmp(mime->u.s, type, strlen(type)) != 0)
        fe_err(&l->fe, mime, "%s content has MIME type '%s'; expected %s/...", type, mime->u.s, type);
    if (path) {
        if (!is_str(path))
            lw_want_kind(l, path, "'path'", "string");
        else
            lw_check_rel_path(l, path, "content path", true);
    }
    if (data) {
        size_t bad;
        if (!is_str(data))
            lw_want_kind(l, data, "'data'", "string");
        else if (!b64_decode(data->u.s, data->n, NULL, &bad)) {
            if (bad < data->n)
                fe_err(&l->fe, data, "'data' is not valid base64: character '%c' at offset %zu", data->u.s[bad], bad);
            else
                fe_err(&l->fe, data, "'data' is not valid base64 (length or padding is wrong)");
        }
    }
}

/* MCP/ACP Annotations: {audience[], priority 0..1, lastModified}; the
** spec shows both a mapping and a list of them. */
static void check_annotation(L *l, const YNode *a)
{
    if (!is_map(a)) {
        lw_want_kind(l, a, "an annotation", "mapping");
        return;
    }
    lw_check_keys(l, a, "annotations", SF_ANNOTATION_KEYS);
    const YNode *p = ymap_get(a, "priority");
    if (p && !(is_scalar(p) && (p->type == YT_INT || p->type == YT_FLOAT)))
        lw_want_kind(l, p, "annotation 'priority'", "number");
    else if (p && (p->type == YT_INT ? (yint(p) < 0 || yint(p) > 1) : !(yfloat(p) >= 0 && yfloat(p) <= 1)))
        fe_err(&l->fe, p, "annotation priority %s is outside 0..1", p->u.s);
    const YNode *aud = ymap_get(a, "audience");
    if (aud && !is_seq(aud))
        lw_want_kind(l, aud, "annotation 'audience'", "sequence");
    for (uint32_t i = 0; is_seq(aud) && i < aud->n; i++)
        if (is_scalar(&aud->u.items[i]))
            lw_check_enum(l, &aud->u.items[i], "audience", SF_ROLES, true);
}

static void check_annotations(L *l, const YNode *a)
{
    if (!a)
        return;
    if (is_seq(a))
        for (uint32_t i = 0; i < a->n; i++)
            check_annotation(l, &a->u.items[i]);
    else
        check_annotation(l, a);
}

/* Checks a rich content block; returns the text a playback event shows for it. */
const char *lw_check_block(L *l, const YNode *blk, uint32_t *len)
{
    *len = 0;
    if (!is_map(blk)) {
        lw_want_kind(l, blk, "a content block", "mapping");
        return "";
    }
    const YNode *type = lw_get_text(l, blk, "type", true, "a content block");
    check_annotations(l, ymap_get(blk, "annotations"));
    if (!type)
        return "";
    const char *t = type->u.s;
    if (strcmp(t, "resourceLink") == 0) {
        fe_warn(&l->fe, "deprecated", type, "'resourceLink' is the reference implementation's spelling; the spec says 'resource_link'");
        t = "resource_link";
    }
    if (strcmp(t, "text") == 0) {
        lw_check_keys2(l, blk, "a text block", SF_TEXT_BLOCK_KEYS, SF_BLOCK_KEYS);
        const YNode *x = lw_get_text(l, blk, "text", true, "a text block");
        if (x && x->n == 0)
            fe_err(&l->fe, x, "text content is empty");
        if (x) {
            *len = x->n;
            return x->u.s;
        }
    } else if (strcmp(t, "image") == 0 || strcmp(t, "audio") == 0) {
        lw_check_keys2(l, blk, t[0] == 'i' ? "an image block" : "an audio block", SF_MEDIA_BLOCK_KEYS, SF_BLOCK_KEYS);
        check_media(l, blk, t);
    } else if (strcmp(t, "resource") == 0) {
        lw_check_keys2(l, blk, "a resource block", SF_RESOURCE_BLOCK_KEYS, SF_BLOCK_KEYS);
        const YNode *r = ymap_get(blk, "resource");
        if (!r) {
            fe_err(&l->fe, blk, "resource content needs 'resource'");
        } else if (!is_map(r)) {
            lw_want_kind(l, r, "'resource'", "mapping");
        } else {
            lw_check_keys(l, r, "an embedded resource", SF_EMBEDDED_KEYS);
            const YNode *uri = lw_get_text(l, r, "uri", true, "an embedded resource");
            if (uri && uri->n == 0)
                fe_err(&l->fe, uri, "embedded resource 'uri' is empty");
            const YNode *x = lw_get_text(l, r, "text", false, "an embedded resource");
            if (!x && !ymap_get(r, "blob"))
                fe_err(&l->fe, r, "embedded resource needs 'text' or 'blob'");
            if (x) {
                *len = x->n;
                return x->u.s;
            }
        }
    } else if (strcmp(t, "resource_link") == 0) {
        lw_check_keys2(l, blk, "a resource_link block", SF_LINK_BLOCK_KEYS, SF_BLOCK_KEYS);
        const YNode *uri = lw_get_text(l, blk, "uri", true, "a resource_link block");
        const YNode *name = lw_get_text(l, blk, "name", true, "a resource_link block");
        if (uri && uri->n == 0)
            fe_err(&l->fe, uri, "resource_link 'uri' is empty");
        if (name && name->n == 0)
            fe_err(&l->fe, name, "resource_link 'name' is empty");
        if (uri) {
            *len = uri->n;
            return uri->u.s;
        }
    } else if (strcmp(t, "diff") == 0) {
        lw_check_keys2(l, blk, "a diff block", SF_DIFF_BLOCK_KEYS, SF_BLOCK_KEYS);
        const YNode *p = lw_get_text(l, blk, "path", true, "a diff block");
        if (p && p->u.s[0] != '/')
            fe_err(&l->fe, p, "diff path '%s' must be absolute", p->u.s);
        const YNode *nt = get_alias(l, blk, "newText", "new_text");
        if (!nt)
            fe_err(&l->fe, blk, "a diff block needs 'newText'");
        get_alias(l, blk, "oldText", "old_text");
        if (p) {
            *len = p->n;
            return p->u.s;
        }
    } else if (strcmp(t, "plan") == 0) {
        lw_check_keys2(l, blk, "a plan block", SF_PLAN_BLOCK_KEYS, SF_BLOCK_KEYS);
        check_plan_entries(l, ymap_get(blk, "entries"), blk);
    } else {
        fe_err(&l->fe, type, "unknown content type '%s'", t);
        fe_suggest(&l->fe, type, t, SF_CONTENT_TYPES);
    }
    return "";
}

/* ------------------------------------------------------------------ */
/* steps: [ms, body] or {relativeTime|timestamp: ms, <body key>: body}  */

typedef struct Step {
    uint64_t ms;
    const YNode *at;       /* the step node */
    const YNode *time;     /* the time node */
    const YNode *body;
} Step;

static bool parse_step(L *l, const YNode *s, const char *what, const char *const *body_keys, Step *out)
{
    out->at = s;
    out->body = NULL;
    if (is_seq(s)) {
        if (s->n != 2) {
            fe_err(&l->fe, s, "%s step must be [milliseconds, %s], not %u items", what, body_keys[0], s->n);
            return false;
        }
        out->time = &s->u.items[0];
        out->body = &s->u.items[1];
    } else if (is_map(s)) {
        out->time = ymap_get(s, "relativeTime");
        if (!out->time)
            out->time = ymap_get(s, "timestamp");
        for (size_t i = 0; body_keys[i] && !out->body; i++)
            out->body = ymap_get(s, body_keys[i]);
        const char *known[8];
        size_t k = 0;
        for (size_t i = 0; SF_STEP_TIME_KEYS[i]; i++)
            known[k++] = SF_STEP_TIME_KEYS[i];
        for (size_t i = 0; body_keys[i] && k < 7; i++)
            known[k++] = body_keys[i];
        known[k] = NULL;
        lw_check_keys2(l, s, what, known, SF_STEP_EXTRA_KEYS);
        if (!out->time) {
            fe_err(&l->fe, s, "%s step needs 'relativeTime'", what);
            return false;
        }
        if (!out->body) {
            fe_err(&l->fe, s, "%s step needs '%s'", what, body_keys[0]);
            return false;
        }
    } else {
        fe_err(&l->fe, s, "%s step must be [milliseconds, %s] or a mapping with relativeTime and %s, not %s %s",
               what, body_keys[0], body_keys[0], lw_a_or_an(ykind_name(s)), ykind_name(s));
        return false;
    }
    return lw_uint_of(l, out->time, &out->ms, "%s relativeTime", what);
}

/* ------------------------------------------------------------------ */
/* llmResponse                                                        */

static void lower_steps(L *l, const YNode *steps, bool assistant)
{
    const char *what = assistant ? "assistant" : "think";
    if (!is_seq(steps)) {
        char w[64];
        snprintf(w, sizeof w, "'%s'", what);
        lw_want_kind(l, steps, w, "sequence of steps");
        return;
    }
    uint64_t base = l->t, prev = 0;
    const YNode *prev_node = NULL;
    for (uint32_t i = 0; i < steps->n; i++) {
        Step s;
        if (!parse_step(l, &steps->u.items[i], what, SF_STEP_BODY_KEYS, &s))
            continue;
        if (l->spec) {
            /* deltas from the clock: each step after the one before */
            l->t += s.ms;
            prev_node = s.time;
        } else if (prev_node && s.ms < prev) {
            fe_err(&l->fe, s.time, "%s relativeTime %llu is earlier than the step before it (%llu)",
                   what, (unsigned long long)s.ms, (unsigned long long)prev);
            fe_note(&l->fe, s.time, "%s times are offsets from the start of their llmResponse element, so they must not decrease",
                    what);
            continue;
        } else {
            prev = s.ms;
            prev_node = s.time;
            uint64_t at = base + s.ms;
            if (at > l->t)
                l->t = at;
        }
        if (!assistant) {
            if (!is_scalar(s.body) || is_null(s.body)) {
                lw_want_kind(l, s.body, "think content", "string");
                continue;
            }
            lw_op(l, s.at, OP_THINK, lw_str_of(l, s.body));
        } else if (is_scalar(s.body) && !is_null(s.body)) {
            lw_op(l, s.at, OP_ASSISTANT, lw_str_of(l, s.body), l->null_val);
        } else if (is_map(s.body)) {
            uint32_t len;
            const char *text = lw_check_block(l, s.body, &len);
            uint32_t body = lw_val_of(l, s.body);
            lw_op(l, s.at, OP_ASSISTANT, bcb_str(l->b, text, len), body);
        } else {
            lw_want_kind(l, s.body, "assistant content", "string or content block");
        }
    }
}

static void lower_llm_error(L *l, const YNode *e)
{
    if (!is_map(e)) {
        lw_want_kind(l, e, "'error'", "mapping");
        return;
    }
    lw_check_keys(l, e, "an llmResponse error", SF_LLM_ERROR_KEYS);
    const YNode *type = lw_get_text(l, e, "errorType", true, "an llmResponse error");
    const YNode *msg = lw_get_text(l, e, "message", true, "an llmResponse error");
    uint64_t status = 400, retry = 0;
    const YNode *sn = ymap_get(e, "statusCode");
    if (sn && lw_uint_of(l, sn, &status, "'statusCode'") && (status < 100 || status > 599))
        fe_err(&l->fe, sn, "'statusCode' %llu is not an HTTP status (100-599)", (unsigned long long)status);
    uint32_t retry_val = l->null_val;
    const YNode *rn = ymap_get(e, "retryAfterSeconds");
    if (rn && lw_uint_of(l, rn, &retry, "'retryAfterSeconds'"))
        retry_val = lw_val_of(l, rn);
    if (type && msg) {
        uint32_t details = lw_val_of(l, ymap_get(e, "details")), msg_s = lw_str_of(l, msg);
        lw_op(l, e, OP_LLM_ERROR, lw_str_of(l, type), (uint32_t)status, msg_s, retry_val, details);
    }
}

void lower_llm(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const inline_tools[] = {
        "agent_tool_use", "agentToolUse", "agent_edits", "agentEdits", "tool_result",
        "agent_plan", "agentPlan", "tool", NULL
    };
    const YNode *meta = lw_get_meta(l, NULL, item);
    const YNode *list = v;
    if (is_map(v)) {
        /* {_meta: ..., elements...}: not in the spec; a mapping of elements */
        fe_err(&l->fe, v, "llmResponse must be a sequence of elements (think, assistant, error)");
        fe_note(&l->fe, v, "write it as:  llmResponse: [{think: [...]}, {assistant: [...]}]");
        return;
    }
    if (!is_seq(list)) {
        lw_want_kind(l, v, "llmResponse", "sequence");
        return;
    }
    lw_op(l, key, OP_LLM_BEGIN, lw_val_of(l, meta));
    for (uint32_t i = 0; i < list->n; i++) {
        const YNode *el = &list->u.items[i];
        if (!is_map(el)) {
            lw_want_kind(l, el, "an llmResponse element", "mapping");
            continue;
        }
        const YNode *ekey = NULL, *ev = NULL;
        for (uint32_t k = 0; k < el->n; k++) {
            const YNode *kk = &el->u.pairs[k].key;
            if (strcmp(kk->u.s, "_meta") == 0 || strcmp(kk->u.s, "meta") == 0)
                continue;
            if (fe_in_list(kk->u.s, inline_tools)) {
                fe_err(&l->fe, kk, "inline tool use inside llmResponse ('%s') is not supported", kk->u.s);
                fe_note(&l->fe, kk, "move it after the llmResponse as its own timeline event: - agentToolUse: {toolName: ..., args: ...}");
                ekey = kk;
                ev = NULL;
                continue;
            }
            if (!fe_in_list(kk->u.s, SF_LLM_ELEMENTS)) {
                fe_err(&l->fe, kk, "unknown llmResponse element '%s'", kk->u.s);
                fe_suggest(&l->fe, kk, kk->u.s, SF_LLM_ELEMENTS);
                continue;
            }
            if (ekey) {
                fe_err(&l->fe, kk, "llmResponse element has two kinds, '%s' and '%s'; put each in its own list item",
                       ekey->u.s, kk->u.s);
                continue;
            }
            ekey = kk;
            ev = &el->u.pairs[k].val;
        }
        lw_get_meta(l, NULL, el);
        if (!ekey) {
            if (el->n == 0 || ymap_get(el, "_meta") || ymap_get(el, "meta"))
                fe_err(&l->fe, el, "llmResponse element needs think, assistant or error");
            continue;
        }
        if (!ev)
            continue;
        if (strcmp(ekey->u.s, "think") == 0)
            lower_steps(l, ev, false);
        else if (strcmp(ekey->u.s, "assistant") == 0)
            lower_steps(l, ev, true);
        else
            lower_llm_error(l, ev);
    }
    lw_op(l, NULL, OP_LLM_END);
}

/* ------------------------------------------------------------------ */
/* tool use                                                           */

const char *const SF_TOOL_USE_KEYS[] = {
    "toolName", "args", "progress", "result", "status", "toolExecution", "toolCallId", "_meta", "meta", NULL
};
const char *const SF_TOOL_STATUSES[] = { "ok", "error", NULL };
const char *const SF_EXEC_TYPES[] = { "stdout", "stderr", "progress", "completion", NULL };

/* The part of a tool use after TOOL_START: progress, execution, result. */
static void lower_tool_body(L *l, const YNode *tu, uint32_t name, const YNode *at)
{
    const YNode *progress = ymap_get(tu, "progress");
    if (progress && !is_seq(progress)) {
        lw_want_kind(l, progress, "'progress'", "sequence of steps");
    } else if (progress) {
        for (uint32_t i = 0; i < progress->n; i++) {
            Step s;
            if (!parse_step(l, &progress->u.items[i], "progress", SF_PROGRESS_BODY_KEYS, &s))
                continue;
            if (!is_scalar(s.body) || is_null(s.body)) {
                lw_want_kind(l, s.body, "progress message", "string");
                continue;
            }
            l->t += s.ms;
            uint32_t kind = lw_cs(l, "progress");
            lw_op(l, s.at, OP_TOOL_PROGRESS, name, lw_str_of(l, s.body), kind);
        }
    }
    const YNode *result = ymap_get(tu, "result");
    const YNode *status = lw_get_text(l, tu, "status", false, "agentToolUse");
    lw_check_enum(l, status, "tool status", SF_TOOL_STATUSES, false);
    const YNode *ex = ymap_get(tu, "toolExecution");
    if (!ex) {
        uint32_t res = lw_val_of(l, result);
        lw_op(l, status ? status : at, OP_TOOL_RESULT, name, status ? lw_str_of(l, status) : lw_cs(l, "ok"), res);
        return;
    }
    if (!is_map(ex)) {
        lw_want_kind(l, ex, "'toolExecution'", "mapping");
        return;
    }
    lw_check_keys(l, ex, "toolExecution", SF_EXEC_KEYS);
    uint64_t start;
    if (ymap_get(ex, "startTimeMs"))
        lw_get_uint(l, ex, "startTimeMs", false, "toolExecution", &start);
    const YNode *evs = ymap_get(ex, "events");
    if (!evs)
        return;
    if (!is_seq(evs)) {
        lw_want_kind(l, evs, "toolExecution 'events'", "sequence");
        return;
    }
    uint64_t last = 0;
    for (uint32_t i = 0; i < evs->n; i++) {
        const YNode *e = &evs->u.items[i];
        if (!is_map(e)) {
            lw_want_kind(l, e, "a toolExecution event", "mapping");
            continue;
        }
        lw_check_keys(l, e, "a toolExecution event", SF_EXEC_EVENT_KEYS);
        const YNode *type = lw_get_text(l, e, "type", true, "a toolExecution event");
        uint64_t tm = 0;
        if (!lw_get_uint(l, e, "timeMs", true, "a toolExecution event", &tm))
            continue;
        if (tm < last) {
            const YNode *tn = ymap_get(e, "timeMs");
            fe_err(&l->fe, tn, "toolExecution timeMs %llu is earlier than the event before it (%llu)",
                   (unsigned long long)tm, (unsigned long long)last);
            fe_note(&l->fe, tn, "timeMs values are offsets from the start of the execution, so they must not decrease");
            continue;
        }
        l->t += tm - last;
        last = tm;
        if (!type)
            continue;
        lw_check_enum(l, type, "toolExecution event type", SF_EXEC_TYPES, true);
        const YNode *content = lw_get_text(l, e, "content", false, "a toolExecution event");
        if (strcmp(type->u.s, "completion") == 0) {
            uint64_t code = 0;
            const YNode *cn = ymap_get(e, "exitCode");
            if (cn && !(is_scalar(cn) && cn->type == YT_INT))
                lw_want_kind(l, cn, "'exitCode'", "integer");
            else if (cn)
                code = yint(cn) != 0;
            uint32_t res = lw_val_of(l, result);
            lw_op(l, e, OP_TOOL_RESULT, name, lw_cs(l, code ? "error" : "success"), res);
        } else if (fe_in_list(type->u.s, SF_EXEC_TYPES) && content) {
            uint32_t kind = lw_str_of(l, type);
            lw_op(l, e, OP_TOOL_PROGRESS, name, lw_str_of(l, content), kind);
        }
    }
}

void lower_tool_use(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_map(v)) {
        lw_want_kind(l, v, "agentToolUse", "mapping");
        return;
    }
    lw_check_keys(l, v, "agentToolUse", SF_TOOL_USE_KEYS);
    const YNode *name = lw_get_text(l, v, "toolName", true, "agentToolUse");
    const YNode *args = ymap_get(v, "args");
    if (args && !is_map(args) && !is_null(args)) {
        lw_want_kind(l, args, "'args'", "mapping");
        args = NULL;
    }
    const YNode *id = lw_get_text(l, v, "toolCallId", false, "agentToolUse");
    lw_get_meta(l, v, NULL);
    if (!name)
        return;
    uint32_t n = lw_str_of(l, name);
    uint32_t argv;
    if (args && is_map(args)) {
        argv = lw_val_of(l, args);
    } else {
        bcb_val_begin(l->b);
        bcb_val_map(l->b, 0);
        argv = bcb_val_end(l->b);
    }
    lw_op(l, key, OP_TOOL_START, n, argv, id ? bcb_strval(l->b, lw_str_of(l, id)) : l->null_val);
    lower_tool_body(l, v, n, key);
}

/* Tool shorthands: `runCmd: {cmd: ...}` is agentToolUse with toolName
** runCmd and the tool's fields as args; tool-use fields (result, status,
** progress, toolExecution, toolCallId, _meta) may sit beside them. */
const ToolDef LW_TOOLS[] = {
    { "runCmd", { "cmd" }, { "cwd", "timeout", "description", "run_in_background" } },
    { "grep", { "pattern" }, { "path", "glob", "output_mode", "-B", "-A", "-C", "-n", "-i", "type", "head_limit" } },
    { "readFile", { "path" }, { "encoding", "offset", "limit" } },
    { "listDir", { "path" }, { "recursive", "pattern" } },
    { "find", { "path" }, { "name", "type" } },
    { "sed", { "expression", "path" }, { "inplace" } },
    { "editFile", { "path", "old_string", "new_string" }, { "replace_all" } },
    { "writeFile", { "path", "content" }, { NULL } },
    { "task", { "description", "prompt" }, { "subagent_type" } },
    { "webFetch", { "url", "prompt" }, { NULL } },
    { "webSearch", { "query" }, { "allowed_domains", "blocked_domains" } },
    { "todoWrite", { "todos" }, { NULL } },
    { "notebookEdit", { "notebook_path", "new_source" }, { "cell_id", "cell_type", "edit_mode" } },
    { "exitPlanMode", { "plan" }, { NULL } },
    { "bashOutput", { "bash_id" }, { "filter" } },
    { "killShell", { "shell_id" }, { NULL } },
    { "slashCommand", { "command" }, { NULL } },
};
_Static_assert(sizeof LW_TOOLS / sizeof LW_TOOLS[0] == LW_N_TOOLS, "LW_N_TOOLS counts LW_TOOLS");

const ToolDef *lw_tool_def(const char *name)
{
    for (size_t i = 0; i < LW_N_TOOLS; i++)
        if (fe_streq(LW_TOOLS[i].name, name))
            return &LW_TOOLS[i];
    return NULL;
}

static bool tool_field(const char *k)
{
    return fe_in_list(k, SF_TOOL_SIDE_KEYS);
}

void lower_tool_shorthand(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    const ToolDef *td = lw_tool_def(key->u.s);
    if (!is_map(v)) {
        lw_want_kind(l, v, key->u.s, "mapping of its fields");
        return;
    }
    uint32_t n_args = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        const char *k = v->u.pairs[i].key.u.s;
        if (tool_field(k))
            continue;
        n_args++;
        bool known = false;
        for (size_t r = 0; r < 3 && td->required[r]; r++)
            known |= strcmp(k, td->required[r]) == 0;
        for (size_t r = 0; r < 10 && td->optional[r]; r++)
            known |= strcmp(k, td->optional[r]) == 0;
        if (!known)
            fe_warn(&l->fe, "unknown-key", &v->u.pairs[i].key, "'%s' is not a field of the %s tool", k, td->name);
    }
    for (size_t r = 0; r < 3 && td->required[r]; r++)
        if (!ymap_get(v, td->required[r]))
            fe_err(&l->fe, v, "%s needs '%s'", td->name, td->required[r]);
    const YNode *id = lw_get_text(l, v, "toolCallId", false, key->u.s);
    lw_get_meta(l, v, NULL);
    bcb_val_begin(l->b);
    bcb_val_map(l->b, n_args);
    for (uint32_t i = 0; i < v->n; i++) {
        if (tool_field(v->u.pairs[i].key.u.s))
            continue;
        bcb_val_key(l->b, lw_str_of(l, &v->u.pairs[i].key));
        yaml_value_emit(l->b, &v->u.pairs[i].val);
    }
    uint32_t args = bcb_val_end(l->b);
    uint32_t name = lw_str_of(l, key);
    lw_op(l, key, OP_TOOL_START, name, args, id ? bcb_strval(l->b, lw_str_of(l, id)) : l->null_val);
    lower_tool_body(l, v, name, key);
}

void lower_edits(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_map(v)) {
        lw_want_kind(l, v, "agentEdits", "mapping");
        return;
    }
    lw_check_keys(l, v, "agentEdits", SF_EDITS_KEYS);
    const YNode *path = lw_get_text(l, v, "path", true, "agentEdits");
    uint64_t add = 0, del = 0;
    lw_get_uint(l, v, "linesAdded", false, "agentEdits", &add);
    lw_get_uint(l, v, "linesRemoved", false, "agentEdits", &del);
    if (path)
        lw_op(l, key, OP_FILE_EDIT, lw_str_of(l, path), (uint32_t)(add > UINT32_MAX ? UINT32_MAX : add),
              (uint32_t)(del > UINT32_MAX ? UINT32_MAX : del));
}

void lower_plan(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    if (!is_map(v)) {
        lw_want_kind(l, v, "agentPlan", "mapping");
        return;
    }
    lw_check_keys(l, v, "agentPlan", SF_AGENT_PLAN_KEYS);
    lw_get_bool(l, v, "planUpdate", true, "agentPlan");
    lw_get_meta(l, v, item);
    const YNode *entries = ymap_get(v, "entries");
    check_plan_entries(l, entries, v);
    if (is_seq(entries))
        lw_op(l, key, OP_PLAN_UPDATE, entries->n, lw_val_of(l, entries));
}

void lower_mode(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    bool model = strcmp(key->u.s, "setModel") == 0;
    const char *const *keys = model ? SF_SET_MODEL_KEYS : SF_SET_MODE_KEYS;
    const char *field = keys[0];
    if (!is_map(v)) {
        lw_want_kind(l, v, key->u.s, "mapping");
        return;
    }
    lw_check_keys(l, v, key->u.s, keys);
    const YNode *id = lw_get_text(l, v, field, true, key->u.s);
    const YNode *meta = lw_get_meta(l, v, item);
    if (model && !l->unstable) {
        fe_err(&l->fe, key, "setModel is an unstable ACP method; enable it with 'unstable: true' in the acp section");
    }
    if (id) {
        uint32_t m = lw_val_of(l, meta);
        lw_op(l, key, model ? OP_SET_MODEL : OP_SET_MODE, lw_str_of(l, id), m);
    }
}
