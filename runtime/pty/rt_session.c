/* SPDX-License-Identifier: MIT */
/* rt_session.c - the installed session API (include/scc/session.h): a
** program in a PTY (rt_pty_session.c) with its libvterm screen
** (rt_pty_screen.c), started under a tui-use policy given as JSON and the
** Linux sandbox that enforces it (rt_sandbox.c).
**
** The policy checks are the PTY target's (docs/pty.md, "Policy"), written
** over a cJSON tree instead of a compiled program's value, because a
** session's policy comes from a file or the command line at run time.
** Waits evaluate the same conditions as scenario steps (rt_pty_cond.c).
** The event loop runs only inside calls: nothing happens between them
** except that the kernel buffers output. */
#include "include/scc/session.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/utf8.h"
#include "formats/cond.h"
#include "formats/term/term_regex.h"
#include "runtime/events.h"
#include "rt_pty.h"
#include "rt_policy.h"
#include "rt_pty_cond.h"
#include "rt_pty_screen.h"
#include "rt_pty_session.h"
#include "rt_sandbox.h"
#include "runtime/rt_cancel.h"

extern char **environ;

/* The public codes are the data model's, as rt_pty.h numbers them (all
** but scvm's own E_INTERRUPTED, which only a signal to scvm produces). */
#define SAME(name) _Static_assert((int)SCC_E_##name == (int)PTY_E_##name, "scc/session.h and rt_pty.h disagree: " #name)
SAME(OK);
SAME(INTERNAL);
SAME(POLICY_DENIED);
SAME(SANDBOX_UNAVAILABLE);
SAME(TIMEOUT);
SAME(ASSERTION_FAILED);
SAME(PROCESS_EXIT);
SAME(TERMINAL_PARSE);
SAME(PROTOCOL_VERSION_MISMATCH);
SAME(PROTOCOL);
SAME(IO);
SAME(REPLAY_MISMATCH);
SAME(CLI_INVALID_ARG);
#undef SAME

enum { MAX_EVENTS_BYTES = 1 << 20 };

struct scc_session {
    PtySession *sess;
    PtyScreen *scr;
    Sandbox *sbx;
    char sbx_tmp[PATH_MAX];
    char id[40], run_id[40];
    char *policy;               /* the effective policy, JSON */
    uint64_t t0, last_change, last_input;
    uint64_t max_output_bytes, max_wait_ms;
    uint64_t out_bytes;
    bool eof, exit_noted, over_budget;
    Buf outq;                   /* bytes for the program */
    size_t outq_off;
    Buf delta;                  /* output since the last observation */
    Buf transcript;             /* all output, up to max_output_bytes */
    size_t delta_dropped;       /* bytes left out of delta (budget) */
    Buf events;                 /* Event objects since the last observation, comma-separated */
    Buf scratch;
};

const char *scc_error_code(int e)
{
    static const char *const codes[] = {
#define X(name, code, num) code,
        PTY_ERRORS(X)
#undef X
    };
    return e >= 0 && e <= SCC_E_CLI_INVALID_ARG ? codes[e] : "E_INTERNAL";
}

/* A random (version 4) UUID. */
static void uuid4(char out[40])
{
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t k = getrandom(r + got, sizeof r - got, 0);
        if (k <= 0) {
            /* no entropy source: time and address, still unique enough for an id */
            uint64_t t = pty_now_ms() ^ (uint64_t)(uintptr_t)out;
            for (size_t i = got; i < sizeof r; i++, t = t * 6364136223846793005u + 1442695040888963407u)
                r[i] = (unsigned char)(t >> 56);
            break;
        }
        got += (size_t)k;
    }
    r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
    r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
    snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2],
             r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
}

