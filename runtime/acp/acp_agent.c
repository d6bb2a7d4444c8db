/* SPDX-License-Identifier: MIT */
/* acp_agent.c - the mock ACP agent (acp_agent.h; docs/serve-acp.md).
**
** One client, one thread, one poll loop.  Each session plays its turns as
** a small state machine: `play` runs ops whose time has come until one
** needs the client (a client call awaiting its answer, a cancel the
** script expects) or is not yet due; an answer, a timer or a cancel runs
** it again.  Messages are built with cJSON and written one per line. */
#include "acp_agent.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/logline.h"
#include "common/monotime.h"
#include "common/base64.h"
#include "common/fileio.h"
#include "common/levenshtein.h"
#include "common/sc_alloc.h"
#include "common/textdiff.h"
#include "common/vformat.h"
#include "formats/bc.h"
#include "runtime/bc_cjson.h"
#include "runtime/llm/llm_toolres.h"
#include "runtime/rt_clock.h"
#include "runtime/scn_assert.h"
#include "runtime/scn_edit.h"
#include "runtime/scn_turns.h"

enum {
    E_PARSE = -32700, E_INVALID = -32600, E_METHOD = -32601, E_PARAMS = -32602, E_INTERNAL = -32603,
    E_NOT_FOUND = -32002,
};

/* What a session waits for. */
typedef enum St {
    ST_OPS,          /* nothing: play the next op when due */
    ST_READ,         /* fs/read_text_file of agentFileReads file `sub` */
    ST_EDIT_READ,    /* fs/read_text_file before an agentEdits */
    ST_EDIT_WRITE,   /* fs/write_text_file of an agentEdits */
    ST_PERM,         /* session/request_permission */
    ST_TCREATE, ST_TWAIT, ST_TOUT, ST_TREL,   /* terminal/... of a runCmd */
    ST_FS_READ, ST_FS_WRITE,   /* fs/... of a readFile, writeFile or editFile */
    ST_CANCEL,       /* the script's userCancelSession: the client's session/cancel */
} St;

enum { FS_NONE, FS_READ, FS_WRITE, FS_EDIT };   /* the file tools a client does */

typedef struct Sess {
    char id[256];
    int32_t entry;              /* suite entry, -1 until the first prompt chooses */
    const BcProgram *p;
    char cwd[PATH_MAX];
    ScnTurns tt;                /* its history and turns */
    uint32_t next_turn;
    /* the modes and models it offers, and the set_mode/set_model calls the script expects */
    cJSON *modes, *models;
    uint32_t *exp_mode, *exp_model;
    uint32_t n_exp_mode, n_exp_model, got_mode, got_model;
    /* the prompt being played */
    bool prompting, cancelled, stop_error;
    cJSON *prompt_id;
    uint32_t cur_turn, pc, turn_end;
    uint32_t ui;                /* the turn's userInputs op (the prompt), or UINT32_MAX */
    uint64_t t_wall0, t_script0;
    St st;
    uint32_t sub;               /* file index in an agentFileReads */
    int64_t await;              /* the client call awaited (its id), -1 none */
    uint64_t deadline;
    cJSON *reply;               /* its answer: the result, or NULL with reply_err */
    cJSON *reply_err;
    bool timed_out;
    /* the tool call in progress */
    bool tool_open, tool_term, tool_fs;
    int tool_fs_kind;           /* FS_READ, FS_WRITE, FS_EDIT */
    char *tool_old;             /* editFile: the file before */
    char tool_id[256], tool_name[128], term_id[256];
    cJSON *tool_args;
    Buf tool_text;
    int tool_exit;              /* INT_MIN: unknown; -1000 - n: signal */
    char *tool_out;
    Buf edit_new;               /* the content an agentEdits writes */
    char edit_path[PATH_MAX];
    unsigned n_calls;           /* generated tool call ids */
    const char *llm_meta_err;   /* reason a turn ended with an error */
    uint32_t resp_meta;         /* K of the current llmResponse _meta, or UINT32_MAX */
} Sess;

typedef struct Pend {
    int64_t id;
    Sess *ss;                   /* NULL: fire and forget, or forgotten */
    bool forgotten;             /* its session stopped waiting (timeout, reload) */
} Pend;

typedef struct Srv {
    const Suite *suite;
    AcpServeOpts o;
    FILE *log;
    uint32_t *cand;
    size_t n_cand;
    int out_fd;
    int io_err;
    bool initialized;
    bool cl_read, cl_write, cl_term;
    bool load_session, unstable, cap_image, cap_audio, cap_embedded, mcp_http, mcp_sse;
    cJSON *auth_methods;        /* what initialize offered */
    Sess **ss;
    size_t n_ss, cap_ss;
    Pend *pend;
    size_t n_pend, cap_pend;
    int64_t next_id;
    unsigned made;              /* sessions made, for generated ids */
    AcpCounts *c;
} Srv;

static void logf_(Srv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(Srv *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_log_line(s->log, "scvm serve acp: ", fmt, ap);
    va_end(ap);
}

/* ---- output ---- */

static void send_json(Srv *s, cJSON *msg)
{
    char *t = msg ? cJSON_PrintUnformatted(msg) : NULL;
    cJSON_Delete(msg);
    if (!t) {
        s->io_err = ENOMEM;
        return;
    }
    size_t n = strlen(t), off = 0;
    t[n] = '\n';                /* over the NUL: written with its newline */
    while (off <= n && !s->io_err) {
        ssize_t w = write(s->out_fd, t + off, n + 1 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            s->io_err = w < 0 ? errno : EPIPE;
        else
            off += (size_t)w;
    }
    t[n] = 0;
    cJSON_free(t);
}

static cJSON *rpc(const char *method)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    if (method)
        cJSON_AddStringToObject(m, "method", method);
    return m;
}

static void reply_result(Srv *s, const cJSON *id, cJSON *result)
{
    cJSON *m = rpc(NULL);
    cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, true));
    cJSON_AddItemToObject(m, "result", result ? result : cJSON_CreateObject());
    send_json(s, m);
}

static void reply_error(Srv *s, const cJSON *id, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void reply_error(Srv *s, const cJSON *id, int code, const char *fmt, ...)
{
    char msg[1024];
    SC_VFORMAT(msg, sizeof msg, fmt);
    cJSON *m = rpc(NULL);
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", msg);
    send_json(s, m);
    s->c->protocol_errors++;
    if (!s->o.quiet)
        logf_(s, "error %d: %s", code, msg);
}

static void update(Srv *s, Sess *ss, cJSON *u)
{
    cJSON *m = rpc("session/update");
    cJSON *p = cJSON_AddObjectToObject(m, "params");
    cJSON_AddStringToObject(p, "sessionId", ss->id);
    cJSON_AddItemToObject(p, "update", u);
    send_json(s, m);
    s->c->updates++;
}

static cJSON *upd(const char *kind)
{
    cJSON *u = cJSON_CreateObject();
    cJSON_AddStringToObject(u, "sessionUpdate", kind);
    return u;
}

/* A client call; ss (or NULL: nobody waits) awaits its answer in state st. */
static void call(Srv *s, Sess *ss, St st, const char *method, cJSON *params)
{
    if (s->n_pend == s->cap_pend) {
        size_t nc = s->cap_pend ? 2 * s->cap_pend : 16;
        Pend *np = sc_realloc(s->pend, nc * sizeof *np);
        if (!np) {
            cJSON_Delete(params);
            s->io_err = ENOMEM;
            return;
        }
        s->pend = np;
        s->cap_pend = nc;
    }
    int64_t id = s->next_id++;
    s->pend[s->n_pend++] = (Pend){ id, ss, false };
    cJSON *m = rpc(method);
    cJSON_AddNumberToObject(m, "id", (double)id);
    cJSON_AddItemToObject(m, "params", params);
    send_json(s, m);
    s->c->client_calls++;
    if (ss) {
        ss->st = st;
        ss->await = id;
        ss->timed_out = false;
        ss->deadline = sc_now_ms() + (s->o.client_timeout_ms ? s->o.client_timeout_ms : 30000);
    }
}

/* No answer is awaited for ss's calls any more (it timed out, or the
** session goes): a late answer is then only logged. */
static void pend_forget(Srv *s, const Sess *ss, int64_t id)
{
    for (size_t i = 0; i < s->n_pend; i++)
        if (s->pend[i].ss == ss && (id < 0 || s->pend[i].id == id)) {
            s->pend[i].ss = NULL;
            s->pend[i].forgotten = true;
        }
}

static cJSON *sess_params(const Sess *ss)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "sessionId", ss->id);
    return p;
}

/* ---- checks ---- */

static void check_pass(Srv *s) { s->c->passed++; }

static void check_fail(Srv *s, const Sess *ss, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void check_fail(Srv *s, const Sess *ss, uint32_t line, const char *fmt, ...)
{
    char msg[4096];
    SC_VFORMAT(msg, sizeof msg, fmt);
    for (size_t n = strlen(msg); n && msg[n - 1] == '\n'; n--)
        msg[n - 1] = 0;
    s->c->failed++;
    const char *name = ss && ss->p ? ss->p->str[ss->p->meta.name].s : "-";
    if (line)
        logf_(s, "FAILED: scenario '%s' line %u, session '%s': %s", name, (unsigned)line, ss ? ss->id : "-", msg);
    else
        logf_(s, "FAILED: scenario '%s', session '%s': %s", name, ss ? ss->id : "-", msg);
}

static void check_skip(Srv *s, const Sess *ss, uint32_t line, const char *what)
{
    s->c->skipped++;
    if (!s->o.quiet)
        logf_(s, "skipped: scenario '%s' line %u: %s", ss->p->str[ss->p->meta.name].s, (unsigned)line, what);
}

/* ---- program values ---- */

static const cJSON *jget(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = jget(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool jtrue(const cJSON *o, const char *k) { return cJSON_IsTrue(jget(o, k)); }

/* A number the client sent, as an integer in [lo, hi]; dflt when it is no
** number or outside (NaN, infinities and huge values included). */
static int64_t jint(const cJSON *v, int64_t lo, int64_t hi, int64_t dflt)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double)lo && v->valuedouble <= (double)hi))
        return dflt;
    return (int64_t)v->valuedouble;
}

/* The program's resolved acp section (or NULL), owned by the caller. */
static cJSON *acp_config(const BcProgram *p)
{
    cJSON *cfg = bc_val_cjson(p, p->meta.config);
    cJSON *a = cfg ? cJSON_DetachItemFromObjectCaseSensitive(cfg, "acp") : NULL;
    cJSON_Delete(cfg);
    return a;
}

static int32_t first_op(const BcProgram *p, uint8_t op)
{
    for (uint32_t i = 0; i < p->n_insn; i++)
        if (p->insn[i].op == op)
            return (int32_t)i;
    return -1;
}

/* The scripted sessionId of the program's sessionStart, or NULL. */
static cJSON *session_start(const BcProgram *p)
{
    int32_t i = first_op(p, OP_SESSION_START);
    return i < 0 ? NULL : bc_val_cjson(p, p->insn[i].a[0]);
}

/* ---- tools ---- */

const char *acp_tool_kind(const char *tool)
{
    static const struct {
        const char *kind;
        const char *names;
    } K[] = {
        { "read", " readfile read read_file view cat notebookread read_many_files " },
        { "edit", " editfile writefile edit write multiedit sed notebookedit replace write_file apply_patch "
                  "agentedits str_replace_editor " },
        { "delete", " delete rm deletefile remove " },
        { "move", " move mv rename movefile " },
        { "search", " grep glob find listdir search ls list_directory search_file_content websearch "
                    "google_web_search " },
        { "execute", " runcmd bash shell run_shell_command exec exec_command bashoutput killshell slashcommand "
                     "terminal local_shell " },
        { "think", " think todowrite task write_todos update_plan " },
        { "fetch", " webfetch fetch web_fetch curl " },
        { "switch_mode", " exitplanmode enterplanmode " },
    };
    char low[130];
    size_t n = strlen(tool);
    if (n + 2 >= sizeof low)
        return "other";
    low[0] = ' ';
    for (size_t i = 0; i < n; i++)
        low[i + 1] = (char)(tool[i] >= 'A' && tool[i] <= 'Z' ? tool[i] + 32 : tool[i]);
    low[n + 1] = ' ';
    low[n + 2] = 0;
    for (size_t k = 0; k < sizeof K / sizeof K[0]; k++)
        if (strstr(K[k].names, low))
            return K[k].kind;
    return "other";
}

static bool valid_kind(const char *k)
{
    static const char *const kinds[] = { "read", "edit", "delete", "move", "search", "execute",
                                         "think", "fetch", "switch_mode", "other" };
    for (size_t i = 0; k && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(k, kinds[i]) == 0)
            return true;
    return false;
}

/* path made absolute against the session's cwd, into out. */
static void abs_path(const Sess *ss, const char *path, char *out, size_t cap)
{
    if (path[0] == '/' || !ss->cwd[0])
        snprintf(out, cap, "%s", path);
    else if (strcmp(path, ".") == 0)
        snprintf(out, cap, "%s", ss->cwd);
    else if (snprintf(out, cap, "%s/%s", ss->cwd, path[0] == '.' && path[1] == '/' ? path + 2 : path) >= (int)cap)
        snprintf(out, cap, "%s", path);     /* too long to join: as given, the client refuses it */
}

