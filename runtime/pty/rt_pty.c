/* SPDX-License-Identifier: MIT */
/* rt_pty.c - the PTY target (rt_pty.h): policy, the command and its
** environment, budgets, and the run's begin and end.
**
** Layering: rt_pty_session.c runs the process, rt_pty_screen.c emulates the
** terminal, rt_pty_loop.c pumps output and waits, rt_pty_ops.c decides what
** an op means and when a wait is over, rt_pty_ws.c owns the workspace and
** the file-system checks, rt_pty_out.c writes goldens, diffs and artifacts,
** rt_pty_ev.c holds the error, event and value helpers they all use.  This
** file uses them all and none of them uses it. */
#include "rt_pty.h"
#include "rt_pty_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "runtime/events.h"
#include "runtime/rt_clock.h"
#include "rt_policy.h"

extern char **environ;

/* Sets NAME=value in an environment list, replacing an earlier NAME. */
static bool env_set(StrV *env, const char *name, size_t nl, const char *val, size_t vl)
{
    for (size_t i = 0; i < env->n; i++) {
        if (strncmp(env->v[i], name, nl) == 0 && env->v[i][nl] == '=') {
            sc_free(env->v[i]);
            for (size_t k = i; k + 1 < env->n; k++)
                env->v[k] = env->v[k + 1];
            env->n--;
            env->v[env->n] = NULL;
            break;
        }
    }
    Buf b;
    buf_init(&b);
    buf_put(&b, name, nl);
    buf_putc(&b, '=');
    buf_put(&b, val, vl);
    bool ok = !b.oom && strv_push(env, (const char *)b.data, b.len);
    buf_fini(&b);
    return ok;
}

static bool env_has(const StrV *env, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], name, nl) == 0 && env->v[i][nl] == '=')
            return true;
    return false;
}

/* ---- policy and the command ---- */


static const char *const DEFAULT_ENV_ALLOW[] = { "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL",
                                                 "LC_CTYPE", "TMPDIR", "SHELL", NULL };

/* Checks the policy (the tui-use one, or the default for Scenario-Format
** and command-line runs) and builds argv, env and cwd.  Everything here
** happens before anything is spawned. */
/* Appends the strings of an array value (run.args, ah.flags) to argv;
** other values in it are skipped. */
static void argv_push_strings(Pty *t, const BcProgram *p, const BcVal *list)
{
    if (list->tag != BC_V_ARRAY)
        return;
    const unsigned char *q = list->p;
    for (uint32_t i = 0; i < list->n; i++) {
        BcVal a;
        q = bc_val_decode(p, q, &a);
        if (a.tag == BC_V_STR)
            strv_push(&t->argv, p->str[a.n].s, p->str[a.n].len);
    }
}

