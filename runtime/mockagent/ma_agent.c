/* SPDX-License-Identifier: MIT */
/* ma_agent.c - the mock agent target (ma_agent.h): the transcript, tool
** calls executed and checked, agentEdits, asserts, checkpoints, and the
** cancellable clock. */
#include "ma_agent.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/llm/llm_toolres.h"
#include "runtime/rt_cancel.h"
#include "runtime/scn_assert.h"
#include "runtime/scn_edit.h"
#include "ma_shell.h"
#include "ma_tool.h"

/* The transcript shows this many lines of a tool's result. */
enum { SHOW_LINES = 20 };

typedef struct MaAgent {
    RtTarget base;
    MaAgentOpts o;
    char *real_root;            /* realpath of the folder: agents' absolute paths */
    MaStats st;
    Buf fails;                  /* JSON array elements, comma-separated */
    /* the tool executed last, until its TOOL_RESULT */
    bool pending;
    uint32_t tool_sym;          /* its name in the program's strings */
    uint32_t line;
    char tool[64];              /* the scenario tool it ran as */
    MaToolResult res;
    MaShells *shells;           /* runCmd's background shells */
    Buf in;                     /* bytes read from input_fd, not yet used */
    bool in_eof;
} MaAgent;

static const char *style(const MaAgent *a, const char *s) { return a->o.color ? s : ""; }
#define DIM "\033[2m"
#define BOLD "\033[1m"
#define RED "\033[1;31m"
#define OFF "\033[0m"

/* ---- the transcript ---- */

/* Each line of text (n bytes) after prefix (the first line) or an
** indent of its width (the others). */
static void print_lines(MaAgent *a, const char *prefix, const char *text, size_t n, const char *st)
{
    if (!a->o.out)
        return;
    size_t w = strlen(prefix);
    const char *p = text, *end = text + n;
    bool first = true;
    do {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        fprintf(a->o.out, "%s%s%*s%.*s%s\n", style(a, st), first ? prefix : "", first ? 0 : (int)w, "", (int)len, p,
                st[0] ? style(a, OFF) : "");
        first = false;
        p = nl ? nl + 1 : end;
    } while (p < end);
    fflush(a->o.out);
}

/* A tool's result: at most SHOW_LINES lines, then its status. */
static void print_result(MaAgent *a, const MaToolResult *r)
{
    if (!a->o.out)
        return;
    const char *p = (const char *)r->text.data, *end = p ? p + r->text.len : NULL;
    unsigned shown = 0, more = 0;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (shown < SHOW_LINES) {
            fprintf(a->o.out, "  | %.*s\n", (int)len, p);
            shown++;
        } else {
            more++;
        }
        p = nl ? nl + 1 : end;
    }
    if (more)
        fprintf(a->o.out, "  | ... (%u more lines)\n", more);
    fprintf(a->o.out, "  %s= %s%s%s%s%s\n", r->error ? style(a, RED) : "", r->error ? "error" : "ok",
            r->note[0] ? " (" : "", r->note, r->note[0] ? ")" : "", r->error ? style(a, OFF) : "");
    fflush(a->o.out);
}

/* ---- failures ---- */

/* Counts a failed check: "scvm: FILE:LINE: what" and the details on the
** diagnostics stream, a "! what" on the transcript, an element for --json. */
static void failed(MaAgent *a, uint32_t line, const char *kind, const char *tool, const char *what, const Buf *why)
{
    a->st.failed++;
    const char *w = why && why->len ? (const char *)why->data : "";
    size_t wl = why ? why->len : 0;
    if (a->o.diag) {
        fprintf(a->o.diag, "scvm: %s:%u: %s\n", a->o.file, (unsigned)line, what);
        if (wl)
            fprintf(a->o.diag, "%.*s%s", (int)wl, w, w[wl - 1] == '\n' ? "" : "\n");
        fflush(a->o.diag);
    }
    if (a->o.out) {
        fprintf(a->o.out, "  %s! %s%s\n", style(a, RED), what, style(a, OFF));
        fflush(a->o.out);
    }
    JsonW jw;
    if (a->fails.len)
        buf_putc(&a->fails, ',');
    jw_open_obj(&jw, &a->fails);
    jw_ku64(&jw, "line", line);
    jw_kcstr(&jw, "kind", kind);
    if (tool)
        jw_kcstr(&jw, "tool", tool);
    Buf m;
    buf_init(&m);
    buf_puts(&m, what);
    if (wl) {
        buf_putc(&m, '\n');
        buf_put(&m, w, wl);
    }
    jw_kstr(&jw, "message", m.data ? (const char *)m.data : "", m.len);
    buf_fini(&m);
    jw_end(&jw);
}