static const char *tool_path(const cJSON *args)
{
    static const char *const keys[] = { "path", "file_path", "notebook_path", "absolute_path", NULL };
    for (size_t i = 0; keys[i]; i++) {
        const char *v = jstr(args, keys[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

static void tool_title(const char *name, const cJSON *args, char *out, size_t cap)
{
    const char *cmd = jstr(args, "cmd"), *path = tool_path(args), *pat = jstr(args, "pattern");
    if (!cmd)
        cmd = jstr(args, "command");
    if (cmd)
        snprintf(out, cap, "%s", cmd);
    else if (pat)
        snprintf(out, cap, "%s %s", name, pat);
    else if (path)
        snprintf(out, cap, "%s %s", name, path);
    else
        snprintf(out, cap, "%s", name);
}

static void add_location(const Sess *ss, cJSON *u, const char *path)
{
    char full[PATH_MAX];
    abs_path(ss, path, full, sizeof full);
    cJSON *loc = cJSON_AddArrayToObject(u, "locations");
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "path", full);
    cJSON_AddItemToArray(loc, l);
}

/* ---- content blocks ---- */

/* The bytes of a file a content block names: the pack's copy, else the
** file beside the .scb.  Returns 0 or -1. */
static int media_file(Srv *s, const Sess *ss, const char *path, char **data, size_t *n)
{
    const PackEntry *e = suite_entry(s->suite, (uint32_t)ss->entry);
    for (uint32_t i = 0; i < e->n_files; i++) {
        if (strcmp(e->files[i].path, path) == 0) {
            *data = sc_malloc(e->files[i].len ? e->files[i].len : 1);
            if (!*data)
                return -1;
            memcpy(*data, e->files[i].data, e->files[i].len);
            *n = e->files[i].len;
            return 0;
        }
    }
    if (e->n_files)
        return -1;
    const char *in = suite_entry_input(s->suite, (uint32_t)ss->entry);
    const char *slash = strrchr(in, '/');
    char full[PATH_MAX];
    snprintf(full, sizeof full, "%.*s%s%s", slash ? (int)(slash - in) : 0, in, slash ? "/" : "", path);
    return file_read_all(full, 64u << 20, data, n) == 0 ? 0 : -1;
}

/* A scenario content block as an ACP ContentBlock (annotations as one
** object: the spec's YAML also shows a list of them, of which the first
** is sent).  NULL when it is not one (diff, plan), or its file is missing. */
static cJSON *acp_block(Srv *s, const Sess *ss, const cJSON *b, char *why, size_t cap)
{
    const char *t = jstr(b, "type");
    if (!t)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", t);
    if (strcmp(t, "text") == 0) {
        const char *x = jstr(b, "text");
        cJSON_AddStringToObject(o, "text", x ? x : "");
    } else if (strcmp(t, "image") == 0 || strcmp(t, "audio") == 0) {
        const char *data = jstr(b, "data"), *path = jstr(b, "path"), *mime = jstr(b, "mimeType");
        if (!mime)
            mime = jstr(b, "mime_type");
        if (data) {
            cJSON_AddStringToObject(o, "data", data);
        } else {
            char *bytes = NULL;
            size_t n = 0;
            if (!path || media_file(s, ss, path, &bytes, &n) != 0) {
                snprintf(why, cap, "%s content: cannot read '%s'", t, path ? path : "");
                cJSON_Delete(o);
                return NULL;
            }
            Buf e;
            buf_init(&e);
            b64_encode(bytes, n, &e);
            buf_putc(&e, 0);
            sc_free(bytes);
            cJSON_AddStringToObject(o, "data", e.oom ? "" : (const char *)e.data);
            buf_fini(&e);
        }
        cJSON_AddStringToObject(o, "mimeType", mime ? mime : "application/octet-stream");
        if (jstr(b, "uri") && t[0] == 'i')
            cJSON_AddStringToObject(o, "uri", jstr(b, "uri"));
    } else if (strcmp(t, "resource") == 0) {
        cJSON_AddItemToObject(o, "resource", cJSON_Duplicate(jget(b, "resource"), true));
    } else if (strcmp(t, "resource_link") == 0) {
        static const char *const keys[] = { "uri", "name", "mimeType", "title", "description", "size" };
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (jget(b, keys[i]))
                cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(jget(b, keys[i]), true));
    } else {
        cJSON_Delete(o);
        return NULL;
    }
    const cJSON *an = jget(b, "annotations");
    if (cJSON_IsArray(an))
        an = cJSON_GetArrayItem(an, 0);
    if (cJSON_IsObject(an))
        cJSON_AddItemToObject(o, "annotations", cJSON_Duplicate(an, true));
    return o;
}

static cJSON *text_block(const char *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "text");
    cJSON_AddStringToObject(o, "text", t);
    return o;
}

/* One chunk update of kind (agent_message_chunk ...) with block b. */
static void chunk(Srv *s, Sess *ss, const char *kind, cJSON *b)
{
    cJSON *u = upd(kind);
    cJSON_AddItemToObject(u, "content", b);
    if (ss->resp_meta != UINT32_MAX) {
        cJSON *m = bc_val_cjson(ss->p, ss->resp_meta);
        if (cJSON_IsObject(m))
            cJSON_AddItemToObject(u, "_meta", m);
        else
            cJSON_Delete(m);
    }
    update(s, ss, u);
}

/* An assistant block that is no ContentBlock: a diff becomes a completed
** edit tool call with diff content, a plan a plan update. */
static void special_block(Srv *s, Sess *ss, const cJSON *b)
{
    const char *t = jstr(b, "type");
    if (t && strcmp(t, "plan") == 0) {
        cJSON *u = upd("plan");
        cJSON_AddItemToObject(u, "entries", cJSON_Duplicate(jget(b, "entries"), true));
        update(s, ss, u);
        return;
    }
    const char *path = jstr(b, "path");
    char id[64];
    snprintf(id, sizeof id, "scvm-call-%u", ++ss->n_calls);
    cJSON *u = upd("tool_call");
    cJSON_AddStringToObject(u, "toolCallId", id);
    char title[PATH_MAX + 8];
    snprintf(title, sizeof title, "Edit %s", path ? path : "");
    cJSON_AddStringToObject(u, "title", title);
    cJSON_AddStringToObject(u, "kind", "edit");
    cJSON_AddStringToObject(u, "status", "completed");
    cJSON *content = cJSON_AddArrayToObject(u, "content");
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "type", "diff");
    cJSON_AddStringToObject(d, "path", path ? path : "");
    const char *ot = jstr(b, "oldText") ? jstr(b, "oldText") : jstr(b, "old_text");
    const char *nt = jstr(b, "newText") ? jstr(b, "newText") : jstr(b, "new_text");
    if (ot)
        cJSON_AddStringToObject(d, "oldText", ot);
    cJSON_AddStringToObject(d, "newText", nt ? nt : "");
    cJSON_AddItemToArray(content, d);
    if (path)
        add_location(ss, u, path);
    update(s, ss, u);
}

/* The assistant (or thought) op i as chunks. */
static void play_text(Srv *s, Sess *ss, const BcInsn *in, const char *kind)
{
    const BcProgram *p = ss->p;
    if (in->op == OP_ASSISTANT && p->insn && in->a[1] < p->n_val) {
        cJSON *b = bc_val_cjson(p, in->a[1]);
        if (cJSON_IsObject(b)) {
            char why[512] = "";
            cJSON *blk = acp_block(s, ss, b, why, sizeof why);
            if (blk)
                chunk(s, ss, kind, blk);
            else if (why[0])
                check_fail(s, ss, in->line, "%s", why);
            else
                special_block(s, ss, b);
            cJSON_Delete(b);
            return;
        }
        cJSON_Delete(b);
    }
    chunk(s, ss, kind, text_block(p->str[in->a[0]].s));
}

/* The user's input op as user_message_chunk updates (history replay). */
static void play_user(Srv *s, Sess *ss, const BcInsn *in)
{
    cJSON *v = bc_val_cjson(ss->p, in->a[2]);
    if (cJSON_IsArray(v)) {
        const cJSON *b;
        cJSON_ArrayForEach(b, v)
        {
            char why[512] = "";
            cJSON *blk = acp_block(s, ss, b, why, sizeof why);
            if (blk)
                chunk(s, ss, "user_message_chunk", blk);
        }
    } else {
        chunk(s, ss, "user_message_chunk", text_block(ss->p->str[in->a[1]].s));
    }
    cJSON_Delete(v);
}

/* An agentEdits shown without the client's files (history, or a client
** without fs): a completed edit with the lines it adds as the diff. */
static void show_edit(Srv *s, Sess *ss, const BcInsn *in)
{
    const char *path = ss->p->str[in->a[0]].s;
    char full[PATH_MAX], why[256];
    abs_path(ss, path, full, sizeof full);
    scn_edit_apply(path, NULL, 0, in->a[1], 0, &ss->edit_new, why, sizeof why);
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "type", "diff");
    cJSON_AddStringToObject(b, "path", full);
    cJSON_AddStringToObject(b, "newText", ss->edit_new.oom ? "" : (const char *)ss->edit_new.data);
    special_block(s, ss, b);
    cJSON_Delete(b);
}

static void show_plan(Srv *s, Sess *ss, const BcInsn *in)
{
    cJSON *u = upd("plan");
    cJSON *e = bc_val_cjson(ss->p, in->a[1]);
    cJSON_AddItemToObject(u, "entries", e ? e : cJSON_CreateArray());
    update(s, ss, u);
}

/* ---- tool calls ---- */

static const char *result_status(const char *st)
{
    if (!strcmp(st, "ok") || !strcmp(st, "success") || !strcmp(st, "completed") || !strcmp(st, "done"))
        return "completed";
    if (!strcmp(st, "error") || !strcmp(st, "failed") || !strcmp(st, "failure"))
        return "failed";
    if (!strcmp(st, "in_progress") || !strcmp(st, "pending"))
        return st;
    return "completed";
}

static void tool_close(Sess *ss)
{
    ss->tool_open = ss->tool_term = ss->tool_fs = false;
    sc_free(ss->tool_old);
    ss->tool_old = NULL;
    cJSON_Delete(ss->tool_args);
    ss->tool_args = NULL;
    buf_reset(&ss->tool_text);
    sc_free(ss->tool_out);
    ss->tool_out = NULL;
    ss->term_id[0] = 0;
}

static cJSON *text_content(const char *t, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "content");
    char *z = sc_strndup(t, n);
    cJSON_AddItemToObject(c, "content", text_block(z ? z : ""));
    sc_free(z);
    cJSON_AddItemToArray(arr, c);
    return arr;
}

static cJSON *term_content(const char *tid)
{
    cJSON *arr = cJSON_CreateArray();
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "terminal");
    cJSON_AddStringToObject(c, "terminalId", tid);
    cJSON_AddItemToArray(arr, c);
    return arr;
}

/* The tool call of TOOL_START in, not yet announced. */
static void tool_begin(Sess *ss, const BcInsn *in)
{
    const BcProgram *p = ss->p;
    tool_close(ss);
    ss->tool_open = true;
    snprintf(ss->tool_name, sizeof ss->tool_name, "%s", p->str[in->a[0]].s);
    ss->tool_args = bc_val_cjson(p, in->a[1]);
    cJSON *idj = bc_val_cjson(p, in->a[2]);
    if (cJSON_IsString(idj))
        snprintf(ss->tool_id, sizeof ss->tool_id, "%s", idj->valuestring);
    else
        snprintf(ss->tool_id, sizeof ss->tool_id, "scvm-call-%u", ++ss->n_calls);
    cJSON_Delete(idj);
}

/* The tool_call update of the open tool, with status (and content, taken). */
static void tool_announce(Srv *s, Sess *ss, const char *status, cJSON *content)
{
    cJSON *u = upd("tool_call");
    cJSON_AddStringToObject(u, "toolCallId", ss->tool_id);
    char title[1024];
    tool_title(ss->tool_name, ss->tool_args, title, sizeof title);
    cJSON_AddStringToObject(u, "title", title);
    cJSON_AddStringToObject(u, "kind", acp_tool_kind(ss->tool_name));
    cJSON_AddStringToObject(u, "status", status);
    if (content)
        cJSON_AddItemToObject(u, "content", content);
    if (ss->tool_args)
        cJSON_AddItemToObject(u, "rawInput", cJSON_Duplicate(ss->tool_args, true));
    const char *path = tool_path(ss->tool_args);
    if (path)
        add_location(ss, u, path);
    update(s, ss, u);
}

static void tool_progress(Srv *s, Sess *ss, const BcInsn *in, bool send)
{
    const char *msg = ss->p->str[in->a[1]].s;
    buf_puts(&ss->tool_text, msg);
    if (ss->tool_text.len && ss->tool_text.data[ss->tool_text.len - 1] != '\n')
        buf_putc(&ss->tool_text, '\n');
    if (!send || !ss->tool_open)
        return;
    cJSON *u = upd("tool_call_update");
    cJSON_AddStringToObject(u, "toolCallId", ss->tool_id);
    cJSON_AddItemToObject(u, "content", text_content((const char *)ss->tool_text.data, ss->tool_text.len));
    update(s, ss, u);
}