/* The policy's checks and plan (rt_policy.c), on the JSON of the
** scenario's policy (pol, or NULL) with --policy FILE's fields over it and
** the acknowledgement flags; argv is the command already chosen. */
static bool prepare_policy(Pty *t, const BcVal *pol)
{
    Buf base;
    buf_init(&base);
    if (pol)
        bc_val_json_at(t->p, pol, &base);
    else
        buf_puts(&base, "{}");
    buf_putc(&base, 0);
    PtyErr code = PTY_E_INTERNAL;
    char err[1024];
    char *eff = base.oom ? NULL
                         : pty_policy_override((const char *)base.data, t->o.policy_overlay, &t->o.policy_flags, &code,
                                               err, sizeof err);
    buf_fini(&base);
    if (!eff) {
        pty_fail(t, code, "%s", code == PTY_E_INTERNAL ? "out of memory" : err);
        return false;
    }
    /* argv[0] as the scenario or the command line gives it (the plan
    ** finds it again, as prepare did) */
    /* What scvm writes besides the program: artifacts (the command
    ** line's folder, else the policy's) and a recording. */
    PtyWrites wr = { .artifacts = t->o.artifacts_tmp ? NULL : t->o.artifacts, .cast = t->o.cast != NULL,
                     .resolve = true };
    PtyPolicyIn in = { .command = t->argv.v[0], .args = (const char *const *)t->argv.v + 1, .policy_json = eff,
                       .env = (const char *const *)t->o.env_extra, .writes = &wr };
    PtyPolicy pl;
    code = pty_policy_plan(&in, &pl, err, sizeof err);
    free(eff);
    if (pl.no_writes) {
        /* refused for writing without fs_write_unsafe_ack: the refusal
        ** itself writes nothing (no run.json, no recording), except into
        ** scvm's own temporary folder (--json prints the RunResult from it) */
        if (!t->o.artifacts_tmp)
            t->o.artifacts = NULL;
        t->o.cast = NULL;
    }
    if (code != PTY_E_OK) {
        pty_policy_fini(&pl);
        pty_fail(t, code, "%s", err);
        return false;
    }
    strv_free(&t->argv);
    for (size_t i = 0; pl.argv[i]; i++)
        strv_push(&t->argv, pl.argv[i], strlen(pl.argv[i]));
    for (size_t i = 0; pl.envp[i]; i++)
        strv_push(&t->env, pl.envp[i], strlen(pl.envp[i]));
    t->sbx = pl.sbx;                /* the target owns the sandbox and its folder now */
    pl.sbx = NULL;
    memcpy(t->sbx_tmp, pl.sbx_tmp, sizeof t->sbx_tmp);
    pl.sbx_tmp[0] = 0;
    t->sbx_none = pl.none;
    if (pl.artifacts[0] && (!t->o.artifacts || t->o.artifacts_tmp)) {
        memcpy(t->art_dir, pl.artifacts, sizeof t->art_dir);
        t->o.artifacts = t->art_dir;
        t->o.artifacts_tmp = false;
    }
    if (!t->cwd[0] && pl.working_dir[0])
        memcpy(t->cwd, pl.working_dir, sizeof t->cwd);
    t->policy_json = pl.json;
    pl.json = NULL;
    t->max_runtime_ms = pl.max_runtime_ms;
    t->max_output_bytes = pl.max_output_bytes;
    t->max_wait_ms = pl.max_wait_ms;
    t->max_steps = pl.max_steps;
    t->max_snapshot_bytes = pl.max_snapshot_bytes;
    pty_policy_fini(&pl);
    if (!t->argv.v || !t->env.v) {
        pty_fail(t, PTY_E_INTERNAL, "out of memory");
        return false;
    }
    return true;
}

