/* SPDX-License-Identifier: MIT */
/* agent_run.c - one scenario against a real coding agent (agent_run.h):
** the mock LLM server on a thread, the agent in a PTY, the verdict.  It
** was tools/scvm/cmd_agent.c's scvm_agent_play; the VM's part stays with
** the caller, since runtime/ never calls the interpreter. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/monotime.h"
#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/agent/agent_launch.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/agent/agent_run.h"
#include "runtime/http/http_server.h"
#include "runtime/llm/llm.h"
#include "runtime/llm/llm_script.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt_cancel.h"
#include "runtime/run/run_target.h"

enum { DEFAULT_TURN_MS = 180000 };

/* A request the server took for a scripted response. */
typedef struct Req {
    uint64_t at;            /* monotonic ms */
    uint64_t due_ms;        /* when its answer is complete, after at */
    uint64_t seq;           /* 1-based number among all requests */
    bool final;             /* the response's last attempt */
} Req;

typedef struct Agent {
    pthread_mutex_t mu;
    LlmServer *srv;
    pthread_t thr;
    bool running;
    int wake[2];
    Buf queue;              /* events from the server: "MS\tJSON\n" */
    Req *req;               /* per response */
    uint32_t n_resp;
    uint64_t n_req;         /* scripted requests so far */
    uint32_t *resp_of;      /* per insn: the response an LLM_END or TOOL_RESULT belongs to, or UINT32_MAX */
    FILE *log;              /* the server's log (memory) */
    char *log_text;
    size_t log_len;
    AgentProfile *prof;
    AgentProfile *profs[1];     /* the server keeps this array */
    bool headless;
    const char *mode;
    /* the run as a whole */
    AgentRunOpts o;
    const Suite *suite;
    uint32_t idx;
    char run[4096], home[4200], ws[4200];
    AgentLaunch launch;
    cJSON *vars;
    LlmScript sc;
    bool have_sc;
    RtTarget *t;
    RtPtyAgent ag;
    const char **quit, **busy;
    char cast[8192];
} Agent;

struct AgentRun {
    Agent a;
};

/* ---- the server's side (its thread) ---- */

static void on_event(void *ctx, const char *json, size_t len)
{
    Agent *a = ctx;
    uint64_t now = sc_now_ms();
    cJSON *j = cJSON_ParseWithLength(json, len);
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "event");
    pthread_mutex_lock(&a->mu);
    if (cJSON_IsString(ev) && strcmp(ev->valuestring, "llm_request") == 0) {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "response"), *at = cJSON_GetObjectItemCaseSensitive(j, "attempt"),
                    *ats = cJSON_GetObjectItemCaseSensitive(j, "attempts"), *due = cJSON_GetObjectItemCaseSensitive(j, "due_ms");
        a->n_req++;
        if (cJSON_IsNumber(r) && r->valuedouble >= 1 && r->valuedouble <= a->n_resp) {
            Req *q = &a->req[(uint32_t)r->valuedouble - 1];
            q->at = now;
            q->due_ms = cJSON_IsNumber(due) ? (uint64_t)due->valuedouble : 0;
            q->seq = a->n_req;
            q->final = cJSON_IsNumber(at) && cJSON_IsNumber(ats) && at->valuedouble >= ats->valuedouble;
        }
    }
    buf_printf(&a->queue, "%llu\t", (unsigned long long)now);
    buf_put(&a->queue, json, len);
    buf_putc(&a->queue, '\n');
    pthread_mutex_unlock(&a->mu);
    cJSON_Delete(j);
    char b = 1;
    ssize_t w = write(a->wake[1], &b, 1);
    (void)w;
}

static void *serve(void *arg)
{
    /* the run's signals (rt_cancel.h) and the PTY session's SIGCHLD are
    ** the main thread's: its loop polls their pipes */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    Agent *a = arg;
    http_server_run(llm_server_http(a->srv));
    return NULL;
}

/* ---- the terminal's side (RtPtyAgent) ---- */