/* The checks of rt_policy.c, with the driver's default when the caller
** gives no policy. */
static int plan(const scc_session_config *cfg, PtyPolicy *p, char *err, size_t n)
{
    memset(p, 0, sizeof *p);
    if (cfg->rows < 0 || cfg->rows > 500 || cfg->cols < 0 || cfg->cols > 500)
        return diag_errf(err, n, SCC_E_CLI_INVALID_ARG, "rows and columns must be 1-500");
    if (!cfg->command || !*cfg->command)
        return diag_errf(err, n, SCC_E_CLI_INVALID_ARG, "no command");
    char *dflt = cfg->policy_json ? NULL : scc_session_default_policy(cfg->command);
    PtyPolicyIn in = { .command = cfg->command, .args = cfg->args, .env = cfg->env,
                       .policy_json = cfg->policy_json ? cfg->policy_json : dflt };
    int rc = (int)pty_policy_plan(&in, p, err, n);
    free(dflt);
    return rc;
}

int scc_session_explain(const scc_session_config *cfg, char **json, char *err, size_t errlen)
{
    PtyPolicy p;
    *json = NULL;
    int rc = plan(cfg, &p, err, errlen);
    if (rc == SCC_E_OK) {
        Buf b;
        JsonW w;
        jw_new_obj(&w, &b);
        jw_kbool(&w, "allowed", true);
        jw_kcstr(&w, "command", p.exe);
        jw_kraw(&w, "policy", p.json, strlen(p.json));
        jw_key(&w, "enforced");
        if (p.sbx) {
            jw_value(&w);
            sandbox_explain(p.sbx, &b, true);
            if (b.len && b.data[b.len - 1] == '\n')
                b.len--;        /* one line, as `scvm run -t pty --explain-policy --json` */
        } else {
            jw_obj(&w);
            jw_kcstr(&w, "sandbox", "none");
            jw_end(&w);
        }
        jw_end(&w);
        if (b.oom) {
            rc = diag_errf(err, errlen, SCC_E_INTERNAL, "out of memory");
        } else if ((*json = malloc(b.len + 1))) {
            memcpy(*json, b.data, b.len);
            (*json)[b.len] = 0;
        } else {
            rc = diag_errf(err, errlen, SCC_E_INTERNAL, "out of memory");
        }
        buf_fini(&b);
    }
    pty_policy_fini(&p);
    return rc;
}

/* ---- the event loop ---- */

static void note_event(scc_session *s, const char *type, const char *msg, size_t n)
{
    if (s->events.len > MAX_EVENTS_BYTES)
        return;         /* nobody observes: keep the first megabyte */
    if (s->events.len)
        buf_putc(&s->events, ',');      /* the observation's "events" list */
    JsonW w;
    jw_open_obj(&w, &s->events);
    jw_kcstr(&w, "type", type);
    if (msg) {
        jw_key(&w, "message");
        jw_str_lossy(&w, msg, n);
    }
    jw_end(&w);
}

static void screen_out(const char *b, size_t n, void *user)
{
    scc_session *s = user;
    buf_put(&s->outq, b, n);
}

static void screen_note(const char *kind, const char *d, size_t n, void *user)
{
    note_event(user, kind, d, n);
}

static void flush_out(scc_session *s)
{
    while (s->outq_off < s->outq.len) {
        ssize_t w = write(pty_session_fd(s->sess), s->outq.data + s->outq_off, s->outq.len - s->outq_off);
        if (w > 0)
            s->outq_off += (size_t)w;
        else if (w < 0 && errno == EINTR)
            continue;
        else {
            if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
                s->outq_off = s->outq.len;      /* EIO: nobody reads the terminal any more */
            break;
        }
    }
    if (s->outq_off == s->outq.len) {
        buf_reset(&s->outq);
        s->outq_off = 0;
    }
}