/* The scripted result of a simulated tool. */
static void tool_result(Srv *s, Sess *ss, const BcInsn *in)
{
    const BcProgram *p = ss->p;
    cJSON *u = upd("tool_call_update");
    cJSON_AddStringToObject(u, "toolCallId", ss->tool_id);
    cJSON_AddStringToObject(u, "status", result_status(p->str[in->a[1]].s));
    cJSON *out = bc_val_cjson(p, in->a[2]);
    if (cJSON_IsString(out))
        buf_puts(&ss->tool_text, out->valuestring);
    if (ss->tool_text.len)
        cJSON_AddItemToObject(u, "content", text_content((const char *)ss->tool_text.data, ss->tool_text.len));
    cJSON *raw = cJSON_CreateObject();
    cJSON_AddStringToObject(raw, "status", p->str[in->a[1]].s);
    cJSON_AddItemToObject(raw, "output", out ? out : cJSON_CreateNull());
    cJSON_AddItemToObject(u, "rawOutput", raw);
    update(s, ss, u);
    tool_close(ss);
}

/* ---- sessions ---- */

static void sess_free(Sess *ss)
{
    if (!ss)
        return;
    tool_close(ss);
    buf_fini(&ss->tool_text);
    buf_fini(&ss->edit_new);
    cJSON_Delete(ss->prompt_id);
    cJSON_Delete(ss->reply);
    cJSON_Delete(ss->reply_err);
    cJSON_Delete(ss->modes);
    cJSON_Delete(ss->models);
    scn_turns_fini(&ss->tt);
    sc_free(ss->exp_mode);
    sc_free(ss->exp_model);
    sc_free(ss);
}

static Sess *sess_find(Srv *s, const char *id)
{
    for (size_t i = 0; i < s->n_ss; i++)
        if (strcmp(s->ss[i]->id, id) == 0)
            return s->ss[i];
    return NULL;
}

/* Binds session ss to suite entry e: its history, turns, modes, models. */
static int sess_bind(Srv *s, Sess *ss, int32_t e)
{
    const BcProgram *p = suite_entry(s->suite, (uint32_t)e)->prog;
    ss->entry = e;
    ss->p = p;
    ss->exp_mode = sc_calloc((size_t)p->n_insn + 1, sizeof *ss->exp_mode);
    ss->exp_model = sc_calloc((size_t)p->n_insn + 1, sizeof *ss->exp_model);
    if (!ss->exp_mode || !ss->exp_model || scn_turns_init(&ss->tt, p) != 0)
        return ENOMEM;
    for (uint32_t i = ss->tt.live0; i < ss->tt.end; i++) {
        const BcInsn *in = &p->insn[i];
        if (in->op == OP_SET_MODE)
            ss->exp_mode[ss->n_exp_mode++] = in->a[0];
        if (in->op == OP_SET_MODEL)
            ss->exp_model[ss->n_exp_model++] = in->a[0];
    }
    /* modes: "default" and every mode the script sets; models likewise (unstable) */
    for (int k = 0; k < 2; k++) {
        uint32_t n = k ? ss->n_exp_model : ss->n_exp_mode, *ids = k ? ss->exp_model : ss->exp_mode;
        if (!n)
            continue;
        cJSON *st_ = cJSON_CreateObject(), *avail = cJSON_CreateArray();
        cJSON_AddStringToObject(st_, k ? "currentModelId" : "currentModeId", "default");
        for (uint32_t i = 0; i <= n; i++) {
            const char *id = i ? p->str[ids[i - 1]].s : "default";
            bool dup = false;
            const cJSON *x;
            cJSON_ArrayForEach(x, avail) dup |= strcmp(jstr(x, k ? "modelId" : "id"), id) == 0;
            if (dup)
                continue;
            cJSON *m = cJSON_CreateObject();
            cJSON_AddStringToObject(m, k ? "modelId" : "id", id);
            cJSON_AddStringToObject(m, "name", id);
            cJSON_AddItemToArray(avail, m);
        }
        cJSON_AddItemToObject(st_, k ? "availableModels" : "availableModes", avail);
        if (k)
            ss->models = st_;
        else
            ss->modes = st_;
    }
    return 0;
}

static Sess *sess_new(Srv *s, const char *id, const char *cwd)
{
    if (s->n_ss == s->cap_ss) {
        size_t nc = s->cap_ss ? 2 * s->cap_ss : 8;
        Sess **n = sc_realloc(s->ss, nc * sizeof *n);
        if (!n)
            return NULL;
        s->ss = n;
        s->cap_ss = nc;
    }
    Sess *ss = sc_calloc(1, sizeof *ss);
    if (!ss)
        return NULL;
    snprintf(ss->id, sizeof ss->id, "%s", id);
    snprintf(ss->cwd, sizeof ss->cwd, "%s", cwd);
    ss->entry = -1;
    ss->await = -1;
    ss->resp_meta = UINT32_MAX;
    buf_init(&ss->tool_text);
    buf_init(&ss->edit_new);
    s->ss[s->n_ss++] = ss;
    s->c->sessions++;
    return ss;
}

/* ---- playing a turn ---- */

/* The stop reason and _meta a prompt answers with, from the scripted
** expectation: valid ACP stop reasons as they are, "completed" as end_turn. */
static cJSON *prompt_answer(Srv *s, Sess *ss)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *exp = NULL;
    if (ss->ui != UINT32_MAX) {
        cJSON *x = bc_val_cjson(ss->p, ss->p->insn[ss->ui].a[3]);
        exp = cJSON_DetachItemFromObjectCaseSensitive(x, "expectedResponse");
        cJSON_Delete(x);
    }
    if (!exp && ss->cur_turn == 0 && ss->tt.hist_end) {
        cJSON *x = session_start(ss->p);
        exp = cJSON_DetachItemFromObjectCaseSensitive(x, "expectedPromptResponse");
        cJSON_Delete(x);
    }
    const char *sr = "end_turn";
    static const char *const valid[] = { "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled" };
    const char *want = jstr(exp, "stopReason");
    for (size_t i = 0; want && i < 5; i++)
        if (strcmp(want, valid[i]) == 0)
            sr = valid[i];
    if (want && sr != want && strcmp(sr, want) != 0 && strcmp(want, "completed") != 0 && !s->o.quiet)
        logf_(s, "note: scenario '%s': stopReason '%s' is not an ACP stop reason; end_turn is sent",
              ss->p->str[ss->p->meta.name].s, want);
    if (ss->cancelled)
        sr = "cancelled";
    cJSON_AddStringToObject(r, "stopReason", sr);
    const cJSON *usage = jget(exp, "usage");
    if (s->unstable && cJSON_IsObject(usage)) {
        cJSON *u = cJSON_Duplicate(usage, true);
        const cJSON *in = jget(u, "inputTokens"), *out = jget(u, "outputTokens");
        if (!jget(u, "totalTokens") && cJSON_IsNumber(in) && cJSON_IsNumber(out))
            cJSON_AddNumberToObject(u, "totalTokens", in->valuedouble + out->valuedouble);
        cJSON_AddItemToObject(r, "usage", u);
    }
    if (cJSON_IsObject(jget(exp, "_meta")))
        cJSON_AddItemToObject(r, "_meta", cJSON_Duplicate(jget(exp, "_meta"), true));
    cJSON_Delete(exp);
    return r;
}

static void prompt_end(Srv *s, Sess *ss)
{
    if (ss->tool_open && ss->tool_term && ss->term_id[0]) {
        /* cancelled with a command running: kill and release it, nobody waits */
        cJSON *p = sess_params(ss);
        cJSON_AddStringToObject(p, "terminalId", ss->term_id);
        call(s, NULL, ST_OPS, "terminal/kill", p);
        p = sess_params(ss);
        cJSON_AddStringToObject(p, "terminalId", ss->term_id);
        call(s, NULL, ST_OPS, "terminal/release", p);
    }
    tool_close(ss);
    if (ss->stop_error) {
        reply_error(s, ss->prompt_id, E_INTERNAL, "%s", ss->llm_meta_err ? ss->llm_meta_err : "model error");
        s->c->protocol_errors--;    /* scripted, not the client's fault */
    } else {
        reply_result(s, ss->prompt_id, prompt_answer(s, ss));
    }
    cJSON_Delete(ss->prompt_id);
    ss->prompt_id = NULL;
    ss->prompting = ss->cancelled = ss->stop_error = false;
    ss->st = ST_OPS;
    ss->await = -1;
    ss->resp_meta = UINT32_MAX;
}

/* The expected tool result (TOOL_RESULT op r) against what the client's
** terminal gave. */
static void check_terminal(Srv *s, Sess *ss, const BcInsn *r)
{
    const BcProgram *p = ss->p;
    uint32_t line = r ? r->line : 0;
    if (ss->timed_out) {
        check_fail(s, ss, line, "%s: the client did not answer", ss->tool_name);
        return;
    }
    if (!r) {
        check_pass(s);
        return;
    }
    const char *want = result_status(p->str[r->a[1]].s);
    bool ok = ss->tool_exit == 0;
    if ((!strcmp(want, "completed") && !ok) || (!strcmp(want, "failed") && ok)) {
        char got[64];
        if (ss->tool_exit == INT_MIN)
            snprintf(got, sizeof got, "no exit status");
        else if (ss->tool_exit <= -1000)
            snprintf(got, sizeof got, "a signal");
        else
            snprintf(got, sizeof got, "exit code %d", ss->tool_exit);
        if (ss->tool_fs)
            snprintf(got, sizeof got, "%s", ok ? "success" : "an error");
        check_fail(s, ss, line, "%s: the scenario expects status '%s', the %s ended with %s; output:\n%s", ss->tool_name,
                   p->str[r->a[1]].s, ss->tool_fs ? "client's file operation" : "command", got,
                   ss->tool_out ? ss->tool_out : "");
        return;
    }
    BcVal v = bc_val(p, r->a[2]);
    /* a write or an edit has no output of the client's: its result text
    ** is the agent's own report, so only its status is checked */
    if (v.tag != BC_V_NULL && !(ss->tool_fs && ss->tool_fs_kind != FS_READ)) {
        Buf why;
        buf_init(&why);
        const char *out = ss->tool_out ? ss->tool_out : "";
        int m = llm_result_match(p, &v, out, strlen(out), &why);
        buf_putc(&why, 0);
        if (m != 1) {
            check_fail(s, ss, line, "%s: the output differs from the scenario's result:\n%s", ss->tool_name,
                       why.oom ? "" : (const char *)why.data);
            buf_fini(&why);
            return;
        }
        buf_fini(&why);
    }
    check_pass(s);
}

/* The terminal steps of a runCmd: wait_for_exit, output, release, then
** the update.  Called with the current op being its TOOL_RESULT (or
** another op that ends it). */
static void term_finish_start(Srv *s, Sess *ss)
{
    cJSON *p = sess_params(ss);
    cJSON_AddStringToObject(p, "terminalId", ss->term_id);
    call(s, ss, ST_TWAIT, "terminal/wait_for_exit", p);
    const cJSON *to = jget(ss->tool_args, "timeout");
    int64_t scripted = jint(to, 1, 86400000, 0);
    uint64_t ms = scripted ? (uint64_t)scripted : s->o.tool_timeout_ms ? s->o.tool_timeout_ms : 600000;
    ss->deadline = sc_now_ms() + ms;
}

/* Which file tool the client can do for the agent: readFile, writeFile,
** editFile (and the real agents' Read, Write, Edit). */
static int fs_tool(const char *name)
{
    static const struct { const char *names; int kind; } T[] = {
        { " readfile read read_file ", FS_READ },
        { " writefile write write_file ", FS_WRITE },
        { " editfile edit replace ", FS_EDIT },
    };
    char low[130];
    size_t n = strlen(name);
    if (n + 3 > sizeof low)
        return FS_NONE;
    low[0] = ' ';
    for (size_t i = 0; i < n; i++)
        low[i + 1] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    low[n + 1] = ' ';
    low[n + 2] = 0;
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++)
        if (strstr(T[k].names, low))
            return T[k].kind;
    return FS_NONE;
}

/* The end of a file tool done through the client: the check against its
** TOOL_RESULT r (or none) and the update. */
static void tool_fs_finish(Srv *s, Sess *ss, const BcInsn *r)
{
    check_terminal(s, ss, r);
    cJSON *u = upd("tool_call_update");
    cJSON_AddStringToObject(u, "toolCallId", ss->tool_id);
    cJSON_AddStringToObject(u, "status", ss->tool_exit == 0 ? "completed" : "failed");
    const char *out = ss->tool_out ? ss->tool_out : "";
    if (ss->tool_exit == 0 && ss->tool_fs_kind != FS_READ) {
        cJSON *content = cJSON_AddArrayToObject(u, "content");
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "type", "diff");
        cJSON_AddStringToObject(d, "path", ss->edit_path);
        if (ss->tool_old)
            cJSON_AddStringToObject(d, "oldText", ss->tool_old);
        cJSON_AddStringToObject(d, "newText", ss->edit_new.oom ? "" : (const char *)ss->edit_new.data);
        cJSON_AddItemToArray(content, d);
    } else {
        cJSON_AddItemToObject(u, "content", text_content(out, strlen(out)));
    }
    cJSON *raw = cJSON_CreateObject();
    cJSON_AddStringToObject(raw, "output", out);
    cJSON_AddItemToObject(u, "rawOutput", raw);
    update(s, ss, u);
    tool_close(ss);
}

