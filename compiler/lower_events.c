/* SPDX-License-Identifier: MIT */
/* lower_events.c - Scenario-Format user, harness and control events
** (lower_int.h): userInputs, userEdits, userCommand, cancel,
** baseTimeDelta, screenshot, log, assert, complete, merge, status,
** sessionStart, initialize, fileReads, permissions. */
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
const char *const SF_INPUT_ENTRY_KEYS[] = { "relativeTime", "input", "_meta", "expectedResponse", "target", NULL };
const char *const SF_EXPECTED_RESPONSE_KEYS[] = { "sessionId", "stopReason", "usage", "_meta", NULL };
const char *const SF_USER_EDITS_KEYS[] = { "patch", NULL };
const char *const SF_USER_COMMAND_KEYS[] = { "cmd", "cwd", "program", "args", "expect", "_meta", NULL };
const char *const SF_LOG_KEYS[] = { "message", "_meta", NULL };
const char *const SF_ASSERT_KEYS[] = { "fs", "text", "json", "git", NULL };
const char *const SF_ASSERT_FS_KEYS[] = { "exists", "notExists", "contains", NULL };
const char *const SF_ASSERT_FS_CONTAINS_KEYS[] = { "path", "text", NULL };
const char *const SF_ASSERT_TEXT_KEYS[] = { "contains", NULL };
const char *const SF_ASSERT_JSON_KEYS[] = { "file", NULL };
const char *const SF_ASSERT_JSON_FILE_KEYS[] = { "path", "pointer", "equals", NULL };
const char *const SF_ASSERT_GIT_KEYS[] = { "commit", NULL };
const char *const SF_ASSERT_GIT_COMMIT_KEYS[] = { "messageContains", NULL };
const char *const SF_SESSION_START_KEYS[] = { "sessionId", "expectedPromptResponse", "_meta", NULL };
const char *const SF_INITIALIZE_KEYS[] = { "protocolVersion", "clientCapabilities", "clientInfo", "_meta", NULL };
const char *const SF_FILE_READS_KEYS[] = { "files", "_meta", NULL };
const char *const SF_FILE_READ_KEYS[] = { "path", "expectedContent", NULL };
const char *const SF_PERMISSION_KEYS[] = { "sessionId", "toolCall", "options", "decision", "granted", "_meta", NULL };
const char *const SF_PERMISSION_OPTION_KEYS[] = { "id", "label", "kind", NULL };
const char *const SF_PERMISSION_KINDS[] = { "allow_once", "allow_always", "reject_once", "reject_always", NULL };
const char *const SF_DECISION_OUTCOMES[] = { "selected", "cancelled", NULL };
const char *const SF_DECISION_KEYS[] = { "outcome", "optionId", NULL };

/* ------------------------------------------------------------------ */
/* user events                                                        */

const char *const SF_TARGETS[] = { "tui", "webui", "cli", NULL };

/* The text a prompt shows: a string input, else the first text block,
** else the first resource block's text.  NULL when there is none. */
static const YNode *input_text(const YNode *input)
{
    if (is_scalar(input) && !is_null(input))
        return input;
    if (!is_seq(input))
        return NULL;
    for (uint32_t i = 0; i < input->n; i++) {
        const YNode *b = &input->u.items[i];
        const YNode *t = ymap_get(b, "type");
        if (is_map(b) && t && yscalar_is(t, "text") && is_scalar(ymap_get(b, "text")))
            return ymap_get(b, "text");
    }
    for (uint32_t i = 0; i < input->n; i++) {
        const YNode *b = &input->u.items[i];
        const YNode *t = ymap_get(b, "type");
        const YNode *r = ymap_get(b, "resource");
        if (is_map(b) && t && yscalar_is(t, "resource") && is_map(r) && is_scalar(ymap_get(r, "text")))
            return ymap_get(r, "text");
    }
    return NULL;
}

