/* SPDX-License-Identifier: MIT */
/* cmd_driver.c - `scvm driver --stdio --json -- CMD ARGS` (the tui-use data
** model's interactive NDJSON protocol) and `scvm exec --json -- CMD ARGS`
** (run once, print the RunResult), both on the installed session API
** (include/scc/session.h; docs/driver.md).
**
** The policy is the driver's secure default for the command, or --policy
** FILE, with the acknowledgement flags applied on top; it is checked
** before anything starts.  These commands exit with the data model's
** statuses (0-12), never scvm's own table. */
#include "scvm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/fnv1a.h"
#include "common/sc_alloc.h"
#include "include/scc/session.h"
#include "cli.h"
#include "runtime/pty/rt_policy.h"
#include "runtime/pty/rt_pty_session.h"
#include "runtime/rt_cancel.h"

enum {
    MAX_LINE = 1 << 20,         /* a request longer than this is refused */
    SETTLE_MS = 50,             /* an action's observation: the screen quiet this long */
    ACTION_MS = 1000,           /* ... or this long at most (timeout_ms overrides) */
    MAX_POLICY = 1 << 20,
};

/* ---- the policy: default or file, then the flags ---- */

/* scvm's own addition to the data model's codes (as `scvm run -t pty`
** has it): a signal to scvm ended the session; scvm exits 128 + N. */
enum { E_INTERRUPTED = 1000 };

static const char *code_name(int code)
{
    return code == E_INTERRUPTED ? "E_INTERRUPTED" : scc_error_code(code);
}

static void put_error(JsonW *w, int code, const char *msg)
{
    jw_obj(w);
    jw_kcstr(w, "code", code_name(code));
    jw_kcstr(w, "message", msg);
    jw_end(w);
}

/* "interrupted by signal 15 (SIGTERM)", as the PTY target says it. */
static void interrupted_msg(char *msg, size_t n)
{
    int sig = rt_cancel_signal();
    snprintf(msg, n, "interrupted by signal %d (%s)", sig,
             sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "?");
}

int scvm_report_error(const Opts *o, const char *cmd, int code, const char *msg)
{
    if (o->json) {
        Buf b;
        JsonW w;
        jw_new_obj(&w, &b);
        jw_ki64(&w, "protocol_version", SCC_PROTOCOL_VERSION);
        jw_kcstr(&w, "status", "error");
        jw_key(&w, "error");
        put_error(&w, code, msg);
        jw_end(&w);
        jw_nl(&w);
        cli_put_stdout(&b);
        buf_fini(&b);
    }
    fprintf(stderr, "scvm %s: %s: %s\n", cmd, scc_error_code(code), msg);
    return code;
}

void scvm_policy_flags(const Opts *o, PtyPolicyFlags *f)
{
    f->no_sandbox = o->no_sandbox;
    f->ack_sandbox = o->ack_sandbox;
    f->enable_network = o->enable_network;
    f->ack_network = o->ack_network;
    f->ack_write = o->ack_write;
}

/* The effective policy as JSON text (malloc'd), or NULL with *code and
** msg set. */
static char *effective_policy(const Opts *o, int *code, char *msg, size_t n)
{
    char *text = NULL;
    if (o->policy_file) {
        size_t len;
        int e = file_read_all(o->policy_file, MAX_POLICY, &text, &len);
        if (e) {
            snprintf(msg, n, "%s: cannot read: %s", o->policy_file, e == EFBIG ? "larger than 1 MiB" : strerror(e));
            *code = SCC_E_IO;
            return NULL;
        }
    } else {
        text = scc_session_default_policy(o->command[0]);
    }
    PtyPolicyFlags f;
    scvm_policy_flags(o, &f);
    PtyErr e = PTY_E_OK;
    char *out = pty_policy_override(text, NULL, &f, &e, msg, n);
    if (!out) {
        if (o->policy_file && e == PTY_E_PROTOCOL)
            snprintf(msg, n, "%s: not a JSON policy object", o->policy_file);
        *code = (int)e;
    }
    if (o->policy_file)
        sc_free(text);
    else
        free(text);
    return out;
}

static int common_checks(const Opts *o, const char *cmd)
{
    if (!o->command || !o->command[0])
        return scvm_report_error(o, cmd, SCC_E_CLI_INVALID_ARG, "no program: give it after '--'");
    if (o->n_ops)
        return scvm_report_error(o, cmd, SCC_E_CLI_INVALID_ARG, "the program goes after '--'");
    return 0;
}