static void read_out(scc_session *s)
{
    char b[65536];
    for (int rounds = 0; rounds < 16 && !s->eof; rounds++) {
        ssize_t r = read(pty_session_fd(s->sess), b, sizeof b);
        if (r > 0) {
            /* the transcript keeps exactly the first max_output_bytes */
            uint64_t before = s->out_bytes;
            s->out_bytes += (uint64_t)r;
            size_t keep = before >= s->max_output_bytes ? 0
                          : s->max_output_bytes - before < (uint64_t)r ? (size_t)(s->max_output_bytes - before)
                                                                       : (size_t)r;
            buf_put(&s->delta, b, keep);
            buf_put(&s->transcript, b, keep);
            s->delta_dropped += (size_t)r - keep;
            if (s->out_bytes > s->max_output_bytes && !s->over_budget) {
                s->over_budget = true;
                note_event(s, "output_budget", "max_output_bytes exceeded: the transcript stops here", 52);
            }
            uint64_t g = pty_screen_gen(s->scr);
            pty_screen_feed(s->scr, b, (size_t)r);
            if (pty_screen_gen(s->scr) != g)
                s->last_change = pty_now_ms();
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            s->eof = true;
            note_event(s, "pty_eof", NULL, 0);
        }
        break;
    }
}

/* The program's exit, as the PTY target's observations give it:
** {"type":"exit","details":{"exit_code" or "signal", "terminated_by_harness"}}. */
static void note_exit(scc_session *s)
{
    if (s->exit_noted || !pty_session_exited(s->sess))
        return;
    s->exit_noted = true;
    if (s->events.len > MAX_EVENTS_BYTES)
        return;
    if (s->events.len)
        buf_putc(&s->events, ',');      /* the observation's "events" list */
    int code = pty_session_exit_code(s->sess);
    JsonW w;
    jw_open_obj(&w, &s->events);
    jw_kcstr(&w, "type", "exit");
    jw_kobj(&w, "details");
    if (code >= 0)
        jw_ki64(&w, "exit_code", code);
    else
        jw_ki64(&w, "signal", pty_session_exit_signal(s->sess));
    jw_kbool(&w, "terminated_by_harness", pty_session_killed_by_us(s->sess));
    jw_end(&w);
    jw_end(&w);
}

/* Runs the loop until fd is readable (1), cond holds (1), the screen has
** been quiet for settle_ms since the later of the last input and the
** last change (0), or deadline (0).  Nothing else can end it. */
static int pump(scc_session *s, uint64_t deadline, int fd, const Cond *cond, int settle_ms)
{
    uint64_t seen_gen = (uint64_t)-1;
    bool seen_exit = false;
    for (;;) {
        uint64_t wake = UINT64_MAX;
        /* What the program wrote meanwhile, first: a call that does not
        ** wait (deadline 0: observe, input) still sees the screen of now. */
        if (!s->eof)
            read_out(s);
        flush_out(s);
        if (!pty_session_exited(s->sess)) {
            pty_session_reap(s->sess);
            note_exit(s);
        }
        bool exited = pty_session_exited(s->sess);
        if (cond && (pty_screen_gen(s->scr) != seen_gen || exited != seen_exit)) {
            seen_gen = pty_screen_gen(s->scr);
            seen_exit = exited;
            if (pty_cond_holds(cond, s->scr, s->sess, s->last_change, &s->scratch, &wake))
                return 1;
        } else if (cond && cond->kind == COND_STABLE) {
            if (pty_cond_holds(cond, s->scr, s->sess, s->last_change, &s->scratch, &wake))
                return 1;
        }
        uint64_t now = pty_now_ms();
        if (settle_ms > 0) {
            uint64_t last = s->last_change > s->last_input ? s->last_change : s->last_input;
            if (now >= last + (uint64_t)settle_ms)
                return 0;
            if (last + (uint64_t)settle_ms < wake)
                wake = last + (uint64_t)settle_ms;
        }
        /* A signal to a runner that catches them (rt_cancel.h: scvm
        ** driver and exec) ends any wait at once: the runner then ends
        ** the session and writes its RunResult. */
        if (rt_cancel_signal())
            return 0;
        if (now >= deadline)
            return 0;
        if (cond && s->eof && exited && wake == UINT64_MAX)
            return 0;       /* nothing can change any more */
        uint64_t until = deadline < wake ? deadline : wake;
        struct pollfd pf[4];
        int np = 0, ifd = -1;
        if (!s->eof) {
            pf[np].fd = pty_session_fd(s->sess);
            pf[np].events = POLLIN | (s->outq.len > s->outq_off ? POLLOUT : 0);
            pf[np++].revents = 0;
        }
        if (!exited) {
            pf[np].fd = pty_session_exit_fd(s->sess);
            pf[np].events = POLLIN;
            pf[np++].revents = 0;
        }
        if (fd >= 0) {
            ifd = np;
            pf[np].fd = fd;
            pf[np].events = POLLIN;
            pf[np++].revents = 0;
        }
        if (rt_cancel_fd() >= 0) {
            pf[np].fd = rt_cancel_fd();
            pf[np].events = POLLIN;
            pf[np++].revents = 0;
        }
        int ms = until == UINT64_MAX ? -1 : until > now ? (int)((until - now) > INT_MAX ? INT_MAX : until - now) : 0;
        if (np == 0 && ms < 0)
            return 0;
        int r = poll(pf, (nfds_t)np, ms);
        if (r < 0 && errno != EINTR)
            return 0;
        if (!s->eof)
            read_out(s);
        flush_out(s);
        if (!exited) {
            pty_session_reap(s->sess);
            note_exit(s);
            if (pty_session_exited(s->sess) && !s->eof)
                read_out(s);
        }
        if (ifd >= 0 && r > 0 && (pf[ifd].revents & (POLLIN | POLLHUP | POLLERR)))
            return 1;
    }
}