static void check_expected_response(L *l, const YNode *er, const char *what)
{
    if (!er)
        return;
    if (!is_map(er)) {
        lw_want_kind(l, er, what, "mapping");
        return;
    }
    lw_check_keys(l, er, what, SF_EXPECTED_RESPONSE_KEYS);
    const YNode *sr = lw_get_text(l, er, "stopReason", false, what);
    if (sr && sr->n == 0)
        fe_err(&l->fe, sr, "%s 'stopReason' is empty", what);
    const YNode *sid = lw_get_text(l, er, "sessionId", false, what);
    if (sid && sid->n == 0)
        fe_err(&l->fe, sid, "%s 'sessionId' is empty", what);
}

/* The ACP baseline is text and resource_link; image, audio and embedded
** resources in a prompt need the matching prompt capability.  Checked only
** when the scenario says the capability is off (absent: no claim made). */
static void check_capability(L *l, const YNode *blk)
{
    const YNode *t = is_map(blk) ? ymap_get(blk, "type") : NULL;
    if (!t || !is_scalar(t))
        return;
    static const struct { const char *type, *cap; size_t off; } gates[] = {
        { "image", "image", offsetof(L, cap_image) },
        { "audio", "audio", offsetof(L, cap_audio) },
        { "resource", "embeddedContext", offsetof(L, cap_embedded) },
    };
    for (size_t i = 0; i < sizeof gates / sizeof gates[0]; i++) {
        if (strcmp(t->u.s, gates[i].type) != 0)
            continue;
        if (*(const int *)((const char *)l + gates[i].off) == 0)
            fe_err(&l->fe, t, "%s content in a prompt needs the '%s' prompt capability, which acp.capabilities turns off",
                   gates[i].type, gates[i].cap);
    }
}