static void passed(MaAgent *a) { a->st.passed++; }

/* ---- the checkpoint ---- */

/* Runs --checkpoint-cmd after what (a tool, an edit) at line.  Returns 0,
** SC_RUNTIME (out of memory) or 128 + a signal that cancelled it. */
static int checkpoint(MaAgent *a, uint32_t line, const char *what)
{
    if (!a->o.checkpoint_cmd)
        return 0;
    a->st.checkpoints++;
    a->st.checks++;
    char *argv[] = { "sh", "-c", (char *)a->o.checkpoint_cmd, NULL };
    Buf out;
    buf_init(&out);
    MaProcResult pr;
    unsigned tmo = a->o.timeout_ms ? a->o.timeout_ms : MA_RUN_TIMEOUT_MS;
    int rc = ma_proc_run(argv, a->o.root && a->o.root[0] ? a->o.root : ".", tmo, &out, &pr);
    if (rc && out.oom) {
        buf_fini(&out);
        return SC_RUNTIME;
    }
    if (pr.end == MA_PROC_CANCELLED) {
        buf_fini(&out);
        return 128 + pr.code;
    }
    if (!rc && pr.end == MA_PROC_EXITED && pr.code == 0) {
        passed(a);
    } else {
        char desc[160], msg[300];
        if (rc)
            snprintf(desc, sizeof desc, "cannot make a pipe: %s", strerror(errno));
        else
            ma_proc_describe(&pr, tmo, desc, sizeof desc);
        snprintf(msg, sizeof msg, "checkpoint after %s failed (%s)", what, desc);
        failed(a, line, "checkpoint", NULL, msg, &out);
    }
    buf_fini(&out);
    return 0;
}

/* ---- tools ---- */

/* The call of TOOL_START in as the scenario's: tool name into name, args
** as a new cJSON (NULL when out of memory). */
static cJSON *scenario_call(const BcProgram *p, const BcInsn *in, const AgentProfile *prof, const char *ws,
                            char *name, size_t cap)
{
    Buf j;
    buf_init(&j);
    bc_val_json(p, in->a[1], &j);
    buf_putc(&j, 0);
    cJSON *args = j.oom ? NULL : cJSON_Parse((const char *)j.data);
    buf_fini(&j);
    const char *tn = p->str[in->a[0]].s;
    snprintf(name, cap, "%s", tn);
    if (!args || !prof)
        return args;
    Buf nb, ab;
    buf_init(&nb);
    buf_init(&ab);
    if (agent_unmap_call(prof, tn, args, ws, &nb, &ab) == 1 && !nb.oom && !ab.oom) {
        buf_putc(&ab, 0);
        cJSON *na = cJSON_Parse((const char *)ab.data);
        if (na) {
            cJSON_Delete(args);
            args = na;
            snprintf(name, cap, "%.*s", (int)nb.len, (const char *)nb.data);
        }
    }
    buf_fini(&nb);
    buf_fini(&ab);
    return args;
}

/* A scripted tool's result: the value of the TOOL_RESULT that follows
** the call at in (before the next call), as text into out, with its
** status.  Returns 0; 1 when its result is not text, {exact} or
** {contains} (a {regex} cannot be the tool's result); -1 out of memory. */
static int script_of(const BcProgram *p, const BcInsn *in, Buf *out, bool *is_error)
{
    *is_error = false;
    for (const BcInsn *q = in + 1; q < p->insn + p->n_insn && q->op != OP_TOOL_START; q++) {
        if (q->op != OP_TOOL_RESULT || q->a[0] != in->a[0])
            continue;
        *is_error = strcmp(p->str[q->a[1]].s, "error") == 0;
        BcVal v = bc_val(p, q->a[2]);
        if (v.tag == BC_V_NULL)
            return 0;
        Buf j;
        buf_init(&j);
        bc_val_json_at(p, &v, &j);
        buf_putc(&j, 0);
        cJSON *jv = j.oom ? NULL : cJSON_Parse((const char *)j.data);
        buf_fini(&j);
        if (!jv)
            return -1;
        const cJSON *t = cJSON_IsString(jv) ? jv : cJSON_GetObjectItemCaseSensitive(jv, "exact");
        if (!cJSON_IsString(t))
            t = cJSON_GetObjectItemCaseSensitive(jv, "contains");
        int rc = cJSON_IsString(t) ? 0 : 1;
        if (!rc)
            buf_puts(out, t->valuestring);
        cJSON_Delete(jv);
        return out->oom ? -1 : rc;
    }
    return 0;
}