/* ---- what each op becomes: live play and history replay (runtime/player.h) ---- */

/* The state a handler plays an op in.  A live handler returns 0 when the
** op is done (play moves to the next) and ACP_HOLD when it is not: it
** waits for the client's answer, or it has moved ss->pc itself. */
typedef struct AcpPlay {
    Srv *s;
    Sess *ss;
    uint64_t now;
} AcpPlay;

enum { ACP_HOLD = 1 };

/* Shared by live play and history replay. */

static int op_llm_begin(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Sess *ss = ((AcpPlay *)ctx)->ss;
    ss->resp_meta = bc_val_tag(p, in->a[0]) == BC_V_MAP ? in->a[0] : UINT32_MAX;
    return 0;
}

static int op_llm_end(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    (void)in;
    ((AcpPlay *)ctx)->ss->resp_meta = UINT32_MAX;
    return 0;
}

static int op_think(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    play_text(c->s, c->ss, in, "agent_thought_chunk");
    return 0;
}

static int op_assistant(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    play_text(c->s, c->ss, in, "agent_message_chunk");
    return 0;
}

static int op_tool_result(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    if (c->ss->tool_open)
        tool_result(c->s, c->ss, in);
    return 0;
}

static int op_plan_update(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    show_plan(c->s, c->ss, in);
    return 0;
}

/* Live play only: the client is asked, and answers. */

static int op_llm_error(void *ctx, const BcProgram *p, const BcInsn *in)
{
    AcpPlay *c = ctx;
    Srv *s = c->s;
    Sess *ss = c->ss;
    /* retried by the agent when its response goes on, else the turn's end */
    bool more = scn_error_retried(p, ss->pc, ss->turn_end);
    if (!s->o.quiet)
        logf_(s, "scenario '%s' line %u: model error %s (%u)%s", p->str[p->meta.name].s, (unsigned)in->line,
              p->str[in->a[0]].s, (unsigned)in->a[1], more ? ", retried" : ": the prompt fails");
    if (!more) {
        ss->stop_error = true;
        ss->llm_meta_err = p->str[in->a[2]].s;
        ss->pc = ss->turn_end;
        return ACP_HOLD;
    }
    return 0;
}

static int op_tool_start(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    Srv *s = c->s;
    Sess *ss = c->ss;
    tool_begin(ss, in);
    const char *cmd = jstr(ss->tool_args, "cmd");
    if (s->cl_term && cmd && !strcmp(acp_tool_kind(ss->tool_name), "execute") && ss->tool_args) {
        cJSON *tp = sess_params(ss);
        cJSON *args;
        if (s->o.passthrough) {
            /* passthrough: the client's sandbox and recorder run it, as a
            ** follower terminal of Agent Harbor's (`ah show-sandbox-execution
            ** "<cmd>" --id <exec_id>`), and its output comes back through the
            ** same terminal calls */
            cJSON_AddStringToObject(tp, "command", s->o.passthrough);
            args = cJSON_AddArrayToObject(tp, "args");
            cJSON_AddItemToArray(args, cJSON_CreateString("show-sandbox-execution"));
            cJSON_AddItemToArray(args, cJSON_CreateString(cmd));
            cJSON_AddItemToArray(args, cJSON_CreateString("--id"));
            cJSON_AddItemToArray(args, cJSON_CreateString(ss->tool_id));
        } else {
            cJSON_AddStringToObject(tp, "command", "sh");
            args = cJSON_AddArrayToObject(tp, "args");
            cJSON_AddItemToArray(args, cJSON_CreateString("-c"));
            cJSON_AddItemToArray(args, cJSON_CreateString(cmd));
        }
        char cwd[PATH_MAX];
        const char *ac = jstr(ss->tool_args, "cwd");
        abs_path(ss, ac ? ac : ".", cwd, sizeof cwd);
        cJSON_AddStringToObject(tp, "cwd", cwd);
        cJSON_AddNumberToObject(tp, "outputByteLimit", 1048576);
        ss->tool_exit = INT_MIN;
        call(s, ss, ST_TCREATE, "terminal/create", tp);
        return ACP_HOLD;
    }
    int fk = fs_tool(ss->tool_name);
    const char *fpath = tool_path(ss->tool_args);
    const cJSON *content = jget(ss->tool_args, "content");
    if (fk && fpath &&
        ((fk == FS_READ && s->cl_read) || (fk == FS_WRITE && s->cl_write && cJSON_IsString(content)) ||
         (fk == FS_EDIT && s->cl_read && s->cl_write))) {
        /* the client does it: fs/read_text_file, fs/write_text_file, or both */
        tool_announce(s, ss, "in_progress", NULL);
        ss->tool_fs = true;
        ss->tool_fs_kind = fk;
        ss->tool_exit = INT_MIN;
        abs_path(ss, fpath, ss->edit_path, sizeof ss->edit_path);
        cJSON *fp = sess_params(ss);
        cJSON_AddStringToObject(fp, "path", ss->edit_path);
        if (fk == FS_WRITE) {
            buf_reset(&ss->edit_new);
            buf_puts(&ss->edit_new, content->valuestring);
            buf_putc(&ss->edit_new, 0);
            ss->edit_new.len--;
            cJSON_AddStringToObject(fp, "content", content->valuestring);
            call(s, ss, ST_FS_WRITE, "fs/write_text_file", fp);
        } else {
            const cJSON *off = jget(ss->tool_args, "offset"), *lim = jget(ss->tool_args, "limit");
            if (fk == FS_READ && cJSON_IsNumber(off) && off->valuedouble >= 0)
                cJSON_AddNumberToObject(fp, "line", off->valuedouble + 1);
            if (fk == FS_READ && cJSON_IsNumber(lim) && lim->valuedouble > 0)
                cJSON_AddNumberToObject(fp, "limit", lim->valuedouble);
            call(s, ss, ST_FS_READ, "fs/read_text_file", fp);
        }
        return ACP_HOLD;
    }
    tool_announce(s, ss, "in_progress", NULL);
    return 0;
}

static int op_tool_progress(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    tool_progress(c->s, c->ss, in, !c->ss->tool_term);
    return 0;
}

static int op_file_edit(void *ctx, const BcProgram *p, const BcInsn *in)
{
    AcpPlay *c = ctx;
    Srv *s = c->s;
    Sess *ss = c->ss;
    const char *path = p->str[in->a[0]].s;
    abs_path(ss, path, ss->edit_path, sizeof ss->edit_path);
    if (s->cl_write && s->cl_read) {
        cJSON *rp = sess_params(ss);
        cJSON_AddStringToObject(rp, "path", ss->edit_path);
        call(s, ss, ST_EDIT_READ, "fs/read_text_file", rp);
        return ACP_HOLD;
    }
    /* the client cannot do it: the edit is only shown */
    check_skip(s, ss, in->line, "agentEdits: the client does not offer fs.readTextFile and fs.writeTextFile");
    show_edit(s, ss, in);
    return 0;
}

static int op_file_reads(void *ctx, const BcProgram *p, const BcInsn *in)
{
    AcpPlay *c = ctx;
    Srv *s = c->s;
    Sess *ss = c->ss;
    cJSON *files = bc_val_cjson(p, in->a[0]);
    int n = cJSON_GetArraySize(files);
    if (!s->cl_read) {
        if (ss->sub == 0)
            for (int i = 0; i < n; i++)
                check_skip(s, ss, in->line, "agentFileReads: the client does not offer fs.readTextFile");
        ss->sub = (uint32_t)n;
    }
    if (ss->sub < (uint32_t)n) {
        const cJSON *f = cJSON_GetArrayItem(files, (int)ss->sub);
        cJSON *rp = sess_params(ss);
        char full[PATH_MAX];
        abs_path(ss, jstr(f, "path") ? jstr(f, "path") : "", full, sizeof full);
        cJSON_AddStringToObject(rp, "path", full);
        cJSON_Delete(files);
        call(s, ss, ST_READ, "fs/read_text_file", rp);
        return ACP_HOLD;
    }
    cJSON_Delete(files);
    ss->sub = 0;
    return 0;
}

static int op_permission(void *ctx, const BcProgram *p, const BcInsn *in)
{
    AcpPlay *c = ctx;
    Srv *s = c->s;
    Sess *ss = c->ss;
    cJSON *k = bc_val_cjson(p, in->a[0]);
    cJSON *rp = sess_params(ss);
    cJSON *tc = cJSON_CreateObject();
    const cJSON *stc = jget(k, "toolCall");
    const char *tid = jstr(stc, "toolCallId");
    char gen[64];
    if (!tid && ss->tool_open)
        tid = ss->tool_id;
    if (!tid) {
        snprintf(gen, sizeof gen, "scvm-permission-%u", ++ss->n_calls);
        tid = gen;
    }
    cJSON_AddStringToObject(tc, "toolCallId", tid);
    const char *title = jstr(stc, "title");
    if (title)
        cJSON_AddStringToObject(tc, "title", title);
    const char *kind = jstr(stc, "kind");
    if (kind)
        cJSON_AddStringToObject(tc, "kind", valid_kind(kind) ? kind : acp_tool_kind(kind));
    static const char *const pass[] = { "status", "rawInput", "locations", "content" };
    for (size_t i = 0; i < 4; i++)
        if (jget(stc, pass[i]))
            cJSON_AddItemToObject(tc, pass[i], cJSON_Duplicate(jget(stc, pass[i]), true));
    cJSON_AddItemToObject(rp, "toolCall", tc);
    cJSON *opts = cJSON_AddArrayToObject(rp, "options");
    const cJSON *o;
    cJSON_ArrayForEach(o, jget(k, "options"))
    {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "optionId", jstr(o, "id") ? jstr(o, "id") : "");
        cJSON_AddStringToObject(x, "name", jstr(o, "label") ? jstr(o, "label") : (jstr(o, "id") ? jstr(o, "id") : ""));
        cJSON_AddStringToObject(x, "kind", jstr(o, "kind") ? jstr(o, "kind") : "allow_once");
        cJSON_AddItemToArray(opts, x);
    }
    cJSON_Delete(k);
    call(s, ss, ST_PERM, "session/request_permission", rp);
    return ACP_HOLD;
}

static int op_user_cancel(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    (void)in;
    AcpPlay *c = ctx;
    Sess *ss = c->ss;
    ss->st = ST_CANCEL;
    ss->await = INT64_MAX;          /* no call: the client's notification ends it */
    ss->timed_out = false;
    ss->deadline = c->now + (c->s->o.client_timeout_ms ? c->s->o.client_timeout_ms : 30000);
    return ACP_HOLD;
}

static int op_assert(void *ctx, const BcProgram *p, const BcInsn *in)
{
    AcpPlay *c = ctx;
    Srv *s = c->s;
    Sess *ss = c->ss;
    BcVal v = bc_val(p, in->a[0]);
    ScnAssertEnv env = { .root = ss->cwd };
    ScnAssertResult r = { 0 };
    Buf msgs;
    buf_init(&msgs);
    scn_assert_eval(p, &v, &env, &msgs, &r);
    buf_putc(&msgs, 0);
    s->c->passed += r.passed;
    s->c->skipped += r.skipped;
    if (r.failed) {
        s->c->failed += r.failed - 1;
        check_fail(s, ss, in->line, "assert:\n%s", msgs.oom ? "" : (const char *)msgs.data);
    }
    buf_fini(&msgs);
    return 0;
}

static int op_log(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Srv *s = ((AcpPlay *)ctx)->s;
    if (!s->o.quiet)
        logf_(s, "scenario '%s': log: %s", p->str[p->meta.name].s, p->str[in->a[0]].s);
    return 0;
}

/* History replay only: the ops before sessionStart as updates, at once;
** nothing is asked of the client. */

static int hist_user_input(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    play_user(c->s, c->ss, in);
    return 0;
}

/* completed or failed as its result says */
static int hist_tool_start(void *ctx, const BcProgram *p, const BcInsn *in)
{
    AcpPlay *c = ctx;
    Sess *ss = c->ss;
    const char *status = "completed";
    for (uint32_t j = (uint32_t)(in - p->insn) + 1; j < ss->tt.hist_end; j++) {
        if (p->insn[j].op == OP_TOOL_RESULT) {
            status = result_status(p->str[p->insn[j].a[1]].s);
            break;
        }
        if (p->insn[j].op != OP_TOOL_PROGRESS)
            break;
    }
    tool_begin(ss, in);
    tool_announce(c->s, ss, status, NULL);
    return 0;
}

static int hist_tool_progress(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    tool_progress(c->s, c->ss, in, false);
    return 0;
}

static int hist_file_edit(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    AcpPlay *c = ctx;
    show_edit(c->s, c->ss, in);
    return 0;
}

static int hist_set_mode(void *ctx, const BcProgram *p, const BcInsn *in)
{
    AcpPlay *c = ctx;
    Sess *ss = c->ss;
    cJSON *u = upd("current_mode_update");
    cJSON_AddStringToObject(u, "currentModeId", p->str[in->a[0]].s);
    update(c->s, ss, u);
    if (ss->modes)
        cJSON_ReplaceItemInObjectCaseSensitive(ss->modes, "currentModeId", cJSON_CreateString(p->str[in->a[0]].s));
    return 0;
}