static int ready(void *ctx, const BcProgram *p, uint32_t i, uint64_t now, uint64_t *wake, Buf *why)
{
    Agent *a = ctx;
    uint32_t r = a->resp_of[i];
    if (r == UINT32_MAX)
        return 1;
    int res = 0;
    pthread_mutex_lock(&a->mu);
    const Req *q = &a->req[r];
    if (p->insn[i].op == OP_LLM_END) {
        if (q->seq && q->final) {
            uint64_t done = q->at + q->due_ms;
            if (now >= done)
                res = 1;
            else
                *wake = done;
        } else {
            buf_printf(why, "waiting for its request for response %u of %u (it has made %llu scripted requests)",
                       r + 1, a->n_resp, (unsigned long long)a->n_req);
        }
    } else {
        /* a tool's result or an agentEdits: the agent has sent the request after it */
        if (q->seq && a->n_req > q->seq)
            res = 1;
        else
            buf_printf(why, "waiting for the %s of response %u (its next request; %llu scripted requests so far)",
                       p->insn[i].op == OP_FILE_EDIT ? "edit" : "tool result", r + 1, (unsigned long long)a->n_req);
    }
    pthread_mutex_unlock(&a->mu);
    return res;
}

static void drain(void *ctx, uint64_t t0, Buf *out)
{
    Agent *a = ctx;
    pthread_mutex_lock(&a->mu);
    const char *s = (const char *)a->queue.data, *end = s + a->queue.len;
    while (s && s < end) {
        const char *tab = memchr(s, '\t', (size_t)(end - s)), *nl = tab ? memchr(tab, '\n', (size_t)(end - tab)) : NULL;
        if (!nl)
            break;
        unsigned long long at = strtoull(s, NULL, 10);
        const char *j = tab + 1;
        /* {"at_ms":N,"kind":"agent",<the server's members>} */
        JsonW w;
        jw_open_obj(&w, out);
        jw_ku64(&w, "at_ms", at > t0 ? at - t0 : 0);
        jw_kcstr(&w, "kind", "agent");
        jw_members(&w, j, (size_t)(nl - j));
        jw_end(&w);
        jw_nl(&w);
        s = nl + 1;
    }
    buf_reset(&a->queue);
    pthread_mutex_unlock(&a->mu);
}

static void stop_server(Agent *a)
{
    if (!a->running)
        return;
    http_server_stop(llm_server_http(a->srv));
    pthread_join(a->thr, NULL);
    a->running = false;
}

static void finish(void *ctx, Buf *why, Buf *report)
{
    Agent *a = ctx;
    stop_server(a);
    int st = llm_server_finish(a->srv);
    LlmServerCounts c;
    llm_server_counts(a->srv, &c);
    uint32_t served = c.responses_served, total = a->n_resp;
    if (c.served_sessions == 0)
        served = 0;
    if (served < total)
        buf_printf(why, "the agent asked for %u of the %u scripted responses; ", served, total);
    if (c.served_sessions > 1)
        buf_printf(why, "the agent's requests came as %u sessions (keys); ", c.served_sessions);
    if (c.tool_mismatched)
        buf_printf(why, "%llu of %llu tool results differ from the scenario's; ", (unsigned long long)c.tool_mismatched,
                   (unsigned long long)c.tool_checked);
    if (c.asserts_failed)
        buf_printf(why, "%u workspace assertions failed; ", c.asserts_failed);
    if (c.strict)
        buf_printf(why, "strict tools rejected %llu requests; ", (unsigned long long)c.strict);
    if (st && !why->len)
        buf_puts(why, "the mock LLM server's checks failed; ");
    if (why->len >= 2)
        why->len -= 2;
    if (why->len)
        buf_puts(why, " (the server's log says more: stderr, or agent-server.log in the artifacts)");
    JsonW w;
    jw_open_obj(&w, report);
    jw_kcstr(&w, "profile", agent_profile_name(a->prof));
    jw_kcstr(&w, "api", agent_api_name(agent_profile_api(a->prof)));
    jw_kcstr(&w, "mode", a->mode);
    jw_ku64(&w, "requests", c.requests);
    jw_kobj(&w, "responses");
    jw_ku64(&w, "scripted", total);
    jw_ku64(&w, "served", served);
    jw_end(&w);
    jw_kobj(&w, "tool_results");
    jw_ku64(&w, "checked", c.tool_checked);
    jw_ku64(&w, "mismatched", c.tool_mismatched);
    jw_end(&w);
    jw_kobj(&w, "declared_tools");
    jw_ku64(&w, "not_in_profile", c.tools_unexpected);
    jw_ku64(&w, "missing", c.tools_missing);
    jw_end(&w);
    jw_kobj(&w, "assertions");
    jw_ku64(&w, "passed", c.asserts_passed);
    jw_ku64(&w, "failed", c.asserts_failed);
    jw_end(&w);
    jw_ku64(&w, "strict_rejections", c.strict);
    jw_kbool(&w, "passed", why->len == 0);
    jw_end(&w);
}