int ma_agent_check(const BcProgram *p, const AgentProfile *prof, const char *root, Buf *why)
{
    char *ws = realpath(root && root[0] ? root : ".", NULL);
    int st = 0;
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        if (in->op != OP_TOOL_START)
            continue;
        char name[64], msg[400];
        cJSON *args = scenario_call(p, in, prof, ws ? ws : ".", name, sizeof name);
        if (!args) {
            buf_printf(why, "%u: out of memory\n", (unsigned)in->line);
            st = SC_RUNTIME;
            break;
        }
        if (!ma_tool_check(name, args, msg, sizeof msg)) {
            if (strcmp(name, p->str[in->a[0]].s) == 0 && !agent_is_scenario_tool(name))
                snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s",
                         prof ? "; the profile does not map it either" : "; an agent's tool name needs --agent NAME");
            buf_printf(why, "%u: %s\n", (unsigned)in->line, msg);
            st = SC_USAGE;
        } else if (ma_tool_scripted(name)) {
            Buf t;
            buf_init(&t);
            bool e;
            if (script_of(p, in, &t, &e) == 1) {
                buf_printf(why, "%u: %s: the scenario's result is the tool's result, so it must be text, {exact} or "
                                "{contains}, not {regex}\n", (unsigned)in->line, name);
                st = SC_USAGE;
            }
            buf_fini(&t);
        }
        cJSON_Delete(args);
    }
    free(ws);
    return st;
}

static int tool_start(void *ctx, const BcProgram *p, const BcInsn *in)
{
    MaAgent *a = ctx;
    if (a->pending)
        ma_tool_result_fini(&a->res);
    a->pending = false;
    char name[64];
    cJSON *args = scenario_call(p, in, a->o.profile, a->real_root, name, sizeof name);
    if (!args)
        return SC_RUNTIME;
    a->st.tools++;
    if (a->o.out) {
        char *shown = cJSON_PrintUnformatted(args);
        fprintf(a->o.out, "%s> %s %s%s\n", style(a, BOLD), name, shown ? shown : "{}", style(a, OFF));
        fflush(a->o.out);
        cJSON_free(shown);
    }
    MaEnv env = { .root = a->real_root, .timeout_ms = a->o.timeout_ms,   /* absolute: a tool that runs a program in the folder passes it paths below it */
                  .shells = a->shells };
    Buf script;
    buf_init(&script);
    if (ma_tool_scripted(name) && script_of(p, in, &script, &env.script_error) < 0) {
        cJSON_Delete(args);
        return SC_RUNTIME;
    }
    env.script = (const char *)script.data;
    env.script_len = script.len;
    ma_shells_poll(a->shells, 0);   /* a shell's pipe is emptied while the run goes on */
    ma_tool_result_init(&a->res);
    int rc = ma_tool_exec(&env, name, args, &a->res);
    buf_fini(&script);
    cJSON_Delete(args);
    if (rc) {
        ma_tool_result_fini(&a->res);
        return SC_RUNTIME;
    }
    print_result(a, &a->res);
    if (a->res.cancelled) {
        ma_tool_result_fini(&a->res);
        return 128 + rt_cancel_signal();
    }
    if (a->res.refused)
        a->st.refused++;
    a->pending = true;
    a->tool_sym = in->a[0];
    a->line = in->line;
    snprintf(a->tool, sizeof a->tool, "%s", name);
    char what[96];
    snprintf(what, sizeof what, "%s", name);
    return checkpoint(a, in->line, what);
}

