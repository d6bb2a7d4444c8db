/* SPDX-License-Identifier: MIT */
/* rt_pty_ops.c - what each op means on a real terminal: typing, keys,
** resizes, steps, and the conditions that waits and checks evaluate.
**
** A condition is evaluated when the screen or the process changed (the
** pump's predicate), never on a timer, except the quiet-period condition
** (screen_stable), which asks to be woken when its period would end. */
#include "rt_pty_int.h"

#include <stdlib.h>
#include <termios.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "formats/cond.h"
#include "rt_pty_cond.h"
#include "formats/term/term_regex.h"
#include "runtime/rt_clock.h"
#include "runtime/scn_assert.h"

enum { DEFAULT_TIMEOUT_MS = 5000, SETTLE_MS = 100, SETTLE_MAX_MS = 2000, TERM_GRACE_MS = 200, ECHO_WAIT_MS = 2000 };

static bool cond_eval(Pty *t, void *arg, uint64_t *wake)
{
    return pty_cond_holds(arg, t->scr, t->sess, t->last_change, &t->cond_buf, wake);
}

static void cond_why(Pty *t, const Cond *c, char *out, size_t n)
{
    pty_cond_why(c, t->scr, t->sess, out, n);
}

/* ---- steps ---- */

static uint64_t per_attempt(const Pty *t)
{
    if (!(t->in_step && t->step_timeout) && t->o.agent)
        /* a real agent shows its answer when its turn ends, which may take
        ** its turn timeout (on a busy machine a node program's last frame
        ** came 5 s after the last response: agents.qwen_code_faults) */
        return t->o.agent->wait_ms > DEFAULT_TIMEOUT_MS ? t->o.agent->wait_ms : DEFAULT_TIMEOUT_MS;
    uint64_t to = t->in_step && t->step_timeout ? t->step_timeout : DEFAULT_TIMEOUT_MS;
    return to < t->max_wait_ms ? to : t->max_wait_ms;
}

/* The deadline of the current wait or check: the step's timeout per
** attempt, times (retries + 1), from the step's start.  A retry re-checks;
** it never performs the action again. */
static uint64_t deadline_now(const Pty *t)
{
    uint64_t tries = t->in_step ? t->step_retries + 1 : 1;
    uint64_t start = t->in_step ? t->step_start : pty_now_ms();
    return start + per_attempt(t) * tries;
}

static void note_attempts(Pty *t)
{
    if (!t->in_step)
        return;
    uint64_t pa = per_attempt(t), el = pty_now_ms() - t->step_start;
    uint64_t a = pa ? el / pa + 1 : 1;
    if (a > t->step_retries + 1)
        a = t->step_retries + 1;
    if (a > t->step_attempts)
        t->step_attempts = (uint32_t)a;
}

/* Before a step's snapshot: the screen settles, so the snapshot shows
** what the program shows once it has answered, not a frame caught
** mid-output (a REPL's result before its prompt).  ptybox reads until the
** step's timeout_ms every time; we wait until the screen has not changed
** for STEP_QUIET_MS since the later of its last change and the step's
** start, and no process of the program's session is running (it may still
** write), at most min(the step's timeout, STEP_SETTLE_MAX_MS); at once when
** the program has exited and its terminal is drained.  Only when a
** snapshot is written (--artifacts, --json): without one there is nothing
** to keep stable, and steps stay as fast as the program answers. */
enum { STEP_QUIET_MS = 100, STEP_BUSY_RECHECK_MS = 20, STEP_SETTLE_MAX_MS = 2000 };

static bool settled(Pty *t, void *arg, uint64_t *wake)
{
    (void)arg;
    if (!t->sess || (t->eof && pty_session_exited(t->sess)))
        return true;
    uint64_t last = t->last_change > t->step_start ? t->last_change : t->step_start, now = pty_now_ms();
    if (now < last + STEP_QUIET_MS) {
        *wake = last + STEP_QUIET_MS;
        return false;
    }
    if (pty_session_busy(t->sess)) {
        *wake = now + STEP_BUSY_RECHECK_MS;
        return false;
    }
    return true;
}

static void step_settle(Pty *t)
{
    if (!t->o.artifacts || !t->sess || t->err)
        return;
    uint64_t max = per_attempt(t) < STEP_SETTLE_MAX_MS ? per_attempt(t) : STEP_SETTLE_MAX_MS;
    pty_pump(t, pty_now_ms() + max, settled, NULL);
}

