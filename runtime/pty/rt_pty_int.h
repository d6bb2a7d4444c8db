/* SPDX-License-Identifier: MIT */
/* rt_pty_int.h - what the PTY target's files share (not a public header).
**
**   rt_pty.c         policy, spawn, begin/end, the target's vtable
**   rt_pty_loop.c    the event loop (pty_pump): reading, writing, exits
**   rt_pty_ops.c     what each op means; conditions and assertions; steps
**   rt_pty_ev.c      the events a PTY run writes (runtime/events.h)
**   rt_pty_cond.c    wait/check conditions over the screen
**   rt_pty_out.c     goldens and diffs, snapshots, asciicast, artifacts
**   rt_pty_mask.c    a golden's masks (the screen side: rt_pty_screen.c)
**   rt_pty_screen.c  the libvterm screen, keys, text
**   rt_pty_ws.c      the workspace (repo.init), patches, commands
**   rt_pty_session.c the program's process, terminal and sandbox
**   rt_policy.c      tui-use policies; rt_sandbox.c the sandbox itself
**   rt_session.c     the session API (include/scc/session.h, scvm driver) */
#ifndef SC_RT_PTY_INT_H
#define SC_RT_PTY_INT_H

#include <limits.h>
#include <stddef.h>

#include "common/buf.h"
#include "formats/bc.h"
#include "runtime/events.h"
#include "rt_pty.h"
#include "rt_pty_screen.h"
#include "rt_pty_session.h"
#include "rt_sandbox.h"

typedef struct StrV {
    char **v;               /* NULL-terminated */
    size_t n, cap;
} StrV;

typedef struct Pty {
    RtTarget base;
    RtClock clock;
    RtPtyOpts o;
    const BcProgram *p;
    PtySession *sess;
    PtyScreen *scr;
    int rows, cols;
    uint64_t t0;                /* monotonic ms when the program started */
    uint64_t last_change;       /* monotonic ms of the last screen change */
    bool eof, exit_noted, tuiuse;

    Buf outq;                   /* bytes for the program, not yet written */
    size_t outq_off;
    Buf transcript;             /* raw output, up to max_output_bytes */
    uint64_t out_bytes;
    uint64_t sent_mark;         /* out_bytes when input was last written to the program */
    bool sent_pending;          /* ... and the screen has not been settled since */
    Buf events;                 /* JSON lines (runtime/events.h) */
    size_t ev_start;
    EventsOps *evops;           /* every op's event, from ops.def */
    const BcInsn *op;           /* the op being played */

    /* budgets (tui-use policy, or defaults) */
    uint64_t max_runtime_ms, max_output_bytes, max_wait_ms, max_steps, max_snapshot_bytes;

    /* the command */
    char exe[PATH_MAX];
    char cwd[PATH_MAX];
    StrV argv, env;

    /* steps (tui-use) */
    Buf steps;                  /* StepResult objects, comma-separated */
    Buf step_asserts;           /* AssertionResult objects of the current step */
    Buf step_action;            /* the current step's action object */
    Buf cond_buf;               /* scratch of the condition being evaluated */
    /* screenshots by what became of them (run.json "goldens") */
    unsigned gold_matched, gold_mismatched, gold_written, gold_missing, gold_updated, gold_recorded;
    /* New goldens of a local run, written where they belong only when the
    ** run passes (pty_goldens_settle): "PATH\tLABEL\tARTIFACT" and the
    ** text, in pairs. */
    StrV new_goldens;
    bool in_step, step_failed;
    uint32_t step_id, step_name;
    uint64_t step_timeout, step_retries, step_start, n_steps;
    uint32_t step_attempts;

    /* outputs */
    char scenario[256];
    char profile[128];          /* terminalProfileId */
    int n_snap;
    int n_golden_fail;
    bool cast_on;
    Buf cast;
    char cast_carry[4];         /* an incomplete UTF-8 tail of the output */
    size_t cast_carry_n;
    StrV written;               /* artifacts written: "path\tFNV-1a 64" */
    Buf pictures;               /* the screenshots' sections of pictures/index.html */

    /* workspace */
    char ws[PATH_MAX];          /* "" = none */

    PtyErr err;
    char msg[1024];
    int cancel_sig;         /* the signal that interrupted the run, or 0 */
    Sandbox *sbx;           /* the tui-use policy's sandbox, or NULL */
    char sbx_tmp[PATH_MAX]; /* its temporary folder (TMPDIR), or "" */
    bool sbx_none;          /* sandbox: none (acknowledged) */
    char *policy_json;      /* the effective policy (policy.json, run.json), or NULL */
    char art_dir[PATH_MAX]; /* the policy's artifacts.dir when it is the folder (o.artifacts points here) */
    /* events.jsonl: the data model's Observation records, one per snapshot */
    char run_id[40], session_id[40];
    Buf observations;       /* the records, JSON lines */
    size_t last_obs;        /* where the last record starts in observations */
    size_t obs_ev_off;      /* events and transcript already in a record */
    size_t obs_tr_off;

    /* an agent under test (RtPtyOpts.agent) */
    unsigned n_inputs;      /* USER_INPUT ops played */
    Buf agent_report;       /* run.json's "agent" object */
} Pty;