/* ---- the API ---- */

int scc_session_spawn(const scc_session_config *cfg, scc_session **out, char *err, size_t errlen)
{
    *out = NULL;
    PtyPolicy p;
    int rc = plan(cfg, &p, err, errlen);
    if (rc != SCC_E_OK) {
        pty_policy_fini(&p);
        return rc;
    }
    scc_session *s = sc_calloc(1, sizeof *s);
    if (!s) {
        pty_policy_fini(&p);
        return diag_errf(err, errlen, SCC_E_INTERNAL, "out of memory");
    }
    buf_init(&s->outq);
    buf_init(&s->delta);
    buf_init(&s->transcript);
    buf_init(&s->events);
    buf_init(&s->scratch);
    int rows = cfg->rows ? cfg->rows : 24, cols = cfg->cols ? cfg->cols : 80;
    uuid4(s->id);
    if (cfg->run_id)
        snprintf(s->run_id, sizeof s->run_id, "%.39s", cfg->run_id);
    else
        uuid4(s->run_id);
    s->policy = p.json;
    p.json = NULL;
    s->max_output_bytes = p.max_output_bytes;
    s->max_wait_ms = p.max_wait_ms;
    s->scr = pty_screen_new(rows, cols, screen_out, screen_note, s);
    if (!s->policy || !s->scr) {
        pty_policy_fini(&p);
        scc_session_close(s);
        return diag_errf(err, errlen, SCC_E_INTERNAL, "out of memory");
    }
    /* the caller's folder, else the policy's fs.working_dir (checked by the plan) */
    const char *cwd = cfg->cwd ? cfg->cwd : p.working_dir[0] ? p.working_dir : NULL;
    PtySpawn sp = { .path = p.exe, .argv = p.argv, .envp = p.envp, .cwd = cwd, .rows = rows, .cols = cols,
                    .before_exec = p.sbx ? sandbox_enter : NULL, .before_exec_arg = p.sbx,
                    .before_tty = p.sbx ? sandbox_enter_ns : NULL,
                    .private_pts = p.sbx && sandbox_private_pts(p.sbx) };
    char why[512];
    s->sess = pty_session_spawn(&sp, why, sizeof why);
    /* The session keeps the sandbox's temporary folder; the plan the rest. */
    s->sbx = p.sbx;
    p.sbx = NULL;
    memcpy(s->sbx_tmp, p.sbx_tmp, sizeof s->sbx_tmp);
    p.sbx_tmp[0] = 0;
    pty_policy_fini(&p);
    if (!s->sess) {
        scc_session_close(s);
        return diag_errf(err, errlen, SCC_E_IO, "%s", why);
    }
    s->t0 = s->last_change = s->last_input = pty_now_ms();
    *out = s;
    return SCC_E_OK;
}