void pty_step_finish(Pty *t)
{
    if (!t->in_step)
        return;
    step_settle(t);
    const BcProgram *p = t->p;
    Buf *b = &t->steps;
    if (b->len)
        buf_putc(b, ',');       /* run.json's "steps" list */
    JsonW w;
    jw_open_obj(&w, b);
    jw_kstr(&w, "step_id", p->str[t->step_id].s, p->str[t->step_id].len);
    jw_kstr(&w, "name", p->str[t->step_name].s, p->str[t->step_name].len);
    jw_kcstr(&w, "status", !t->step_failed ? "passed" : t->err == PTY_E_ASSERTION_FAILED ? "failed" : "errored");
    jw_ku64(&w, "attempts", t->step_attempts ? t->step_attempts : 1);
    jw_ku64(&w, "started_at_ms", t->step_start - t->t0);
    jw_ku64(&w, "ended_at_ms", pty_elapsed(t));
    if (t->step_action.len)
        jw_kraw(&w, "action", (const char *)t->step_action.data, t->step_action.len);
    else
        jw_knull(&w, "action");
    /* the assertions' records, comma-separated already */
    jw_karr(&w, "assertions");
    jw_raw(&w, (const char *)t->step_asserts.data, t->step_asserts.len);
    jw_end(&w);
    if (t->step_failed) {
        jw_kobj(&w, "error");
        jw_kcstr(&w, "code", pty_err_code(t->err));
        jw_kcstr(&w, "message", t->msg);
        jw_end(&w);
    }
    jw_end(&w);
    buf_reset(&t->step_asserts);
    buf_reset(&t->step_action);
    t->in_step = false;
    if (t->o.verbose && t->o.diag) {
        /* ptybox's --verbose: the step's progress as it ends */
        fprintf(t->o.diag, "step %llu: %.*s: %s (%llu attempt%s, %llu ms)%s%s\n", (unsigned long long)t->n_steps,
                (int)p->str[t->step_name].len, p->str[t->step_name].s,
                !t->step_failed ? "passed" : t->err == PTY_E_ASSERTION_FAILED ? "failed" : "errored",
                (unsigned long long)(t->step_attempts ? t->step_attempts : 1), t->step_attempts > 1 ? "s" : "",
                (unsigned long long)(pty_elapsed(t) - (t->step_start - t->t0)), t->step_failed ? ": " : "",
                t->step_failed ? t->msg : "");
        fflush(t->o.diag);
    }
    pty_snapshot(t, "step");
}

static void action_json(Pty *t, const char *type, const char *key, const char *s, size_t n)
{
    buf_reset(&t->step_action);
    JsonW w;
    jw_open_obj(&w, &t->step_action);
    jw_kcstr(&w, "type", type);
    jw_kobj(&w, "payload");
    if (key)
        jw_kstr(&w, key, s, n);
    jw_end(&w);
    jw_end(&w);
}

/* Records an assertion result (also as an event). */
static void assertion_result(Pty *t, const char *type, bool passed, const char *message, uint32_t val)
{
    Buf *b = &t->step_asserts;
    if (b->len)
        buf_putc(b, ',');       /* the step's "assertions" list */
    JsonW w;
    jw_open_obj(&w, b);
    jw_kcstr(&w, "type", type);
    jw_kbool(&w, "passed", passed);
    jw_kcstr(&w, "message", message);
    jw_key(&w, "details");
    if (!passed) {
        /* The screen at the time of failure. */
        Buf txt;
        buf_init(&txt);
        pty_screen_text(t->scr, &txt);
        jw_obj(&w);
        jw_kvalue(&w, "condition");
        bc_val_json(t->p, val, b);
        jw_key(&w, "screen");
        jw_str_lossy(&w, (const char *)txt.data, txt.len);
        jw_end(&w);
        buf_fini(&txt);
    } else {
        jw_null(&w);
    }
    jw_end(&w);
}