static void config_of(const Opts *o, const char *policy, scc_session_config *c)
{
    memset(c, 0, sizeof *c);
    c->command = o->command[0];
    c->args = (const char *const *)o->command + 1;
    c->cwd = o->cwd;
    c->rows = (int)o->rows;
    c->cols = (int)o->cols;
    c->policy_json = policy;
}

/* --explain-policy: the checks of a run, nothing started. */
static int explain(const char *cmd, const scc_session_config *c)
{
    char *json = NULL, err[1024];
    int rc = scc_session_explain(c, &json, err, sizeof err);
    Buf b;
    JsonW w;
    jw_new_obj(&w, &b);
    jw_ki64(&w, "protocol_version", SCC_PROTOCOL_VERSION);
    if (rc == SCC_E_OK) {
        jw_members(&w, json, strlen(json));
    } else {
        jw_kbool(&w, "allowed", false);
        jw_key(&w, "error");
        put_error(&w, rc, err);
        fprintf(stderr, "scvm %s: denied: %s: %s\n", cmd, scc_error_code(rc), err);
    }
    jw_end(&w);
    jw_nl(&w);
    int wr = cli_put_stdout(&b);
    buf_fini(&b);
    free(json);
    return rc ? rc : wr ? SCC_E_IO : 0;
}

/* ---- --artifacts DIR: the data model's artifacts of a session ---- */

/* run.json, policy.json, transcript.log, events.jsonl (every observation
** the session gave, as a record), snapshots/NNNNNN.json (each one's
** screen), normalization.json, driver-actions.jsonl (the driver's
** requests, as ptybox keeps them) and checksums.json. */
typedef struct Art {
    const char *dir;            /* NULL: no artifacts */
    Buf events, actions, sums;  /* sums: "rel\thex\n" lines, sorted at the end */
    int n_snap;
    int err;                    /* the first write's errno */
} Art;

/* Writes one artifact and notes its checksum.  A failed write is noted
** (the first error is the session's E_IO) and the others are still
** written: checksums.json then lists what is there. */
static void art_put(Art *a, const char *rel, const void *data, size_t len)
{
    if (!a->dir)
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/%s", a->dir, rel);
    int e = file_mkparents(path);
    if (!e)
        e = file_write_atomic(path, len ? data : "", len);
    if (e) {
        if (!a->err)
            a->err = e;
        fprintf(stderr, "scvm: %s: cannot write: %s\n", path, strerror(e));
        return;
    }
    buf_printf(&a->sums, "%s\t%016llx\n", rel, (unsigned long long)fnv1a64(data, len));
}

static void art_observation(Art *a, const char *obs)
{
    if (!a->dir || !obs)
        return;
    buf_puts(&a->events, obs);
    buf_putc(&a->events, '\n');
    cJSON *j = cJSON_Parse(obs);
    char *screen = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "screen"));
    if (screen) {
        char rel[64];
        snprintf(rel, sizeof rel, "snapshots/%06d.json", ++a->n_snap);
        Buf b;
        buf_init(&b);
        buf_puts(&b, screen);
        buf_putc(&b, '\n');
        art_put(a, rel, b.data, b.len);
        buf_fini(&b);
    }
    free(screen);
    cJSON_Delete(j);
}