void lower_inputs(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    const YNode *item_meta = lw_get_meta(l, NULL, item);
    const YNode *item_target = is_map(item) ? lw_get_text(l, item, "target", false, "userInputs") : NULL;
    lw_check_enum(l, item_target, "target", SF_TARGETS, true);
    if (!is_seq(v)) {
        lw_want_kind(l, v, "userInputs", "sequence of inputs");
        return;
    }
    bool took_prompt = false;
    for (uint32_t i = 0; i < v->n; i++) {
        const YNode *e = &v->u.items[i], *time, *input, *target = item_target;
        const YNode *extras = NULL;
        if (is_seq(e)) {
            if (e->n != 2) {
                fe_err(&l->fe, e, "a userInputs entry must be [milliseconds, input], not %u items", e->n);
                continue;
            }
            time = &e->u.items[0];
            input = &e->u.items[1];
        } else if (is_map(e)) {
            lw_check_keys(l, e, "a userInputs entry", SF_INPUT_ENTRY_KEYS);
            time = ymap_get(e, "relativeTime");
            input = ymap_get(e, "input");
            if (!time)
                fe_err(&l->fe, e, "a userInputs entry needs 'relativeTime'");
            if (!input)
                fe_err(&l->fe, e, "a userInputs entry needs 'input'");
            if (!time || !input)
                continue;
            const YNode *tg = lw_get_text(l, e, "target", false, "a userInputs entry");
            if (tg) {
                lw_check_enum(l, tg, "target", SF_TARGETS, true);
                target = tg;
            }
            check_expected_response(l, ymap_get(e, "expectedResponse"), "expectedResponse");
            extras = e;
        } else {
            fe_err(&l->fe, e, "a userInputs entry must be {relativeTime, input} or [milliseconds, input], not %s %s",
                   lw_a_or_an(ykind_name(e)), ykind_name(e));
            continue;
        }
        uint64_t at;
        if (!lw_uint_of(l, time, &at, "userInputs relativeTime"))
            continue;
        if (is_seq(input)) {
            for (uint32_t k = 0; k < input->n; k++) {
                uint32_t len;
                const YNode *blk = &input->u.items[k];
                lw_check_block(l, blk, &len);
                check_capability(l, blk);
            }
        } else if (!is_scalar(input) || is_null(input)) {
            lw_want_kind(l, input, "'input'", "string or sequence of content blocks");
            continue;
        }
        uint64_t rel = at;
        if (l->spec) {
            /* concurrent with the agent: from the segment's start, and the
            ** clock does not move; inputs alone must not go back in time */
            at = l->seg_start + rel;
            if (l->last_user_node && at < l->last_user) {
                fe_err(&l->fe, time, "userInputs relativeTime %llu (%llu ms from the start) is earlier than the input before "
                                "it (%llu ms)", (unsigned long long)rel, (unsigned long long)at,
                       (unsigned long long)l->last_user);
                fe_note(&l->fe, time, "on the spec clock userInputs times count from the last baseTimeDelta, and inputs "
                                 "are sent in order");
                continue;
            }
            l->last_user = at;
            l->last_user_node = time;
        } else if (at < l->t) {
            fe_err(&l->fe, time, "userInputs relativeTime %llu is earlier than the timeline position %llu",
                   (unsigned long long)at, (unsigned long long)l->t);
            fe_note(&l->fe, time, "userInputs times are absolute (from the scenario start) and the events before this one end at %llu ms",
                    (unsigned long long)l->t);
            continue;
        } else {
            l->t = at;
        }
        if (at - l->seg_start >= l->seg_user) {
            l->seg_user = at - l->seg_start;
            l->seg_user_node = time;
        }
        const YNode *text = input_text(input);
        uint32_t text_s;
        if (text) {
            text_s = lw_str_of(l, text);
        } else {
            /* No text to show: the input as compact JSON (docs/timing.md). */
            Buf js;
            buf_init(&js);
            lw_ynode_json(&js, input);
            text_s = bcb_str(l->b, js.oom ? "" : (const char *)js.data, js.oom ? 0 : js.len);
            buf_fini(&js);
        }
        if (text && !took_prompt) {
            took_prompt = true;
            if (!l->prompt_any) {
                l->prompt_any = text->u.s;
                l->prompt_any_len = text->n;
            }
            if (l->after_session && !l->prompt_after) {
                l->prompt_after = text->u.s;
                l->prompt_after_len = text->n;
            }
        }
        /* Extras: the entry's _meta (else the one beside userInputs, which
        ** then applies to every entry) and expectedResponse. */
        const YNode *meta = extras ? lw_get_meta(l, extras, NULL) : NULL;
        const YNode *er = extras ? ymap_get(extras, "expectedResponse") : NULL;
        if (!meta)
            meta = item_meta;
        uint32_t extra_val = l->null_val;
        if (meta || er) {
            bcb_val_begin(l->b);
            bcb_val_map(l->b, (meta != NULL) + (er != NULL));
            if (meta) {
                bcb_val_key(l->b, lw_cs(l, "_meta"));
                yaml_value_emit(l->b, meta);
            }
            if (er) {
                bcb_val_key(l->b, lw_cs(l, "expectedResponse"));
                yaml_value_emit(l->b, er);
            }
            extra_val = bcb_val_end(l->b);
        }
        uint32_t in = lw_val_of(l, input);
        lw_op_at(l, at, is_seq(e) || is_map(e) ? e : key, OP_USER_INPUT,
                 target ? bcb_strval(l->b, lw_str_of(l, target)) : l->null_val, text_s, in, extra_val);
    }
}

void lower_user_edits(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_map(v)) {
        lw_want_kind(l, v, "userEdits", "mapping");
        return;
    }
    lw_check_keys(l, v, "userEdits", SF_USER_EDITS_KEYS);
    const YNode *p = lw_get_text(l, v, "patch", true, "userEdits");
    if (p && lw_check_rel_path(l, p, "patch", true))
        lw_op(l, key, OP_USER_EDITS, lw_str_of(l, p));
}

/* Shell-quotes one word for the display form of a command. */
static void shell_word(Buf *b, const char *s, size_t n)
{
    bool plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", s[i]) != NULL;
    if (plain) {
        buf_put(b, s, n);
        return;
    }
    buf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            buf_puts(b, "'\\''");
        else
            buf_putc(b, s[i]);
    }
    buf_putc(b, '\'');
}

