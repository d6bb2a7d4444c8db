/* cmd_agent.c - `scvm run -t agent --agent NAME FILE`: one scenario
** against a real coding agent, with one verdict (docs/real-agents.md);
** and `scvm agents`, the shipped profiles.
**
** The parts: the mock LLM server (runtime/llm/llm.h) on a thread of its
** own, on an ephemeral loopback port, speaking the agent's tool vocabulary
** (its profile, runtime/agent/agent_profile.h); the agent in a PTY
** (runtime/pty/rt_pty.h) with the profile's command line and environment,
** its HOME a fresh folder, in a workspace made from the scenario; the VM
** playing the timeline on the PTY target, whose agent-side ops wait for
** the agent (RtPtyAgent): an llmResponse's end waits until the agent has
** asked for that response and it has been sent, a tool's result until the
** agent has sent the next request (which carries the result).  At the end
** the server's verdict (every response served, tool results as expected,
** workspace assertions, strict tools) joins the terminal's. */
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

#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/agent/agent_launch.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/llm/llm.h"
#include "runtime/llm/llm_script.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt_cancel.h"
#include "runtime/run/run_target.h"
#include "vm/vm.h"
#include "cli.h"
#include "scvm.h"

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
    const AgentProfile *prof;
    bool headless;
    const char *mode;
} Agent;

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- the server's side (its thread) ---- */

static void on_event(void *ctx, const char *json, size_t len)
{
    Agent *a = ctx;
    uint64_t now = mono_ms();
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
    llm_server_run(a->srv);
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
        buf_printf(out, "{\"at_ms\":%llu,\"kind\":\"agent\",", at > t0 ? at - t0 : 0);
        buf_put(out, j + 1, (size_t)(nl - j - 1));
        buf_putc(out, '\n');
        s = nl + 1;
    }
    buf_reset(&a->queue);
    pthread_mutex_unlock(&a->mu);
}