/* rt_pty_ev.c */
void pty_fail(Pty *t, PtyErr e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint64_t pty_elapsed(const Pty *t);
void ev_begin(Pty *t, const char *kind);
void ev_op(Pty *t);
void ev_end(Pty *t);
void ev_str(Pty *t, const char *key, const char *s, size_t n);
void ev_int(Pty *t, const char *key, int64_t v);
void ev_bool(Pty *t, const char *key, bool v);
bool vget(const Pty *t, const BcVal *m, const char *key, BcVal *out);
const char *vstr(const Pty *t, const BcVal *m, const char *key, size_t *len);
bool vint(const Pty *t, const BcVal *m, const char *key, int64_t *out);
bool vbool(const Pty *t, const BcVal *m, const char *key, bool dflt);
bool strv_push(StrV *v, const char *s, size_t n);
void strv_free(StrV *v);

/* rt_pty_loop.c */
/* A condition: returns true when it holds; may set *wake to ask for a
** re-evaluation at that monotonic time even if nothing changes. */
typedef bool PtyPred(Pty *t, void *arg, uint64_t *wake);
int pty_pump(Pty *t, uint64_t deadline, PtyPred *pred, void *arg);
void pty_flush_out(Pty *t);               /* writes what the PTY takes now */
bool pty_screen_open(Pty *t);             /* t->scr, fed and answered by the loop */
void pty_last_words(Pty *t);              /* after a kill: the last output, the exit */
void pty_clock_wait(RtClock *c, uint64_t at_ms);   /* the run's clock: waiting is pumping */

/* rt_pty_ops.c */
int pty_op(RtTarget *rt, const BcProgram *p, const BcInsn *in, uint64_t at_ms);
bool pty_check_cancel_key(Pty *t);      /* before the spawn */
void pty_agent_drain(Pty *t);           /* the agent side's events into ours */
void pty_agent_finish(Pty *t);          /* after the program: the agent side's verdict */
void pty_step_finish(Pty *t);

/* rt_pty_out.c */
void pty_profile_id(Pty *t);
bool pty_out_prepare(Pty *t);           /* artifacts dir, goldens readable */
void pty_snapshot(Pty *t, const char *why);
void pty_screenshot(Pty *t, const char *label);   /* the SCREENSHOT op being played */
void pty_cast_begin(Pty *t);
void pty_cast_event(Pty *t, char code, const char *s, size_t n);
void pty_cast_end(Pty *t);
void pty_out_finish(Pty *t);
/* The new goldens of a local run: into the goldens folder when the run
** has passed so far, else set aside (the artifacts, or PATH.new), and
** stderr says where.  Before the run's error is reported. */
void pty_goldens_settle(Pty *t);
void pty_goldens_free(Pty *t);

/* rt_pty_ws.c */
bool pty_ws_prepare(Pty *t);            /* repo.init: make the workspace */
void pty_ws_cleanup(Pty *t);
/* The root scenario paths resolve in: the workspace, else the program's
** working directory, else ".". */
const char *pty_ws_root(const Pty *t);
bool pty_ws_user_edits(Pty *t, const char *patch);
bool pty_ws_user_command(Pty *t, const char *cmd, const char *cwd);
bool pty_ws_expect(Pty *t);             /* expect.artifacts */

#endif