static int cmp_line(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The rest, once the session has ended; returns 0 or E_IO. */
static int art_finish(Art *a, scc_session *s, const Buf *run_result)
{
    if (!a->dir)
        return 0;
    size_t n;
    const char *tr = scc_session_transcript(s, &n);
    art_put(a, "transcript.log", tr, n);
    Buf b;
    buf_init(&b);
    buf_puts(&b, scc_session_policy(s));
    buf_putc(&b, '\n');
    art_put(a, "policy.json", b.data, b.len);
    buf_reset(&b);
    static const char *const filters[] = { "snapshot_id", "run_id", "run_timestamps", "step_timestamps",
                                           "observation_timestamp", "session_id", "events" };
    JsonW w;
    jw_open_obj(&w, &b);
    jw_ku64(&w, "normalization_version", 1);
    jw_karr(&w, "filters");
    for (size_t i = 0; i < sizeof filters / sizeof *filters; i++)
        jw_cstr(&w, filters[i]);
    jw_end(&w);
    jw_kbool(&w, "strict", false);
    jw_kcstr(&w, "source", "default");
    jw_karr(&w, "rules");
    jw_end(&w);
    jw_end(&w);
    jw_nl(&w);
    art_put(a, "normalization.json", b.data, b.len);
    art_put(a, "events.jsonl", a->events.data, a->events.len);
    if (a->actions.len)
        art_put(a, "driver-actions.jsonl", a->actions.data, a->actions.len);
    /* run.json names the other files: written last, after checksums.json
    ** (which has its checksum), so a run killed on the way leaves no
    ** run.json promising files that are not there */
    buf_printf(&a->sums, "run.json\t%016llx\n", (unsigned long long)fnv1a64(run_result->data, run_result->len));
    /* checksums.json: the data model's map, sorted by path, always */
    buf_putc(&a->sums, 0);
    char *lines[4096], *save = NULL;
    size_t k = 0;
    for (char *l = strtok_r((char *)a->sums.data, "\n", &save); l && k < 4096; l = strtok_r(NULL, "\n", &save))
        lines[k++] = l;
    qsort(lines, k, sizeof *lines, cmp_line);
    buf_reset(&b);
    jw_open_obj(&w, &b);
    for (size_t i = 0; i < k; i++) {
        char *tab = strchr(lines[i], '\t');
        jw_key_str(&w, lines[i], (size_t)(tab - lines[i]));
        jw_cstr(&w, tab + 1);
    }
    jw_end(&w);
    jw_nl(&w);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/checksums.json", a->dir);
    int e = file_mkparents(path);
    if (!e)
        e = file_write_atomic(path, b.data, b.len);
    if (e) {
        if (!a->err)
            a->err = e;
        fprintf(stderr, "scvm: %s: cannot write: %s\n", path, strerror(e));
    }
    snprintf(path, sizeof path, "%.3000s/run.json", a->dir);
    e = file_write_atomic(path, run_result->data, run_result->len);
    if (e) {
        if (!a->err)
            a->err = e;
        fprintf(stderr, "scvm: %s: cannot write: %s\n", path, strerror(e));
    }
    buf_fini(&b);
    return a->err ? SCC_E_IO : 0;
}

static void art_init(Art *a, const char *dir)
{
    memset(a, 0, sizeof *a);
    a->dir = dir;
    buf_init(&a->events);
    buf_init(&a->actions);
    buf_init(&a->sums);
}

static void art_fini(Art *a)
{
    buf_fini(&a->events);
    buf_fini(&a->actions);
    buf_fini(&a->sums);
}

static int observe_flags(const Opts *o)
{
    return (o->cells ? SCC_OBSERVE_CELLS : 0) | (scvm_ptybox_colors(o) ? SCC_OBSERVE_PTYBOX_COLORS : 0);
}

static void put_exit_status(JsonW *w, const scc_exit_status *st)
{
    jw_obj(w);
    jw_kbool(w, "success", st->exited && st->exit_code == 0);
    jw_key(w, "exit_code");
    if (st->exit_code >= 0)
        jw_i64(w, st->exit_code);
    else
        jw_null(w);
    jw_key(w, "signal");
    if (st->exit_code >= 0)
        jw_null(w);
    else
        jw_i64(w, st->signal);
    jw_kbool(w, "terminated_by_harness", st->terminated_by_harness);
    jw_end(w);
}

/* The RunResult of a session that has ended. */
static void put_run_result(Buf *b, scc_session *s, const Opts *o, const char *status, uint64_t t0, uint64_t t1,
                           const scc_exit_status *st, int err_code, const char *err_msg, Art *art)
{
    char *obs = NULL;
    scc_session_observe(s, observe_flags(o), &obs);
    art_observation(art, obs);
    JsonW w;
    jw_open_obj(&w, b);
    jw_ku64(&w, "run_result_version", 1);
    jw_ki64(&w, "protocol_version", SCC_PROTOCOL_VERSION);
    jw_kcstr(&w, "run_id", scc_session_run_id(s));
    jw_kcstr(&w, "status", status);
    jw_ku64(&w, "started_at_ms", t0);
    jw_ku64(&w, "ended_at_ms", t1);
    jw_kcstr(&w, "command", o->command[0]);
    jw_karr(&w, "args");
    for (int i = 1; o->command[i]; i++)
        jw_cstr(&w, o->command[i]);
    jw_end(&w);
    jw_key(&w, "cwd");
    char cwd[4096];
    /* --cwd, else the policy's fs.working_dir (rt_policy.c checked it), else ours */
    cJSON *pj = o->cwd ? NULL : cJSON_Parse(scc_session_policy(s));
    const cJSON *wd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pj, "fs"), "working_dir");
    const char *c = o->cwd ? o->cwd : cJSON_IsString(wd) ? wd->valuestring : getcwd(cwd, sizeof cwd);
    jw_cstr(&w, c);
    cJSON_Delete(pj);
    const char *pol = scc_session_policy(s);
    jw_kraw(&w, "policy", pol, strlen(pol));
    jw_kraw(&w, "final_observation", obs ? obs : "null", strlen(obs ? obs : "null"));
    jw_key(&w, "exit_status");
    if (st->exited)
        put_exit_status(&w, st);
    else
        jw_null(&w);
    if (err_code) {
        jw_key(&w, "error");
        put_error(&w, err_code, err_msg);
    }
    jw_end(&w);
    free(obs);
}