/* Waits for a {type, payload} condition until the step's deadline.
** is_wait: a wait action (timeout -> E_TIMEOUT) rather than an assertion
** (-> E_ASSERTION_FAILED). */
static int run_condition(Pty *t, uint32_t val, bool is_wait)
{
    BcVal v = bc_val(t->p, val);
    Cond c;
    char msg[256];
    if (!cond_parse(t->p, &v, &c, msg, sizeof msg)) {
        cond_fini(&c);
        pty_fail(t, PTY_E_PROTOCOL, "%s", msg);
        t->step_failed = true;
        return SC_FAILED;
    }
    uint64_t dl = deadline_now(t);
    int r = pty_pump(t, dl, cond_eval, &c);
    note_attempts(t);
    ev_op(t);
    ev_bool(t, "passed", r == 1);
    ev_end(t);
    if (r == 1) {
        if (!is_wait)
            assertion_result(t, c.type, true, NULL, val);
        cond_fini(&c);
        return 0;
    }
    if (r < 0) {
        cond_fini(&c);
        t->step_failed = true;
        return SC_FAILED;
    }
    char why[512];
    cond_why(t, &c, why, sizeof why);
    if (is_wait) {
        /* the budget, not the time measured: the message is part of
        ** run.json, which a replay compares */
        if (t->sess && t->eof && pty_session_exited(t->sess) && pty_now_ms() < dl)
            pty_fail(t, PTY_E_TIMEOUT, "wait for %s cannot hold: the program has exited: %s", c.type, why);
        else
            pty_fail(t, PTY_E_TIMEOUT, "wait for %s timed out after %llu ms: %s", c.type,
                     (unsigned long long)(dl - (t->in_step ? t->step_start : dl - per_attempt(t))), why);
    } else {
        assertion_result(t, c.type, false, why, val);
        pty_fail(t, PTY_E_ASSERTION_FAILED, "%s: %s", c.type, why);
    }
    if (t->o.diag) {
        Buf txt;
        buf_init(&txt);
        pty_screen_text(t->scr, &txt);
        fprintf(t->o.diag, "scvm: pty: %s failed: %s; the screen:\n%.*s\n", c.type, why, (int)txt.len,
                txt.data ? (const char *)txt.data : "");
        buf_fini(&txt);
    }
    t->step_failed = true;
    cond_fini(&c);
    return SC_FAILED;
}

/* The program wrote something since its output counter was *arg. */
static bool drew_since(Pty *t, void *arg, uint64_t *wake);

/* Waits until the screen has been quiet for SETTLE_MS (at most
** SETTLE_MAX_MS): a timeline screenshot should not catch a half-drawn
** frame.  Event-driven like every wait.  Input written since the program
** last drew, to a terminal that echoes (ECHO in the termios the program
** left), is first given up to ECHO_WAIT_MS to be echoed: the echo goes
** through the kernel's tty work queue, which a loaded machine delays past
** any quiet window (a screenshot of /bin/cat caught the screen before
** "world" under load; pty.cli). */
static void settle(Pty *t)
{
    pty_flush_out(t);
    if (t->sent_pending && t->sess && t->out_bytes == t->sent_mark && !t->eof) {
        struct termios tio;
        if (tcgetattr(pty_session_fd(t->sess), &tio) == 0 && (tio.c_lflag & ECHO)) {
            uint64_t mark = t->sent_mark;
            pty_pump(t, pty_now_ms() + ECHO_WAIT_MS, drew_since, &mark);
        }
    }
    t->sent_pending = false;
    Cond c;
    memset(&c, 0, sizeof c);
    c.kind = COND_STABLE;
    c.ms = SETTLE_MS;
    pty_pump(t, pty_now_ms() + SETTLE_MAX_MS, cond_eval, &c);
    cond_fini(&c);
}

/* Input for a program that has exited is refused (E_PROCESS_EXIT, the
** data model's error, as the driver refuses it): nobody would read it,
** and a step that "typed" into nothing must not pass.  The loop runs once
** first, so an exit that happened since the last op is noticed. */
static bool can_type(Pty *t, const char *what)
{
    if (!t->sess || t->o.agent)
        return true;
    if (pty_pump(t, pty_now_ms(), NULL, NULL) < 0)
        return false;
    if (t->eof && !pty_session_exited(t->sess)) {
        /* every process closed the terminal: the exit is on its way */
        Cond c;
        memset(&c, 0, sizeof c);
        c.kind = COND_EXITED;
        int r = pty_pump(t, pty_now_ms() + 1000, cond_eval, &c);
        cond_fini(&c);
        if (r < 0)
            return false;
    }
    if (!pty_session_exited(t->sess))
        return true;
    int code = pty_session_exit_code(t->sess);
    pty_fail(t, PTY_E_PROCESS_EXIT, "%s: the program has exited (%s %d): nothing reads the input", what,
             code >= 0 ? "exit code" : "signal", code >= 0 ? code : pty_session_exit_signal(t->sess));
    t->step_failed = true;
    return false;
}

/* ---- Scenario-Format assert (scn_assert.c): the screen is ours, the rest in the workspace ---- */