/* ---- preparing the run ---- */

/* cmd is an executable file (a path) or names one on PATH. */
static bool executable(const char *cmd)
{
    if (strchr(cmd, '/'))
        return access(cmd, X_OK) == 0;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char full[4096];
        snprintf(full, sizeof full, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", cmd);
        if (access(full, X_OK) == 0)
            return true;
        p += n + (colon ? 1 : 0);
    }
    return false;
}

/* The response each LLM_END and TOOL_RESULT belongs to (what its op waits
** for), from the server's own reading of the program (llm_script.h). */
static uint32_t *responses_of(const BcProgram *p, const LlmScript *sc)
{
    uint32_t *of = sc_malloc((p->n_insn ? p->n_insn : 1) * sizeof *of);
    if (!of)
        return NULL;
    for (uint32_t i = 0; i < p->n_insn; i++)
        of[i] = UINT32_MAX;
    uint32_t *mark = sc_malloc((p->n_insn ? p->n_insn : 1) * sizeof *mark);
    if (!mark) {
        sc_free(of);
        return NULL;
    }
    for (uint32_t i = 0; i < p->n_insn; i++)
        mark[i] = UINT32_MAX;
    for (uint32_t r = 0; r < sc->n_resp; r++) {
        const LlmResp *rs = &sc->resp[r];
        for (uint32_t k = 0; k < rs->n_steps; k++)
            mark[sc->steps[rs->step0 + k]] = r;
        for (uint32_t k = 0; k < rs->n_tools; k++)
            mark[sc->tools[rs->tool0 + k]] = r;
        for (uint32_t k = 0; k < rs->n_edits; k++)
            mark[sc->edits[rs->edit0 + k]] = r;
    }
    uint32_t cur = UINT32_MAX, tool = UINT32_MAX;
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        if (in->op == OP_LLM_BEGIN)
            cur = UINT32_MAX;
        if (mark[i] != UINT32_MAX) {
            if (in->op == OP_TOOL_START)
                tool = mark[i];
            else if (in->op == OP_FILE_EDIT)
                of[i] = mark[i];        /* an agentEdits: the agent's edit, sent with that response */
            else
                cur = mark[i];
        }
        if (in->op == OP_LLM_END)
            of[i] = cur;
        else if (in->op == OP_TOOL_RESULT)
            of[i] = tool;
        else if (in->op == OP_LLM_BEGIN || in->op == OP_USER_INPUT)
            tool = UINT32_MAX;
    }
    sc_free(mark);
    return of;
}

/* The first prompt, and how many there are. */
static const BcStr *first_prompt(const BcProgram *p, unsigned *n)
{
    const BcStr *first = NULL;
    *n = 0;
    for (uint32_t i = 0; i < p->n_insn; i++) {
        if (p->insn[i].op == OP_USER_INPUT) {
            if (!first)
                first = &p->str[p->insn[i].a[1]];
            ++*n;
        }
    }
    return first;
}