static bool prepare(Pty *t)
{
    const BcProgram *p = t->p;
    BcVal cfg = bc_val(p, p->meta.config), run, pol, v;
    bool have_run = vget(t, &cfg, "run", &run);
    bool have_pol = vget(t, &cfg, "policy", &pol);
    t->tuiuse = have_run;
    char exe[PATH_MAX];

    /* The command: -- cmd args, tui-use run.command/args, or ah.cmd/flags. */
    if (t->o.argv && t->o.argv[0]) {
        if (!pty_find_exe(t->o.argv[0], exe, sizeof exe)) {
            pty_fail(t, PTY_E_POLICY_DENIED, "command '%s' not found or not executable", t->o.argv[0]);
            return false;
        }
        strv_push(&t->argv, t->o.argv[0], strlen(t->o.argv[0]));
        for (int i = 1; t->o.argv[i]; i++)
            strv_push(&t->argv, t->o.argv[i], strlen(t->o.argv[i]));
    } else if (have_run) {
        size_t n;
        const char *cmd = vstr(t, &run, "command", &n);
        if (!cmd || cmd[0] != '/') {
            pty_fail(t, PTY_E_POLICY_DENIED, "run.command must be an absolute path");
            return false;
        }
        snprintf(exe, sizeof exe, "%s", cmd);
        strv_push(&t->argv, cmd, n);
        if (vget(t, &run, "args", &v))
            argv_push_strings(t, p, &v);
        const char *cwd = vstr(t, &run, "cwd", NULL);
        if (cwd)
            snprintf(t->cwd, sizeof t->cwd, "%s", cwd);
    } else {
        BcVal ah;
        const char *cmd = vget(t, &cfg, "ah", &ah) ? vstr(t, &ah, "cmd", NULL) : NULL;
        if (!cmd) {
            pty_fail(t, PTY_E_CLI_INVALID_ARG,
                     "no command: the scenario has no ah.cmd or run.command; give one after '--'");
            return false;
        }
        /* ah.cmd names a subcommand of the `ah` program, unless it is a path. */
        const char *prog = cmd[0] == '/' ? cmd : "ah";
        if (!pty_find_exe(prog, exe, sizeof exe)) {
            pty_fail(t, PTY_E_POLICY_DENIED, "command '%s' not found or not executable", prog);
            return false;
        }
        strv_push(&t->argv, prog, strlen(prog));
        if (cmd[0] != '/')
            strv_push(&t->argv, cmd, strlen(cmd));
        if (vget(t, &ah, "flags", &v))
            argv_push_strings(t, p, &v);
    }
    snprintf(t->exe, sizeof t->exe, "%s", exe);

    /* A policy (the scenario's, or --policy FILE over it, then the
    ** acknowledgement flags) is checked by rt_policy.c, which also makes
    ** argv, the environment and the sandbox (rt_sandbox.h). */
    if (have_pol || t->o.policy_overlay)
        return prepare_policy(t, have_pol ? &pol : NULL);

    /* Without a policy: the command must exist. */
    char rexe[PATH_MAX];
    if (!realpath(exe, rexe)) {
        pty_fail(t, PTY_E_POLICY_DENIED, "command '%s': %s", exe, strerror(errno));
        return false;
    }

    /* Environment: deny by default; inherit only allowlisted names, then
    ** the explicit values. */
    BcVal set;
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        size_t nl = (size_t)(eq - *e);
        bool ok = false;
        for (int i = 0; DEFAULT_ENV_ALLOW[i] && !ok; i++)
            ok = strlen(DEFAULT_ENV_ALLOW[i]) == nl && memcmp(DEFAULT_ENV_ALLOW[i], *e, nl) == 0;
        if (ok)
            env_set(&t->env, *e, nl, eq + 1, strlen(eq + 1));
    }
    BcVal ah;
    const BcVal *setmap = NULL;
    if (!have_run && vget(t, &cfg, "ah", &ah) && vget(t, &ah, "env", &set) && set.tag == BC_V_MAP)
        setmap = &set;
    if (setmap) {
        const unsigned char *q = setmap->p;
        for (uint32_t i = 0; i < setmap->n; i++) {
            BcVal k, val;
            q = bc_val_decode(p, q, &k);
            q = bc_val_decode(p, q, &val);
            if (k.tag != BC_V_STR)
                continue;
            Buf vb;
            buf_init(&vb);
            if (val.tag == BC_V_STR)
                buf_put(&vb, p->str[val.n].s, p->str[val.n].len);
            else
                bc_val_json_at(p, &val, &vb);
            env_set(&t->env, p->str[k.n].s, p->str[k.n].len, vb.data ? (const char *)vb.data : "", vb.len);
            buf_fini(&vb);
        }
    }
    for (char *const *e = t->o.env_extra; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq)
            env_set(&t->env, *e, (size_t)(eq - *e), eq + 1, strlen(eq + 1));
    }
    if (!env_has(&t->env, "TERM"))
        env_set(&t->env, "TERM", 4, "xterm-256color", 14);
    if (!env_has(&t->env, "LANG"))
        env_set(&t->env, "LANG", 4, "C.UTF-8", 7);
    char rows[16], cols[16];
    snprintf(rows, sizeof rows, "%d", t->rows);
    snprintf(cols, sizeof cols, "%d", t->cols);
    if (!t->argv.v || !t->env.v) {
        pty_fail(t, PTY_E_INTERNAL, "out of memory");
        return false;
    }
    return true;
}