void lower_user_command(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (is_scalar(v) && !is_null(v)) {
        uint32_t whole = lw_val_of(l, v);
        lw_op(l, key, OP_USER_COMMAND, lw_str_of(l, v), l->null_val, whole);
        return;
    }
    if (!is_map(v)) {
        lw_want_kind(l, v, "userCommand", "mapping");
        return;
    }
    lw_check_keys(l, v, "userCommand", SF_USER_COMMAND_KEYS);
    const YNode *cmd = lw_get_text(l, v, "cmd", false, "userCommand");
    const YNode *cwd = lw_get_text(l, v, "cwd", false, "userCommand");
    const YNode *args = ymap_get(v, "args");
    const YNode *prog = lw_get_text(l, v, "program", false, "userCommand");
    if (cwd)
        lw_check_rel_path(l, cwd, "userCommand cwd", false);
    uint32_t cmd_s;
    if (cmd) {
        if (args || prog)
            fe_err(&l->fe, cmd, "userCommand has both 'cmd' and 'program'/'args'; use one form");
        cmd_s = lw_str_of(l, cmd);
    } else if (args) {
        /* The Agent Harbor test-runner form: program (default `ah`) + args. */
        if (!is_seq(args)) {
            lw_want_kind(l, args, "userCommand 'args'", "sequence of strings");
            return;
        }
        Buf b;
        buf_init(&b);
        if (prog)
            shell_word(&b, prog->u.s, prog->n);
        else
            buf_puts(&b, "ah");
        for (uint32_t i = 0; i < args->n; i++) {
            const YNode *a = &args->u.items[i];
            if (!is_scalar(a) || is_null(a)) {
                lw_want_kind(l, a, "a userCommand argument", "string");
                continue;
            }
            buf_putc(&b, ' ');
            shell_word(&b, a->u.s, a->n);
        }
        cmd_s = bcb_str(l->b, b.oom ? "" : (const char *)b.data, b.oom ? 0 : b.len);
        buf_fini(&b);
    } else {
        fe_err(&l->fe, v, "userCommand needs 'cmd'");
        return;
    }
    const YNode *ex = ymap_get(v, "expect");
    if (ex && !is_map(ex))
        lw_want_kind(l, ex, "userCommand 'expect'", "mapping");
    uint32_t whole = lw_val_of(l, v);
    lw_op(l, key, OP_USER_COMMAND, cmd_s, cwd ? bcb_strval(l->b, lw_str_of(l, cwd)) : l->null_val, whole);
}

/* `event: true`, bare `- event`, `event: {}` or `event:` all mean "on". */
static bool flag_event(L *l, const YNode *key, const YNode *v)
{
    if (is_null(v) || (is_map(v) && v->n == 0))
        return true;
    if (is_scalar(v) && v->type == YT_BOOL)
        return ybool(v);
    char w[64];
    snprintf(w, sizeof w, "'%s'", key->u.s);
    lw_want_kind(l, v, w, "boolean");
    return false;
}

void lower_cancel(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (flag_event(l, key, v))
        lw_op(l, key, OP_USER_CANCEL);
}

/* ------------------------------------------------------------------ */
/* harness and control events                                         */

void lower_delta(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    uint64_t d;
    if (!lw_uint_of(l, v, &d, "%s", key->u.s))
        return;
    if (d < l->seg_user) {
        fe_err(&l->fe, v, "%s %llu is smaller than the concurrent user activity it must cover (%llu ms)",
               key->u.s, (unsigned long long)d, (unsigned long long)l->seg_user);
        fe_note(&l->fe, l->seg_user_node, "this userInputs entry is %llu ms after the segment's start",
                (unsigned long long)l->seg_user);
    }
    if (l->spec) {
        /* the segment starts d after the last one; agent events are
        ** sequential, so the clock does not go back if they ran longer */
        l->seg_start += d;
        if (l->t < l->seg_start)
            l->t = l->seg_start;
    } else {
        l->t += d;
        l->seg_start = l->t;
    }
    l->seg_user = 0;
    l->seg_user_node = NULL;
}