int agent_run_start(const AgentRunOpts *o, const Suite *suite, uint32_t idx, AgentRun **out)
{
    FILE *diag = o->diag;
    const BcProgram *prog = suite_entry(suite, idx)->prog;
    AgentRun *ar = sc_calloc(1, sizeof *ar);
    *out = ar;
    if (!ar) {
        fputs("scvm: out of memory\n", diag);
        return SC_RUNTIME;
    }
    Agent *a = &ar->a;
    a->o = *o;
    a->suite = suite;
    a->idx = idx;
    a->wake[0] = a->wake[1] = -1;
    pthread_mutex_init(&a->mu, NULL);
    buf_init(&a->queue);
    char err[1024];
    AgentProfile *prof = agent_profile_load(o->agent, err, sizeof err);
    if (!prof) {
        fprintf(diag, "scvm: %s\n", err);
        return SC_USAGE;
    }
    a->prof = prof;
    const cJSON *headless = agent_profile_get(prof, "headless"), *inter = agent_profile_get(prof, "interactive");
    bool interactive = o->interactive || !headless;
    if (interactive && !inter) {
        fprintf(diag, "scvm: agent profile '%s' has no interactive mode\n", agent_profile_name(prof));
        return SC_USAGE;
    }
    agent_profile_set_interactive(prof, interactive);
    const char *cmd = o->agent_bin ? o->agent_bin : agent_profile_get(prof, "command")->valuestring;
    if (!strchr(cmd, '{') && !executable(cmd)) {
        const cJSON *pk = agent_profile_get(prof, "package"), *v = agent_profile_get(prof, "testedVersion");
        fprintf(diag, "scvm: the agent's program '%s' is not %s%s%s%s%s%s; or give its path with --agent-bin\n",
                cmd, strchr(cmd, '/') ? "an executable file" : "on PATH", cJSON_IsString(pk) ? ": install " : "",
                cJSON_IsString(pk) ? pk->valuestring : "", cJSON_IsString(pk) && cJSON_IsString(v) ? "@" : "",
                cJSON_IsString(pk) && cJSON_IsString(v) ? v->valuestring : "", cJSON_IsString(pk) ? " from npm" : "");
        return SC_USAGE;
    }
    unsigned n_prompts;
    const BcStr *prompt = first_prompt(prog, &n_prompts);
    if (!interactive && (n_prompts != 1)) {
        fprintf(diag, "scvm: %s: a headless agent takes exactly one prompt (its command line); the scenario has "
                      "%u userInputs (--interactive types each into its TUI)\n",
                o->path, n_prompts);
        return SC_USAGE;
    }
    a->headless = !interactive;
    a->mode = interactive ? "interactive" : "headless";

    /* the run's folder: HOME and the workspace */
    const char *tmp = getenv("TMPDIR");
    snprintf(a->run, sizeof a->run, "%s/scvm-agent-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(a->run)) {
        fprintf(diag, "scvm: cannot make the run's folder: %s\n", strerror(errno));
        a->run[0] = 0;
        return SC_IO;
    }
    snprintf(a->home, sizeof a->home, "%s/home", a->run);
    snprintf(a->ws, sizeof a->ws, "%s/workspace", a->run);
    if (file_mkdirs(a->home) || file_mkdirs(a->ws) || pipe(a->wake) != 0) {
        fprintf(diag, "scvm: cannot make the run's folders: %s\n", strerror(errno));
        return SC_IO;
    }
    fcntl(a->wake[0], F_SETFL, O_NONBLOCK);
    fcntl(a->wake[1], F_SETFL, O_NONBLOCK);
    fcntl(a->wake[0], F_SETFD, FD_CLOEXEC);
    fcntl(a->wake[1], F_SETFD, FD_CLOEXEC);

    /* the server, on a thread, on an ephemeral port */
    if (llm_script_init(&a->sc, prog) != 0)
        return SC_RUNTIME;
    a->have_sc = true;
    a->n_resp = a->sc.n_resp;
    a->req = sc_calloc(a->sc.n_resp ? a->sc.n_resp : 1, sizeof *a->req);
    a->resp_of = responses_of(prog, &a->sc);
    a->log = open_memstream(&a->log_text, &a->log_len);
    if (!a->req || !a->resp_of || !a->log) {
        fputs("scvm: out of memory\n", diag);
        return SC_RUNTIME;
    }
    a->profs[0] = prof;
    LlmServeOpts so = {
        .host = "127.0.0.1", .port = "0", .speed = o->speed, .workspace = a->ws, .strict_tools = o->strict_tools,
        .log = a->log, .profiles = a->profs, .n_profiles = 1, .on_event = on_event, .event_ctx = a, .no_signals = true,
        .only = &a->idx, .n_only = 1,
    };
    int e = 0;
    a->srv = llm_server_new(suite, &so, &e);
    if (!a->srv) {
        fputs(e == EINVAL ? "scvm: the scenario has no llmResponse for the agent\n" : "scvm: out of memory\n", diag);
        return e == EINVAL ? SC_USAGE : SC_RUNTIME;
    }
    if (llm_server_check_tools(a->srv, err, sizeof err) != 0) {
        fprintf(diag, "scvm: %s: %s\n", o->path, err);
        return SC_USAGE;
    }
    char bound[96], url[128];
    if ((e = llm_server_listen(a->srv, bound, sizeof bound)) != 0) {
        fprintf(diag, "scvm: cannot listen on 127.0.0.1: %s\n", strerror(e));
        return SC_IO;
    }
    snprintf(url, sizeof url, "http://%s", bound);
    if (pthread_create(&a->thr, NULL, serve, a) != 0) {
        fputs("scvm: cannot start the server's thread\n", diag);
        return SC_RUNTIME;
    }
    a->running = true;

    /* the launch: variables, files, command line, environment */
    a->vars = cJSON_CreateObject();
    const cJSON *model = agent_profile_get(prof, "model");
    cJSON_AddStringToObject(a->vars, "prompt", prompt ? prompt->s : "");
    cJSON_AddStringToObject(a->vars, "base_url", url);
    cJSON_AddStringToObject(a->vars, "key", "scvm-agent-key-0123456789abcdefghij");
    cJSON_AddStringToObject(a->vars, "home", a->home);
    cJSON_AddStringToObject(a->vars, "workspace", a->ws);
    cJSON_AddStringToObject(a->vars, "model", cJSON_IsString(model) ? model->valuestring : "scvm-mock");
    int st = agent_launch_prepare(prof, interactive, a->vars, a->home, a->ws, o->agent_bin, o->command, &a->launch,
                                  err, sizeof err);
    if (st) {
        fprintf(diag, "scvm: %s\n", err);
        return st;
    }

    /* the terminal */
    static const char *const no_keys[] = { NULL };
    const cJSON *qk = cJSON_GetObjectItemCaseSensitive(inter, "quit"), *rt = cJSON_GetObjectItemCaseSensitive(inter, "ready"),
                *td = cJSON_GetObjectItemCaseSensitive(inter, "typeDelayMs");
    if (interactive && cJSON_GetArraySize(qk) > 0) {
        a->quit = sc_calloc((size_t)cJSON_GetArraySize(qk) + 1, sizeof *a->quit);
        int k = 0;
        const cJSON *q;
        cJSON_ArrayForEach(q, qk) if (a->quit) a->quit[k++] = q->valuestring;
    }
    const cJSON *bz = cJSON_GetObjectItemCaseSensitive(inter, "busy");
    a->busy = interactive && cJSON_GetArraySize(bz) > 0 ? sc_calloc((size_t)cJSON_GetArraySize(bz) + 1, sizeof *a->busy)
                                                         : NULL;
    if (a->busy) {
        int k = 0;
        const cJSON *q;
        cJSON_ArrayForEach(q, bz) a->busy[k++] = q->valuestring;
    }
    a->ag = (RtPtyAgent){
        .ctx = a, .wake_fd = a->wake[0], .ready = ready, .drain = drain, .finish = finish,
        .wait_ms = o->turn_timeout_ms ? o->turn_timeout_ms : DEFAULT_TURN_MS, .headless = !interactive,
        .ready_text = interactive && cJSON_IsString(rt) ? rt->valuestring : NULL,
        .quit_keys = a->quit ? a->quit : no_keys, .busy_texts = a->busy,
    };
    unsigned type_delay = o->type_delay_set ? o->type_delay_ms
                          : interactive && cJSON_IsNumber(td) ? (unsigned)td->valuedouble
                                                              : 0;
    RtPtyOpts po = {
        .argv = a->launch.argv, .artifacts = o->artifacts, .goldens = o->goldens,
        .update_goldens = o->update_goldens, .raw_goldens = o->raw_goldens, .events = o->events, .diag = diag,
        .cast = o->cast, .cancel_key = o->cancel_key, .cells = o->cells, .speed = o->speed,
        .scenario_dir = o->scenario_dir, .keep_workspace = o->keep_ws, .type_delay_ms = type_delay, .ci = o->ci,
        .workspace = a->ws, .env_extra = a->launch.envv, .agent = &a->ag,
    };
    a->t = run_target("agent")->create(&po);
    return a->t ? 0 : SC_RUNTIME;
}