/* text.contains: waits (event-driven, per_attempt) for the text on the screen. */
static int sf_text(void *user, const char *s, size_t n, Buf *why)
{
    Pty *t = user;
    Cond c;
    memset(&c, 0, sizeof c);
    c.kind = COND_CONTAINS;
    c.text = s;
    c.text_len = n;
    int r = pty_pump(t, pty_now_ms() + per_attempt(t), cond_eval, &c);
    if (r == 0) {
        char w[300];
        cond_why(t, &c, w, sizeof w);
        buf_puts(why, w);
    }
    cond_fini(&c);
    return r;
}

static int sf_assert(Pty *t, uint32_t val)
{
    BcVal a = bc_val(t->p, val);
    /* With an agent, the workspace checks are the mock server's, before
    ** its next response (docs/real-agents.md); the screen is ours. */
    ScnAssertEnv env = { .root = pty_ws_root(t), .text = sf_text, .user = t, .text_only = t->o.agent != NULL };
    ScnAssertResult res = { 0, 0, 0, 0 };
    Buf msgs;
    buf_init(&msgs);
    if (!scn_assert_eval(t->p, &a, &env, &msgs, &res)) {
        buf_fini(&msgs);
        return SC_FAILED;
    }
    /* One line per failed check; the event and the error join them. */
    Buf why;
    buf_init(&why);
    for (size_t i = 0; i < msgs.len; i++) {
        if (msgs.data[i] != '\n')
            buf_putc(&why, msgs.data[i]);
        else if (i + 1 < msgs.len)
            buf_puts(&why, "; ");
    }
    const char *w = why.data ? (const char *)why.data : "";
    bool ok = res.failed == 0;
    ev_op(t);
    ev_bool(t, "passed", ok);
    if (!ok)
        ev_str(t, "message", w, why.len);
    ev_end(t);
    if (!ok)
        pty_fail(t, res.refused ? PTY_E_POLICY_DENIED : PTY_E_ASSERTION_FAILED, "assert: %.*s", (int)why.len, w);
    buf_fini(&why);
    buf_fini(&msgs);
    return ok ? 0 : SC_FAILED;
}

/* At END: Scenario-Format expect.exitCode waits for the program's exit. */
static int sf_expect(Pty *t)
{
    BcVal cfg = bc_val(t->p, t->p->meta.config), ex;
    if (!vget(t, &cfg, "expect", &ex))
        return 0;
    int64_t code;
    if (vint(t, &ex, "exitCode", &code)) {
        Cond c;
        memset(&c, 0, sizeof c);
            c.kind = COND_EXITED;
        int r = pty_pump(t, t->t0 + t->max_runtime_ms, cond_eval, &c);
        cond_fini(&c);
        if (r < 0)
            return SC_FAILED;
        int got = pty_session_exit_code(t->sess);
        if (r == 0 || got != code) {
            pty_fail(t, PTY_E_PROCESS_EXIT, "expect.exitCode %lld, but the program %s %d", (long long)code,
                     r == 0 ? "has not exited;" : got >= 0 ? "exited with" : "was killed by signal",
                     r == 0 ? 0 : got >= 0 ? got : pty_session_exit_signal(t->sess));
            return SC_FAILED;
        }
    }
    if (!pty_ws_expect(t))
        return SC_FAILED;
    return 0;
}

/* Types text: all at once, or one character at a time with the typing
** delay between them (the delay runs the event loop: no sleeping). */
/* The program wrote something since its output counter was *arg. */
static bool drew_since(Pty *t, void *arg, uint64_t *wake)
{
    (void)wake;
    return t->out_bytes > *(const uint64_t *)arg;
}

static void type_text(Pty *t, const char *s, size_t n)
{
    if (!t->o.type_delay_ms) {
        pty_screen_type(t->scr, s, n, false);
        return;
    }
    /* An agent's TUI needs its typing delay whatever the timeline's speed:
    ** it tells a paste from keystrokes by it. */
    uint64_t delay = t->o.agent ? t->o.type_delay_ms : rt_clock_scale(t->o.type_delay_ms, t->o.speed);
    for (size_t i = 0; i < n && !t->err;) {
        size_t k = 1;
        while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80)
            k++;
        uint64_t sent = pty_now_ms(), out = t->out_bytes;
        pty_screen_type(t->scr, s + i, k, false);
        i += k;
        pty_flush_out(t);
        /* An agent's TUI: each keystroke waits for the TUI to draw
        ** something (its echo), at most ECHO_WAIT_MS, before the delay
        ** runs: a TUI starved of CPU reads keystrokes sent on a timer
        ** together and takes them for a paste (Gemini CLI then kept the
        ** prompt in its box, Enter and all; issue 30). */
        if (t->o.agent && delay)
            pty_pump(t, sent + ECHO_WAIT_MS, drew_since, &out);
        if (i < n && delay)
            pty_pump(t, pty_now_ms() + delay, NULL, NULL);
    }
}