#define HARNESS_SIDE "the harness's, not the agent's"
#define AGENT_TEST "agent-test cases: checks of the agent under test, never played by an agent"
#define TERMINAL "terminal ops (tui-use): never in an ACP timeline"
#define NOT_HISTORY "not part of a loaded session's history: nothing is asked of the client"

/* Live play (a prompt turn) and history replay (session/load) share the
** handlers of the ops both show the same way. */
const Player acp_live_player = {
    .name = "acp",
    .op = {
        [OP_LLM_BEGIN] = { op_llm_begin, NULL },
        [OP_LLM_END] = { op_llm_end, NULL },
        [OP_THINK] = { op_think, NULL },
        [OP_ASSISTANT] = { op_assistant, NULL },
        [OP_LLM_ERROR] = { op_llm_error, NULL },
        [OP_TOOL_START] = { op_tool_start, NULL },
        [OP_TOOL_PROGRESS] = { op_tool_progress, NULL },
        [OP_TOOL_RESULT] = { op_tool_result, NULL },
        [OP_FILE_EDIT] = { op_file_edit, NULL },
        [OP_FILE_READS] = { op_file_reads, NULL },
        [OP_PERMISSION] = { op_permission, NULL },
        [OP_PLAN_UPDATE] = { op_plan_update, NULL },
        [OP_USER_CANCEL] = { op_user_cancel, NULL },
        [OP_ASSERT] = { op_assert, NULL },
        [OP_LOG] = { op_log, NULL },
        [OP_USER_INPUT] = { NULL, "the prompt itself, or one more input of this turn: the client's" },
        [OP_USER_COMMAND] = { NULL, HARNESS_SIDE },
        [OP_USER_EDITS] = { NULL, HARNESS_SIDE },
        [OP_SET_MODE] = { NULL, "the client's call, checked when it comes" },
        [OP_SET_MODEL] = { NULL, "the client's call, checked when it comes" },
        [OP_STATUS] = { NULL, HARNESS_SIDE },
        [OP_SCREENSHOT] = { NULL, HARNESS_SIDE },
        [OP_MERGE] = { NULL, HARNESS_SIDE },
        [OP_COMPLETE] = { NULL, HARNESS_SIDE },
        [OP_INITIALIZE] = { NULL, "answered when the client's initialize comes" },
        [OP_SESSION_START] = { NULL, "the history's end: answered at session/new or session/load" },
        [OP_END] = { NULL, "the turn's end is the server's, not the op's" },
    },
    .ignore = {
        { OPF_TERM, TERMINAL },
        { OPF_AGENTTEST, AGENT_TEST },
    },
};

const Player acp_history_player = {
    .name = "acp-history",
    .op = {
        [OP_USER_INPUT] = { hist_user_input, NULL },
        [OP_LLM_BEGIN] = { op_llm_begin, NULL },
        [OP_LLM_END] = { op_llm_end, NULL },
        [OP_THINK] = { op_think, NULL },
        [OP_ASSISTANT] = { op_assistant, NULL },
        [OP_TOOL_START] = { hist_tool_start, NULL },
        [OP_TOOL_PROGRESS] = { hist_tool_progress, NULL },
        [OP_TOOL_RESULT] = { op_tool_result, NULL },
        [OP_FILE_EDIT] = { hist_file_edit, NULL },
        [OP_PLAN_UPDATE] = { op_plan_update, NULL },
        [OP_SET_MODE] = { hist_set_mode, NULL },
        [OP_LLM_ERROR] = { NULL, NOT_HISTORY },
        [OP_FILE_READS] = { NULL, NOT_HISTORY },
        [OP_PERMISSION] = { NULL, NOT_HISTORY },
        [OP_USER_CANCEL] = { NULL, NOT_HISTORY },
        [OP_ASSERT] = { NULL, NOT_HISTORY },
        [OP_LOG] = { NULL, NOT_HISTORY },
        [OP_SET_MODEL] = { NULL, NOT_HISTORY },
        [OP_INITIALIZE] = { NULL, NOT_HISTORY },
        [OP_END] = { NULL, NOT_HISTORY },
        [OP_SESSION_START] = { NULL, "the history's end" },
        [OP_USER_COMMAND] = { NULL, HARNESS_SIDE },
        [OP_USER_EDITS] = { NULL, HARNESS_SIDE },
        [OP_STATUS] = { NULL, HARNESS_SIDE },
        [OP_SCREENSHOT] = { NULL, HARNESS_SIDE },
        [OP_MERGE] = { NULL, HARNESS_SIDE },
        [OP_COMPLETE] = { NULL, HARNESS_SIDE },
    },
    .ignore = {
        { OPF_TERM, TERMINAL },
        { OPF_AGENTTEST, AGENT_TEST },
    },
};

/* Runs the session's ops until one waits or is not due.  *wake gets the
** earliest time it must run again (UINT64_MAX: only on a message). */
static void play(Srv *s, Sess *ss, uint64_t *wake)
{
    while (ss->prompting && !s->io_err) {
        const BcProgram *p = ss->p;
        uint64_t now = sc_now_ms();
        if (ss->await >= 0) {
            if (!ss->reply && !ss->reply_err) {
                if (now < ss->deadline) {
                    if (ss->deadline < *wake)
                        *wake = ss->deadline;
                    return;
                }
                if (ss->st == ST_TWAIT && !ss->timed_out) {
                    /* the command ran past its timeout: kill it; wait_for_exit then returns */
                    cJSON *kp = sess_params(ss);
                    cJSON_AddStringToObject(kp, "terminalId", ss->term_id);
                    int64_t keep = ss->await;
                    call(s, NULL, ST_OPS, "terminal/kill", kp);
                    ss->timed_out = true;
                    ss->deadline = now + (s->o.client_timeout_ms ? s->o.client_timeout_ms : 30000);
                    ss->await = keep;
                    logf_(s, "scenario '%s': %s '%s' ran past its timeout; terminal/kill sent", p->str[p->meta.name].s,
                          ss->tool_name, jstr(ss->tool_args, "cmd") ? jstr(ss->tool_args, "cmd") : "");
                    continue;
                }
                ss->timed_out = true;
            }
            /* the answer (or its absence) in the state it was awaited */
            if (!ss->reply && !ss->reply_err)
                pend_forget(s, ss, ss->await);
            St st = ss->st;
            cJSON *res = ss->reply, *err = ss->reply_err;
            ss->reply = ss->reply_err = NULL;
            ss->await = -1;
            ss->st = ST_OPS;
            const BcInsn *in = &p->insn[ss->pc];
            bool late = ss->timed_out && !res && !err;
            char ebuf[512] = "";
            if (err) {
                const char *m = jstr(err, "message");
                snprintf(ebuf, sizeof ebuf, "error %d: %s", (int)jint(jget(err, "code"), INT_MIN, INT_MAX, 0), m ? m : "");
            } else if (late) {
                snprintf(ebuf, sizeof ebuf, "no answer within %u ms",
                         s->o.client_timeout_ms ? s->o.client_timeout_ms : 30000);
            }
            switch (st) {
            case ST_READ: {
                cJSON *files = bc_val_cjson(p, in->a[0]);
                const cJSON *f = cJSON_GetArrayItem(files, (int)ss->sub);
                const char *path = jstr(f, "path"), *want = jstr(f, "expectedContent");
                const char *got = jstr(res, "content");
                if (ebuf[0] || !got)
                    check_fail(s, ss, in->line, "fs/read_text_file '%s': %s", path ? path : "",
                               ebuf[0] ? ebuf : "the answer has no content");
                else if (want && strcmp(want, got) != 0) {
                    Buf d;
                    buf_init(&d);
                    text_line_diff(&d, want, strlen(want), got, strlen(got));
                    buf_putc(&d, 0);
                    check_fail(s, ss, in->line, "fs/read_text_file '%s': the content differs from expectedContent:\n%s",
                               path ? path : "", d.oom ? "" : (const char *)d.data);
                    buf_fini(&d);
                } else {
                    check_pass(s);
                }
                cJSON_Delete(files);
                ss->sub++;
                break;
            }
            case ST_EDIT_READ: {
                const char *path = p->str[in->a[0]].s;
                const char *old = err ? NULL : jstr(res, "content");
                if (late) {
                    check_fail(s, ss, in->line, "agentEdits '%s': fs/read_text_file: %s", path, ebuf);
                    ss->pc++;
                    break;
                }
                char why[512];
                if (scn_edit_apply(path, old, old ? strlen(old) : 0, in->a[1], in->a[2], &ss->edit_new, why,
                                   sizeof why) != 0) {
                    check_fail(s, ss, in->line, "%s", why);
                    ss->pc++;
                    break;
                }
                cJSON *u = upd("tool_call");
                snprintf(ss->tool_id, sizeof ss->tool_id, "scvm-call-%u", ++ss->n_calls);
                cJSON_AddStringToObject(u, "toolCallId", ss->tool_id);
                char title[PATH_MAX + 8];
                snprintf(title, sizeof title, "Edit %s", path);
                cJSON_AddStringToObject(u, "title", title);
                cJSON_AddStringToObject(u, "kind", "edit");
                cJSON_AddStringToObject(u, "status", "in_progress");
                cJSON *content = cJSON_AddArrayToObject(u, "content");
                cJSON *d = cJSON_CreateObject();
                cJSON_AddStringToObject(d, "type", "diff");
                cJSON_AddStringToObject(d, "path", ss->edit_path);
                if (old)
                    cJSON_AddStringToObject(d, "oldText", old);
                cJSON_AddStringToObject(d, "newText", ss->edit_new.oom ? "" : (const char *)ss->edit_new.data);
                cJSON_AddItemToArray(content, d);
                add_location(ss, u, path);
                update(s, ss, u);
                cJSON *wp = sess_params(ss);
                cJSON_AddStringToObject(wp, "path", ss->edit_path);
                cJSON_AddStringToObject(wp, "content", ss->edit_new.oom ? "" : (const char *)ss->edit_new.data);
                call(s, ss, ST_EDIT_WRITE, "fs/write_text_file", wp);
                break;
            }
            case ST_EDIT_WRITE: {
                if (ebuf[0])
                    check_fail(s, ss, in->line, "agentEdits '%s': fs/write_text_file: %s", p->str[in->a[0]].s, ebuf);
                else
                    check_pass(s);
                cJSON *u = upd("tool_call_update");
                cJSON_AddStringToObject(u, "toolCallId", ss->tool_id);
                cJSON_AddStringToObject(u, "status", ebuf[0] ? "failed" : "completed");
                update(s, ss, u);
                ss->pc++;
                break;
            }
            case ST_PERM: {
                cJSON *k = bc_val_cjson(p, in->a[0]);
                const char *outcome = jstr(jget(res, "outcome"), "outcome"), *opt = jstr(jget(res, "outcome"), "optionId");
                /* what the script expects: decision, or granted: the first allow_once / reject_once */
                const char *w_out = NULL, *w_opt = NULL;
                const cJSON *dec = jget(k, "decision");
                if (cJSON_IsObject(dec)) {
                    w_out = jstr(dec, "outcome");
                    w_opt = jstr(dec, "optionId");
                } else if (cJSON_IsBool(jget(k, "granted"))) {
                    bool g = cJSON_IsTrue(jget(k, "granted"));
                    w_out = "selected";
                    const cJSON *o;
                    for (int pass = 0; pass < 2 && !w_opt; pass++)
                        cJSON_ArrayForEach(o, jget(k, "options"))
                        {
                            const char *kind = jstr(o, "kind");
                            if (!w_opt && kind &&
                                (pass ? strncmp(kind, g ? "allow" : "reject", g ? 5 : 6) == 0
                                      : strcmp(kind, g ? "allow_once" : "reject_once") == 0))
                                w_opt = jstr(o, "id");
                        }
                }
                bool offered = false;
                const cJSON *o;
                cJSON_ArrayForEach(o, jget(k, "options")) offered |= opt && jstr(o, "id") && !strcmp(jstr(o, "id"), opt);
                if (ss->cancelled && outcome && !strcmp(outcome, "cancelled"))
                    check_pass(s);      /* the prompt was cancelled: the answer ACP asks for */
                else if (ebuf[0] || !outcome)
                    check_fail(s, ss, in->line, "session/request_permission: %s", ebuf[0] ? ebuf : "the answer has no outcome");
                else if (!strcmp(outcome, "selected") && !offered)
                    check_fail(s, ss, in->line, "session/request_permission: the client selected '%s', which is not one of the options",
                               opt ? opt : "");
                else if (w_out && (strcmp(w_out, outcome) != 0 ||
                                   (!strcmp(outcome, "selected") && w_opt && (!opt || strcmp(w_opt, opt) != 0))))
                    check_fail(s, ss, in->line,
                               "session/request_permission: the scenario expects %s%s%s%s, the client answered %s%s%s%s",
                               w_out, w_opt ? " '" : "", w_opt ? w_opt : "", w_opt ? "'" : "", outcome,
                               opt ? " '" : "", opt ? opt : "", opt ? "'" : "");
                else
                    check_pass(s);
                cJSON_Delete(k);
                ss->pc++;
                break;
            }
            case ST_TCREATE: {
                const char *tid = jstr(res, "terminalId");
                if (ebuf[0] || !tid) {
                    check_fail(s, ss, in->line, "runCmd: terminal/create: %s", ebuf[0] ? ebuf : "no terminalId in the answer");
                    tool_announce(s, ss, "failed", NULL);
                    tool_close(ss);
                    ss->pc++;
                    break;
                }
                snprintf(ss->term_id, sizeof ss->term_id, "%s", tid);
                ss->tool_term = true;
                /* the tool_call, with the terminal as its content */
                tool_announce(s, ss, "in_progress", term_content(ss->term_id));
                ss->pc++;
                break;
            }
            case ST_TWAIT: {
                const cJSON *code = jget(res, "exitCode"), *sig = jget(res, "signal");
                ss->tool_exit = cJSON_IsNumber(code) ? (int)jint(code, -999, INT_MAX, 1)
                                : (cJSON_IsString(sig) ? -1000 : INT_MIN);
                if (ebuf[0] && !s->o.quiet)
                    logf_(s, "runCmd: terminal/wait_for_exit: %s", ebuf);
                cJSON *op = sess_params(ss);
                cJSON_AddStringToObject(op, "terminalId", ss->term_id);
                bool killed = ss->timed_out;
                call(s, ss, ST_TOUT, "terminal/output", op);
                ss->timed_out = killed;
                break;
            }
            case ST_TOUT: {
                const char *out = jstr(res, "output");
                sc_free(ss->tool_out);
                ss->tool_out = sc_strdup(out ? out : "");
                if (ss->tool_exit == INT_MIN) {
                    const cJSON *es = jget(res, "exitStatus");
                    if (cJSON_IsNumber(jget(es, "exitCode")))
                        ss->tool_exit = (int)jint(jget(es, "exitCode"), -999, INT_MAX, 1);
                }
                cJSON *rp = sess_params(ss);
                cJSON_AddStringToObject(rp, "terminalId", ss->term_id);
                bool killed = ss->timed_out;
                call(s, ss, ST_TREL, "terminal/release", rp);
                ss->timed_out = killed;
                break;
            }
            case ST_TREL: {
                bool is_result = in->op == OP_TOOL_RESULT;
                bool killed = ss->timed_out;
                ss->timed_out = false;
                if (killed) {
                    check_fail(s, ss, in->line, "runCmd '%s': the command ran past its timeout and was killed",
                               jstr(ss->tool_args, "cmd") ? jstr(ss->tool_args, "cmd") : ss->tool_name);
                } else {
                    check_terminal(s, ss, is_result ? in : NULL);
                }
                cJSON *u = upd("tool_call_update");
                cJSON_AddStringToObject(u, "toolCallId", ss->tool_id);
                cJSON_AddStringToObject(u, "status", ss->tool_exit == 0 ? "completed" : "failed");
                cJSON_AddItemToObject(u, "content", term_content(ss->term_id));
                cJSON *raw = cJSON_CreateObject();
                cJSON_AddStringToObject(raw, "output", ss->tool_out ? ss->tool_out : "");
                if (ss->tool_exit > -1000 && ss->tool_exit != INT_MIN)
                    cJSON_AddNumberToObject(raw, "exitCode", ss->tool_exit);
                else
                    cJSON_AddNullToObject(raw, "exitCode");
                cJSON_AddItemToObject(u, "rawOutput", raw);
                update(s, ss, u);
                tool_close(ss);
                if (is_result)
                    ss->pc++;
                break;
            }
            case ST_FS_READ: {
                const char *content = jstr(res, "content");
                if (ebuf[0] || !content) {
                    ss->tool_exit = 1;
                    sc_free(ss->tool_out);
                    ss->tool_out = sc_strdup(ebuf[0] ? ebuf : "the answer has no content");
                    ss->pc++;
                    break;
                }
                if (ss->tool_fs_kind == FS_READ) {
                    ss->tool_exit = 0;
                    sc_free(ss->tool_out);
                    ss->tool_out = sc_strdup(content);
                    ss->pc++;
                    break;
                }
                /* editFile: old_string must occur once (or replace_all), as real agents require */
                const char *os_ = jstr(ss->tool_args, "old_string"), *ns = jstr(ss->tool_args, "new_string");
                bool all = jtrue(ss->tool_args, "replace_all");
                size_t on = os_ ? strlen(os_) : 0, count = 0;
                for (const char *q = on ? strstr(content, os_) : NULL; q; q = strstr(q + on, os_))
                    count++;
                char msg[PATH_MAX + 128] = "";
                if (!os_ || !ns || !on)
                    snprintf(msg, sizeof msg, "editFile needs old_string and new_string");
                else if (count == 0)
                    snprintf(msg, sizeof msg, "old_string not found in %s", ss->edit_path);
                else if (count > 1 && !all)
                    snprintf(msg, sizeof msg, "old_string occurs %zu times in %s; replace_all is not set", count,
                             ss->edit_path);
                if (msg[0]) {
                    ss->tool_exit = 1;
                    sc_free(ss->tool_out);
                    ss->tool_out = sc_strdup(msg);
                    ss->pc++;
                    break;
                }
                buf_reset(&ss->edit_new);
                const char *at = content;
                for (const char *q = strstr(at, os_); q; q = all ? strstr(at, os_) : NULL) {
                    buf_put(&ss->edit_new, at, (size_t)(q - at));
                    buf_puts(&ss->edit_new, ns);
                    at = q + on;
                }
                buf_puts(&ss->edit_new, at);
                buf_putc(&ss->edit_new, 0);
                ss->edit_new.len--;
                sc_free(ss->tool_old);
                ss->tool_old = sc_strdup(content);
                cJSON *wp = sess_params(ss);
                cJSON_AddStringToObject(wp, "path", ss->edit_path);
                cJSON_AddStringToObject(wp, "content", ss->edit_new.oom ? "" : (const char *)ss->edit_new.data);
                call(s, ss, ST_FS_WRITE, "fs/write_text_file", wp);
                break;
            }
            case ST_FS_WRITE:
                ss->tool_exit = ebuf[0] ? 1 : 0;
                sc_free(ss->tool_out);
                ss->tool_out = sc_strdup(ebuf[0] ? ebuf : "");
                ss->pc++;
                break;
            case ST_CANCEL:
                /* reached only on timeout: the client never cancelled */
                check_fail(s, ss, in->line, "the scenario expects the client to cancel the prompt (session/cancel) here; "
                           "it did not within %u ms", s->o.client_timeout_ms ? s->o.client_timeout_ms : 30000);
                ss->pc++;
                break;
            case ST_OPS:
                break;
            }
            cJSON_Delete(res);
            cJSON_Delete(err);
            continue;
        }
        if (ss->cancelled) {
            prompt_end(s, ss);
            return;
        }
        if (ss->pc >= ss->turn_end) {
            if (ss->tool_open && ss->tool_term) {
                term_finish_start(s, ss);
                continue;
            }
            if (ss->tool_open && ss->tool_fs) {
                tool_fs_finish(s, ss, NULL);
                continue;
            }
            prompt_end(s, ss);
            return;
        }
        const BcInsn *in = &p->insn[ss->pc];
        uint64_t due = ss->t_wall0;
        if (s->o.speed > 0 && in->t > ss->t_script0)
            due += rt_clock_scale(in->t - ss->t_script0, s->o.speed);
        if (due > now) {
            if (due < *wake)
                *wake = due;
            return;
        }
        /* a runCmd in a terminal ends before any op other than its progress */
        if (ss->tool_open && ss->tool_term && in->op != OP_TOOL_PROGRESS) {
            term_finish_start(s, ss);
            continue;
        }
        if (ss->tool_open && ss->tool_fs && in->op != OP_TOOL_PROGRESS) {
            tool_fs_finish(s, ss, in->op == OP_TOOL_RESULT ? in : NULL);
            if (in->op == OP_TOOL_RESULT)
                ss->pc++;
            continue;
        }
        AcpPlay c = { s, ss, now };
        if (player_op(&acp_live_player, &c, p, in) == ACP_HOLD)
            continue;
        ss->pc++;
    }
}