RtTarget *agent_run_target(AgentRun *ar)
{
    return ar ? ar->a.t : NULL;
}

int agent_run_finish(AgentRun *ar, int st, AgentOutcome *res)
{
    memset(res, 0, sizeof *res);
    if (!ar)
        return st;
    Agent *a = &ar->a;
    const AgentRunOpts *o = &a->o;
    if (a->t) {     /* it played: the verdict */
        const char *msg;
        PtyErr pe = rt_pty_result(a->t, &msg);
        rt_pty_goldens(a->t, &res->goldens);
        if (pe)
            snprintf(res->why, sizeof res->why, "%s", msg);
        snprintf(res->agent, sizeof res->agent, "%s %s", agent_profile_name(a->prof), a->mode);
        stop_server(a);
        fflush(a->log);
        if (o->artifacts && a->log_text) {
            char lp[8300];
            snprintf(lp, sizeof lp, "%s/agent-server.log", o->artifacts);
            file_write_atomic(lp, a->log_text, a->log_len);
        }
        LlmServerCounts lc;
        llm_server_counts(a->srv, &lc);
        if (pe && a->log_len && lc.requests)     /* what the agent asked, when it asked anything */
            fprintf(o->diag, "scvm: the mock LLM server's log:\n%s", a->log_text);
        if (rt_cancel_signal())
            st = 128 + rt_cancel_signal();
        else if (o->dm_exit)
            st = (int)pe;
        if (o->keep_ws)
            fprintf(o->diag, "scvm: the agent's workspace and HOME are kept in %s\n", a->run);
        a->t->vt->destroy(a->t);
    }
    sc_free(a->quit);
    sc_free(a->busy);
    stop_server(a);
    llm_server_free(a->srv);
    if (a->log)
        fclose(a->log);
    free(a->log_text);
    if (a->have_sc)
        llm_script_fini(&a->sc);
    sc_free(a->req);
    sc_free(a->resp_of);
    buf_fini(&a->queue);
    if (a->wake[0] >= 0)
        close(a->wake[0]);
    if (a->wake[1] >= 0)
        close(a->wake[1]);
    pthread_mutex_destroy(&a->mu);
    cJSON_Delete(a->vars);
    agent_launch_fini(&a->launch);
    if (a->run[0] && !o->keep_ws)
        file_remove_tree(a->run);
    agent_profile_free(a->prof);
    sc_free(ar);
    return st;
}