/* ---- an agent under test (RtPtyOpts.agent; docs/real-agents.md) ---- */

void pty_agent_drain(Pty *t)
{
    if (!t->o.agent || !t->o.agent->drain)
        return;
    size_t start = t->events.len;
    t->o.agent->drain(t->o.agent->ctx, t->t0, &t->events);
    if (t->o.events && t->events.len > start && !t->events.oom) {
        fwrite(t->events.data + start, 1, t->events.len - start, t->o.events);
        fflush(t->o.events);
    }
}

typedef struct AgentWait {
    uint32_t i;
    int r;
    Buf why;
} AgentWait;

static bool agent_ready(Pty *t, void *arg, uint64_t *wake)
{
    AgentWait *a = arg;
    uint64_t w = UINT64_MAX;
    buf_reset(&a->why);
    a->r = t->o.agent->ready(t->o.agent->ctx, t->p, a->i, pty_now_ms(), &w, &a->why);
    if (a->r == 0 && w < *wake)
        *wake = w;
    return a->r != 0;
}

/* The op the agent's side plays waits for the agent to get there. */
static int agent_wait(Pty *t, const BcInsn *in)
{
    AgentWait a = { .i = (uint32_t)(in - t->p->insn) };
    buf_init(&a.why);
    int r = pty_pump(t, pty_now_ms() + t->o.agent->wait_ms, agent_ready, &a);
    pty_agent_drain(t);
    const char *why = a.why.data ? (const char *)a.why.data : "";
    unsigned line = in->line;       /* LLM_END has none: its llmResponse's */
    for (const BcInsn *b = in; in->op == OP_LLM_END && b > t->p->insn;)
        if ((--b)->op == OP_LLM_BEGIN) {
            line = b->line;
            break;
        }
    if (r == 0) {
        char ex[96] = "";
        if (t->sess && pty_session_exited(t->sess)) {
            int code = pty_session_exit_code(t->sess);
            snprintf(ex, sizeof ex, " (the agent exited %s %d)", code >= 0 ? "with" : "on signal",
                     code >= 0 ? code : pty_session_exit_signal(t->sess));
        }
        pty_fail(t, PTY_E_TIMEOUT, "line %u: the agent did not get here within %llu ms%s: %.*s", line,
                 (unsigned long long)t->o.agent->wait_ms, ex, (int)a.why.len, why);
    } else if (r == 1 && a.r < 0) {
        pty_fail(t, PTY_E_ASSERTION_FAILED, "line %u: %.*s", line, (int)a.why.len, why);
    }
    buf_fini(&a.why);
    return t->err ? SC_FAILED : 0;
}

/* An interactive agent's input is ready: its ready text is on the screen
** and none of its busy texts (a starved TUI can show its prompt, quiet,
** while it still works). */
typedef struct AgentIdle {
    Cond ready;
    Cond busy[8];
    size_t n_busy;
} AgentIdle;

static bool agent_idle(Pty *t, void *arg, uint64_t *wake)
{
    AgentIdle *a = arg;
    if (!cond_eval(t, &a->ready, wake))
        return false;
    for (size_t i = 0; i < a->n_busy; i++)
        if (cond_eval(t, &a->busy[i], wake))
            return false;
    return true;
}