const char *scc_session_id(const scc_session *s) { return s->id; }
const char *scc_session_run_id(const scc_session *s) { return s->run_id; }
const char *scc_session_policy(const scc_session *s) { return s->policy; }

/* Input is refused once the program is gone: nobody would read it. */
static int can_send(scc_session *s, char *err, size_t n)
{
    pump(s, 0, -1, NULL, 0);
    if (s->eof && !pty_session_exited(s->sess)) {
        /* every process closed the terminal: the exit is on its way */
        Cond c = { .kind = COND_EXITED, .type = "process_exited" };
        pump(s, pty_now_ms() + 1000, -1, &c, 0);
    }
    if (pty_session_exited(s->sess))
        return diag_errf(err, n, SCC_E_PROCESS_EXIT, "the program has exited");
    return SCC_E_OK;
}

int scc_session_key(scc_session *s, const char *key, char *err, size_t errlen)
{
    if (!key || !pty_key_valid(key))
        return diag_errf(err, errlen, SCC_E_PROTOCOL, "unknown key '%.60s'", key ? key : "");
    int rc = can_send(s, err, errlen);
    if (rc)
        return rc;
    pty_screen_key(s->scr, key);
    s->last_input = pty_now_ms();
    flush_out(s);
    return SCC_E_OK;
}

int scc_session_text(scc_session *s, const char *text, size_t n, char *err, size_t errlen)
{
    int rc = can_send(s, err, errlen);
    if (rc)
        return rc;
    pty_screen_type(s->scr, text, n, false);
    s->last_input = pty_now_ms();
    flush_out(s);
    return SCC_E_OK;
}

int scc_session_resize(scc_session *s, int rows, int cols, char *err, size_t errlen)
{
    if (rows < 1 || rows > 500 || cols < 1 || cols > 500)
        return diag_errf(err, errlen, SCC_E_PROTOCOL, "rows and cols must be 1-500");
    pump(s, 0, -1, NULL, 0);
    pty_screen_resize(s->scr, rows, cols);
    if (!pty_session_exited(s->sess))
        pty_session_resize(s->sess, rows, cols);
    s->last_input = s->last_change = pty_now_ms();
    return SCC_E_OK;
}

int scc_session_idle(scc_session *s, int fd, int timeout_ms, int settle_ms)
{
    uint64_t dl = timeout_ms < 0 ? UINT64_MAX : pty_now_ms() + (uint64_t)timeout_ms;
    return pump(s, dl, fd, NULL, settle_ms);
}