void lower_screenshot(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_scalar(v) || is_null(v) || v->n == 0) {
        fe_err(&l->fe, v, "screenshot needs a label (a non-empty string)");
        return;
    }
    lw_op(l, key, OP_SCREENSHOT, lw_str_of(l, v));
}

void lower_log(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    const YNode *msg = v, *meta = lw_get_meta(l, NULL, item);
    if (is_map(v)) {
        lw_check_keys(l, v, "log", SF_LOG_KEYS);
        msg = lw_get_text(l, v, "message", true, "log");
        meta = lw_get_meta(l, v, item);
        if (!msg)
            return;
    } else if (!is_scalar(v) || is_null(v)) {
        lw_want_kind(l, v, "log", "string");
        return;
    }
    uint32_t m = lw_val_of(l, meta);
    lw_op(l, key, OP_LOG, lw_str_of(l, msg), m);
}

void lw_want_str_list(L *l, const YNode *n, const char *what)
{
    if (!n)
        return;
    if (!is_seq(n)) {
        lw_want_kind(l, n, what, "sequence of strings");
        return;
    }
    for (uint32_t i = 0; i < n->n; i++)
        if (!is_scalar(&n->u.items[i]) || is_null(&n->u.items[i]))
            lw_want_kind(l, &n->u.items[i], what, "string");
}

void lower_assert(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_map(v)) {
        lw_want_kind(l, v, "assert", "mapping");
        return;
    }
    lw_check_keys(l, v, "assert", SF_ASSERT_KEYS);
    const YNode *fs = ymap_get(v, "fs"), *text = ymap_get(v, "text");
    const YNode *json = ymap_get(v, "json"), *git = ymap_get(v, "git");
    if (fs) {
        if (!is_map(fs))
            lw_want_kind(l, fs, "assert.fs", "mapping");
        lw_check_keys(l, fs, "assert.fs", SF_ASSERT_FS_KEYS);
        lw_want_str_list(l, ymap_get(fs, "exists"), "assert.fs.exists");
        lw_want_str_list(l, ymap_get(fs, "notExists"), "assert.fs.notExists");
        /* scc's extension (docs/scenario.md): [{path, text}], the file holds text */
        const YNode *fc = ymap_get(fs, "contains");
        if (fc && !is_seq(fc)) {
            lw_want_kind(l, fc, "assert.fs.contains", "sequence of {path, text}");
        } else if (fc) {
            for (uint32_t i = 0; i < fc->n; i++) {
                const YNode *e = &fc->u.items[i];
                if (!is_map(e)) {
                    lw_want_kind(l, e, "an assert.fs.contains entry", "mapping {path, text}");
                    continue;
                }
                lw_check_keys(l, e, "an assert.fs.contains entry", SF_ASSERT_FS_CONTAINS_KEYS);
                lw_get_text(l, e, "path", true, "an assert.fs.contains entry");
                lw_get_text(l, e, "text", true, "an assert.fs.contains entry");
            }
        }
    }
    if (text) {
        if (!is_map(text))
            lw_want_kind(l, text, "assert.text", "mapping");
        lw_check_keys(l, text, "assert.text", SF_ASSERT_TEXT_KEYS);
        lw_want_str_list(l, ymap_get(text, "contains"), "assert.text.contains");
    }
    if (json) {
        if (!is_map(json))
            lw_want_kind(l, json, "assert.json", "mapping");
        lw_check_keys(l, json, "assert.json", SF_ASSERT_JSON_KEYS);
        const YNode *f = ymap_get(json, "file");
        if (f && !is_map(f))
            lw_want_kind(l, f, "assert.json.file", "mapping");
        if (is_map(f)) {
            lw_check_keys(l, f, "assert.json.file", SF_ASSERT_JSON_FILE_KEYS);
            lw_get_text(l, f, "path", true, "assert.json.file");
            const YNode *p = lw_get_text(l, f, "pointer", true, "assert.json.file");
            if (p && p->n && p->u.s[0] != '/')
                fe_err(&l->fe, p, "JSON pointer '%s' must be empty or start with '/'", p->u.s);
            if (!ymap_get(f, "equals"))
                fe_err(&l->fe, f, "assert.json.file needs 'equals'");
        }
    }
    if (git) {
        if (!is_map(git))
            lw_want_kind(l, git, "assert.git", "mapping");
        lw_check_keys(l, git, "assert.git", SF_ASSERT_GIT_KEYS);
        const YNode *c = ymap_get(git, "commit");
        if (c && !is_map(c))
            lw_want_kind(l, c, "assert.git.commit", "mapping");
        if (is_map(c)) {
            lw_check_keys(l, c, "assert.git.commit", SF_ASSERT_GIT_COMMIT_KEYS);
            lw_get_text(l, c, "messageContains", true, "assert.git.commit");
        }
    }
    lw_op(l, key, OP_ASSERT, lw_val_of(l, v));
}