static void read_budgets(Pty *t)
{
    BcVal cfg = bc_val(t->p, t->p->meta.config), pol, b;
    t->max_runtime_ms = 60000;
    t->max_output_bytes = 8u << 20;
    t->max_wait_ms = 10000;
    t->max_steps = 10000;
    t->max_snapshot_bytes = 2u << 20;
    if (vget(t, &cfg, "policy", &pol) && vget(t, &pol, "budgets", &b)) {
        int64_t v;
        if (vint(t, &b, "max_runtime_ms", &v) && v > 0)
            t->max_runtime_ms = (uint64_t)v;
        if (vint(t, &b, "max_output_bytes", &v) && v > 0)
            t->max_output_bytes = (uint64_t)v;
        if (vint(t, &b, "max_wait_ms", &v) && v > 0)
            t->max_wait_ms = (uint64_t)v;
        if (vint(t, &b, "max_steps", &v) && v > 0)
            t->max_steps = (uint64_t)v;
        if (vint(t, &b, "max_snapshot_bytes", &v) && v > 0)
            t->max_snapshot_bytes = (uint64_t)v;
    }
    /* A Scenario-Format run lasts at least its timeline (plus a margin). */
    uint64_t span = rt_clock_scale(t->p->insn[t->p->n_insn - 1].t, t->o.speed);
    if (span + 60000 > t->max_runtime_ms && !vget(t, &cfg, "policy", &pol))
        t->max_runtime_ms = span + 60000;
    /* With an agent, each op that waits for it may take its turn timeout. */
    if (t->o.agent) {
        uint64_t waits = 2;
        for (uint32_t i = 0; i < t->p->n_insn; i++) {
            uint8_t op = t->p->insn[i].op;
            waits += op == OP_LLM_END || op == OP_TOOL_RESULT || op == OP_FILE_EDIT || op == OP_USER_INPUT;
        }
        if (span + waits * t->o.agent->wait_ms > t->max_runtime_ms)
            t->max_runtime_ms = span + waits * t->o.agent->wait_ms;
    }
}

/* ---- begin / end ---- */

static int pty_end(RtTarget *rt, const BcProgram *p);

/* --explain-policy: what will be enforced, or why the run is refused. */
/* The JSON answer's head: {"protocol_version":2,"allowed":true,"command":..,"policy":.. */
static void explain_head(const Pty *t, JsonW *w)
{
    jw_obj(w);
    jw_ku64(w, "protocol_version", 2);
    jw_kbool(w, "allowed", true);
    jw_key(w, "command");
    jw_str_lossy(w, t->exe, strlen(t->exe));
    const char *pol = t->policy_json ? t->policy_json : "null";
    jw_kraw(w, "policy", pol, strlen(pol));
}

static void explain(Pty *t)
{
    Buf b;
    buf_init(&b);
    JsonW w;
    jw_init(&w, &b);
    bool json = t->o.explain_json;
    if (t->err) {
        if (json) {
            jw_obj(&w);
            jw_ku64(&w, "protocol_version", 2);
            jw_kbool(&w, "allowed", false);
            jw_kobj(&w, "error");
            jw_kcstr(&w, "code", pty_err_code(t->err));
            jw_key(&w, "message");
            jw_str_lossy(&w, t->msg, strlen(t->msg));
            jw_end(&w);
            jw_end(&w);
            jw_nl(&w);
        } else {
            buf_printf(&b, "denied: %s: %s\n", pty_err_code(t->err), t->msg);
        }
    } else if (t->sbx) {
        if (json) {
            explain_head(t, &w);
            jw_kvalue(&w, "enforced");
            sandbox_explain(t->sbx, &b, true);
            if (b.len && b.data[b.len - 1] == '\n')
                b.len--;
            jw_end(&w);
            jw_nl(&w);
        } else {
            buf_printf(&b, "allowed: %s\n", t->exe);
            sandbox_explain(t->sbx, &b, false);
        }
    } else {
        const char *why = t->sbx_none ? "sandbox: none (sandbox_unsafe_ack): nothing is enforced on the program "
                                        "beyond the checks before the spawn (command, environment)"
                                      : "no tui-use policy: no sandbox; the command must exist and the "
                                        "environment is the default allowlist";
        if (json) {
            explain_head(t, &w);
            jw_knull(&w, "enforced");
            jw_key(&w, "note");
            jw_str_lossy(&w, why, strlen(why));
            jw_end(&w);
            jw_nl(&w);
        } else {
            buf_printf(&b, "allowed: %s\n%s\n", t->exe, why);
        }
    }
    if (!b.oom)
        fwrite(b.data, 1, b.len, t->o.explain);
    fflush(t->o.explain);
    buf_fini(&b);
}