/* A Condition from JSON, with the table of formats/cond.c: the text and
** pattern point into the tree, which the caller keeps. */
static bool cond_from_json(const cJSON *v, Cond *c, char *msg, size_t n)
{
    memset(c, 0, sizeof *c);
    const char *type = pty_jstr(v, "type");
    const char *needs, *opt;
    if (!cJSON_IsObject(v) || !type) {
        snprintf(msg, n, "a condition is an object with a 'type'");
        return false;
    }
    if (!cond_lookup(type, &needs, &opt)) {
        snprintf(msg, n, "unknown condition type '%.60s'", type);
        return false;
    }
    if (!cond_kind(type, &c->kind)) {
        snprintf(msg, n, "unknown condition type '%.60s'", type);
        return false;
    }
    c->type = type;
    c->ms = 200;
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(v, "payload");
    if (pl && !cJSON_IsNull(pl) && !cJSON_IsObject(pl)) {
        snprintf(msg, n, "%s: payload must be an object", type);
        return false;
    }
    char fields[16];
    snprintf(fields, sizeof fields, "%s%s", needs, opt);
    for (const char *f = fields; *f; f++) {
        bool required = strchr(needs, *f) != NULL, ok = true;
        const cJSON *a, *b;
        switch (*f) {
        case 't':
            c->text = pty_jstr(pl, "text");
            c->text_len = c->text ? strlen(c->text) : 0;
            ok = c->text != NULL;
            break;
        case 'p': {
            const char *pat = pty_jstr(pl, "pattern");
            char e[160];
            if (!pat) {
                ok = false;
                break;
            }
            c->re = term_regex_new(pat, strlen(pat), e, sizeof e);
            if (!c->re) {
                snprintf(msg, n, "%s: invalid pattern: %s", type, e);
                return false;
            }
            break;
        }
        case 'r':
            a = cJSON_GetObjectItemCaseSensitive(pl, "row");
            b = cJSON_GetObjectItemCaseSensitive(pl, "col");
            ok = cJSON_IsNumber(a) && cJSON_IsNumber(b);
            if (ok) {
                c->row = (int64_t)a->valuedouble;
                c->col = (int64_t)b->valuedouble;
            }
            break;
        case 'l':
            a = cJSON_GetObjectItemCaseSensitive(pl, "line");
            ok = cJSON_IsNumber(a);
            if (ok)
                c->line = (int64_t)a->valuedouble;
            break;
        case 'c':
            a = cJSON_GetObjectItemCaseSensitive(pl, "code");
            if (!a)
                a = cJSON_GetObjectItemCaseSensitive(pl, "exit_code");
            ok = cJSON_IsNumber(a);
            if (ok)
                c->code = (int64_t)a->valuedouble;
            break;
        case 'm':
            a = cJSON_GetObjectItemCaseSensitive(pl, "ms");
            if (cJSON_IsNumber(a)) {
                c->ms = (int64_t)a->valuedouble;
                ok = a->valuedouble >= 0 && a->valuedouble <= 600000;
            } else {
                ok = !a;
            }
            break;
        case 'o':
            c->on = pty_jbool(pl, "on", true);
            break;
        default:
            break;
        }
        if (!ok && (required || *f == 'm')) {
            snprintf(msg, n, "%s: payload needs %s", type,
                     *f == 't' ? "'text'" : *f == 'p' ? "'pattern'" : *f == 'r' ? "'row' and 'col'"
                     : *f == 'l' ? "'line'" : *f == 'c' ? "'code'" : "'ms' (0-600000)");
            cond_fini(c);
            return false;
        }
    }
    if (!strchr(fields, 'o'))
        c->on = true;
    return true;
}

int scc_session_wait(scc_session *s, const char *condition_json, int timeout_ms, char *err, size_t errlen)
{
    cJSON *v = cJSON_Parse(condition_json ? condition_json : "");
    Cond c;
    char msg[256];
    if (!v)
        return diag_errf(err, errlen, SCC_E_PROTOCOL, "the condition is not valid JSON");
    if (!cond_from_json(v, &c, msg, sizeof msg)) {
        cJSON_Delete(v);
        return diag_errf(err, errlen, SCC_E_PROTOCOL, "%s", msg);
    }
    uint64_t to = timeout_ms < 0 ? s->max_wait_ms : (uint64_t)timeout_ms;
    if (to > s->max_wait_ms)
        to = s->max_wait_ms;
    int rc = SCC_E_OK;
    uint64_t t0 = pty_now_ms();
    if (pump(s, t0 + to, -1, &c, 0) != 1) {
        pty_cond_why(&c, s->scr, s->sess, msg, sizeof msg);
        if (pty_session_exited(s->sess) && s->eof && pty_now_ms() < t0 + to)
            rc = diag_errf(err, errlen, SCC_E_TIMEOUT, "%s: cannot become true: the program has exited: %s", c.type, msg);
        else
            rc = diag_errf(err, errlen, SCC_E_TIMEOUT, "%s: not true after %llu ms: %s", c.type, (unsigned long long)to,
                      msg);
    }
    cond_fini(&c);
    cJSON_Delete(v);
    return rc;
}

/* The longest prefix of b that does not end inside a UTF-8 character. */
static size_t utf8_whole(const Buf *b)
{
    size_t n = b->len, k = 0;
    while (k < 4 && k < n && (b->data[n - 1 - k] & 0xC0) == 0x80)
        k++;
    if (k < n) {
        unsigned char lead = b->data[n - 1 - k];
        size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (want > k + 1 && want <= 4)
            return n - 1 - k;
    }
    return n;
}