/* A prompt to the agent: on its command line (headless: the first one),
** else typed once its input is ready (interactive.ready on the screen,
** interactive.busy not). */
static int agent_input(Pty *t, const BcStr *s)
{
    const RtPtyAgent *ag = t->o.agent;
    if (ag->headless) {
        ev_op(t);
        ev_bool(t, "on_command_line", t->n_inputs == 1);
        ev_end(t);
        if (t->n_inputs > 1) {
            pty_fail(t, PTY_E_CLI_INVALID_ARG,
                     "line %u: a headless agent takes one prompt, on its command line; this is a second "
                     "(play it interactive: --interactive)", (unsigned)t->op->line);
            return SC_FAILED;
        }
        return 0;
    }
    if (ag->ready_text && ag->ready_text[0]) {
        AgentIdle c;
        memset(&c, 0, sizeof c);
        c.ready.kind = COND_CONTAINS;
        c.ready.text = ag->ready_text;
        c.ready.text_len = strlen(ag->ready_text);
        for (const char *const *b = ag->busy_texts; b && *b && c.n_busy < sizeof c.busy / sizeof c.busy[0]; b++) {
            c.busy[c.n_busy].kind = COND_CONTAINS;
            c.busy[c.n_busy].text = *b;
            c.busy[c.n_busy++].text_len = strlen(*b);
        }
        int r = pty_pump(t, pty_now_ms() + ag->wait_ms, agent_idle, &c);
        cond_fini(&c.ready);
        for (size_t i = 0; i < c.n_busy; i++)
            cond_fini(&c.busy[i]);
        if (r <= 0) {
            if (r == 0)
                pty_fail(t, PTY_E_TIMEOUT, "line %u: the agent's input was not ready ('%s' not on the screen, or "
                         "a busy text on it) within %llu ms", (unsigned)t->op->line, ag->ready_text,
                         (unsigned long long)ag->wait_ms);
            return SC_FAILED;
        }
        settle(t);
    }
    ev_op(t);
    ev_end(t);
    type_text(t, s->s, s->len);
    pty_flush_out(t);
    if (t->o.type_delay_ms)     /* a burst is taken for a paste: Enter apart */
        pty_pump(t, pty_now_ms() + t->o.type_delay_ms, NULL, NULL);
    settle(t);                  /* ... and after the echo of the last key is drawn */
    pty_screen_key(t->scr, "Enter");
    return t->err ? SC_FAILED : 0;
}

/* At END: a headless agent must finish (exit 0 unless expect.exitCode
** says otherwise); an interactive one is asked to leave with its quit keys. */
static int agent_end(Pty *t)
{
    const RtPtyAgent *ag = t->o.agent;
    Cond c;
    memset(&c, 0, sizeof c);
    c.kind = COND_EXITED;
    if (ag->headless) {
        int r = pty_pump(t, pty_now_ms() + ag->wait_ms, cond_eval, &c);
        if (r == 0)
            pty_fail(t, PTY_E_TIMEOUT, "the agent did not exit within %llu ms of its last scripted response",
                     (unsigned long long)ag->wait_ms);
        BcVal cfg = bc_val(t->p, t->p->meta.config), ex;
        int64_t want;
        if (r == 1 && !(vget(t, &cfg, "expect", &ex) && vint(t, &ex, "exitCode", &want))) {
            int code = pty_session_exit_code(t->sess);
            if (code != 0)
                pty_fail(t, PTY_E_PROCESS_EXIT, "the agent %s %d (expect.exitCode is 0 by default for a headless "
                         "agent)", code >= 0 ? "exited with" : "was killed by signal",
                         code >= 0 ? code : pty_session_exit_signal(t->sess));
        }
    } else {
        settle(t);
        for (const char *const *k = ag->quit_keys; k && *k && !t->err; k++) {
            if (pty_session_exited(t->sess))
                break;
            pty_screen_key(t->scr, *k);
            pty_flush_out(t);
            pty_pump(t, pty_now_ms() + 300, cond_eval, &c);
        }
        if (!t->err)
            pty_pump(t, pty_now_ms() + 3000, cond_eval, &c);
    }
    pty_agent_drain(t);
    return t->err ? SC_FAILED : 0;
}

void pty_agent_finish(Pty *t)
{
    const RtPtyAgent *ag = t->o.agent;
    pty_agent_drain(t);
    if (!ag->finish)
        return;
    Buf why;
    buf_init(&why);
    buf_reset(&t->agent_report);
    ag->finish(ag->ctx, &why, &t->agent_report);
    pty_agent_drain(t);
    if (why.len)
        pty_fail(t, PTY_E_ASSERTION_FAILED, "%.*s", (int)why.len, (const char *)why.data);
    buf_fini(&why);
}

/* ---- the terminal's op handlers (runtime/player.h) ---- */

/* A prompt: typed, then submitted with Enter. */
static int op_user_input(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Pty *t = ctx;
    const BcStr *s = &p->str[in->a[1]];
    t->n_inputs++;
    if (t->o.agent)
        return agent_input(t, s);
    ev_op(t);
    ev_end(t);
    if (!can_type(t, "userInputs"))
        return SC_FAILED;
    type_text(t, s->s, s->len);
    pty_screen_key(t->scr, "Enter");
    return 0;
}

static int op_type_text(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Pty *t = ctx;
    const BcStr *s = &p->str[in->a[0]];
    action_json(t, "text", "text", s->s, s->len);
    ev_op(t);
    ev_end(t);
    if (!can_type(t, "text"))
        return SC_FAILED;
    type_text(t, s->s, s->len);
    return 0;
}