static int pty_begin(RtTarget *rt, const BcProgram *p)
{
    Pty *t = (Pty *)rt;
    t->p = p;
    t->t0 = pty_now_ms();
    t->rows = p->meta.term_height ? (int)p->meta.term_height : 24;
    t->cols = p->meta.term_width ? (int)p->meta.term_width : 80;
    if (t->rows < 1 || t->rows > 500 || t->cols < 1 || t->cols > 500) {
        pty_fail(t, PTY_E_CLI_INVALID_ARG, "terminal size %dx%d is out of range (1-500 rows and columns)",
                 t->cols, t->rows);
        return pty_end(rt, p);
    }
    snprintf(t->scenario, sizeof t->scenario, "%s", p->str[p->meta.name].s);
    /* An agent-test case (ElizaOS, Yao) talks to an agent and evaluates
    ** checks the terminal cannot: refused before anything is spawned. */
    for (uint32_t i = 0; i < p->n_insn; i++) {
        if (p->insn[i].op == OP_CASE || p->insn[i].op == OP_EVAL) {
            pty_fail(t, PTY_E_CLI_INVALID_ARG, "%s (op %u): an agent-test case (ElizaOS, Yao) does not run on the PTY "
                     "target", bc_op_info[p->insn[i].op].name, i);
            return pty_end(rt, p);
        }
    }
    pty_profile_id(t);
    read_budgets(t);
    /* Everything that can be refused is refused before the spawn. */
    /* vm_run does not call end() after a failed begin(), so a refusal
    ** ends the run here: the error is reported and the artifacts say why. */
    if (t->o.explain) {
        if (pty_check_cancel_key(t))
            prepare(t);
        explain(t);
        return pty_end(rt, p);
    }
    if (!pty_check_cancel_key(t) || !pty_ws_prepare(t) || !prepare(t) || !pty_out_prepare(t))
        return pty_end(rt, p);
    if (!pty_screen_open(t)) {
        pty_fail(t, PTY_E_INTERNAL, "out of memory");
        return pty_end(rt, p);
    }
    PtySpawn sp = {
        .path = t->exe,
        .argv = t->argv.v,
        .envp = t->env.v,
        .cwd = t->cwd[0] ? t->cwd : NULL,
        .rows = t->rows,
        .cols = t->cols,
        .before_exec = t->sbx ? sandbox_enter : NULL,
        .before_exec_arg = t->sbx,
        .before_tty = t->sbx ? sandbox_enter_ns : NULL,
        .private_pts = t->sbx && sandbox_private_pts(t->sbx),
    };
    char err[512];
    t->sess = pty_session_spawn(&sp, err, sizeof err);
    if (!t->sess) {
        pty_fail(t, PTY_E_IO, "%s", err);
        return pty_end(rt, p);
    }
    t->t0 = pty_now_ms();
    t->last_change = t->t0;
    ev_begin(t, "spawn");
    ev_str(t, "command", t->exe, strlen(t->exe));
    ev_int(t, "pid", pty_session_pid(t->sess));
    ev_int(t, "rows", t->rows);
    ev_int(t, "cols", t->cols);
    ev_end(t);
    pty_cast_begin(t);
    return 0;
}

/* The sandbox's temporary folder goes with the session (the program and
** its descendants are gone: the session is closed). */
static void sandbox_cleanup(Pty *t)
{
    if (t->sbx_tmp[0])
        file_remove_tree(t->sbx_tmp);
    t->sbx_tmp[0] = 0;
    sandbox_free(t->sbx);
    t->sbx = NULL;
}

static int status_of(const Pty *t)
{
    switch (t->err) {
    case PTY_E_OK:
        return SC_OK;
    /* The program could not be started (not found or not executable, a
    ** policy that refuses it, no sandbox): a setup error, not a check
    ** that did not hold (docs/exit-status.md). */
    case PTY_E_POLICY_DENIED:
    case PTY_E_SANDBOX_UNAVAILABLE:
        return SC_RUNTIME;
    case PTY_E_ASSERTION_FAILED:
    case PTY_E_TIMEOUT:
    case PTY_E_PROCESS_EXIT:
    case PTY_E_REPLAY_MISMATCH:
    case PTY_E_CLI_INVALID_ARG:
    case PTY_E_PROTOCOL:
    case PTY_E_PROTOCOL_VERSION_MISMATCH:
    case PTY_E_TERMINAL_PARSE:
    case PTY_E_INTERRUPTED:     /* scvm exits 128 + the signal */
        return SC_FAILED;
    case PTY_E_IO:
        return SC_IO;
    case PTY_E_INTERNAL:
        return SC_RUNTIME;
    }
    return SC_RUNTIME;
}