/* History replay for session/load: the ops before sessionStart as
** updates, at once; nothing is asked of the client. */
static void replay_history(Srv *s, Sess *ss)
{
    const BcProgram *p = ss->p;
    AcpPlay c = { s, ss, 0 };
    for (uint32_t i = 0; i < ss->tt.hist_end; i++)
        player_op(&acp_history_player, &c, p, &p->insn[i]);
    tool_close(ss);
    ss->resp_meta = UINT32_MAX;
}

/* ---- requests from the client ---- */

/* Every scripted leaf of want equal in got; the first difference into why. */
static bool subset(const cJSON *want, const cJSON *got, char *path, size_t cap, size_t at)
{
    if (cJSON_IsObject(want)) {
        const cJSON *w;
        cJSON_ArrayForEach(w, want)
        {
            if (strcmp(w->string, "_meta") == 0 || strcmp(w->string, "meta") == 0)
                continue;       /* extensions (and the reference's spelling of them) */
            snprintf(path + at, cap - at, ".%s", w->string);
            if (!subset(w, jget(got, w->string), path, cap, strlen(path)))
                return false;
        }
        return true;
    }
    return got && cJSON_Compare(want, got, true);
}

static void on_initialize(Srv *s, const cJSON *id, const cJSON *params)
{
    const cJSON *cc = jget(params, "clientCapabilities");
    s->cl_read = jtrue(jget(cc, "fs"), "readTextFile");
    s->cl_write = jtrue(jget(cc, "fs"), "writeTextFile");
    s->cl_term = jtrue(cc, "terminal");
    /* capabilities: the candidates' acp sections (their union), each
    ** scenario's initialize.expectedResponse over them (the first wins) */
    cJSON *res = cJSON_CreateObject();
    cJSON *exp = NULL;
    bool load = false, img = false, aud = false, emb = false, http = false, sse = false, unstable = false;
    for (size_t i = 0; i < s->n_cand; i++) {
        const BcProgram *p = suite_entry(s->suite, s->cand[i])->prog;
        cJSON *a = acp_config(p);
        const cJSON *c = jget(a, "capabilities"), *pc = jget(c, "promptCapabilities"), *mc = jget(c, "mcpCapabilities");
        load |= jtrue(c, "loadSession");
        img |= jtrue(pc, "image");
        aud |= jtrue(pc, "audio");
        emb |= jtrue(pc, "embeddedContext");
        http |= jtrue(mc, "http");
        sse |= jtrue(mc, "sse");
        unstable |= jtrue(a, "unstable");
        cJSON_Delete(a);
        int32_t k = first_op(p, OP_INITIALIZE);
        if (k >= 0) {
            cJSON *v = bc_val_cjson(p, p->insn[k].a[0]);
            /* the client's request against the scripted one */
            const cJSON *req = jget(v, "request");
            char where[512] = "";
            if (cJSON_IsObject(req)) {
                cJSON *want = cJSON_Duplicate(req, true);
                cJSON_DeleteItemFromObjectCaseSensitive(want, "clientInfo");
                if (!subset(want, params, where, sizeof where, 0)) {
                    Sess fake = { .p = p };
                    snprintf(fake.id, sizeof fake.id, "-");
                    char *w = cJSON_PrintUnformatted(want), *g = cJSON_PrintUnformatted(params);
                    check_fail(s, &fake, p->insn[k].line,
                               "initialize: the client's request differs from the scenario's at '%s'\n--- expected\n+++ "
                               "actual\n-%s\n+%s",
                               where + (where[0] == '.'), w ? w : "", g ? g : "");
                    cJSON_free(w);
                    cJSON_free(g);
                } else {
                    check_pass(s);
                }
                cJSON_Delete(want);
            }
            if (!exp)
                exp = cJSON_DetachItemFromObjectCaseSensitive(v, "expectedResponse");
            cJSON_Delete(v);
        }
    }
    cJSON_AddNumberToObject(res, "protocolVersion", 1);
    cJSON *caps = cJSON_AddObjectToObject(res, "agentCapabilities");
    cJSON_AddBoolToObject(caps, "loadSession", load);
    cJSON *pc = cJSON_AddObjectToObject(caps, "promptCapabilities");
    cJSON_AddBoolToObject(pc, "image", img);
    cJSON_AddBoolToObject(pc, "audio", aud);
    cJSON_AddBoolToObject(pc, "embeddedContext", emb);
    cJSON *mc = cJSON_AddObjectToObject(caps, "mcpCapabilities");
    cJSON_AddBoolToObject(mc, "http", http);
    cJSON_AddBoolToObject(mc, "sse", sse);
    /* the scenario's expected response: its fields over these, key by key */
    const cJSON *ec = jget(exp, "agentCapabilities");
    const cJSON *x;
    cJSON_ArrayForEach(x, ec)
    {
        cJSON *mine = cJSON_GetObjectItemCaseSensitive(caps, x->string);
        if (cJSON_IsObject(mine) && cJSON_IsObject(x)) {
            const cJSON *y;
            cJSON_ArrayForEach(y, x)
            {
                cJSON_DeleteItemFromObjectCaseSensitive(mine, y->string);
                cJSON_AddItemToObject(mine, y->string, cJSON_Duplicate(y, true));
            }
        } else {
            cJSON_DeleteItemFromObjectCaseSensitive(caps, x->string);
            cJSON_AddItemToObject(caps, x->string, cJSON_Duplicate(x, true));
        }
    }
    const cJSON *lsv = jget(caps, "loadSession");
    load = cJSON_IsTrue(lsv);
    pc = cJSON_GetObjectItemCaseSensitive(caps, "promptCapabilities");
    mc = cJSON_GetObjectItemCaseSensitive(caps, "mcpCapabilities");
    s->load_session = load;
    s->cap_image = jtrue(pc, "image");
    s->cap_audio = jtrue(pc, "audio");
    s->cap_embedded = jtrue(pc, "embeddedContext");
    s->mcp_http = jtrue(mc, "http");
    s->mcp_sse = jtrue(mc, "sse");
    s->unstable = unstable;
    cJSON *am = cJSON_Duplicate(jget(exp, "authMethods"), true);
    cJSON_Delete(s->auth_methods);
    s->auth_methods = cJSON_IsArray(am) ? am : (cJSON_Delete(am), cJSON_CreateArray());
    cJSON_AddItemToObject(res, "authMethods", cJSON_Duplicate(s->auth_methods, true));
    if (jget(exp, "agentInfo"))
        cJSON_AddItemToObject(res, "agentInfo", cJSON_Duplicate(jget(exp, "agentInfo"), true));
    else {
        cJSON *ai = cJSON_AddObjectToObject(res, "agentInfo");
        cJSON_AddStringToObject(ai, "name", "scvm");
        cJSON_AddStringToObject(ai, "title", "scvm mock ACP agent");
#ifdef SCC_VERSION
        cJSON_AddStringToObject(ai, "version", SCC_VERSION);
#else
        cJSON_AddStringToObject(ai, "version", "0");
#endif
    }
    if (cJSON_IsObject(jget(exp, "_meta")))
        cJSON_AddItemToObject(res, "_meta", cJSON_Duplicate(jget(exp, "_meta"), true));
    cJSON_Delete(exp);
    s->initialized = true;
    reply_result(s, id, res);
}