static int op_key(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Pty *t = ctx;
    const BcStr *s = &p->str[in->a[0]];
    action_json(t, "key", "key", s->s, s->len);
    ev_op(t);
    ev_end(t);
    if (!can_type(t, "key"))
        return SC_FAILED;
    if (!pty_screen_key(t->scr, s->s)) {
        pty_fail(t, PTY_E_CLI_INVALID_ARG, "unknown key name '%s'", s->s);
        return SC_FAILED;
    }
    return 0;
}

static int op_user_cancel(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    (void)in;
    Pty *t = ctx;
    ev_op(t);
    ev_str(t, "key", t->o.cancel_key, strlen(t->o.cancel_key));
    ev_end(t);
    pty_screen_key(t->scr, t->o.cancel_key);
    return 0;
}

static int op_resize(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    Pty *t = ctx;
    int rows = (int)in->a[0], cols = (int)in->a[1];
    buf_reset(&t->step_action);
    JsonW w;
    jw_open_obj(&w, &t->step_action);
    jw_kcstr(&w, "type", "resize");
    jw_kobj(&w, "payload");
    jw_ki64(&w, "rows", rows);
    jw_ki64(&w, "cols", cols);
    jw_end(&w);
    jw_end(&w);
    pty_screen_resize(t->scr, rows, cols);
    pty_session_resize(t->sess, rows, cols);
    t->rows = rows;
    t->cols = cols;
    t->last_change = pty_now_ms();
    if (t->cast_on) {
        char r[32];
        int k = snprintf(r, sizeof r, "%dx%d", cols, rows);
        pty_cast_event(t, 'r', r, (size_t)k);
    }
    ev_op(t);
    ev_end(t);
    return 0;
}

static int op_step(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    Pty *t = ctx;
    pty_step_finish(t);
    if (++t->n_steps > t->max_steps) {
        pty_fail(t, PTY_E_TIMEOUT, "step budget exceeded: more than %llu steps", (unsigned long long)t->max_steps);
        return SC_FAILED;
    }
    t->in_step = true;
    t->step_failed = false;
    t->step_id = in->a[0];
    t->step_name = in->a[1];
    t->step_timeout = in->a[2];
    t->step_retries = in->a[3];
    t->step_start = pty_now_ms();
    t->step_attempts = 1;
    ev_op(t);
    ev_end(t);
    return 0;
}

static int op_wait(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Pty *t = ctx;
    buf_reset(&t->step_action);
    JsonW w;
    jw_open_obj(&w, &t->step_action);
    jw_kcstr(&w, "type", "wait");
    jw_kobj(&w, "payload");
    jw_kvalue(&w, "condition");
    bc_val_json(p, in->a[0], &t->step_action);
    jw_end(&w);
    jw_end(&w);
    return run_condition(t, in->a[0], true);
}

static int op_check(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    return run_condition(ctx, in->a[0], false);
}

static int op_terminate(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    (void)in;
    Pty *t = ctx;
    action_json(t, "terminate", NULL, NULL, 0);
    ev_op(t);
    ev_end(t);
    if (t->o.events)
        fflush(t->o.events);
    pty_session_kill(t->sess, TERM_GRACE_MS);
    pty_pump(t, pty_now_ms(), NULL, NULL);
    return 0;
}

static int op_screenshot(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Pty *t = ctx;
    settle(t);
    pty_screenshot(t, p->str[in->a[0]].s);
    return 0;
}

static int op_assert(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    return sf_assert(ctx, in->a[0]);
}

static int op_user_command(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Pty *t = ctx;
    if (!pty_ws_user_command(t, p->str[in->a[0]].s,
                             bc_val(p, in->a[1]).tag == BC_V_STR ? p->str[bc_val(p, in->a[1]).n].s : NULL))
        return SC_FAILED;
    return 0;
}

static int op_user_edits(void *ctx, const BcProgram *p, const BcInsn *in)
{
    if (!pty_ws_user_edits(ctx, p->str[in->a[0]].s))
        return SC_FAILED;
    return 0;
}

static int op_end(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    (void)in;
    Pty *t = ctx;
    int st = 0;
    pty_step_finish(t);
    if (t->o.agent)
        st = agent_end(t);
    if (!t->tuiuse && !st)
        st = sf_expect(t);
    return st;
}