/* Checks the policy, starts the program; art gets the artifacts folder:
** --artifacts, else the policy's artifacts.dir when enabled, else "". */
static int start(const Opts *o, const char *cmd, scc_session **s, char *art, size_t an)
{
    int code = 0;
    char msg[1024];
    char *policy = effective_policy(o, &code, msg, sizeof msg);
    if (!policy)
        return scvm_report_error(o, cmd, code, msg);
    /* What scvm writes itself: the artifacts section and fs_strict_write
    ** (docs/tui-use.md, "The policy, field by field"). */
    PtyWrites wr = { .artifacts = o->artifacts, .resolve = true };
    code = (int)pty_policy_writes(policy, &wr, art, an, msg, sizeof msg);
    if (code) {
        free(policy);
        return scvm_report_error(o, cmd, code, msg);
    }
    scc_session_config c;
    config_of(o, policy, &c);
    if (o->explain) {
        int rc = explain(cmd, &c);
        free(policy);
        return rc ? rc : -1;        /* -1: explained, nothing to run */
    }
    int rc = scc_session_spawn(&c, s, msg, sizeof msg);
    free(policy);
    if (rc)
        return scvm_report_error(o, cmd, rc, msg);
    return 0;
}

/* ---- exec ---- */

int scvm_exec(const Opts *o)
{
    int rc = common_checks(o, "exec");
    if (rc)
        return rc;
    if (rt_cancel_install() != 0)
        return scvm_report_error(o, "exec", SCC_E_INTERNAL, "cannot catch signals");
    scc_session *s = NULL;
    char art_dir[PATH_MAX];
    rc = start(o, "exec", &s, art_dir, sizeof art_dir);
    if (rc)
        return rc < 0 ? 0 : rc;
    /* The run's budget: the policy's max_runtime_ms. */
    int64_t budget = 60000;
    cJSON *pol = cJSON_Parse(scc_session_policy(s));
    const cJSON *bv = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pol, "budgets"),
                                                       "max_runtime_ms");
    if (cJSON_IsNumber(bv) && bv->valuedouble >= 1 && bv->valuedouble < 2e9)
        budget = (int64_t)bv->valuedouble;
    cJSON_Delete(pol);
    scc_exit_status st;
    uint64_t t_start = pty_now_ms();
    int code = 0;
    char msg[256] = "";
    if (!scc_session_wait_exit(s, (int)budget, &st)) {
        scc_session_terminate(s, 200);
        scc_session_wait_exit(s, 1000, &st);
        if (rt_cancel_signal()) {
            code = E_INTERRUPTED;
            interrupted_msg(msg, sizeof msg);
        } else {
            code = SCC_E_TIMEOUT;
            snprintf(msg, sizeof msg, "runtime budget exceeded: %lld ms (budgets.max_runtime_ms)", (long long)budget);
        }
    } else if (st.exit_code != 0) {
        code = SCC_E_PROCESS_EXIT;
        if (st.exit_code > 0)
            snprintf(msg, sizeof msg, "the program exited with code %d", st.exit_code);
        else
            snprintf(msg, sizeof msg, "the program was killed by signal %d", st.signal);
    }
    Art art;
    art_init(&art, art_dir[0] ? art_dir : NULL);
    Buf rr, b;
    buf_init(&rr);
    buf_init(&b);
    put_run_result(&rr, s, o, code == E_INTERRUPTED ? "interrupted" : code ? "failed" : "passed", 0,
                   pty_now_ms() - t_start, &st, code, msg, &art);
    buf_putc(&rr, '\n');
    int wa = art_finish(&art, s, &rr);
    if (o->json) {
        buf_put(&b, rr.data, rr.len);
    } else {
        cJSON *ob = cJSON_ParseWithLength((const char *)rr.data, rr.len);
        const cJSON *lines = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ob, "final_observation"), "screen"),
            "lines"), *l;
        /* The screen's lines, without the empty ones at the bottom. */
        int n = 0, i = 0;
        cJSON_ArrayForEach(l, lines) {
            i++;
            if (cJSON_IsString(l) && l->valuestring[0])
                n = i;
        }
        i = 0;
        cJSON_ArrayForEach(l, lines) {
            if (++i > n)
                break;
            if (cJSON_IsString(l))
                buf_puts(&b, l->valuestring);
            buf_putc(&b, '\n');
        }
        cJSON_Delete(ob);
        if (code)
            fprintf(stderr, "scvm exec: %s: %s\n", code_name(code), msg);
    }
    int w = cli_put_stdout(&b);
    buf_fini(&b);
    buf_fini(&rr);
    art_fini(&art);
    scc_session_close(s);
    if (code == E_INTERRUPTED)
        return 128 + rt_cancel_signal();
    return code ? code : (w || wa) ? SCC_E_IO : 0;
}