/* The session's scenario named by --scenario/only, _meta "scvm.scenario",
** or the only candidate; -1 when the first prompt must choose; -2 (error
** sent) when a named one does not exist. */
static int32_t choose(Srv *s, const cJSON *id, const cJSON *params)
{
    const char *want = jstr(jget(params, "_meta"), "scvm.scenario");
    if (want) {
        for (size_t i = 0; i < s->n_cand; i++)
            if (strcmp(suite_entry(s->suite, s->cand[i])->name, want) == 0)
                return (int32_t)s->cand[i];
        reply_error(s, id, E_PARAMS, "_meta scvm.scenario: no scenario named '%s' is served", want);
        return -2;
    }
    return s->n_cand == 1 ? (int32_t)s->cand[0] : -1;
}

/* cwd and mcpServers of session/new and session/load; false (error sent) when bad. */
static bool session_params(Srv *s, const cJSON *id, const cJSON *params, const char **cwd)
{
    *cwd = jstr(params, "cwd");
    if (!*cwd || (*cwd)[0] != '/') {
        reply_error(s, id, E_PARAMS, "Invalid params: 'cwd' must be an absolute path");
        return false;
    }
    const cJSON *ms = jget(params, "mcpServers");
    if (!cJSON_IsArray(ms)) {
        reply_error(s, id, E_PARAMS, "Invalid params: 'mcpServers' must be an array");
        return false;
    }
    const cJSON *m;
    cJSON_ArrayForEach(m, ms)
    {
        const char *t = jstr(m, "type"), *name = jstr(m, "name");
        if (!cJSON_IsObject(m) || !name) {
            reply_error(s, id, E_PARAMS, "Invalid params: an MCP server needs a 'name'");
            return false;
        }
        if (t && ((!strcmp(t, "http") && !s->mcp_http) || (!strcmp(t, "sse") && !s->mcp_sse))) {
            reply_error(s, id, E_PARAMS, "Invalid params: MCP server '%s' uses the %s transport, which the agent's "
                        "mcpCapabilities do not allow", name, t);
            return false;
        }
    }
    return true;
}

/* The client's side of the script, for a client that plays it (the test
** suite's; docs/serve-acp.md, "The script in _meta"): the scenario's name
** and per turn its prompt (the userInputs input), the setMode and setModel
** calls and whether it is cancelled. */
static cJSON *script_meta(const Sess *ss)
{
    cJSON *m = cJSON_CreateObject();
    if (!ss->p)
        return m;
    const BcProgram *p = ss->p;
    cJSON *st = session_start(p);
    const cJSON *sm = jget(st, "_meta"), *x;
    cJSON_ArrayForEach(x, sm) cJSON_AddItemToObject(m, x->string, cJSON_Duplicate(x, true));
    cJSON_Delete(st);
    cJSON_AddStringToObject(m, "scvm.scenario", p->str[p->meta.name].s);
    cJSON *turns = cJSON_AddArrayToObject(m, "scvm.turns");
    for (uint32_t k = 0; k < ss->tt.n; k++) {
        cJSON *t = cJSON_CreateObject(), *modes = cJSON_CreateArray(), *models = cJSON_CreateArray();
        cJSON *prompt = NULL;
        bool cancel = false;
        for (uint32_t i = ss->tt.start[k]; i < ss->tt.start[k + 1]; i++) {
            const BcInsn *in = &p->insn[i];
            if (in->op == OP_USER_INPUT && !prompt)
                prompt = bc_val_cjson(p, in->a[2]);
            else if (in->op == OP_SET_MODE)
                cJSON_AddItemToArray(modes, cJSON_CreateString(p->str[in->a[0]].s));
            else if (in->op == OP_SET_MODEL)
                cJSON_AddItemToArray(models, cJSON_CreateString(p->str[in->a[0]].s));
            cancel |= in->op == OP_USER_CANCEL;
        }
        cJSON_AddItemToObject(t, "prompt", prompt ? prompt : cJSON_CreateNull());
        cJSON_AddItemToObject(t, "setMode", modes);
        cJSON_AddItemToObject(t, "setModel", models);
        cJSON_AddBoolToObject(t, "cancel", cancel);
        cJSON_AddItemToArray(turns, t);
    }
    return m;
}

static void add_session_state(const Sess *ss, cJSON *res, bool unstable)
{
    if (ss->modes)
        cJSON_AddItemToObject(res, "modes", cJSON_Duplicate(ss->modes, true));
    if (ss->models && unstable)
        cJSON_AddItemToObject(res, "models", cJSON_Duplicate(ss->models, true));
    cJSON_AddItemToObject(res, "_meta", script_meta(ss));
}

/* available_commands_update with the slash commands the script runs
** (slashCommand tools: "/name args" offers "name"), when it runs any. */
static void send_commands(Srv *s, Sess *ss)
{
    if (!ss->p)
        return;
    const BcProgram *p = ss->p;
    cJSON *cmds = cJSON_CreateArray();
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        if (in->op != OP_TOOL_START || strcasecmp(p->str[in->a[0]].s, "slashCommand") != 0)
            continue;
        cJSON *args = bc_val_cjson(p, in->a[1]);
        const char *c = jstr(args, "command");
        if (c) {
            c += *c == '/';
            size_t n = strcspn(c, " \t\n");
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), c);
            bool dup = !name[0];
            const cJSON *x;
            cJSON_ArrayForEach(x, cmds) dup |= strcmp(jstr(x, "name"), name) == 0;
            if (!dup) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "name", name);
                cJSON_AddStringToObject(o, "description", "a command the scenario runs");
                cJSON_AddItemToArray(cmds, o);
            }
        }
        cJSON_Delete(args);
    }
    if (cJSON_GetArraySize(cmds) == 0) {
        cJSON_Delete(cmds);
        return;
    }
    cJSON *u = upd("available_commands_update");
    cJSON_AddItemToObject(u, "availableCommands", cmds);
    update(s, ss, u);
}

static void on_session_new(Srv *s, const cJSON *id, const cJSON *params)
{
    const char *cwd;
    if (!session_params(s, id, params, &cwd))
        return;
    int32_t e = choose(s, id, params);
    if (e == -2)
        return;
    char sid[256];
    cJSON *st = e >= 0 ? session_start(suite_entry(s->suite, (uint32_t)e)->prog) : NULL;
    const char *want = jstr(st, "sessionId");
    s->made++;
    if (want && !sess_find(s, want))
        snprintf(sid, sizeof sid, "%s", want);
    else if (want)
        snprintf(sid, sizeof sid, "%s-%u", want, s->made);
    else
        snprintf(sid, sizeof sid, "scvm-session-%u", s->made);
    cJSON_Delete(st);
    Sess *ss = sess_new(s, sid, cwd);
    if (!ss || (e >= 0 && sess_bind(s, ss, e) != 0)) {
        s->io_err = ENOMEM;
        return;
    }
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "sessionId", ss->id);
    add_session_state(ss, res, s->unstable);
    reply_result(s, id, res);
    send_commands(s, ss);
}

static void on_session_load(Srv *s, const cJSON *id, const cJSON *params)
{
    if (!s->load_session) {
        reply_error(s, id, E_METHOD, "Method not found: session/load (the agent does not advertise loadSession)");
        return;
    }
    const char *sid = jstr(params, "sessionId"), *cwd;
    if (!sid) {
        reply_error(s, id, E_PARAMS, "Invalid params: 'sessionId' is required");
        return;
    }
    if (!session_params(s, id, params, &cwd))
        return;
    /* the scenario whose sessionStart.sessionId, else name, is the id */
    int32_t e = -1;
    for (int pass = 0; pass < 2 && e < 0; pass++) {
        for (size_t i = 0; i < s->n_cand && e < 0; i++) {
            const PackEntry *pe = suite_entry(s->suite, s->cand[i]);
            cJSON *st = session_start(pe->prog);
            const char *w = pass ? pe->name : jstr(st, "sessionId");
            if (w && strcmp(w, sid) == 0)
                e = (int32_t)s->cand[i];
            cJSON_Delete(st);
        }
    }
    if (e < 0) {
        reply_error(s, id, E_NOT_FOUND, "Resource not found: no scenario has session '%s'", sid);
        return;
    }
    Sess *old = sess_find(s, sid);
    if (old && old->prompting) {
        reply_error(s, id, E_INVALID, "Invalid request: session '%s' is playing a prompt", sid);
        return;
    }
    if (old) {
        /* loaded again: a fresh copy replaces it */
        pend_forget(s, old, -1);
        for (size_t i = 0; i < s->n_ss; i++)
            if (s->ss[i] == old)
                s->ss[i] = s->ss[--s->n_ss];
        sess_free(old);
        s->c->sessions--;
    }
    Sess *ss = sess_new(s, sid, cwd);
    if (!ss || sess_bind(s, ss, e) != 0) {
        s->io_err = ENOMEM;
        return;
    }
    replay_history(s, ss);
    cJSON *res = cJSON_CreateObject();
    add_session_state(ss, res, s->unstable);
    reply_result(s, id, res);
    send_commands(s, ss);
}

/* The prompt's text (its text blocks, joined), into b. */
static void prompt_text(const cJSON *prompt, Buf *b)
{
    const cJSON *blk;
    cJSON_ArrayForEach(blk, prompt)
    {
        const char *t = jstr(blk, "type"), *x = jstr(blk, "text");
        if (t && !strcmp(t, "text") && x) {
            if (b->len)
                buf_putc(b, '\n');
            buf_puts(b, x);
        }
    }
    buf_putc(b, 0);
    b->len--;
}

static void on_prompt(Srv *s, const cJSON *id, const cJSON *params)
{
    const char *sid = jstr(params, "sessionId");
    const cJSON *prompt = jget(params, "prompt");
    if (!sid || !cJSON_IsArray(prompt)) {
        reply_error(s, id, E_PARAMS, "Invalid params: session/prompt needs 'sessionId' and a 'prompt' array");
        return;
    }
    Sess *ss = sess_find(s, sid);
    if (!ss) {
        reply_error(s, id, E_PARAMS, "Invalid params: unknown session '%s'", sid);
        return;
    }
    if (ss->prompting) {
        reply_error(s, id, E_INVALID, "Invalid request: session '%s' is already playing a prompt", sid);
        return;
    }
    const cJSON *blk;
    cJSON_ArrayForEach(blk, prompt)
    {
        const char *t = jstr(blk, "type");
        bool ok = t && (!strcmp(t, "text") || !strcmp(t, "resource_link") || (!strcmp(t, "image") && s->cap_image) ||
                        (!strcmp(t, "audio") && s->cap_audio) || (!strcmp(t, "resource") && s->cap_embedded));
        if (!ok) {
            reply_error(s, id, E_PARAMS, "Invalid params: a prompt block of type '%s', which the agent's "
                        "promptCapabilities do not allow", t ? t : "(none)");
            return;
        }
    }
    Buf text;
    buf_init(&text);
    prompt_text(prompt, &text);
    if (ss->entry < 0) {
        size_t dist = 0;
        int32_t e = suite_best_prompt(s->suite, s->cand, s->n_cand, (const char *)text.data, text.len, &dist);
        if (e < 0 || sess_bind(s, ss, e) != 0) {
            buf_fini(&text);
            reply_error(s, id, E_INTERNAL, "Internal error: no scenario to play");
            return;
        }
        if (!s->o.quiet)
            logf_(s, "session '%s': scenario '%s' (prompt distance %zu)", ss->id, suite_entry(s->suite, (uint32_t)e)->name,
                  dist);
    }
    s->c->prompts++;
    if (ss->next_turn >= ss->tt.n) {
        check_fail(s, ss, 0, "prompt %u: the scenario has %u turn%s", ss->next_turn + 1, ss->tt.n,
                   ss->tt.n == 1 ? "" : "s");
        reply_error(s, id, E_INTERNAL, "Internal error: scenario '%s' has no turn %u", ss->p->str[ss->p->meta.name].s,
                    ss->next_turn + 1);
        buf_fini(&text);
        return;
    }
    ss->cur_turn = ss->next_turn++;
    ss->pc = ss->tt.start[ss->cur_turn];
    ss->turn_end = ss->tt.start[ss->cur_turn + 1];
    /* the turn's clock starts at its userInputs (the prompt), else at its first op */
    ss->ui = scn_turn_prompt(&ss->tt, ss->p, ss->cur_turn);
    ss->t_script0 = scn_turn_t0(&ss->tt, ss->p, ss->cur_turn);
    if (ss->ui != UINT32_MAX) {
        const BcInsn *first = &ss->p->insn[ss->ui];
        const char *want = ss->p->str[first->a[1]].s;
        if (strcmp(want, (const char *)text.data) != 0 && !s->o.quiet)
            logf_(s, "note: session '%s' prompt %u differs from the scenario's input (line %u): \"%.80s\"", ss->id,
                  ss->cur_turn + 1, (unsigned)first->line, (const char *)text.data);
    }
    buf_fini(&text);
    ss->t_wall0 = sc_now_ms();
    ss->prompting = true;
    ss->cancelled = ss->stop_error = false;
    ss->st = ST_OPS;
    ss->await = -1;
    ss->sub = 0;
    ss->prompt_id = cJSON_Duplicate(id, true);
}