static int tool_result(void *ctx, const BcProgram *p, const BcInsn *in)
{
    MaAgent *a = ctx;
    if (!a->pending || a->tool_sym != in->a[0])
        return 0;
    a->pending = false;
    a->st.checks++;
    const char *want = p->str[in->a[1]].s;
    bool want_err = strcmp(want, "error") == 0;
    BcVal ev = bc_val(p, in->a[2]);
    Buf why;
    buf_init(&why);
    bool ok = true;
    if (ev.tag != BC_V_NULL) {
        int m = llm_result_match(p, &ev, a->res.text.data ? (const char *)a->res.text.data : "", a->res.text.len,
                                 &why);
        ok = m == 1;
    }
    if (a->res.error != want_err) {
        ok = false;
        buf_printf(&why, "status: expected %s, the tool's is %s%s%s%s\n", want_err ? "error" : "ok",
                   a->res.error ? "error" : "ok", a->res.note[0] ? " (" : "", a->res.note, a->res.note[0] ? ")" : "");
        if (ev.tag == BC_V_NULL || a->res.error) {
            buf_puts(&why, a->res.text.len ? "the result was:\n" : "the result was empty\n");
            const char *t = a->res.text.data ? (const char *)a->res.text.data : "";
            for (const char *s = t; s < t + a->res.text.len;) {
                const char *nl = memchr(s, '\n', (size_t)(t + a->res.text.len - s));
                size_t l = nl ? (size_t)(nl - s) : (size_t)(t + a->res.text.len - s);
                buf_printf(&why, "  %.*s\n", (int)l, s);
                s += l + 1;
            }
        }
    }
    if (ok) {
        passed(a);
    } else {
        char what[160];
        snprintf(what, sizeof what, "%s: the result does not match the scenario's", a->tool);
        failed(a, a->line, "tool_result", a->tool, what, &why);
    }
    buf_fini(&why);
    ma_tool_result_fini(&a->res);
    return 0;
}

/* ---- agentEdits ---- */

static int file_edit(void *ctx, const BcProgram *p, const BcInsn *in)
{
    MaAgent *a = ctx;
    const char *path = p->str[in->a[0]].s;
    uint64_t add = in->a[1], rm = in->a[2];
    a->st.edits++;
    a->st.checks++;
    if (a->o.out) {
        fprintf(a->o.out, "%s> agentEdits %s +%llu -%llu%s\n", style(a, BOLD), path, (unsigned long long)add,
                (unsigned long long)rm, style(a, OFF));
        fflush(a->o.out);
    }
    const char *root = a->o.root && a->o.root[0] ? a->o.root : ".";
    Buf full, out;
    buf_init(&full);
    buf_init(&out);
    char err[300], why[300];
    why[0] = 0;
    char *data = NULL, *after = NULL;
    size_t n = 0, an = 0;
    int64_t have = 0, lines = -1;
    const char *refused = ma_path_for_write(root, path, &full, err, sizeof err);
    int e = 0;
    if (refused) {
        snprintf(why, sizeof why, "agentEdits '%s': %s", path, refused);
        if (strncmp(refused, "refused", 7) == 0)
            a->st.refused++;
    } else if ((e = file_read_all((const char *)full.data, 16u << 20, &data, &n)) != 0 && e != ENOENT) {
        snprintf(why, sizeof why, "agentEdits '%s': cannot read: %s", path, strerror(e));
    } else if (have = data ? scn_edit_count_lines(data, n) : 0,
               scn_edit_apply(path, data, n, add, rm, &out, why, sizeof why) == 0) {
        if (out.oom) {
            sc_free(data);
            buf_fini(&full);
            buf_fini(&out);
            return SC_RUNTIME;
        }
        if ((e = ma_file_write((const char *)full.data, (const char *)out.data, out.len)) != 0)
            snprintf(why, sizeof why, "agentEdits '%s': cannot write: %s", path, strerror(e));
        else if ((e = file_read_all((const char *)full.data, 16u << 20, &after, &an)) != 0)
            snprintf(why, sizeof why, "agentEdits '%s': cannot read it back: %s", path, strerror(e));
        else if ((lines = scn_edit_count_lines(after, an)) != have - (int64_t)rm + (int64_t)add)
            snprintf(why, sizeof why, "agentEdits '%s': %lld lines after the edit, not %lld", path, (long long)lines,
                     (long long)(have - (int64_t)rm + (int64_t)add));
    }
    sc_free(data);
    sc_free(after);
    buf_fini(&full);
    buf_fini(&out);
    if (why[0]) {
        if (a->o.out) {
            fprintf(a->o.out, "  %s= error%s\n", style(a, RED), style(a, OFF));
            fflush(a->o.out);
        }
        failed(a, in->line, "edit", NULL, why, NULL);
    } else {
        if (a->o.out) {
            fprintf(a->o.out, "  = ok (%lld lines)\n", (long long)lines);
            fflush(a->o.out);
        }
        passed(a);
    }
    return checkpoint(a, in->line, "agentEdits");
}