static int pty_end(RtTarget *rt, const BcProgram *p)
{
    (void)p;
    Pty *t = (Pty *)rt;
    if (t->sess) {
        pty_step_finish(t);
        /* The final screen, then stop the program and keep its last words. */
        if (!pty_session_exited(t->sess)) {
            if (t->o.events)
                fflush(t->o.events);    /* the events so far, before the grace period */
            pty_session_kill(t->sess, 200);
            pty_last_words(t);
        }
        pty_snapshot(t, "final");
    }
    if (t->o.agent && !t->o.explain)
        pty_agent_finish(t);
    pty_goldens_settle(t);
    if (t->err) {
        ev_begin(t, "error");
        const char *code = pty_err_code(t->err);
        ev_str(t, "code", code, strlen(code));
        ev_str(t, "message", t->msg, strlen(t->msg));
        ev_end(t);
        if (t->o.diag)
            fprintf(t->o.diag, "scvm: pty: %s: %s\n", pty_err_code(t->err), t->msg);
    }
    pty_cast_end(t);
    if (t->o.events)
        fflush(t->o.events);
    if (!t->o.explain)
        pty_out_finish(t);
    pty_session_close(t->sess);
    t->sess = NULL;
    pty_ws_cleanup(t);
    sandbox_cleanup(t);
    return status_of(t);
}

static void pty_destroy(RtTarget *rt)
{
    Pty *t = (Pty *)rt;
    if (!t)
        return;
    pty_session_close(t->sess);
    pty_ws_cleanup(t);
    sandbox_cleanup(t);
    pty_screen_free(t->scr);
    pty_goldens_free(t);
    strv_free(&t->argv);
    strv_free(&t->env);
    free(t->policy_json);
    buf_fini(&t->observations);
    buf_fini(&t->outq);
    buf_fini(&t->transcript);
    buf_fini(&t->events);
    buf_fini(&t->steps);
    buf_fini(&t->step_asserts);
    buf_fini(&t->step_action);
    buf_fini(&t->cond_buf);
    buf_fini(&t->cast);
    buf_fini(&t->pictures);
    buf_fini(&t->agent_report);
    events_ops_free(t->evops);
    sc_free(t);
}

static const RtTargetVtbl pty_vt = {
    .name = "pty",
    .begin = pty_begin,
    .op = pty_op,
    .end = pty_end,
    .destroy = pty_destroy,
};

RtTarget *rt_pty_new(const RtPtyOpts *o)
{
    Pty *t = sc_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->base.vt = &pty_vt;
    t->clock.wait_until = pty_clock_wait;
    t->evops = events_ops_new();
    if (!t->evops) {
        sc_free(t);
        return NULL;
    }
    if (o)
        t->o = *o;
    if (!t->o.cancel_key)
        t->o.cancel_key = "Ctrl+C";
    buf_init(&t->outq);
    buf_init(&t->transcript);
    buf_init(&t->events);
    buf_init(&t->observations);
    buf_init(&t->steps);
    buf_init(&t->step_asserts);
    buf_init(&t->step_action);
    buf_init(&t->cond_buf);
    buf_init(&t->cast);
    buf_init(&t->pictures);
    return &t->base;
}

RtClock *rt_pty_clock(RtTarget *rt) { return &((Pty *)rt)->clock; }

int rt_pty_explain(RtTarget *rt, const BcProgram *p)
{
    Pty *t = (Pty *)rt;
    if (!t->o.explain)
        return SC_RUNTIME;
    return pty_begin(rt, p);    /* explains and ends: nothing runs */
}

void rt_pty_goldens(const RtTarget *rt, RtPtyGoldens *out)
{
    const Pty *t = (const Pty *)rt;
    *out = (RtPtyGoldens){ t->gold_matched, t->gold_mismatched, t->gold_written,
                           t->gold_missing, t->gold_updated, t->gold_recorded };
}

const char *rt_pty_artifacts(const RtTarget *rt) { return ((const Pty *)rt)->o.artifacts; }

PtyErr rt_pty_result(const RtTarget *rt, const char **message)
{
    const Pty *t = (const Pty *)rt;
    if (message)
        *message = t->msg;
    return t->err;
}