static void on_cancel(Srv *s, const cJSON *params)
{
    Sess *ss = jstr(params, "sessionId") ? sess_find(s, jstr(params, "sessionId")) : NULL;
    if (!ss || !ss->prompting)
        return;
    if (ss->st == ST_CANCEL) {
        check_pass(s);
        ss->await = -1;
        ss->st = ST_OPS;
    } else if (ss->st == ST_TWAIT && ss->term_id[0]) {
        cJSON *kp = sess_params(ss);
        cJSON_AddStringToObject(kp, "terminalId", ss->term_id);
        int64_t keep = ss->await;
        call(s, NULL, ST_OPS, "terminal/kill", kp);
        ss->await = keep;
    }
    ss->cancelled = true;
}

static void on_set(Srv *s, const cJSON *id, const cJSON *params, bool model)
{
    const char *what = model ? "modelId" : "modeId";
    const char *sid = jstr(params, "sessionId"), *v = jstr(params, what);
    Sess *ss = sid ? sess_find(s, sid) : NULL;
    if (!ss || !v) {
        reply_error(s, id, E_PARAMS, "Invalid params: %s needs a known 'sessionId' and '%s'",
                    model ? "session/set_model" : "session/set_mode", what);
        return;
    }
    cJSON *state = model ? ss->models : ss->modes;
    bool known = false;
    const cJSON *m;
    cJSON_ArrayForEach(m, jget(state, model ? "availableModels" : "availableModes")) known |=
        jstr(m, model ? "modelId" : "id") && !strcmp(jstr(m, model ? "modelId" : "id"), v);
    if (!known) {
        reply_error(s, id, E_PARAMS, "Invalid params: unknown %s '%s'", model ? "model" : "mode", v);
        return;
    }
    uint32_t *exp = model ? ss->exp_model : ss->exp_mode, n = model ? ss->n_exp_model : ss->n_exp_mode;
    uint32_t *got = model ? &ss->got_model : &ss->got_mode;
    if (*got < n && strcmp(ss->p->str[exp[*got]].s, v) == 0)
        check_pass(s);
    else if (*got < n)
        check_fail(s, ss, 0, "%s: the client set '%s', the scenario's next %s is '%s'",
                   model ? "session/set_model" : "session/set_mode", v, model ? "setModel" : "setMode",
                   ss->p->str[exp[*got]].s);
    else
        check_fail(s, ss, 0, "%s '%s': the scenario has no more %s", model ? "session/set_model" : "session/set_mode", v,
                   model ? "setModel" : "setMode");
    (*got)++;
    cJSON_ReplaceItemInObjectCaseSensitive(state, model ? "currentModelId" : "currentModeId", cJSON_CreateString(v));
    reply_result(s, id, NULL);
    if (!model) {
        cJSON *u = upd("current_mode_update");
        cJSON_AddStringToObject(u, "currentModeId", v);
        update(s, ss, u);
    }
}

static void on_request(Srv *s, const char *method, const cJSON *id, const cJSON *params)
{
    if (!strcmp(method, "initialize")) {
        on_initialize(s, id, params);
        return;
    }
    if (!s->initialized) {
        reply_error(s, id, E_INVALID, "Invalid request: '%s' before initialize", method);
        return;
    }
    if (!strcmp(method, "authenticate")) {
        const char *mid = jstr(params, "methodId");
        bool known = false;
        const cJSON *m;
        cJSON_ArrayForEach(m, s->auth_methods) known |= mid && jstr(m, "id") && !strcmp(jstr(m, "id"), mid);
        if (!known)
            reply_error(s, id, E_PARAMS, "Invalid params: unknown auth method '%s'", mid ? mid : "");
        else
            reply_result(s, id, NULL);
    } else if (!strcmp(method, "session/new")) {
        on_session_new(s, id, params);
    } else if (!strcmp(method, "session/load")) {
        on_session_load(s, id, params);
    } else if (!strcmp(method, "session/prompt")) {
        on_prompt(s, id, params);
    } else if (!strcmp(method, "session/set_mode")) {
        on_set(s, id, params, false);
    } else if (!strcmp(method, "session/set_model") && s->unstable) {
        on_set(s, id, params, true);
    } else {
        reply_error(s, id, E_METHOD, "Method not found: %s", method);
    }
}

/* An answer to one of our client calls. */
static void on_response(Srv *s, const cJSON *msg)
{
    const cJSON *id = jget(msg, "id");
    if (!cJSON_IsNumber(id))
        return;
    int64_t n = jint(id, 0, INT64_C(1) << 53, -1);
    if (n < 0)
        return;
    for (size_t i = 0; i < s->n_pend; i++) {
        if (s->pend[i].id != n)
            continue;
        Sess *ss = s->pend[i].ss;
        if (s->pend[i].forgotten && !s->o.quiet)
            logf_(s, "note: the answer to id %lld came after the call was given up", (long long)n);
        s->pend[i] = s->pend[--s->n_pend];
        if (ss && ss->await == n) {
            const cJSON *r = jget(msg, "result"), *e = jget(msg, "error");
            ss->reply = e ? NULL : (r ? cJSON_Duplicate(r, true) : cJSON_CreateObject());
            ss->reply_err = e ? cJSON_Duplicate(e, true) : NULL;
        }
        return;
    }
    if (!s->o.quiet)
        logf_(s, "note: an answer to id %lld, which no call awaits", (long long)n);
}

static void on_message(Srv *s, const char *line, size_t n)
{
    s->c->messages++;
    cJSON *m = cJSON_ParseWithLength(line, n);
    if (!m) {
        reply_error(s, NULL, E_PARSE, "Parse error");
        return;
    }
    const cJSON *id = jget(m, "id"), *method = jget(m, "method"), *params = jget(m, "params");
    bool has_id = id != NULL;
    if (!cJSON_IsObject(m) || (has_id && !cJSON_IsNumber(id) && !cJSON_IsString(id) && !cJSON_IsNull(id)) ||
        !cJSON_IsString(jget(m, "jsonrpc")) || strcmp(jget(m, "jsonrpc")->valuestring, "2.0") != 0) {
        reply_error(s, cJSON_IsNumber(id) || cJSON_IsString(id) ? id : NULL, E_INVALID, "Invalid Request");
    } else if (!method && has_id) {
        on_response(s, m);
    } else if (!cJSON_IsString(method)) {
        reply_error(s, has_id ? id : NULL, E_INVALID, "Invalid Request");
    } else if (params && !cJSON_IsObject(params) && !cJSON_IsArray(params)) {
        if (has_id)
            reply_error(s, id, E_INVALID, "Invalid Request: 'params' must be an object");
    } else if (!has_id) {
        if (!strcmp(method->valuestring, "session/cancel"))
            on_cancel(s, params);
        /* other notifications ($/cancel_request ...) need nothing */
    } else {
        if (params && !cJSON_IsObject(params))
            reply_error(s, id, E_PARAMS, "Invalid params: 'params' must be an object");
        else
            on_request(s, method->valuestring, id, params);
    }
    cJSON_Delete(m);
}

/* ---- the loop ---- */

/* Plays every session as far as it can go now; *wake as in play. */
static void play_all(Srv *s, uint64_t *wake)
{
    for (size_t i = 0; i < s->n_ss && !s->io_err; i++)
        play(s, s->ss[i], wake);
}

/* One message, then what it let the sessions do: the calls a prompt makes
** go out before the next message is read, as they would between two
** reads. */
static void on_line(Srv *s, const char *line, size_t n)
{
    uint64_t wake = UINT64_MAX;
    on_message(s, line, n);
    play_all(s, &wake);
}

int acp_serve(const Suite *suite, const AcpServeOpts *o, int in_fd, int out_fd, AcpCounts *c)
{
    Srv s = { .suite = suite, .o = *o, .out_fd = out_fd, .c = c };
    memset(c, 0, sizeof *c);
    s.log = o->log ? o->log : stderr;
    size_t max_line = o->max_line ? o->max_line : (16u << 20);
    uint32_t count = suite_count(suite);
    s.cand = sc_malloc((count ? count : 1) * sizeof *s.cand);
    if (!s.cand)
        return ENOMEM;
    if (o->only)
        for (size_t i = 0; i < o->n_only; i++)
            s.cand[s.n_cand++] = o->only[i];
    else
        for (uint32_t i = 0; i < count; i++)
            s.cand[s.n_cand++] = i;
    Buf in;
    buf_init(&in);
    bool eof = false, skipping = false;
    int err = 0;
    while (!s.io_err && !err) {
        uint64_t wake = UINT64_MAX;
        play_all(&s, &wake);
        if (s.io_err)
            break;
        if (eof)
            break;      /* the client is gone: what is left cannot be answered */
        struct pollfd pf[2] = { { .fd = in_fd, .events = POLLIN }, { .fd = o->cancel_fd, .events = POLLIN } };
        uint64_t now = sc_now_ms();
        int timeout = wake == UINT64_MAX ? -1 : wake <= now ? 0 : wake - now > INT_MAX ? INT_MAX : (int)(wake - now);
        int r = poll(pf, o->cancel_fd >= 0 ? 2 : 1, timeout);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            break;
        }
        if (o->cancel_fd >= 0 && (pf[1].revents & POLLIN))
            break;
        if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        char chunk_[65536];
        ssize_t got = read(in_fd, chunk_, sizeof chunk_);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            err = errno;
            break;
        }
        if (got == 0) {
            eof = true;
            if (in.len && !skipping)
                on_line(&s, (const char *)in.data, in.len);
            in.len = 0;
            continue;
        }
        size_t start = 0;
        for (size_t i = 0; i < (size_t)got; i++) {
            if (chunk_[i] != '\n')
                continue;
            if (!skipping) {
                buf_put(&in, chunk_ + start, i - start);
                if (in.oom) {
                    err = ENOMEM;
                    break;
                }
                size_t n = in.len;
                if (n && in.data[n - 1] == '\r')
                    n--;
                bool blank = true;
                for (size_t k = 0; k < n && blank; k++)
                    blank = in.data[k] == ' ' || in.data[k] == '\t';
                if (!blank)
                    on_line(&s, (const char *)in.data, n);
            }
            skipping = false;
            in.len = 0;
            start = i + 1;
        }
        if (!skipping && start < (size_t)got) {
            buf_put(&in, chunk_ + start, (size_t)got - start);
            if (in.len > max_line) {
                reply_error(&s, NULL, E_INVALID, "Invalid Request: a message longer than %zu bytes", max_line);
                skipping = true;
                in.len = 0;
            }
        }
    }
    /* what the script expected of the client and never came */
    for (size_t i = 0; i < s.n_ss; i++) {
        Sess *ss = s.ss[i];
        if (ss->p && ss->got_mode < ss->n_exp_mode)
            check_fail(&s, ss, 0, "the scenario expects session/set_mode '%s', which the client never sent",
                       ss->p->str[ss->exp_mode[ss->got_mode]].s);
        if (ss->p && ss->got_model < ss->n_exp_model)
            check_fail(&s, ss, 0, "the scenario expects session/set_model '%s', which the client never sent",
                       ss->p->str[ss->exp_model[ss->got_model]].s);
        if (ss->prompting)
            check_fail(&s, ss, 0, "the client closed the connection during prompt %u", ss->cur_turn + 1);
        sess_free(ss);
    }
    sc_free(s.ss);
    sc_free(s.pend);
    sc_free(s.cand);
    cJSON_Delete(s.auth_methods);
    buf_fini(&in);
    return s.io_err ? s.io_err : err;
}