/* ---- driver ---- */

typedef struct Driver {
    const Opts *o;
    scc_session *s;
    Art art;
    Buf out;
    JsonW w;                    /* the response being written to out */
    unsigned long long seq;
} Driver;

static void respond_begin(Driver *d, const cJSON *req_id, const char *status)
{
    JsonW *w = &d->w;
    jw_open_obj(w, &d->out);
    jw_ki64(w, "protocol_version", SCC_PROTOCOL_VERSION);
    jw_key(w, "request_id");
    if (cJSON_IsString(req_id))
        jw_cstr(w, req_id->valuestring);
    else if (cJSON_IsNumber(req_id))
        jw_f64(w, req_id->valuedouble);
    else
        jw_null(w);
    jw_kcstr(w, "status", status);
}

static void respond_observation(Driver *d)
{
    char *obs = NULL;
    if (scc_session_observe(d->s, observe_flags(d->o), &obs) == SCC_E_OK && obs) {
        art_observation(&d->art, obs);
        jw_kraw(&d->w, "observation", obs, strlen(obs));
    }
    free(obs);
}

static void respond_end(Driver *d, uint64_t started)
{
    jw_kobj(&d->w, "action_metrics");
    jw_ku64(&d->w, "sequence", d->seq);
    jw_ku64(&d->w, "duration_ms", pty_now_ms() - started);
    jw_end(&d->w);
    jw_end(&d->w);
    jw_nl(&d->w);
}

static void respond_error(Driver *d, const cJSON *req_id, int code, const char *msg, uint64_t started, bool observe)
{
    respond_begin(d, req_id, "error");
    jw_key(&d->w, "error");
    put_error(&d->w, code, msg);
    if (observe && d->s)
        respond_observation(d);
    respond_end(d, started);
}

static int num_field(const cJSON *o, const char *key, int lo, int hi, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi || v->valuedouble != (int)v->valuedouble)
        return 0;
    *out = (int)v->valuedouble;
    return 1;
}