/* ---- assert ---- */

static int assert_op(void *ctx, const BcProgram *p, const BcInsn *in)
{
    MaAgent *a = ctx;
    a->st.asserts++;
    BcVal v = bc_val(p, in->a[0]);
    ScnAssertEnv env = { .root = a->o.root };
    ScnAssertResult r = { 0 };
    Buf msgs;
    buf_init(&msgs);
    scn_assert_eval(p, &v, &env, &msgs, &r);
    if (msgs.oom) {
        buf_fini(&msgs);
        return SC_RUNTIME;
    }
    a->st.checks += r.passed + r.failed;
    a->st.passed += r.passed;
    a->st.refused += r.refused;
    if (a->o.out) {
        fprintf(a->o.out, "%s> assert%s\n", style(a, BOLD), style(a, OFF));
        fprintf(a->o.out, "  %s= %s (%u passed, %u failed, %u skipped)%s\n", r.failed ? style(a, RED) : "",
                r.failed ? "error" : "ok", r.passed, r.failed, r.skipped, r.failed ? style(a, OFF) : "");
        fflush(a->o.out);
    }
    /* one failure per failed check: msgs has a line for each failed or
    ** skipped one; the skipped (text.contains: no screen) are not failures */
    const char *s = (const char *)msgs.data, *end = s ? s + msgs.len : NULL;
    while (s && s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
        if (!(l > 13 && strncmp(s, "text.contains", 13) == 0)) {
            char what[600];
            snprintf(what, sizeof what, "assert: %.*s", (int)l, s);
            failed(a, in->line, "assert", NULL, what, NULL);
        }
        s += l + 1;
    }
    /* failed() counted each line it was given; keep the count the checks' */
    buf_fini(&msgs);
    return 0;
}

/* ---- prompts on the input ---- */