void lower_complete(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!flag_event(l, key, v))
        return;
    lw_op(l, key, OP_COMPLETE);
    lw_op(l, key, OP_STATUS, lw_cs(l, "completed"));
    l->completed = true;
}

void lower_merge(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (flag_event(l, key, v))
        lw_op(l, key, OP_MERGE);
}

void lower_status(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_scalar(v) || is_null(v) || v->n == 0) {
        fe_err(&l->fe, v, "status needs a value (a non-empty string)");
        return;
    }
    lw_op(l, key, OP_STATUS, lw_str_of(l, v));
}

void lower_session_start(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    if (!is_null(v) && !is_map(v)) {
        lw_want_kind(l, v, "sessionStart", "mapping");
        return;
    }
    lw_check_keys(l, v, "sessionStart", SF_SESSION_START_KEYS);
    const YNode *sid = is_map(v) ? lw_get_text(l, v, "sessionId", false, "sessionStart") : NULL;
    if (sid && sid->n == 0)
        fe_err(&l->fe, sid, "sessionStart 'sessionId' is empty");
    if (is_map(v))
        check_expected_response(l, ymap_get(v, "expectedPromptResponse"), "expectedPromptResponse");
    lw_get_meta(l, v, item);
    l->session_starts++;
    if (l->session_starts == 2) {
        fe_err(&l->fe, key, "only one sessionStart is allowed in a timeline");
        fe_note(&l->fe, l->session_node, "the first sessionStart is here");
    }
    if (!l->session_node)
        l->session_node = key;
    l->after_session = true;
    lw_op(l, key, OP_SESSION_START, is_map(v) ? lw_val_of(l, v) : l->null_val);
}

void lower_initialize(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    if (!is_map(v) && !is_null(v)) {
        lw_want_kind(l, v, "initialize", "mapping");
        return;
    }
    lw_check_keys(l, v, "initialize", SF_INITIALIZE_KEYS);
    const YNode *er = is_map(item) ? ymap_get(item, "expectedResponse") : NULL;
    if (!er && is_map(v))
        er = ymap_get(v, "expectedResponse");
    if (er && !is_map(er))
        lw_want_kind(l, er, "initialize expectedResponse", "mapping");
    lw_get_meta(l, v, NULL);
    bcb_val_begin(l->b);
    bcb_val_map(l->b, 2);
    bcb_val_key(l->b, lw_cs(l, "request"));
    yaml_value_emit(l->b, v);
    bcb_val_key(l->b, lw_cs(l, "expectedResponse"));
    yaml_value_emit(l->b, er);
    lw_op(l, key, OP_INITIALIZE, bcb_val_end(l->b));
}