/* One request line: performs it and appends the response to d->out. */
static void handle(Driver *d, const char *line, size_t len)
{
    uint64_t t0 = pty_now_ms();
    d->seq++;
    cJSON *req = cJSON_ParseWithLength(line, len);
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(req, "request_id");
    if (d->art.dir && cJSON_IsObject(req)) {
        buf_put(&d->art.actions, line, len);
        buf_putc(&d->art.actions, '\n');
    }
    char err[1024];
    if (!cJSON_IsObject(req)) {
        respond_error(d, NULL, SCC_E_PROTOCOL, "the request is not a JSON object", t0, false);
        cJSON_Delete(req);
        return;
    }
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(req, "protocol_version");
    if (!cJSON_IsNumber(ver)) {
        respond_error(d, rid, SCC_E_PROTOCOL, "the request has no protocol_version", t0, false);
        goto done;
    }
    if (ver->valuedouble != SCC_PROTOCOL_VERSION) {
        snprintf(err, sizeof err, "protocol_version %.17g is not supported (this driver speaks %d)", ver->valuedouble,
                 SCC_PROTOCOL_VERSION);
        respond_error(d, rid, SCC_E_PROTOCOL_VERSION_MISMATCH, err, t0, false);
        goto done;
    }
    const cJSON *act = cJSON_GetObjectItemCaseSensitive(req, "action");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(act, "type");
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(act, "payload");
    const cJSON *tmo = cJSON_GetObjectItemCaseSensitive(req, "timeout_ms");
    int timeout = -1;
    if (!cJSON_IsObject(act) || !cJSON_IsString(type)) {
        respond_error(d, rid, SCC_E_PROTOCOL, "the request needs an action {type, payload}", t0, false);
        goto done;
    }
    if (tmo && !cJSON_IsNull(tmo)) {
        if (!cJSON_IsNumber(tmo) || tmo->valuedouble < 0 || tmo->valuedouble > 600000) {
            respond_error(d, rid, SCC_E_PROTOCOL, "timeout_ms must be a number of milliseconds, 0-600000", t0, false);
            goto done;
        }
        timeout = (int)tmo->valuedouble;
    }
    if (pl && !cJSON_IsNull(pl) && !cJSON_IsObject(pl)) {
        respond_error(d, rid, SCC_E_PROTOCOL, "the action's payload must be an object", t0, false);
        goto done;
    }
    const char *t = type->valuestring;
    int rc = SCC_E_OK;
    bool settle = false;
    if (strcmp(t, "key") == 0) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(pl, "key");
        if (!cJSON_IsString(k))
            rc = SCC_E_PROTOCOL, snprintf(err, sizeof err, "key: payload needs 'key'");
        else
            rc = scc_session_key(d->s, k->valuestring, err, sizeof err);
        settle = true;
    } else if (strcmp(t, "text") == 0) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(pl, "text");
        if (!cJSON_IsString(k))
            rc = SCC_E_PROTOCOL, snprintf(err, sizeof err, "text: payload needs 'text'");
        else
            rc = scc_session_text(d->s, k->valuestring, strlen(k->valuestring), err, sizeof err);
        settle = true;
    } else if (strcmp(t, "resize") == 0) {
        int rows, cols;
        if (!num_field(pl, "rows", 1, 500, &rows) || !num_field(pl, "cols", 1, 500, &cols))
            rc = SCC_E_PROTOCOL, snprintf(err, sizeof err, "resize: payload needs 'rows' and 'cols', each 1-500");
        else
            rc = scc_session_resize(d->s, rows, cols, err, sizeof err);
        settle = true;
    } else if (strcmp(t, "wait") == 0) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(pl, "condition");
        char *cs = c ? cJSON_PrintUnformatted(c) : NULL;
        if (!cs)
            rc = SCC_E_PROTOCOL, snprintf(err, sizeof err, "wait: payload needs a 'condition' {type, payload}");
        else
            rc = scc_session_wait(d->s, cs, timeout, err, sizeof err);
        free(cs);
    } else if (strcmp(t, "observe") == 0) {
        if (timeout > 0)
            scc_session_idle(d->s, -1, timeout, SETTLE_MS);
    } else if (strcmp(t, "terminate") == 0) {
        scc_session_terminate(d->s, 200);
        scc_exit_status st;
        scc_session_wait_exit(d->s, 1000, &st);
        respond_begin(d, rid, "ok");
        respond_observation(d);
        jw_key(&d->w, "exit_status");
        put_exit_status(&d->w, &st);
        respond_end(d, t0);
        goto done;
    } else {
        snprintf(err, sizeof err, "unknown action type '%.60s' (key, text, resize, wait, observe, terminate)", t);
        rc = SCC_E_PROTOCOL;
    }
    if (rc) {
        respond_error(d, rid, rc, err, t0, rc != SCC_E_PROTOCOL);
        goto done;
    }
    if (settle)
        scc_session_idle(d->s, -1, timeout >= 0 ? timeout : ACTION_MS, SETTLE_MS);
    respond_begin(d, rid, "ok");
    respond_observation(d);
    respond_end(d, t0);