/* Reads from the input until it holds `lines` newlines, EOF, the deadline
** or a signal.  Returns 0, or 128 + the signal. */
static int read_lines(MaAgent *a, size_t lines, unsigned timeout_ms)
{
    MaClock c;
    ma_clock_init(&c);
    for (;;) {
        size_t have = 0;
        for (size_t i = 0; i < a->in.len; i++)
            have += a->in.data[i] == '\n';
        if (have >= lines || a->in_eof)
            return 0;
        if (rt_cancel_signal())
            return 128 + rt_cancel_signal();
        uint64_t now = rt_clock_realtime_elapsed_ms(&c.real);
        if (now >= timeout_ms)
            return 0;
        struct pollfd pf[2] = { { .fd = a->o.input_fd, .events = POLLIN }, { .fd = rt_cancel_fd(), .events = POLLIN } };
        uint64_t left = timeout_ms - now;
        if (poll(pf, 2, left > 1000 ? 1000 : (int)left + 1) <= 0 || !(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        char chunk[4096];
        ssize_t n = read(a->o.input_fd, chunk, sizeof chunk);
        if (n > 0)
            buf_put(&a->in, chunk, (size_t)n);
        else if (n == 0 || (errno != EAGAIN && errno != EINTR))
            a->in_eof = true;
    }
}

/* USER_INPUT with an input: the prompt must arrive, and be the scripted
** text (CR before LF and trailing blanks aside). */
static int user_input(MaAgent *a, const BcProgram *p, const BcInsn *in)
{
    const BcStr *want = &p->str[in->a[1]];
    size_t lines = 1;
    for (uint32_t i = 0; i < want->len; i++)
        lines += want->s[i] == '\n';
    a->st.inputs++;
    a->st.checks++;
    unsigned tmo = a->o.timeout_ms ? a->o.timeout_ms : MA_RUN_TIMEOUT_MS;
    int st = read_lines(a, lines, tmo);
    if (st)
        return st;
    if (a->in.oom)
        return SC_RUNTIME;
    /* take `lines` lines (or what there is) */
    size_t end = 0, seen = 0;
    while (end < a->in.len && seen < lines)
        seen += a->in.data[end++] == '\n';
    bool complete = seen == lines;
    Buf got;
    buf_init(&got);
    for (size_t i = 0; i < end; i++)
        if (!(a->in.data[i] == '\r' && i + 1 < end && a->in.data[i + 1] == '\n'))
            buf_putc(&got, a->in.data[i]);
    if (end) {
        memmove(a->in.data, a->in.data + end, a->in.len - end);
        a->in.len -= end;
    }
    while (got.len && (got.data[got.len - 1] == '\n' || got.data[got.len - 1] == ' ' || got.data[got.len - 1] == '\t'))
        got.len--;
    size_t wl = want->len;
    while (wl && (want->s[wl - 1] == '\n' || want->s[wl - 1] == ' ' || want->s[wl - 1] == '\t'))
        wl--;
    if (got.oom) {
        buf_fini(&got);
        return SC_RUNTIME;
    }
    if (complete && got.len == wl && (wl == 0 || memcmp(got.data, want->s, wl) == 0)) {
        passed(a);
    } else {
        Buf why;
        buf_init(&why);
        buf_printf(&why, "expected:\n  %.*s\n", (int)wl, want->s);
        if (got.len || complete)
            buf_printf(&why, "got:\n  %.*s%s\n", (int)got.len, got.data ? (const char *)got.data : "",
                       complete ? "" : " (then the input ended)");
        else
            buf_printf(&why, "%s\n", a->in_eof ? "the input ended" : "nothing arrived in time");
        failed(a, in->line, "input", NULL, "userInputs: the prompt on the input is not the scenario's", &why);
        buf_fini(&why);
    }
    buf_fini(&got);
    return 0;
}

/* ---- the target ---- */

static int ma_begin(RtTarget *t, const BcProgram *p)
{
    (void)t;
    (void)p;
    return 0;
}

static int plan(void *ctx, const BcProgram *p, const BcInsn *in)
{
    MaAgent *a = ctx;
    if (!a->o.out)
        return 0;
    BcVal list = bc_val(p, in->a[1]);
    fprintf(a->o.out, "%s(plan)%s\n", style(a, DIM), style(a, OFF));
    const unsigned char *q = list.tag == BC_V_ARRAY ? list.p : NULL;
    for (uint32_t i = 0; q && i < list.n; i++) {
        BcVal e, c, s;
        q = bc_val_decode(p, q, &e);
        if (!bc_val_get(p, &e, "content", &c) || c.tag != BC_V_STR)
            continue;
        const char *st = bc_val_get(p, &e, "status", &s) && s.tag == BC_V_STR ? p->str[s.n].s : "pending";
        fprintf(a->o.out, "  [%s] %s\n", strcmp(st, "completed") == 0 ? "x" : strcmp(st, "in_progress") == 0 ? ">" : " ",
                p->str[c.n].s);
    }
    fflush(a->o.out);
    return 0;
}

/* ---- what each op becomes ---- */

static int op_think(void *ctx, const BcProgram *p, const BcInsn *in)
{
    print_lines(ctx, "(thinking) ", p->str[in->a[0]].s, p->str[in->a[0]].len, DIM);
    return 0;
}

static int op_assistant(void *ctx, const BcProgram *p, const BcInsn *in)
{
    print_lines(ctx, "", p->str[in->a[0]].s, p->str[in->a[0]].len, "");
    return 0;
}

static int op_llm_error(void *ctx, const BcProgram *p, const BcInsn *in)
{
    MaAgent *a = ctx;
    if (a->o.out) {
        fprintf(a->o.out, "%s(llm error) %s %u: %s%s\n", style(a, RED), p->str[in->a[0]].s, (unsigned)in->a[1],
                p->str[in->a[2]].s, style(a, OFF));
        fflush(a->o.out);
    }
    return 0;
}

static int op_user_input(void *ctx, const BcProgram *p, const BcInsn *in)
{
    MaAgent *a = ctx;
    return a->o.input_fd >= 0 ? user_input(a, p, in) : 0;
}

#define USER_SIDE "the user's side: the test executor's, typed into the program under test"

const Player ma_player = {
    .name = "mockagent",
    .op = {
        [OP_THINK] = { op_think, NULL },
        [OP_ASSISTANT] = { op_assistant, NULL },
        [OP_LLM_ERROR] = { op_llm_error, NULL },
        [OP_PLAN_UPDATE] = { plan, NULL },
        [OP_TOOL_START] = { tool_start, NULL },
        [OP_TOOL_RESULT] = { tool_result, NULL },
        [OP_FILE_EDIT] = { file_edit, NULL },
        [OP_ASSERT] = { assert_op, NULL },
        [OP_USER_INPUT] = { op_user_input, NULL },
        [OP_TOOL_PROGRESS] = { NULL, "simulated tool output: the real tool's output stands instead" },
        [OP_LLM_BEGIN] = { NULL, "the response's frame" },
        [OP_LLM_END] = { NULL, "the response's frame" },
        [OP_USER_COMMAND] = { NULL, USER_SIDE },
        [OP_USER_EDITS] = { NULL, USER_SIDE },
        [OP_USER_CANCEL] = { NULL, USER_SIDE },
        [OP_SET_MODE] = { NULL, USER_SIDE },
        [OP_SET_MODEL] = { NULL, USER_SIDE },
        [OP_STATUS] = { NULL, "the harness's" },
        [OP_SCREENSHOT] = { NULL, "the harness's" },
        [OP_LOG] = { NULL, "the harness's" },
        [OP_MERGE] = { NULL, "the harness's" },
        [OP_COMPLETE] = { NULL, "the harness's" },
        [OP_FILE_READS] = { NULL, "the ACP structure's" },
        [OP_PERMISSION] = { NULL, "the ACP structure's" },
        [OP_END] = { NULL, "the run's end is ma_end's" },
    },
    .ignore = {
        { OPF_ACP, "the ACP structure's" },
        { OPF_TERM, "terminal ops (tui-use): never in a Scenario-Format timeline" },
        { OPF_AGENTTEST, "agent-test cases: checks of the agent under test, never played by an agent" },
    },
};

static int ma_op(RtTarget *t, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    (void)at_ms;
    if (rt_cancel_signal())
        return 128 + rt_cancel_signal();
    return player_op(&ma_player, (MaAgent *)t, p, in);
}

static int ma_end(RtTarget *t, const BcProgram *p)
{
    (void)p;
    MaAgent *a = (MaAgent *)t;
    if (a->pending) {
        ma_tool_result_fini(&a->res);
        a->pending = false;
    }
    ma_shells_free(a->shells);      /* the background shells end with the run */
    a->shells = NULL;
    if (a->fails.oom)
        return SC_RUNTIME;
    return a->st.failed ? SC_FAILED : SC_OK;
}

static void ma_destroy(RtTarget *t)
{
    MaAgent *a = (MaAgent *)t;
    if (a->pending)
        ma_tool_result_fini(&a->res);
    buf_fini(&a->fails);
    buf_fini(&a->in);
    ma_shells_free(a->shells);
    free(a->real_root);
    sc_free(a);
}

static const RtTargetVtbl MA_VT = { "agent", ma_begin, ma_op, ma_end, ma_destroy };

RtTarget *ma_agent_new(const MaAgentOpts *o)
{
    MaAgent *a = sc_calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->base.vt = &MA_VT;
    a->o = *o;
    buf_init(&a->fails);
    buf_init(&a->in);
    a->real_root = realpath(o->root && o->root[0] ? o->root : ".", NULL);
    a->shells = ma_shells_new();
    if (!a->real_root || !a->shells) {
        free(a->real_root);
        ma_shells_free(a->shells);
        sc_free(a);
        return NULL;
    }
    return &a->base;
}

void ma_agent_stats(const RtTarget *t, MaStats *s)
{
    const MaAgent *a = (const MaAgent *)t;
    *s = a->st;
    s->signal = rt_cancel_signal();
}

void ma_agent_failures_json(const RtTarget *t, Buf *out)
{
    const MaAgent *a = (const MaAgent *)t;
    buf_putc(out, '[');
    buf_put(out, a->fails.data, a->fails.len);
    buf_putc(out, ']');
}

/* ---- the clock ---- */

static void ma_wait(RtClock *clk, uint64_t at_ms)
{
    MaClock *c = (MaClock *)(void *)clk;
    for (;;) {
        uint64_t now = rt_clock_realtime_elapsed_ms(&c->real);
        if (now >= at_ms || rt_cancel_signal())
            return;
        uint64_t left = at_ms - now;
        struct pollfd pf = { .fd = rt_cancel_fd(), .events = POLLIN };
        poll(&pf, 1, left > 1000 ? 1000 : (int)left + 1);
    }
}

void ma_clock_init(MaClock *c)
{
    c->clock.wait_until = ma_wait;
    rt_clock_realtime_init(&c->real);
}