int scc_session_observe(scc_session *s, int flags, char **json)
{
    *json = NULL;
    pump(s, 0, -1, NULL, 0);
    Buf b;
    buf_init(&b);
    char snap[40];
    uuid4(snap);
    JsonW w;
    jw_open_obj(&w, &b);
    jw_ki64(&w, "protocol_version", SCC_PROTOCOL_VERSION);
    jw_kcstr(&w, "run_id", s->run_id);
    jw_kcstr(&w, "session_id", s->id);
    jw_ku64(&w, "timestamp_ms", pty_now_ms() - s->t0);
    jw_kvalue(&w, "screen");
    pty_screen_snapshot_json(s->scr, snap,
                             ((flags & SCC_OBSERVE_CELLS) ? PTY_SNAP_CELLS : 0u) |
                                 ((flags & SCC_OBSERVE_PTYBOX_COLORS) ? PTY_SNAP_PTYBOX_COLORS : 0u),
                             &b);
    size_t whole = pty_session_exited(s->sess) && s->eof ? s->delta.len : utf8_whole(&s->delta);
    jw_key(&w, "transcript_delta");
    jw_str_lossy(&w, s->delta.data ? (const char *)s->delta.data : "", whole);
    /* the events' records, comma-separated already */
    jw_karr(&w, "events");
    jw_raw(&w, (const char *)s->events.data, s->events.len);
    jw_end(&w);
    jw_end(&w);
    if (b.oom) {
        buf_fini(&b);
        return SCC_E_INTERNAL;
    }
    *json = malloc(b.len + 1);
    if (!*json) {
        buf_fini(&b);
        return SCC_E_INTERNAL;
    }
    memcpy(*json, b.data, b.len);
    (*json)[b.len] = 0;
    buf_fini(&b);
    /* What was observed is consumed; an incomplete character waits. */
    size_t rest = s->delta.len - whole;
    if (rest)
        memmove(s->delta.data, s->delta.data + whole, rest);
    s->delta.len = rest;
    buf_reset(&s->events);
    return SCC_E_OK;
}

const char *scc_session_transcript(const scc_session *s, size_t *len)
{
    *len = s->transcript.len;
    return s->transcript.data ? (const char *)s->transcript.data : "";
}

static void fill_status(const scc_session *s, scc_exit_status *st)
{
    if (!st)
        return;
    st->exited = pty_session_exited(s->sess);
    st->exit_code = pty_session_exit_code(s->sess);
    st->signal = pty_session_exit_signal(s->sess);
    st->terminated_by_harness = pty_session_killed_by_us(s->sess);
}

int scc_session_wait_exit(scc_session *s, int timeout_ms, scc_exit_status *st)
{
    Cond c = { .kind = COND_EXITED, .type = "process_exited" };
    uint64_t dl = timeout_ms < 0 ? UINT64_MAX : pty_now_ms() + (uint64_t)timeout_ms;
    pump(s, dl, -1, &c, 0);
    /* Drain what the program printed last. */
    if (pty_session_exited(s->sess))
        pump(s, pty_now_ms() + 50, -1, NULL, 20);
    fill_status(s, st);
    return pty_session_exited(s->sess);
}

int scc_session_terminate(scc_session *s, int grace_ms)
{
    pump(s, 0, -1, NULL, 0);
    if (!pty_session_exited(s->sess)) {
        pty_session_kill(s->sess, grace_ms < 0 ? 200 : grace_ms);
        note_exit(s);
    }
    return pty_session_exited(s->sess);
}

void scc_session_close(scc_session *s)
{
    if (!s)
        return;
    pty_session_close(s->sess);
    pty_screen_free(s->scr);
    sandbox_free(s->sbx);
    if (s->sbx_tmp[0])
        file_remove_tree(s->sbx_tmp);
    free(s->policy);
    buf_fini(&s->outq);
    buf_fini(&s->delta);
    buf_fini(&s->transcript);
    buf_fini(&s->events);
    buf_fini(&s->scratch);
    sc_free(s);
}