done:
    cJSON_Delete(req);
}

/* Writes d->out to stdout and empties it; false when stdout is gone. */
static bool flush_responses(Driver *d)
{
    bool ok = cli_put_stdout(&d->out) == 0 && fflush(stdout) == 0;
    buf_reset(&d->out);
    return ok;
}

int scvm_driver(const Opts *o)
{
    if (!o->stdio || !o->json)
        return scvm_report_error(o, "driver", SCC_E_CLI_INVALID_ARG,
                            "the driver speaks NDJSON on stdin and stdout: give --stdio --json");
    int rc = common_checks(o, "driver");
    if (rc)
        return rc;
    /* A client that stops reading ends the session with E_IO, not a
    ** SIGPIPE that would leave no RunResult and no status of ours. */
    signal(SIGPIPE, SIG_IGN);
    /* TERM, INT and HUP end the session as the end of input does, with
    ** status "interrupted" and exit 128 + N (docs/driver.md) */
    if (rt_cancel_install() != 0)
        return scvm_report_error(o, "driver", SCC_E_INTERNAL, "cannot catch signals");
    Driver d = { .o = o };
    buf_init(&d.out);
    char art_dir[PATH_MAX];
    art_init(&d.art, NULL);
    rc = start(o, "driver", &d.s, art_dir, sizeof art_dir);
    d.art.dir = art_dir[0] ? art_dir : NULL;
    if (rc) {
        art_fini(&d.art);
        buf_fini(&d.out);
        return rc < 0 ? 0 : rc;
    }
    uint64_t t0 = pty_now_ms();
    Buf in;
    buf_init(&in);
    bool eof = false, skipping = false, out_ok = true;
    while (!eof && out_ok && !rt_cancel_signal()) {
        /* Keep the program's terminal served while the client thinks. */
        if (scc_session_idle(d.s, 0, -1, 0) != 1)
            continue;
        char chunk[65536];
        ssize_t r = read(0, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            eof = true;
            if (in.len && !skipping)
                handle(&d, (const char *)in.data, in.len);
            buf_reset(&in);
            break;
        }
        size_t start = 0;
        for (size_t i = 0; i < (size_t)r; i++) {
            if (chunk[i] != '\n')
                continue;
            if (skipping) {
                skipping = false;
            } else {
                buf_put(&in, chunk + start, i - start);
                size_t n = in.len;
                while (n && (in.data[n - 1] == '\r' || in.data[n - 1] == ' ' || in.data[n - 1] == '\t'))
                    n--;
                if (n)
                    handle(&d, (const char *)in.data, n);
            }
            buf_reset(&in);
            start = i + 1;
            out_ok = flush_responses(&d);
        }
        if (!skipping)
            buf_put(&in, chunk + start, (size_t)r - start);
        if (in.len > MAX_LINE) {
            /* Too long to be a request: refuse it, drop the rest of its line. */
            uint64_t now = pty_now_ms();
            d.seq++;
            respond_error(&d, NULL, SCC_E_PROTOCOL, "request line longer than 1 MiB", now, false);
            out_ok = flush_responses(&d);
            buf_reset(&in);
            skipping = true;
        }
    }
    /* End of input (or of the client, or a signal): the session ends
    ** cleanly. */
    scc_session_terminate(d.s, 200);
    scc_exit_status st;
    scc_session_wait_exit(d.s, 1000, &st);
    buf_reset(&d.out);      /* what stdout did not take is gone */
    int sig = rt_cancel_signal();
    char imsg[80];
    interrupted_msg(imsg, sizeof imsg);
    put_run_result(&d.out, d.s, o, sig ? "interrupted" : "passed", 0, pty_now_ms() - t0, &st,
                   sig ? E_INTERRUPTED : 0, sig ? imsg : NULL, &d.art);
    buf_putc(&d.out, '\n');
    int wa = art_finish(&d.art, d.s, &d.out);
    if (out_ok)
        out_ok = flush_responses(&d);
    art_fini(&d.art);
    buf_fini(&in);
    buf_fini(&d.out);
    scc_session_close(d.s);
    if (sig) {
        fprintf(stderr, "scvm driver: E_INTERRUPTED: %s\n", imsg);
        return 128 + sig;
    }
    return out_ok && !wa ? 0 : SCC_E_IO;
}