void lower_file_reads(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_map(v)) {
        lw_want_kind(l, v, "agentFileReads", "mapping");
        return;
    }
    lw_check_keys(l, v, "agentFileReads", SF_FILE_READS_KEYS);
    const YNode *files = ymap_get(v, "files");
    if (!files) {
        fe_err(&l->fe, v, "agentFileReads needs 'files'");
        return;
    }
    if (!is_seq(files)) {
        lw_want_kind(l, files, "agentFileReads 'files'", "sequence");
        return;
    }
    for (uint32_t i = 0; i < files->n; i++) {
        const YNode *f = &files->u.items[i];
        if (!is_map(f)) {
            lw_want_kind(l, f, "an agentFileReads file", "mapping");
            continue;
        }
        lw_check_keys(l, f, "an agentFileReads file", SF_FILE_READ_KEYS);
        const YNode *p = lw_get_text(l, f, "path", true, "an agentFileReads file");
        if (p && p->u.s[0] != '/')
            fe_err(&l->fe, p, "agentFileReads path '%s' must be absolute", p->u.s);
    }
    lw_op(l, key, OP_FILE_READS, lw_val_of(l, files));
}

void lower_permission(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_map(v)) {
        lw_want_kind(l, v, "agentPermissionRequest", "mapping");
        return;
    }
    lw_check_keys(l, v, "agentPermissionRequest", SF_PERMISSION_KEYS);
    lw_get_meta(l, v, NULL);
    const YNode *opts = ymap_get(v, "options");
    const YNode *dec = ymap_get(v, "decision"), *granted = ymap_get(v, "granted");
    if (opts && !is_seq(opts)) {
        lw_want_kind(l, opts, "'options'", "sequence");
        opts = NULL;
    }
    for (uint32_t i = 0; opts && i < opts->n; i++) {
        const YNode *o = &opts->u.items[i];
        if (!is_map(o)) {
            lw_want_kind(l, o, "a permission option", "mapping");
            continue;
        }
        lw_check_keys(l, o, "a permission option", SF_PERMISSION_OPTION_KEYS);
        lw_get_text(l, o, "id", true, "a permission option");
        lw_check_enum(l, lw_get_text(l, o, "kind", true, "a permission option"), "permission option kind", SF_PERMISSION_KINDS, true);
    }
    if (dec && granted) {
        fe_err(&l->fe, granted, "agentPermissionRequest has both 'granted' and 'decision'; use one");
    } else if (!dec && !granted) {
        fe_err(&l->fe, v, "agentPermissionRequest needs 'decision' or 'granted'");
    } else if (granted) {
        bool g = lw_get_bool(l, v, "granted", false, "agentPermissionRequest");
        const char *want = g ? "allow_once" : "reject_once";
        bool found = false;
        for (uint32_t i = 0; opts && i < opts->n; i++) {
            const YNode *k = ymap_get(&opts->u.items[i], "kind");
            found |= k && yscalar_is(k, want);
        }
        if (!found)
            fe_err(&l->fe, granted, "'granted: %s' selects the first '%s' option, and there is none", g ? "true" : "false", want);
    } else if (!is_map(dec)) {
        lw_want_kind(l, dec, "'decision'", "mapping");
    } else {
        lw_check_keys(l, dec, "decision", SF_DECISION_KEYS);
        const YNode *out = lw_get_text(l, dec, "outcome", true, "decision");
        lw_check_enum(l, out, "decision outcome", SF_DECISION_OUTCOMES, true);
        const YNode *oid = lw_get_text(l, dec, "optionId", false, "decision");
        if (out && yscalar_is(out, "selected") && !oid)
            fe_err(&l->fe, dec, "decision with outcome 'selected' needs 'optionId'");
        if (oid) {
            bool found = false;
            for (uint32_t i = 0; opts && i < opts->n; i++) {
                const YNode *id = ymap_get(&opts->u.items[i], "id");
                found |= id && is_scalar(id) && strcmp(id->u.s, oid->u.s) == 0;
            }
            if (!found)
                fe_err(&l->fe, oid, "decision optionId '%s' is not among the options", oid->u.s);
        }
    }
    lw_op(l, key, OP_PERMISSION, lw_val_of(l, v));
}