static void stop_server(Agent *a)
{
    if (!a->running)
        return;
    llm_server_stop(a->srv);
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
    jw_init(&w, report);
    jw_obj(&w);
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

int scvm_agent_play(const Opts *o, const Suite *suite, uint32_t idx, const char *path, const char *dir,
                    const char *goldens, const char *artifacts, FILE *out, AgentOutcome *res)
{
    const BcProgram *prog = suite_entry(suite, idx)->prog;
    memset(res, 0, sizeof *res);
    if (!o->agent)
        return cli_usage(scvm_usage, "%s", "-t agent needs --agent NAME (claude-code, codex, gemini-cli, qwen-code, "
                                           "opencode) or a profile file");
    char err[1024];
    AgentProfile *prof = agent_profile_load(o->agent, err, sizeof err);
    if (!prof) {
        fprintf(stderr, "scvm: %s\n", err);
        return SC_USAGE;
    }
    const cJSON *headless = agent_profile_get(prof, "headless"), *inter = agent_profile_get(prof, "interactive");
    bool interactive = o->interactive || !headless;
    if (interactive && !inter) {
        fprintf(stderr, "scvm: agent profile '%s' has no interactive mode\n", agent_profile_name(prof));
        agent_profile_free(prof);
        return SC_USAGE;
    }
    agent_profile_set_interactive(prof, interactive);
    const char *cmd = o->agent_bin ? o->agent_bin : agent_profile_get(prof, "command")->valuestring;
    if (!strchr(cmd, '{') && !executable(cmd)) {
        const cJSON *pk = agent_profile_get(prof, "package"), *v = agent_profile_get(prof, "testedVersion");
        fprintf(stderr, "scvm: the agent's program '%s' is not %s%s%s%s%s%s; or give its path with --agent-bin\n",
                cmd, strchr(cmd, '/') ? "an executable file" : "on PATH", cJSON_IsString(pk) ? ": install " : "",
                cJSON_IsString(pk) ? pk->valuestring : "", cJSON_IsString(pk) && cJSON_IsString(v) ? "@" : "",
                cJSON_IsString(pk) && cJSON_IsString(v) ? v->valuestring : "", cJSON_IsString(pk) ? " from npm" : "");
        agent_profile_free(prof);
        return SC_USAGE;
    }
    unsigned n_prompts;
    const BcStr *prompt = first_prompt(prog, &n_prompts);
    if (!interactive && (n_prompts != 1)) {
        fprintf(stderr, "scvm: %s: a headless agent takes exactly one prompt (its command line); the scenario has "
                        "%u userInputs (--interactive types each into its TUI)\n",
                path, n_prompts);
        agent_profile_free(prof);
        return SC_USAGE;
    }

    Agent a;
    memset(&a, 0, sizeof a);
    a.prof = prof;
    a.headless = !interactive;
    a.mode = interactive ? "interactive" : "headless";
    a.wake[0] = a.wake[1] = -1;
    pthread_mutex_init(&a.mu, NULL);
    buf_init(&a.queue);
    int st = 0;
    char run[4096] = "", home[4200], ws[4200];
    AgentLaunch launch = { NULL, NULL };
    cJSON *vars = NULL;
    LlmScript sc;
    bool have_sc = false;
    RtTarget *t = NULL;

    /* the run's folder: HOME and the workspace */
    const char *tmp = getenv("TMPDIR");
    snprintf(run, sizeof run, "%s/scvm-agent-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(run)) {
        fprintf(stderr, "scvm: cannot make the run's folder: %s\n", strerror(errno));
        run[0] = 0;
        st = SC_IO;
        goto done;
    }
    snprintf(home, sizeof home, "%s/home", run);
    snprintf(ws, sizeof ws, "%s/workspace", run);
    if (file_mkdirs(home) || file_mkdirs(ws) || pipe(a.wake) != 0) {
        fprintf(stderr, "scvm: cannot make the run's folders: %s\n", strerror(errno));
        st = SC_IO;
        goto done;
    }
    fcntl(a.wake[0], F_SETFL, O_NONBLOCK);
    fcntl(a.wake[1], F_SETFL, O_NONBLOCK);
    fcntl(a.wake[0], F_SETFD, FD_CLOEXEC);
    fcntl(a.wake[1], F_SETFD, FD_CLOEXEC);

    /* the server, on a thread, on an ephemeral port */
    if (llm_script_init(&sc, prog) != 0) {
        st = SC_RUNTIME;
        goto done;
    }
    have_sc = true;
    a.n_resp = sc.n_resp;
    a.req = sc_calloc(sc.n_resp ? sc.n_resp : 1, sizeof *a.req);
    a.resp_of = responses_of(prog, &sc);
    a.log = open_memstream(&a.log_text, &a.log_len);
    if (!a.req || !a.resp_of || !a.log) {
        fputs("scvm: out of memory\n", stderr);
        st = SC_RUNTIME;
        goto done;
    }
    AgentProfile *profs[1] = { prof };
    LlmServeOpts so = {
        .host = "127.0.0.1", .port = "0", .speed = o->speed, .workspace = ws, .strict_tools = o->strict_tools,
        .log = a.log, .profiles = profs, .n_profiles = 1, .on_event = on_event, .event_ctx = &a, .no_signals = true,
        .only = &idx, .n_only = 1,
    };
    int e = 0;
    a.srv = llm_server_new(suite, &so, &e);
    if (!a.srv) {
        fputs(e == EINVAL ? "scvm: the scenario has no llmResponse for the agent\n" : "scvm: out of memory\n", stderr);
        st = e == EINVAL ? SC_USAGE : SC_RUNTIME;
        goto done;
    }
    if (llm_server_check_tools(a.srv, err, sizeof err) != 0) {
        fprintf(stderr, "scvm: %s: %s\n", path, err);
        st = SC_USAGE;
        goto done;
    }
    char bound[96], url[128];
    if ((e = llm_server_listen(a.srv, bound, sizeof bound)) != 0) {
        fprintf(stderr, "scvm: cannot listen on 127.0.0.1: %s\n", strerror(e));
        st = SC_IO;
        goto done;
    }
    snprintf(url, sizeof url, "http://%s", bound);
    if (pthread_create(&a.thr, NULL, serve, &a) != 0) {
        fputs("scvm: cannot start the server's thread\n", stderr);
        st = SC_RUNTIME;
        goto done;
    }
    a.running = true;

    /* the launch: variables, files, command line, environment */
    vars = cJSON_CreateObject();
    const cJSON *model = agent_profile_get(prof, "model");
    cJSON_AddStringToObject(vars, "prompt", prompt ? prompt->s : "");
    cJSON_AddStringToObject(vars, "base_url", url);
    cJSON_AddStringToObject(vars, "key", "scvm-agent-key-0123456789abcdefghij");
    cJSON_AddStringToObject(vars, "home", home);
    cJSON_AddStringToObject(vars, "workspace", ws);
    cJSON_AddStringToObject(vars, "model", cJSON_IsString(model) ? model->valuestring : "scvm-mock");
    if ((st = agent_launch_prepare(prof, interactive, vars, home, ws, o->agent_bin, o->command, &launch, err,
                                   sizeof err)) != 0) {
        fprintf(stderr, "scvm: %s\n", err);
        goto done;
    }

    /* the run */
    static const char *const no_keys[] = { NULL };
    const char **quit = NULL;
    const cJSON *qk = cJSON_GetObjectItemCaseSensitive(inter, "quit"), *rt = cJSON_GetObjectItemCaseSensitive(inter, "ready"),
                *td = cJSON_GetObjectItemCaseSensitive(inter, "typeDelayMs");
    if (interactive && cJSON_GetArraySize(qk) > 0) {
        quit = sc_calloc((size_t)cJSON_GetArraySize(qk) + 1, sizeof *quit);
        int k = 0;
        const cJSON *q;
        cJSON_ArrayForEach(q, qk) if (quit) quit[k++] = q->valuestring;
    }
    const cJSON *bz = cJSON_GetObjectItemCaseSensitive(inter, "busy");
    const char **busy = interactive && cJSON_GetArraySize(bz) > 0
                            ? sc_calloc((size_t)cJSON_GetArraySize(bz) + 1, sizeof *busy) : NULL;
    if (busy) {
        int k = 0;
        const cJSON *q;
        cJSON_ArrayForEach(q, bz) busy[k++] = q->valuestring;
    }
    RtPtyAgent ag = {
        .ctx = &a, .wake_fd = a.wake[0], .ready = ready, .drain = drain, .finish = finish,
        .wait_ms = o->turn_timeout_ms ? o->turn_timeout_ms : DEFAULT_TURN_MS, .headless = !interactive,
        .ready_text = interactive && cJSON_IsString(rt) ? rt->valuestring : NULL,
        .quit_keys = quit ? quit : no_keys, .busy_texts = busy,
    };
    unsigned type_delay = o->type_delay_set ? o->type_delay_ms
                          : interactive && cJSON_IsNumber(td) ? (unsigned)td->valuedouble
                                                              : 0;
    char cast[8192];
    RtPtyOpts po = {
        .argv = launch.argv, .artifacts = artifacts, .goldens = goldens,
        .update_goldens = o->update_goldens, .raw_goldens = o->raw_goldens, .events = out, .diag = stderr,
        .cast = scvm_cast_of(o, artifacts, cast, sizeof cast),
        .cancel_key = o->cancel_key, .cells = o->cells, .speed = o->speed, .scenario_dir = dir,
        .keep_workspace = o->keep_ws, .type_delay_ms = type_delay, .ci = o->ci || scvm_ci_env(),
        .workspace = ws, .env_extra = launch.envv, .agent = &ag,
    };
    t = run_target("agent")->create(&po);
    if (!t) {
        sc_free(quit);
        sc_free(busy);
        st = SC_RUNTIME;
        goto done;
    }
    VmOpts vo = { .speed = o->speed };
    st = vm_run(prog, t, rt_pty_clock(t), &vo);
    const char *msg;
    PtyErr pe = rt_pty_result(t, &msg);
    rt_pty_goldens(t, &res->goldens);
    if (pe)
        snprintf(res->why, sizeof res->why, "%s", msg);
    snprintf(res->agent, sizeof res->agent, "%s %s", agent_profile_name(prof), a.mode);
    sc_free(quit);
    sc_free(busy);
    stop_server(&a);
    fflush(a.log);
    if (artifacts && a.log_text) {
        char lp[8300];
        snprintf(lp, sizeof lp, "%s/agent-server.log", artifacts);
        file_write_atomic(lp, a.log_text, a.log_len);
    }
    LlmServerCounts lc;
    llm_server_counts(a.srv, &lc);
    if (pe && a.log_len && lc.requests)     /* what the agent asked, when it asked anything */
        fprintf(stderr, "scvm: the mock LLM server's log:\n%s", a.log_text);
    if (rt_cancel_signal())
        st = 128 + rt_cancel_signal();
    else if (o->dm_exit)
        st = (int)pe;
    if (o->keep_ws)
        fprintf(stderr, "scvm: the agent's workspace and HOME are kept in %s\n", run);

done:
    if (t)
        t->vt->destroy(t);
    stop_server(&a);
    llm_server_free(a.srv);
    if (a.log)
        fclose(a.log);
    free(a.log_text);
    if (have_sc)
        llm_script_fini(&sc);
    sc_free(a.req);
    sc_free(a.resp_of);
    buf_fini(&a.queue);
    if (a.wake[0] >= 0)
        close(a.wake[0]);
    if (a.wake[1] >= 0)
        close(a.wake[1]);
    pthread_mutex_destroy(&a.mu);
    cJSON_Delete(vars);
    agent_launch_fini(&launch);
    if (run[0] && !o->keep_ws)
        file_remove_tree(run);
    agent_profile_free(prof);
    return st;
}

int scvm_run_agent(const Opts *o, const char *path, const Suite *suite, uint32_t idx)
{
    char dir[4096], goldens[8192];
    FILE *out;
    int st = scvm_one_session(o, path, suite_entry(suite, idx)->prog, dir, sizeof dir, goldens, sizeof goldens, &out);
    if (st)
        return st;
    AgentOutcome r;
    uint64_t t0 = mono_ms();
    st = scvm_agent_play(o, suite, idx, path, dir, goldens, o->artifacts, out, &r);
    if (o->junit && r.agent[0]) {
        char props[512];
        snprintf(props, sizeof props, "<property name=\"agent\" value=\"%s\"/>", r.agent);
        int je = scvm_junit_one(o, suite, idx, st, mono_ms() - t0, &r.goldens, r.why[0] ? r.why : NULL, props);
        if (je && !st)
            st = je;
    }
    if (out != stdout && fclose(out) != 0 && !st)
        st = SC_IO;
    return st;
}

/* ---- scvm agents ---- */

static int agents_map(const Opts *o, bool unmap)
{
    if (o->n_ops != 4)
        return cli_usage(scvm_usage, "agents %s: expected NAME TOOL ARGS (ARGS: a JSON object)",
                         unmap ? "unmap" : "map");
    char err[1024];
    AgentProfile *p = agent_profile_load(o->ops[1], err, sizeof err);
    if (!p) {
        fprintf(stderr, "scvm: %s\n", err);
        return SC_USAGE;
    }
    cJSON *args = cJSON_Parse(o->ops[3]);
    if (!cJSON_IsObject(args)) {
        fprintf(stderr, "scvm: agents %s: ARGS is not a JSON object: %s\n", unmap ? "unmap" : "map", o->ops[3]);
        cJSON_Delete(args);
        agent_profile_free(p);
        return SC_USAGE;
    }
    char cwd[4096];
    const char *ws = o->workspace ? o->workspace : getcwd(cwd, sizeof cwd);
    Buf name, out;
    buf_init(&name);
    buf_init(&out);
    int r = unmap ? agent_unmap_call(p, o->ops[2], args, ws, &name, &out)
                  : agent_map_call(p, o->ops[2], args, ws, &name, &out, err, sizeof err);
    int st = 0;
    if (r < 0) {
        fprintf(stderr, "scvm: %s\n", unmap ? "out of memory" : err);
        st = unmap ? SC_RUNTIME : SC_USAGE;
    } else if (r == 0) {
        fprintf(stderr, "scvm: agent profile '%s' %s '%s'; it is sent as written\n", agent_profile_name(p),
                unmap ? "maps no scenario tool to" : "does not map", o->ops[2]);
        st = SC_FAILED;
    } else {
        printf("{\"tool\":");
        Buf q;
        buf_init(&q);
        buf_json_str(&q, (const char *)name.data, name.len);
        printf("%.*s,\"args\":%.*s}\n", (int)q.len, (const char *)q.data, (int)out.len, (const char *)out.data);
        buf_fini(&q);
    }
    buf_fini(&name);
    buf_fini(&out);
    cJSON_Delete(args);
    agent_profile_free(p);
    return st;
}

int scvm_agents(const Opts *o)
{
    const char *sub = o->n_ops ? o->ops[0] : "list";
    char err[1024];
    if (strcmp(sub, "list") == 0) {
        if (o->n_ops > 1)
            return cli_usage(scvm_usage, "%s", "agents list takes no operand");
        for (size_t i = 0; agent_profile_builtins[i]; i++) {
            AgentProfile *p = agent_profile_load(agent_profile_builtins[i], err, sizeof err);
            if (!p) {
                fprintf(stderr, "scvm: %s\n", err);
                return SC_USAGE;
            }
            const cJSON *pk = agent_profile_get(p, "package"), *v = agent_profile_get(p, "testedVersion"),
                        *d = agent_profile_get(p, "description");
            const char *pks = cJSON_IsString(pk) ? pk->valuestring : "", *vs = cJSON_IsString(v) ? v->valuestring : "";
            if (o->json) {
                Buf b;
                buf_init(&b);
                JsonW w;
                jw_init(&w, &b);
                jw_obj(&w);
                jw_kcstr(&w, "name", agent_profile_name(p));
                jw_kcstr(&w, "api", agent_api_name(agent_profile_api(p)));
                jw_kcstr(&w, "package", pks);
                jw_kcstr(&w, "testedVersion", vs);
                jw_kcstr(&w, "origin", agent_profile_origin(p));
                jw_kbool(&w, "headless", agent_profile_get(p, "headless") != NULL);
                jw_kbool(&w, "interactive", agent_profile_get(p, "interactive") != NULL);
                jw_end(&w);
                printf("%.*s\n", (int)b.len, (const char *)b.data);
                buf_fini(&b);
            } else {
                bool shipped = strncmp(agent_profile_origin(p), "built-in", 8) == 0;
                printf("%-12s %-17s %s@%s  %s%s%s%s\n", agent_profile_name(p), agent_api_name(agent_profile_api(p)),
                       pks, vs, cJSON_IsString(d) ? d->valuestring : "", shipped ? "" : "  (from ",
                       shipped ? "" : agent_profile_origin(p), shipped ? "" : ")");
            }
            agent_profile_free(p);
        }
        return 0;
    }
    if (strcmp(sub, "show") == 0) {
        if (o->n_ops != 2)
            return cli_usage(scvm_usage, "%s", "agents show NAME|FILE");
        AgentProfile *p = agent_profile_load(o->ops[1], err, sizeof err);
        if (!p) {
            fprintf(stderr, "scvm: %s\n", err);
            return SC_USAGE;
        }
        size_t len;
        const char *b = strncmp(agent_profile_origin(p), "built-in", 8) == 0 ? agent_profile_builtin(o->ops[1], &len)
                                                                             : NULL;
        if (b) {
            fwrite(b, 1, len, stdout);      /* the shipped file, as it is */
        } else {
            char *s = cJSON_Print(agent_profile_json(p));
            if (s)
                printf("%s\n", s);
            cJSON_free(s);
        }
        agent_profile_free(p);
        return 0;
    }
    if (strcmp(sub, "map") == 0 || strcmp(sub, "unmap") == 0)
        return agents_map(o, sub[0] == 'u');
    return cli_usage(scvm_usage, "agents: unknown subcommand '%s' (list, show, map, unmap)", sub);
}