/* LOG and STATUS: recorded as their own event. */
static int op_record(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    (void)in;
    Pty *t = ctx;
    ev_op(t);
    ev_end(t);
    return 0;
}

/* The agent's and the protocol's side of the timeline: a mock agent or LLM
** server plays these; the terminal only records that they were due. */
static int op_timeline(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    Pty *t = ctx;
    const BcOpInfo *oi = &bc_op_info[in->op];
    if (!(oi->flags & OPF_SILENT)) {
        ev_begin(t, "timeline");
        ev_str(t, "event", oi->event, strlen(oi->event));
        ev_end(t);
    }
    return 0;
}

/* The ends of an agent's work the terminal waits for when a mock agent
** plays alongside (--agent), then recorded as the others are. */
static int op_timeline_wait(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Pty *t = ctx;
    int st;
    if (t->o.agent && t->o.agent->ready && (st = agent_wait(t, in)) != 0)
        return st;
    return op_timeline(ctx, p, in);
}

/* Agent-test cases (the ElizaOS and Yao front ends) need a target that
** talks to an agent and evaluates their checks; the terminal does neither,
** and ignoring the checks would pass without testing. */
static int op_agent_test(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    pty_fail(ctx, PTY_E_CLI_INVALID_ARG, "%s: an agent-test case (ElizaOS, Yao) does not run on the PTY target",
             bc_op_info[in->op].name);
    return SC_FAILED;
}

const Player rt_pty_player = {
    .name = "pty",
    .op = {
        [OP_USER_INPUT] = { op_user_input, NULL },
        [OP_TYPE_TEXT] = { op_type_text, NULL },
        [OP_KEY] = { op_key, NULL },
        [OP_USER_CANCEL] = { op_user_cancel, NULL },
        [OP_RESIZE] = { op_resize, NULL },
        [OP_STEP] = { op_step, NULL },
        [OP_WAIT] = { op_wait, NULL },
        [OP_CHECK] = { op_check, NULL },
        [OP_TERMINATE] = { op_terminate, NULL },
        [OP_SCREENSHOT] = { op_screenshot, NULL },
        [OP_ASSERT] = { op_assert, NULL },
        [OP_USER_COMMAND] = { op_user_command, NULL },
        [OP_USER_EDITS] = { op_user_edits, NULL },
        [OP_END] = { op_end, NULL },
        [OP_LOG] = { op_record, NULL },
        [OP_STATUS] = { op_record, NULL },
        [OP_LLM_END] = { op_timeline_wait, NULL },
        [OP_TOOL_RESULT] = { op_timeline_wait, NULL },
        [OP_FILE_EDIT] = { op_timeline_wait, NULL },
        [OP_LLM_BEGIN] = { op_timeline, NULL },
        [OP_THINK] = { op_timeline, NULL },
        [OP_ASSISTANT] = { op_timeline, NULL },
        [OP_LLM_ERROR] = { op_timeline, NULL },
        [OP_TOOL_START] = { op_timeline, NULL },
        [OP_TOOL_PROGRESS] = { op_timeline, NULL },
        [OP_PLAN_UPDATE] = { op_timeline, NULL },
        [OP_FILE_READS] = { op_timeline, NULL },
        [OP_PERMISSION] = { op_timeline, NULL },
        [OP_SET_MODE] = { op_timeline, NULL },
        [OP_SET_MODEL] = { op_timeline, NULL },
        [OP_MERGE] = { op_timeline, NULL },
        [OP_COMPLETE] = { op_timeline, NULL },
        [OP_INITIALIZE] = { op_timeline, NULL },
        [OP_SESSION_START] = { op_timeline, NULL },
        [OP_CASE] = { op_agent_test, NULL },
        [OP_EVAL] = { op_agent_test, NULL },
    },
};

int pty_op(RtTarget *rt, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    (void)at_ms;
    Pty *t = (Pty *)rt;
    if (t->err)
        return SC_FAILED;
    t->op = in;
    int st = player_op(&rt_pty_player, t, p, in);
    if (t->sess)
        pty_flush_out(t);
    return st ? st : t->err ? SC_FAILED : 0;
}

/* Before the spawn: the --cancel-key value is a key name.  (What the
** program holds, key names, sizes, conditions and patterns, the verifier
** has checked: formats/bc_read.c.) */
bool pty_check_cancel_key(Pty *t)
{
    if (!pty_key_valid(t->o.cancel_key)) {
        pty_fail(t, PTY_E_CLI_INVALID_ARG, "unknown cancel key '%s'", t->o.cancel_key);
        return false;
    }
    return true;
}
