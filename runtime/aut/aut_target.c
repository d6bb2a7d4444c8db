/* SPDX-License-Identifier: MIT */
/* aut_target.c - the agent-under-test target (aut_target.h). */
#define _GNU_SOURCE     /* strcasestr */
#include "runtime/aut/aut_target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/monotime.h"
#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/utf8.h"
#include "runtime/http/http_client.h"
#include "runtime/judge/judge.h"
#include "runtime/rt_proc.h"
#include "runtime/scn_assert.h"

typedef enum { V_PASSED, V_FAILED, V_SKIPPED, V_ERROR } CaseVerdict;

/* A check of a dialogue case, held until its turn comes. */
typedef struct Pending {
    cJSON *ck;
    unsigned line;
    bool reached;                   /* a Yao checkpoint, reached */
    unsigned at_turn;
} Pending;
static const char *const VERDICT[] = { "passed", "failed", "skipped", "error" };

typedef struct AutT {
    RtTarget base;
    AutTargetOpts o;
    uint64_t t0;
    AutCounts counts;
    /* the case being played */
    unsigned case_no;               /* the scenario's CASE ops so far */
    bool off;                       /* not the only_case: its ops are passed over */
    bool in_case;
    char *id;
    CaseVerdict v;
    char why[800];
    bool unsupported;               /* played no further: the why says so */
    uint64_t case_t0;
    uint64_t case_deadline;         /* a Yao case's timeout (0: none) */
    unsigned case_timeout;
    Aut *aut;
    const char *scenario;
    JudgeTurn *turns;
    AutReply *replies;              /* the turns' own storage */
    JudgeAction **acts;
    size_t n_turns;
    Buf line;
    JsonW jw;                   /* the event being written to line */
    char *type;
    char error[32];                 /* the E_AUT_* of an error verdict */
    char **msgs;                    /* the checks' messages and verdicts */
    const char **vds;
    char **tys, **scs;              /* and their types and scopes */
    int exit_code;                  /* a code step's (has_exit: it ran) */
    bool has_exit;
    char term[40];                  /* the termination condition that ended the conversation ("" for none) */
    unsigned n_checks, n_passed;
    bool stopped;                   /* --fail-fast saw a failure */
    char judgment[16];              /* ElizaOS's strategy (all_pass, any_pass), "" for none */
    char tmp[4096];                 /* the workspace made for virtual_fs ("" for none), in TMPDIR */
    const char *workspace;          /* the checks' and the agent's folder */
    unsigned checks_passed_all;     /* over the scenario: for any_pass */
    /* a dialogue with a simulated user: a Yao dynamic case, an ElizaOS conversation */
    bool dyn, yao;
    char *transcript;               /* an ElizaOS conversation's, once it has ended */
    cJSON *settings;
    Pending *pend;
    size_t n_pend;
    Tape *tape;                     /* o.tape, or with a live judge this case's scratch tape (never written) */
    Tape *scratch;
    bool on_purpose;                /* skipped because that was asked (skip: true, --dry-run, --fail-fast) */
    bool halted;                    /* a Yao static case stopped at its first failing turn */
    unsigned turn_limit;            /* ElizaOS's timeout_per_turn_ms (0: none) */
    /* what --results reports per turn (Yao's turns[]), and what is sent */
    cJSON *rec;                     /* the turns' records */
    cJSON *rec_final;               /* the case's own checks (final_assertions) */
    const char *next_source;        /* the next turn's input_source */
    cJSON *case_options;            /* a Yao case's options, or NULL */
    char *name;                     /* a Yao case's name, or NULL */
    const char *limit_what;         /* what case_deadline is, for its message */
} AutT;

static cJSON *ask_judge(void *ctx, const char *kind, const cJSON *request, char *why, size_t n);

/* What the checks of this case are decided on: the conversation so far,
** the workspace, the tape, the live judge. */
static JudgeRun judge_run(AutT *t)
{
    return (JudgeRun){ .turns = t->turns, .n_turns = t->n_turns, .workspace = t->workspace, .tape = t->tape,
                       .ask = t->o.judge_url ? ask_judge : NULL, .ask_ctx = t,
                       .live = t->o.judge_url && !t->o.record };
}

static void emit_begin(AutT *t, const char *kind)
{
    buf_reset(&t->line);
    jw_open_obj(&t->jw, &t->line);
    jw_ku64(&t->jw, "at_ms", sc_now_ms() - t->t0);
    jw_kcstr(&t->jw, "kind", kind);
}

/* s NULL: null */
static void emit_str(AutT *t, const char *key, const char *s)
{
    jw_kcstr(&t->jw, key, s);
}

static void emit_end(AutT *t)
{
    jw_end(&t->jw);
    jw_nl(&t->jw);
    if (t->o.events && !t->line.oom)
        fwrite(t->line.data, 1, t->line.len, t->o.events);
}

/* A case's verdict can only get worse: passed < skipped < failed < error. */
static void worsen(AutT *t, CaseVerdict v, const char *why)
{
    static const int rank[] = { 0, 2, 1, 3 };
    if (rank[v] > rank[t->v]) {
        t->v = v;
        snprintf(t->why, sizeof t->why, "%s", why ? why : "");
    }
}

static void dialogue(AutT *t);
static void play_turn(AutT *t, const char *text);

/* Whether the last turn left the agent awaiting input (its record says). */
static bool last_awaits(const AutT *t)
{
    const cJSON *last = cJSON_GetArrayItem(t->rec, cJSON_GetArraySize(t->rec) - 1);
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(last, "awaiting_input"));
}

/* A Yao case whose turns are all played while the agent still awaits
** input: --interactive asks the human (a line of o.human each, an empty
** line or the end of it stops); then, still awaiting, --on-missing-input
** skips or fails the case (the specification's "Agent awaiting input, no
** next turn defined"). */
static void missing_input(AutT *t)
{
    if (!t->aut || !t->n_turns)
        return;
    char line[4096];
    while (t->o.human && last_awaits(t) && t->v != V_ERROR) {
        const cJSON *last = cJSON_GetArrayItem(t->rec, cJSON_GetArraySize(t->rec) - 1);
        fprintf(stderr, "? [%s] the agent awaits input: %s\n> ", t->id,
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(last, "output")));
        fflush(stderr);
        if (!fgets(line, sizeof line, t->o.human))
            break;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0])
            break;
        t->next_source = "human";
        play_turn(t, line);
    }
    if (t->o.on_missing_input && last_awaits(t) && t->v != V_ERROR) {
        const char *why = "agent awaiting input, no next turn defined (add turns, use --interactive, or configure a "
                          "simulator)";
        worsen(t, t->o.on_missing_input == 1 ? V_SKIPPED : V_FAILED, why);
    }
}

/* The wall clock, in milliseconds since 1970. */
static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool is_eliza_type(const char *type)
{
    return !strcmp(type, "input") || !strcmp(type, "code") || !strcmp(type, "conversation");
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

enum { FILES_MAX = 1000, FILE_BYTES_MAX = 1 << 20, FILES_DEPTH_MAX = 16 };

/* The regular files below dir (rel: the path so far, "" at the top) into
** o, as ElizaOS's captureFileSystem has them: path -> content, one that
** cannot be read (or is not UTF-8 text, or is over 1 MiB) as "[binary or
** unreadable]"; links and other kinds are not files.  Names in byte
** order (ElizaOS: the folder's order), at most FILES_MAX files. */
static void files_below(const char *dir, const char *rel, int depth, cJSON *o, size_t *n)
{
    char path[8200];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (nn == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **nx = sc_realloc(names, nc * sizeof *nx);
            if (!nx)
                break;
            names = nx;
            cap = nc;
        }
        if (!(names[nn] = sc_strdup(de->d_name)))
            break;
        nn++;
    }
    closedir(d);
    if (nn)
        qsort(names, nn, sizeof *names, cmp_names);
    for (size_t i = 0; i < nn; i++) {
        char r[4096], full[8200];
        int k = snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        snprintf(full, sizeof full, "%s/%s", dir, r);
        struct stat st;
        if (k > 0 && (size_t)k < sizeof r && *n < FILES_MAX && lstat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode) && depth < FILES_DEPTH_MAX) {
                files_below(dir, r, depth + 1, o, n);
            } else if (S_ISREG(st.st_mode)) {
                char *data = NULL;
                size_t len = 0;
                bool text = file_read_all(full, FILE_BYTES_MAX, &data, &len) == 0 &&
                            utf8_valid((const unsigned char *)data, len, NULL) && !memchr(data, 0, len);
                cJSON_AddItemToObject(o, r, cJSON_CreateString(text ? data : "[binary or unreadable]"));
                sc_free(data);
                (*n)++;
            }
        }
        sc_free(names[i]);
    }
    sc_free(names);
}

/* The workspace's files as a JSON object (NULL when out of memory). */
static char *workspace_files(const char *dir)
{
    cJSON *o = cJSON_CreateObject();
    size_t n = 0;
    if (o)
        files_below(dir, "", 0, o, &n);
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return s;
}

static void case_end(AutT *t)
{
    if (!t->in_case)
        return;
    if (!t->dyn && t->type && strcmp(t->type, "standard") == 0 && !t->unsupported && t->v != V_ERROR && !t->halted)
        missing_input(t);
    if (t->dyn && !t->unsupported && t->v != V_ERROR && (t->n_turns || t->yao))
        dialogue(t);        /* a Yao dynamic case without input: the simulator's first message too */
    for (size_t i = 0; i < t->n_pend; i++)
        cJSON_Delete(t->pend[i].ck);
    sc_free(t->pend);
    t->pend = NULL;
    t->n_pend = 0;
    cJSON_Delete(t->settings);
    t->settings = NULL;
    t->dyn = false;
    emit_begin(t, "case_result");
    emit_str(t, "id", t->id);
    emit_str(t, "verdict", VERDICT[t->v]);
    emit_str(t, "why", t->why[0] ? t->why : NULL);
    if (t->transcript)
        emit_str(t, "transcript", t->transcript);
    emit_end(t);
    unsigned *c[] = { &t->counts.passed, &t->counts.failed, &t->counts.skipped, &t->counts.errors };
    (*c[t->v])++;
    t->counts.unjudged += t->v == V_SKIPPED && !t->on_purpose;
    if (t->v != V_PASSED && t->o.diag)
        fprintf(t->o.diag, "scvm: aut: case '%s': %s: %s\n", t->id, VERDICT[t->v], t->why);
    char *turns_json = t->rec ? cJSON_PrintUnformatted(t->rec) : NULL;
    char *final_json = t->rec_final ? cJSON_PrintUnformatted(t->rec_final) : NULL;
    char *files_json = t->o.on_case && t->tmp[0] && t->type && is_eliza_type(t->type) ? workspace_files(t->tmp) : NULL;
    if (t->o.on_case) {
        const JudgeTurn *last = t->n_turns ? &t->turns[t->n_turns - 1] : NULL;
        AutCaseResult r = {
            .scenario = t->scenario, .id = t->id, .type = t->type, .verdict = VERDICT[t->v],
            .error = t->v == V_ERROR ? t->error : NULL, .why = t->why, .input = last ? last->input : NULL,
            .output = t->transcript ? t->transcript : last ? last->text : NULL, .duration_ms = sc_now_ms() - t->case_t0, .checks = t->n_checks,
            .checks_passed = t->n_passed, .messages = (const char *const *)t->msgs, .verdicts = t->vds,
            .judgment = t->judgment, .on_purpose = t->v == V_SKIPPED && t->on_purpose,
            .name = t->name, .turns_json = turns_json, .final_json = final_json,
            .total_turns = (unsigned)t->n_turns,
            .check_types = (const char *const *)t->tys, .check_scopes = (const char *const *)t->scs,
            .exit_code = t->exit_code, .has_exit_code = t->has_exit, .files_json = files_json,
            .termination = t->term[0] ? t->term : NULL, .ended_at_ms = wall_ms(),
        };
        t->o.on_case(t->o.ctx, &r);
    }
    cJSON_free(turns_json);
    cJSON_free(final_json);
    cJSON_free(files_json);
    cJSON_Delete(t->rec);
    cJSON_Delete(t->rec_final);
    cJSON_Delete(t->case_options);
    t->rec = t->rec_final = t->case_options = NULL;
    sc_free(t->name);
    t->name = NULL;
    if ((t->v == V_FAILED || t->v == V_ERROR) && t->o.fail_fast)
        t->stopped = true;
    for (unsigned i = 0; i < t->n_checks; i++) {
        sc_free(t->msgs[i]);
        sc_free(t->tys[i]);
        sc_free(t->scs[i]);
    }
    sc_free(t->msgs);
    sc_free(t->vds);
    sc_free(t->tys);
    sc_free(t->scs);
    t->msgs = NULL;
    t->vds = NULL;
    t->tys = t->scs = NULL;
    t->has_exit = false;
    t->exit_code = 0;
    t->term[0] = 0;
    t->n_checks = t->n_passed = 0;
    sc_free(t->type);
    t->type = NULL;
    sc_free(t->transcript);
    t->transcript = NULL;
    aut_close(t->aut);
    t->aut = NULL;
    for (size_t i = 0; i < t->n_turns; i++) {
        aut_reply_fini(&t->replies[i]);
        sc_free(t->acts[i]);
        sc_free((char *)t->turns[i].input);
    }
    sc_free(t->turns);
    sc_free(t->replies);
    sc_free(t->acts);
    t->turns = NULL;
    t->replies = NULL;
    t->acts = NULL;
    t->n_turns = 0;
    sc_free(t->id);
    t->id = NULL;
    t->in_case = false;
}

/* An ElizaOS code step: `LANG -c CODE` in the workspace, as ElizaOS runs it
** (bash -c without a lang), its output the step's "response" for the
** evaluations; it and all it started are killed after the turn budget
** (rt_proc_run). */
static void add_turn(AutT *t, const char *input, char *text);

static void code_step(AutT *t, const BcProgram *p, const BcVal *settings)
{
    BcVal lang, code;
    const char *l = bc_val_get(p, settings, "lang", &lang) && lang.tag == BC_V_STR ? p->str[lang.n].s : "bash";
    const char *c = bc_val_get(p, settings, "code", &code) && code.tag == BC_V_STR ? p->str[code.n].s : "";
    /* the one runner (runtime/rt_proc.h): whatever the code starts (a
    ** server, a daemon) ends with the step, and with scvm */
    char *argv[] = { (char *)l, (char *)"-c", (char *)c, NULL };
    Buf out;
    buf_init(&out);
    unsigned budget = t->o.aut.timeout_ms ? t->o.aut.timeout_ms : 60000;
    RtProcResult pr;
    if (rt_proc_run(argv, t->workspace, budget, &out, (size_t)1 << 20, &pr) != 0 && !out.oom) {
        buf_fini(&out);
        worsen(t, V_ERROR, "cannot make a pipe");
        return;
    }
    if (pr.end == RT_PROC_FAILED) {
        char why[200];
        snprintf(why, sizeof why, "cannot start the code step: %.60s: %s", l, strerror(pr.code));
        buf_fini(&out);
        worsen(t, V_ERROR, why);
        return;
    }
    bool late = pr.end == RT_PROC_TIMEOUT;
    int ws = pr.end == RT_PROC_EXITED ? pr.code : -1;
    t->exit_code = ws;
    t->has_exit = true;
    buf_putc(&out, 0);
    emit_begin(t, "code");
    emit_str(t, "lang", l);
    jw_ki64(&t->jw, "exit_code", ws);
    emit_str(t, "output", (const char *)out.data);
    emit_end(t);
    if (late) {
        char why[100];
        snprintf(why, sizeof why, "E_AUT_TIMEOUT: the code step did not end within %u ms", budget);
        worsen(t, V_ERROR, why);
        snprintf(t->error, sizeof t->error, "E_AUT_TIMEOUT");
    }
    add_turn(t, c, sc_strdup((const char *)out.data));
    buf_fini(&out);
}

static void case_begin(AutT *t, const BcProgram *p, const BcInsn *in)
{
    case_end(t);
    t->case_no++;
    t->off = t->o.only_case && t->case_no != t->o.only_case;
    if (t->off)
        return;
    if (t->o.judge_url && !t->o.record) {
        /* a live judge decides: what it answered is kept for this case's
        ** askings only (so each case asks afresh), never written */
        tape_free(t->scratch);
        t->scratch = tape_new();
        t->tape = t->scratch;
    } else {
        t->tape = t->o.tape;
    }
    if (t->tape)
        tape_restart(t->tape);          /* a case's askings are counted on their own */
    t->in_case = true;
    t->on_purpose = false;
    t->halted = false;
    t->turn_limit = 0;
    t->limit_what = "the case's timeout";
    t->id = sc_strdup(p->str[in->a[0]].s);
    t->rec = cJSON_CreateArray();
    t->rec_final = cJSON_CreateArray();
    t->next_source = NULL;
    t->v = V_PASSED;
    t->why[0] = 0;
    t->error[0] = 0;
    t->unsupported = false;
    t->case_t0 = sc_now_ms();
    t->scenario = p->str[p->meta.name].s;
    const char *type = p->str[in->a[1]].s;
    t->type = sc_strdup(type);
    emit_begin(t, "case");
    emit_str(t, "id", t->id);
    emit_str(t, "type", type);
    emit_end(t);
    if (t->stopped) {
        worsen(t, V_SKIPPED, "not run: an earlier case failed (--fail-fast)");
        t->unsupported = t->on_purpose = true;
        return;
    }
    if (t->o.dry_run) {
        worsen(t, V_SKIPPED, "not run: --dry-run");
        t->unsupported = t->on_purpose = true;
        return;
    }
    BcVal settings = bc_val(p, in->a[2]), skip, to, opt, nm;
    if (bc_val_get(p, &settings, "name", &nm) && nm.tag == BC_V_STR)
        t->name = sc_strdup(p->str[nm.n].s);
    if (bc_val_get(p, &settings, "options", &opt) && opt.tag == BC_V_MAP) {
        Buf j;
        buf_init(&j);
        bc_val_json_at(p, &opt, &j);
        t->case_options = cJSON_ParseWithLength((const char *)j.data, j.len);
        buf_fini(&j);
    }
    t->case_deadline = 0;
    t->case_timeout = 0;
    if (bc_val_get(p, &settings, "timeout_ms", &to) && to.tag == BC_V_INT && to.i > 0 && to.i <= UINT32_MAX) {
        t->case_timeout = (unsigned)to.i;           /* Yao's per-case timeout bounds every turn in it */
        t->case_deadline = t->case_t0 + (uint64_t)to.i;
    }
    if (!t->case_deadline && t->o.case_timeout_ms) {       /* --timeout: where the case sets none */
        t->case_timeout = t->o.case_timeout_ms;
        t->case_deadline = t->case_t0 + t->o.case_timeout_ms;
    }
    BcVal inter, en;
    if (t->o.skip_interactive && bc_val_get(p, &settings, "interactive", &inter) &&
        bc_val_get(p, &inter, "enabled", &en) && en.tag == BC_V_TRUE) {
        worsen(t, V_SKIPPED, "not run: it asks for a human (interactive.enabled) and --skip-interactive was given");
        t->unsupported = t->on_purpose = true;
        return;
    }
    if (bc_val_get(p, &settings, "skip", &skip) && skip.tag == BC_V_TRUE) {
        worsen(t, V_SKIPPED, "skip: true");
        t->unsupported = t->on_purpose = true;
        return;
    }
    if (strcmp(type, "dynamic") == 0 || strcmp(type, "conversation") == 0) {
        /* played as a dialogue at the case's end, the simulated user's
        ** messages from the tape */
        t->dyn = true;
        t->yao = type[0] == 'd';
        Buf j;
        buf_init(&j);
        bc_val_json_at(p, &settings, &j);
        t->settings = cJSON_ParseWithLength((const char *)j.data, j.len);
        buf_fini(&j);
        /* ElizaOS's limits: each agent turn within timeout_per_turn_ms,
        ** the whole conversation within total_timeout_ms */
        const cJSON *conv = cJSON_GetObjectItemCaseSensitive(t->settings, "conversation");
        const cJSON *tpt = cJSON_GetObjectItemCaseSensitive(conv, "timeout_per_turn_ms"),
                    *tot = cJSON_GetObjectItemCaseSensitive(conv, "total_timeout_ms");
        if (!t->yao && cJSON_IsNumber(tpt) && tpt->valuedouble >= 1 && tpt->valuedouble <= UINT32_MAX)
            t->turn_limit = (unsigned)tpt->valuedouble;
        if (!t->yao && cJSON_IsNumber(tot) && tot->valuedouble >= 1 && tot->valuedouble <= UINT32_MAX) {
            t->case_timeout = (unsigned)tot->valuedouble;
            t->case_deadline = t->case_t0 + t->case_timeout;
            t->limit_what = "the conversation's total_timeout_ms";
        }
    } else if (strcmp(type, "code") == 0) {
        code_step(t, p, &settings);
    } else if (strcmp(type, "input") != 0 && strcmp(type, "standard") != 0) {
        char why[200];
        snprintf(why, sizeof why, "a %s case is not one this target plays (docs/aut.md)", type);
        worsen(t, V_SKIPPED, why);
        t->unsupported = true;
    }
}

/* Room for one more turn, at *k; false (the case in error) when out of memory. */
static bool grow_turns(AutT *t, size_t *k)
{
    *k = t->n_turns;
    JudgeTurn *nt = sc_realloc(t->turns, (*k + 1) * sizeof *nt);
    if (nt)
        t->turns = nt;
    AutReply *nr = nt ? sc_realloc(t->replies, (*k + 1) * sizeof *nr) : NULL;
    if (nr)
        t->replies = nr;
    JudgeAction **na = nr ? sc_realloc(t->acts, (*k + 1) * sizeof *na) : NULL;
    if (na)
        t->acts = na;
    if (!na)
        worsen(t, V_ERROR, "out of memory");
    return na != NULL;
}

/* A turn whose answer did not come from the agent (a code step's output):
** text is taken over. */
static void add_turn(AutT *t, const char *input, char *text)
{
    size_t k;
    if (!grow_turns(t, &k)) {
        sc_free(text);
        return;
    }
    memset(&t->replies[k], 0, sizeof t->replies[k]);
    t->replies[k].text = text;         /* freed with the reply */
    t->acts[k] = NULL;
    t->turns[k] = (JudgeTurn){ sc_strdup(input), text, NULL, 0 };
    t->n_turns++;
}

/* What bounds a turn. */
enum { BY_OPTION, BY_TURN_LIMIT, BY_CASE };

/* A turn's budget: the turn timeout (--turn-timeout), or ElizaOS's
** timeout_per_turn_ms when that is less, or what is left of the case's
** own timeout (Yao's timeout, ElizaOS's total_timeout_ms) when that is
** less still (0: nothing is left).  Starting the agent (!turn) is not a
** turn: timeout_per_turn_ms does not bound it. */
static unsigned turn_budget(const AutT *t, bool turn, int *by)
{
    unsigned tb = t->o.aut.timeout_ms ? t->o.aut.timeout_ms : 60000;
    *by = BY_OPTION;
    if (turn && t->turn_limit && t->turn_limit < tb) {
        tb = t->turn_limit;
        *by = BY_TURN_LIMIT;
    }
    if (t->case_deadline) {
        uint64_t now = sc_now_ms();
        uint64_t left = now < t->case_deadline ? t->case_deadline - now : 0;
        if (left <= tb) {
            tb = (unsigned)left;
            *by = BY_CASE;
        }
    }
    return tb;
}

static void case_timed_out(AutT *t, const char *what)
{
    char why[300];
    snprintf(why, sizeof why, "E_AUT_TIMEOUT: %s (%u ms) ran out%s%s", t->limit_what, t->case_timeout,
             what ? ": " : "", what ? what : "");
    worsen(t, V_ERROR, why);
    snprintf(t->error, sizeof t->error, "E_AUT_TIMEOUT");
}

/* Whether the agent now waits for the user, and why: the specification's
** hybrid detection ("Detecting Awaiting Input"): the agent says so (its
** reply is JSON with awaiting_input), a tool that asks the user, a reply
** that reads as a question. */
static bool awaiting_input(const AutReply *r, const char **why)
{
    cJSON *j = r->text ? cJSON_Parse(r->text) : NULL;
    const cJSON *ai = cJSON_GetObjectItemCaseSensitive(j, "awaiting_input");
    if (cJSON_IsBool(ai)) {
        bool v = cJSON_IsTrue(ai);
        cJSON_Delete(j);
        *why = v ? "agent_declared" : "completed";
        return v;
    }
    cJSON_Delete(j);
    static const char *const ASK[] = { "request_confirmation", "ask_user", "get_user_input", NULL };
    for (size_t i = 0; i < r->n_actions; i++)
        for (size_t k = 0; ASK[k]; k++)
            if (strcmp(r->actions[i].name, ASK[k]) == 0) {
                *why = "tool_requires_confirmation";
                return true;
            }
    const char *s = r->text ? r->text : "";
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    bool q = n && s[n - 1] == '?';
    static const char *const OPEN[] = { "what", "how", "when", "where", "which", "who", "please", "could you", NULL };
    for (size_t k = 0; !q && OPEN[k]; k++)
        q = strncasecmp(s, OPEN[k], strlen(OPEN[k])) == 0;
    static const char *const VERB[] = { "confirm?", "verify?", "proceed?", "continue?", NULL };
    for (size_t k = 0; !q && VERB[k]; k++)
        q = strcasestr(s, VERB[k]) != NULL;
    *why = q ? "content_is_question" : "completed";
    return q;
}

static void play_turn(AutT *t, const char *text)
{
    char err[600] = "";
    size_t k;
    int by;
    unsigned tb = turn_budget(t, true, &by);
    if (tb == 0) {
        case_timed_out(t, "before the next turn");
        return;
    }
    if (!grow_turns(t, &k))
        return;
    aut_set_timeout(t->aut, tb);
    AutReply *r = &t->replies[k];
    AutErr e = aut_turn(t->aut, text, r, err, sizeof err);
    JudgeAction *ja = sc_calloc(r->n_actions ? r->n_actions : 1, sizeof *ja);
    for (size_t i = 0; ja && i < r->n_actions; i++)
        ja[i] = (JudgeAction){ r->actions[i].name, r->actions[i].input };
    t->acts[k] = ja;
    t->turns[k] = (JudgeTurn){ sc_strdup(text), r->text, ja, ja ? r->n_actions : 0 };
    t->n_turns++;
    emit_begin(t, "turn");
    emit_str(t, "input", text);
    emit_str(t, "text", r->text);
    jw_karr(&t->jw, "actions");
    for (size_t i = 0; i < r->n_actions; i++) {
        jw_obj(&t->jw);
        jw_kcstr(&t->jw, "name", r->actions[i].name);
        jw_kcstr(&t->jw, "input", r->actions[i].input);
        jw_end(&t->jw);
    }
    jw_end(&t->jw);
    jw_ku64(&t->jw, "ms", r->ms);
    emit_str(t, "stop", r->stop);
    if (e) {
        emit_str(t, "error", aut_err_name(e));
        emit_str(t, "why", err);
    }
    emit_end(t);
    if (t->rec) {
        cJSON *o = cJSON_CreateObject(), *tc = cJSON_CreateArray();
        cJSON_AddNumberToObject(o, "turn", (double)t->n_turns);
        cJSON_AddStringToObject(o, "input", text);
        cJSON_AddStringToObject(o, "input_source", t->next_source ? t->next_source : "static");
        cJSON_AddStringToObject(o, "output", r->text ? r->text : "");
        for (size_t i = 0; i < r->n_actions; i++) {
            cJSON *c = cJSON_CreateObject(), *args = cJSON_Parse(r->actions[i].input);
            cJSON_AddStringToObject(c, "name", r->actions[i].name);
            cJSON_AddItemToObject(c, "args", args ? args : cJSON_CreateString(r->actions[i].input));
            cJSON_AddItemToArray(tc, c);
        }
        cJSON_AddItemToObject(o, "tool_calls", tc);
        const char *why = "completed";
        bool aw = !e && awaiting_input(r, &why);
        cJSON_AddBoolToObject(o, "awaiting_input", aw);
        cJSON_AddStringToObject(o, "awaiting_reason", e ? "error" : why);
        cJSON_AddArrayToObject(o, "assertions");
        cJSON_AddNumberToObject(o, "duration_ms", (double)r->ms);
        if (e)
            cJSON_AddStringToObject(o, "error", err);
        cJSON_AddItemToArray(t->rec, o);
    }
    t->next_source = NULL;
    if (e == AUT_E_TIMEOUT && by == BY_CASE) {
        case_timed_out(t, err);
    } else if (e == AUT_E_TIMEOUT && by == BY_TURN_LIMIT) {
        char why[800];
        snprintf(why, sizeof why, "E_AUT_TIMEOUT: turn %zu took longer than timeout_per_turn_ms (%u ms): %s",
                 t->n_turns, tb, err);
        worsen(t, V_ERROR, why);
        snprintf(t->error, sizeof t->error, "E_AUT_TIMEOUT");
    } else if (e) {
        char why[700];
        snprintf(why, sizeof why, "%s: %s", aut_err_name(e), err);
        worsen(t, V_ERROR, why);
        snprintf(t->error, sizeof t->error, "%s", aut_err_name(e));
    }
}

static bool open_aut(AutT *t);
static void send_extras(AutT *t, const cJSON *turn_opts, const cJSON *parts);

static void turn(AutT *t, const BcProgram *p, const BcInsn *in)
{
    if (!t->in_case || t->unsupported || t->v == V_ERROR || t->halted)
        return;
    if (t->v == V_FAILED && t->n_turns && strcmp(t->type, "standard") == 0) {
        /* Yao's static turns: a failed turn fails the case and stops it
        ** ("FAIL -> Test FAILED, stop"): the later turns are not sent */
        t->halted = true;
        emit_begin(t, "halted");
        jw_ku64(&t->jw, "after_turn", t->n_turns);
        emit_str(t, "why", "a turn failed: the case's later turns are not sent (Yao stops at the first failing turn)");
        emit_end(t);
        return;
    }
    bool opened = !t->aut;
    if (!open_aut(t))
        return;
    if (opened) {
        /* an input given as a conversation: the messages before the last
        ** are its history (HTTP; the other transports cannot be told) */
        BcVal input = bc_val(p, in->a[2]);
        if (input.tag == BC_V_ARRAY) {
            Buf j;
            buf_init(&j);
            bc_val_json_at(p, &input, &j);
            cJSON *msgs = cJSON_ParseWithLength((const char *)j.data, j.len);
            int n = cJSON_GetArraySize(msgs);
            for (int i = 0; i + 1 < n; i++) {
                const cJSON *m = cJSON_GetArrayItem(msgs, i);
                const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));
                const char *content = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "content"));
                if (role && content)
                    aut_seed(t->aut, role, content);
            }
            cJSON_Delete(msgs);
            buf_fini(&j);
        }
    }
    t->next_source = t->dyn ? "initial" : "static";
    /* a static turn's own attachments and options (over the case's) */
    cJSON *extra = NULL;
    BcVal ex = bc_val(p, in->a[3]);
    if (ex.tag == BC_V_MAP) {
        Buf j;
        buf_init(&j);
        bc_val_json_at(p, &ex, &j);
        extra = cJSON_ParseWithLength((const char *)j.data, j.len);
        buf_fini(&j);
    }
    send_extras(t, cJSON_GetObjectItemCaseSensitive(extra, "options"),
                cJSON_GetObjectItemCaseSensitive(extra, "attachments"));
    cJSON_Delete(extra);
    play_turn(t, p->str[in->a[1]].s);
}

/* What a turn sends besides its text (aut_next): the case's options with
** the turn's over them (key by key; metadata merged too) and --connector
** over both, and the turn's attachments. */
static void send_extras(AutT *t, const cJSON *turn_opts, const cJSON *parts)
{
    cJSON *o = t->case_options ? cJSON_Duplicate(t->case_options, true) : NULL;
    const cJSON *x;
    if (cJSON_IsObject(turn_opts)) {
        if (!o)
            o = cJSON_CreateObject();
        cJSON_ArrayForEach(x, turn_opts) {
            const cJSON *had = cJSON_GetObjectItemCaseSensitive(o, x->string);
            if (cJSON_IsObject(x) && cJSON_IsObject(had) && strcmp(x->string, "metadata") == 0) {
                const cJSON *y;
                cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
                cJSON_ArrayForEach(y, x) {
                    cJSON_DeleteItemFromObjectCaseSensitive(md, y->string);
                    cJSON_AddItemToObject(md, y->string, cJSON_Duplicate(y, true));
                }
            } else {
                cJSON_DeleteItemFromObjectCaseSensitive(o, x->string);
                cJSON_AddItemToObject(o, x->string, cJSON_Duplicate(x, true));
            }
        }
    }
    if (t->o.connector) {              /* -c: the target agent's connector, over the case's */
        if (!o)
            o = cJSON_CreateObject();
        cJSON_DeleteItemFromObjectCaseSensitive(o, "connector");
        cJSON_AddStringToObject(o, "connector", t->o.connector);
    }
    char *oj = o ? cJSON_PrintUnformatted(o) : NULL;
    char *pj = cJSON_IsArray(parts) && cJSON_GetArraySize(parts) ? cJSON_PrintUnformatted(parts) : NULL;
    if ((oj || pj) && !aut_next(t->aut, oj, pj) && t->o.warn)
        fprintf(t->o.warn, "scvm: aut: case '%s': its %s reach%s only an agent over HTTP: not sent\n", t->id,
                oj && pj ? "options and attachments" : oj ? "options" : "attachments", oj && pj ? "" : "es");
    cJSON_free(oj);
    cJSON_free(pj);
    cJSON_Delete(o);
}

/* Opens the case's agent if it is not yet: false (the case in error) when
** it cannot be. */
static bool open_aut(AutT *t)
{
    char err[600] = "";
    if (!t->aut) {
        /* a conversation of its own per case (HTTP: named by the case) */
        AutConfig c = t->o.aut;
        if (t->tmp[0])
            c.cwd = t->tmp;         /* the agent works where its files are */
        char session[300];
        snprintf(session, sizeof session, "%s/%s", t->scenario, t->id);
        for (char *q = session; *q; q++)
            if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
                *q = '_';           /* a header value */
        c.session = session;
        /* a real agent's model URL may name the case: {case}, percent-encoded
        ** (scvm serve llm's /s/NAME picks the scenario of that name) */
        Buf mu;
        buf_init(&mu);
        const char *at = c.model_url ? strstr(c.model_url, "{case}") : NULL;
        if (at) {
            buf_put(&mu, c.model_url, (size_t)(at - c.model_url));
            for (const unsigned char *q = (const unsigned char *)t->id; *q; q++) {
                if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
                    strchr("-._~", *q))
                    buf_putc(&mu, (char)*q);
                else
                    buf_printf(&mu, "%%%02X", *q);
            }
            buf_puts(&mu, at + 6);
            buf_putc(&mu, 0);
            c.model_url = mu.oom ? c.model_url : (const char *)mu.data;
        }
        int by;
        c.timeout_ms = turn_budget(t, false, &by);  /* starting the agent counts too */
        t->aut = c.timeout_ms ? aut_open(&c, err, sizeof err) : NULL;
        if (!c.timeout_ms)
            snprintf(err, sizeof err, "the case's timeout ran out before the agent started");
        buf_fini(&mu);
        if (!t->aut) {
            worsen(t, V_ERROR, err);
            snprintf(t->error, sizeof t->error, "%s", aut_err_name(AUT_E_START));
            emit_begin(t, "turn");
            emit_str(t, "error", aut_err_name(AUT_E_START));
            emit_str(t, "why", err);
            emit_end(t);
            return false;
        }
    }
    return true;
}

static JudgeVerdict decide(AutT *t, const cJSON *ck, unsigned line);
static void report_check(AutT *t, const cJSON *ck, unsigned line, const JudgeResult *r);

static void check(AutT *t, const BcProgram *p, const BcInsn *in)
{
    if (t->in_case && t->o.dry_run) {      /* the listing: what would be checked */
        Buf j;
        buf_init(&j);
        BcVal v = bc_val(p, in->a[0]);
        bc_val_json_at(p, &v, &j);
        emit_begin(t, "check");
        jw_kraw(&t->jw, "check", (const char *)j.data, j.len);
        jw_ku64(&t->jw, "line", in->line);
        emit_end(t);
        buf_fini(&j);
        return;
    }
    if (!t->in_case || t->unsupported || t->v == V_ERROR || t->halted)
        return;
    BcVal v = bc_val(p, in->a[0]);
    Buf j;
    buf_init(&j);
    bc_val_json_at(p, &v, &j);
    cJSON *ck = cJSON_ParseWithLength((const char *)j.data, j.len);
    buf_fini(&j);
    if (t->dyn) {                       /* its turn comes in the dialogue */
        Pending *np = sc_realloc(t->pend, (t->n_pend + 1) * sizeof *np);
        if (!np) {
            cJSON_Delete(ck);
            worsen(t, V_ERROR, "out of memory");
            return;
        }
        t->pend = np;
        t->pend[t->n_pend++] = (Pending){ ck, (unsigned)in->line, false, 0 };
        return;
    }
    decide(t, ck, (unsigned)in->line);
    cJSON_Delete(ck);
}

/* Decides one check now: its event, its message kept, the case worsened. */
static JudgeVerdict decide(AutT *t, const cJSON *ck, unsigned line)
{
    uint64_t dur = sc_now_ms() - t->case_t0;
    const char *scope = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ck, "scope"));
    JudgeRun run = judge_run(t);
    run.duration_ms = dur;
    run.has_duration = true;
    run.response = t->transcript && scope && strcmp(scope, "turn") != 0 ? t->transcript : NULL;
    JudgeResult r;
    judge_check(ck, &run, &r);
    report_check(t, ck, line, &r);
    JudgeVerdict v = r.verdict;
    judge_result_fini(&r);
    return v;
}

/* A check's outcome in the results: a turn's (scope turn: the last turn;
** a checkpoint: the turn it was reached at, at_turn) or the case's own
** (final_assertions): the check as written, with passed and message. */
static void record_check(AutT *t, const cJSON *ck, const char *verdict, const char *message, unsigned at_turn)
{
    const char *scope = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ck, "scope"));
    cJSON *to = NULL;
    if (scope && (strcmp(scope, "turn") == 0 || (strcmp(scope, "checkpoint") == 0 && at_turn))) {
        int k = strcmp(scope, "turn") == 0 ? cJSON_GetArraySize(t->rec) - 1 : (int)at_turn - 1;
        to = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(t->rec, k), "assertions");
    } else {
        to = t->rec_final;
    }
    if (!to)
        return;
    cJSON *o = cJSON_Duplicate(ck, true);
    if (!o)
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(o, "scope");
    cJSON_AddBoolToObject(o, "passed", strcmp(verdict, "passed") == 0);
    cJSON_AddStringToObject(o, "verdict", verdict);
    cJSON_AddStringToObject(o, "message", message ? message : "");
    cJSON_AddItemToArray(to, o);
}

/* A check's verdict: its event, its message kept, the case worsened. */
static void report_check(AutT *t, const cJSON *ck, unsigned line, const JudgeResult *rr)
{
    const JudgeResult r = *rr;
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ck, "type"));
    emit_begin(t, "check");
    emit_str(t, "type", type);
    emit_str(t, "scope", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ck, "scope")));
    jw_ku64(&t->jw, "line", line);
    emit_str(t, "verdict", judge_verdict_name(r.verdict));
    emit_str(t, "message", r.message);
    if (r.key[0]) {
        emit_str(t, "tape_kind", r.kind);
        emit_str(t, "tape_key", r.key);
        emit_str(t, "tape_request", r.request);   /* what `scvm tape add` records it under */
    }
    emit_end(t);
    record_check(t, ck, judge_verdict_name(r.verdict), r.message, 0);
    char why[700];
    snprintf(why, sizeof why, "line %u: %s", line, r.message);
    char **nm = sc_realloc(t->msgs, (t->n_checks + 1) * sizeof *nm);
    const char **nv = nm ? sc_realloc(t->vds, (t->n_checks + 1) * sizeof *nv) : NULL;
    char **nt = nv ? sc_realloc(t->tys, (t->n_checks + 1) * sizeof *nt) : NULL;
    char **ns = nt ? sc_realloc(t->scs, (t->n_checks + 1) * sizeof *ns) : NULL;
    if (nm)
        t->msgs = nm;
    if (nv)
        t->vds = nv;
    if (nt)
        t->tys = nt;
    if (ns) {
        t->scs = ns;
        const char *scope = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ck, "scope"));
        t->msgs[t->n_checks] = sc_strdup(r.message);
        t->vds[t->n_checks] = judge_verdict_name(r.verdict);
        t->tys[t->n_checks] = sc_strdup(type ? type : "");
        t->scs[t->n_checks] = sc_strdup(scope ? scope : "");
        t->n_checks++;
        t->n_passed += r.verdict == JUDGE_PASS;
        t->checks_passed_all += r.verdict == JUDGE_PASS;
    }
    if (r.verdict == JUDGE_FAIL || r.verdict == JUDGE_ERROR)
        worsen(t, V_FAILED, why);
    else if (r.verdict == JUDGE_SKIP)
        worsen(t, V_SKIPPED, why);
}

/* What a live judge is told each kind of request is, and how to answer. */
static const char *instructions(const char *kind)
{
    if (strcmp(kind, "llm_judge") == 0)
        return "You judge an AI agent's answer. The user message is a JSON object: prompt (the question to "
               "answer about the agent's work), expected, optional capabilities to check, and response (the "
               "agent's answer). Reply with one JSON object and nothing else: {\"overall_success\": true or false, "
               "\"confidence\": a number from 0 to 1, \"qualitative_summary\": one sentence}.";
    if (strcmp(kind, "yao_simulator") == 0 || strcmp(kind, "user_simulator") == 0)
        return "You play the user talking to an AI agent, as the JSON object in the user message describes "
               "(persona, goal or objective, the conversation so far). Write the user's next message. Reply "
               "with one JSON object and nothing else: {\"message\": the message, \"goal_achieved\": true when "
               "the goal is reached and there is nothing more to say, else false}.";
    if (strcmp(kind, "yao_validator") == 0)
        return "You validate an AI agent's output. The user message is a JSON object: input (what the agent was "
               "asked), output (its answer) and criteria. Reply with one JSON object and nothing else: "
               "{\"passed\": true or false, \"reason\": one sentence}.";
    if (strcmp(kind, "conversation_flow") == 0)
        return "You judge a conversation between a user and an AI agent. The user message is a JSON object: pattern "
               "and transcript. The patterns: question_then_answer (the agent asks a question and the user answers "
               "it), problem_then_solution (the user states a problem and the agent offers a solution), "
               "clarification_cycle (several exchanges that clarify what is wanted), empathy_then_solution (the "
               "agent shows empathy before offering a solution), escalation_pattern (the agent escalates when it "
               "should). Does the transcript show the pattern? Reply with one JSON object and nothing else: "
               "{\"answer\": \"yes\" or \"no\"}.";
    if (strcmp(kind, "user_satisfaction") == 0)
        return "You judge how satisfied the user of an AI agent is. The user message is a JSON object: "
               "measurement_method (sentiment_analysis: the sentiment's course over the conversation; llm_judge: "
               "everything considered), optional indicators (positive and negative words to weigh) and transcript. "
               "Reply with one JSON object and nothing else: {\"score\": a number from 0 (not at all) to 1 "
               "(fully satisfied)}.";
    if (strcmp(kind, "termination_condition") == 0)
        return "You decide whether a conversation between a user and an AI agent should end now. The user message "
               "is a JSON object: condition (its type, e.g. goal_achieved), prompt (the question that decides it), "
               "turn and transcript (the conversation so far). Reply with one JSON object and nothing else: "
               "{\"answer\": \"yes\" or \"no\"}.";
    if (strcmp(kind, "context_retention") == 0)
        return "You judge whether an AI agent remembers what was said. The user message is a JSON object: item "
               "(something said in turn mentioned_in_turn), turn, and the transcript up to that turn. Does the "
               "agent's reply in that turn still take the item into account (not contradict or forget it)? Reply "
               "with one JSON object and nothing else: {\"answer\": \"yes\" or \"no\"}.";
    return "Reply with one JSON object and nothing else.";
}

/* judge.h's ask: one chat request to the judge; its answer read as JSON
** (the whole text, else its first {...} span). */
static cJSON *ask_judge(void *ctx, const char *kind, const cJSON *request, char *why, size_t n)
{
    AutT *t = ctx;
    char url[4096];
    size_t l = strlen(t->o.judge_url);
    snprintf(url, sizeof url, "%.*s/chat/completions", (int)(l && t->o.judge_url[l - 1] == '/' ? l - 1 : l),
             t->o.judge_url);
    Buf q;
    buf_init(&q);
    tape_canonical(request, &q);
    buf_putc(&q, 0);
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "model", t->o.judge_model ? t->o.judge_model : "judge");
    cJSON *msgs = cJSON_AddArrayToObject(body, "messages");
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "system");
    cJSON_AddStringToObject(m, "content", instructions(kind));
    cJSON_AddItemToArray(msgs, m);
    m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "user");
    cJSON_AddStringToObject(m, "content", (const char *)q.data);
    cJSON_AddItemToArray(msgs, m);
    cJSON_AddNumberToObject(body, "temperature", 0);
    char *text = cJSON_PrintUnformatted(body);
    cJSON_Delete(body);
    buf_fini(&q);
    char hdr[300];
    snprintf(hdr, sizeof hdr, "Content-Type: application/json\r\nX-Scenario-Session: judge/%s\r\n", kind);
    HttpResponse res;
    int st = text ? http_request("POST", url, hdr, text, strlen(text), t->o.aut.timeout_ms ? t->o.aut.timeout_ms : 60000,
                                 t->o.aut.cancel_fd, (size_t)16 << 20, &res, why, n)
                  : -1;
    cJSON_free(text);
    if (st)
        return NULL;
    cJSON *j = cJSON_ParseWithLength((const char *)res.body.data, res.body.len);
    const char *content = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "choices"), 0),
                                         "message"),
        "content"));
    cJSON *reply = content ? cJSON_Parse(content) : NULL;
    if (content && !reply) {
        const char *a = strchr(content, '{'), *b = strrchr(content, '}');
        if (a && b && b > a)
            reply = cJSON_ParseWithLength(a, (size_t)(b - a + 1));
    }
    if (!reply)
        snprintf(why, n, "the judge at %s answered HTTP %d without a JSON verdict", t->o.judge_url, res.status);
    cJSON_Delete(j);
    buf_fini(&res.body);
    return reply;
}

/* ---- dialogues: a Yao dynamic case, an ElizaOS conversation ---- */

static bool cp_after_reached(const AutT *t, const cJSON *ck)
{
    const cJSON *id;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(ck, "after")) {
        for (size_t i = 0; i < t->n_pend; i++) {
            const char *pid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t->pend[i].ck, "id"));
            if (pid && cJSON_IsString(id) && strcmp(pid, id->valuestring) == 0 && !t->pend[i].reached)
                return false;       /* unknown ids are ignored, as Yao does */
        }
    }
    return true;
}

static bool cp_required(const cJSON *ck)
{
    return !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ck, "required"));
}

static bool all_required_reached(const AutT *t)
{
    for (size_t i = 0; i < t->n_pend; i++)
        if (!t->pend[i].reached && cp_required(t->pend[i].ck))
            return false;
    return true;
}

static void cp_event(AutT *t, const Pending *c, const char *verdict, const char *message)
{
    emit_begin(t, "check");
    emit_str(t, "type", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c->ck, "type")));
    emit_str(t, "scope", "checkpoint");
    emit_str(t, "id", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c->ck, "id")));
    jw_ku64(&t->jw, "line", c->line);
    emit_str(t, "verdict", verdict);
    emit_str(t, "message", message);
    emit_end(t);
    record_check(t, c->ck, verdict, message, c->reached ? c->at_turn : 0);
}

/* Yao: checkpoints walked in file order, those whose `after` are reached
** checked on this turn, again while one more is reached (a cascade). */
static void reach_checkpoints(AutT *t, unsigned turn)
{
    JudgeRun run = judge_run(t);
    for (bool more = true; more;) {
        more = false;
        for (size_t i = 0; i < t->n_pend; i++) {
            Pending *c = &t->pend[i];
            if (c->reached || !cp_after_reached(t, c->ck))
                continue;
            JudgeResult r;
            judge_check(c->ck, &run, &r);
            if (r.verdict == JUDGE_PASS) {
                c->reached = true;
                c->at_turn = turn;
                char m[700];
                snprintf(m, sizeof m, "reached at turn %u: %s", turn, r.message);
                cp_event(t, c, "passed", m);
                t->checks_passed_all++;
                more = true;
            }
            judge_result_fini(&r);
        }
    }
}

/* Whether any of the keywords (any case) is in text. */
static bool has_keyword(const cJSON *keywords, const char *text)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, keywords)
        if (cJSON_IsString(k) && *k->valuestring && text && strcasestr(text, k->valuestring))
            return true;
    return false;
}

static int cmp_word(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct words of text (lower case, split at blanks), sorted: *n of
** them in *words, pointing into *store (sc_free both).  False when out of
** memory. */
static bool word_set(const char *text, char **store, char ***words, size_t *n)
{
    size_t len = strlen(text), k = 0;
    *store = sc_malloc(len + 1);
    *words = sc_malloc((len / 2 + 1) * sizeof **words);
    *n = 0;
    if (!*store || !*words)
        return false;
    for (size_t i = 0; i <= len; i++) {
        char c = text[i];
        (*store)[i] = c == ' ' || c == '\t' || c == '\n' || c == '\r' ? 0 : (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    for (size_t i = 0; i < len; i++)
        if ((*store)[i] && (i == 0 || !(*store)[i - 1]))
            (*words)[k++] = *store + i;
    qsort(*words, k, sizeof **words, cmp_word);
    for (size_t i = 0; i < k; i++)
        if (!*n || strcmp((*words)[*n - 1], (*words)[i]) != 0)
            (*words)[(*n)++] = (*words)[i];
    return true;
}

/* ElizaOS's conversation_stuck: the word sets (lower case, split at
** blanks) of the agent's last two replies have a Jaccard similarity over
** 0.8, after at least 3 turns.  Sorted sets, so a long reply costs
** n log n, not n squared. */
static bool stuck(const AutT *t)
{
    if (t->n_turns < 3)
        return false;
    const char *a = t->turns[t->n_turns - 2].text, *b = t->turns[t->n_turns - 1].text;
    char *sa = NULL, *sb = NULL, **wa = NULL, **wb = NULL;
    size_t na = 0, nb = 0, both = 0;
    bool ok = word_set(a ? a : "", &sa, &wa, &na) && word_set(b ? b : "", &sb, &wb, &nb);
    for (size_t i = 0, j = 0; ok && i < na && j < nb;) {
        int c = strcmp(wa[i], wb[j]);
        both += c == 0;
        i += c <= 0;
        j += c >= 0;
    }
    sc_free(sa);
    sc_free(sb);
    sc_free(wa);
    sc_free(wb);
    size_t uni = na + nb - both;
    return ok && uni > 0 && (double)both / (double)uni > 0.8;
}

/* ElizaOS's termination check after a turn, the conditions in order:
** 1 when one holds, 0 when none does, -1 when one could not be decided (a
** judge's answer missing or malformed: the event says which, the case is
** worsened).  A condition with `llm_judge` is asked of the judge (kind
** termination_condition, a yes/no: the tape's, or the live judge's);
** the others as ElizaOS decides them: user_expresses_satisfaction a
** keyword in the last user input or reply, agent_provides_solution and
** escalation_needed in the last reply, goal_achieved anywhere in the
** conversation, conversation_stuck by the last two replies' words;
** custom_condition without llm_judge and max_turns_reached never. */
static int terminated(AutT *t, const cJSON *conv)
{
    const JudgeTurn *last = &t->turns[t->n_turns - 1];
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(conv, "termination_conditions")) {
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "type"));
        const cJSON *kw = cJSON_GetObjectItemCaseSensitive(c, "keywords");
        const cJSON *lj = cJSON_GetObjectItemCaseSensitive(c, "llm_judge");
        const char *prompt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(lj, "prompt"));
        if (!type)
            continue;
        const char *by = "keywords";
        bool hit = false;
        if (prompt) {
            cJSON *rq = cJSON_CreateObject();
            char *tr = judge_transcript(t->turns, t->n_turns);
            cJSON_AddStringToObject(rq, "condition", type);
            cJSON_AddStringToObject(rq, "prompt", prompt);
            cJSON_AddNumberToObject(rq, "turn", (double)t->n_turns);
            cJSON_AddStringToObject(rq, "transcript", tr ? tr : "");
            sc_free(tr);
            JudgeRun run = judge_run(t);
            JudgeResult jr;
            memset(&jr, 0, sizeof jr);
            int yn = judge_yes_no(&run, "termination_condition", rq, &jr);
            cJSON_Delete(rq);
            if (yn < 0) {
                emit_begin(t, "termination");
                emit_str(t, "type", type);
                jw_ku64(&t->jw, "turn", t->n_turns);
                emit_str(t, "verdict", judge_verdict_name(jr.verdict));
                emit_str(t, "message", jr.message);
                if (jr.key[0]) {
                    emit_str(t, "tape_kind", jr.kind);
                    emit_str(t, "tape_key", jr.key);
                    emit_str(t, "tape_request", jr.request);
                }
                emit_end(t);
                char why[700];
                snprintf(why, sizeof why, "termination condition %s: %s", type, jr.message);
                worsen(t, jr.verdict == JUDGE_SKIP ? V_SKIPPED : V_FAILED, why);
                judge_result_fini(&jr);
                return -1;
            }
            judge_result_fini(&jr);
            hit = yn == 1;
            by = "judge";
        } else if (strcmp(type, "conversation_stuck") == 0) {
            hit = stuck(t);
            by = "similarity";
        } else if (strcmp(type, "agent_provides_solution") == 0 || strcmp(type, "escalation_needed") == 0) {
            hit = has_keyword(kw, last->text);
        } else if (strcmp(type, "goal_achieved") == 0) {
            for (size_t i = 0; i < t->n_turns && !hit; i++)
                hit = has_keyword(kw, t->turns[i].input) || has_keyword(kw, t->turns[i].text);
        } else if (strcmp(type, "custom_condition") != 0 && strcmp(type, "max_turns_reached") != 0) {
            hit = has_keyword(kw, last->input) || has_keyword(kw, last->text);
        }
        if (hit) {
            snprintf(t->term, sizeof t->term, "%s", type);
            emit_begin(t, "termination");
            emit_str(t, "type", type);
            jw_ku64(&t->jw, "turn", t->n_turns);
            emit_str(t, "by", by);
            emit_end(t);
            return 1;
        }
    }
    return 0;
}

static cJSON *history(const AutT *t)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < t->n_turns; i++) {
        cJSON *u = cJSON_CreateObject(), *g = cJSON_CreateObject();
        cJSON_AddStringToObject(u, "role", "user");
        cJSON_AddStringToObject(u, "content", t->turns[i].input ? t->turns[i].input : "");
        cJSON_AddStringToObject(g, "role", "assistant");
        cJSON_AddStringToObject(g, "content", t->turns[i].text ? t->turns[i].text : "");
        cJSON_AddItemToArray(a, u);
        cJSON_AddItemToArray(a, g);
    }
    return a;
}

/* The simulated user's request for the next turn (docs/aut.md, "Dialogues"). */
static cJSON *sim_request(const AutT *t, const cJSON *conv, unsigned next, int max)
{
    cJSON *rq = cJSON_CreateObject();
    if (t->yao) {
        const cJSON *sim = cJSON_GetObjectItemCaseSensitive(t->settings, "simulator");
        const cJSON *md = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(sim, "options"), "metadata");
        const char *use = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sim, "use"));
        if ((!use || !*use) && t->o.simulator)
            use = t->o.simulator;           /* --simulator: the default simulator agent */
        cJSON_AddStringToObject(rq, "use", use ? use : "");
        const cJSON *persona = cJSON_GetObjectItemCaseSensitive(md, "persona"),
                    *goal = cJSON_GetObjectItemCaseSensitive(md, "goal");
        cJSON_AddItemToObject(rq, "persona", persona ? cJSON_Duplicate(persona, true) : cJSON_CreateNull());
        cJSON_AddItemToObject(rq, "goal", goal ? cJSON_Duplicate(goal, true) : cJSON_CreateNull());
        cJSON *reached = cJSON_AddArrayToObject(rq, "checkpoints_reached");
        cJSON *pending = cJSON_AddArrayToObject(rq, "checkpoints_pending");
        for (size_t i = 0; i < t->n_pend; i++) {
            const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t->pend[i].ck, "id"));
            cJSON_AddItemToArray(t->pend[i].reached ? reached : pending, cJSON_CreateString(id ? id : ""));
        }
    } else {
        const cJSON *us = cJSON_GetObjectItemCaseSensitive(conv, "user_simulator");
        cJSON_AddItemToObject(rq, "user_simulator", us ? cJSON_Duplicate(us, true) : cJSON_CreateNull());
    }
    cJSON_AddItemToObject(rq, "conversation", history(t));
    cJSON_AddNumberToObject(rq, "turn_number", next);
    cJSON_AddNumberToObject(rq, "max_turns", max);
    return rq;
}

static void dialogue(AutT *t)
{
    const cJSON *conv = t->yao ? t->settings : cJSON_GetObjectItemCaseSensitive(t->settings, "conversation");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(conv, "max_turns");
    int max = cJSON_IsNumber(mt) && mt->valuedouble >= 1 && mt->valuedouble <= 1000 ? (int)mt->valuedouble : 20;
    const char *kind = t->yao ? "yao_simulator" : "user_simulator";
    bool cut = false;                   /* the simulated user had no reply: the rest is not judged */
    unsigned base = t->n_turns ? 1 : 0;  /* 0: no input of its own, the simulator makes the first */
    for (unsigned turn = base;; turn++) {
        if (t->v == V_ERROR)
            break;
        if (turn == 0) {
            /* nothing played yet: straight to the simulator */
        } else if (t->yao) {
            reach_checkpoints(t, turn);
            if (all_required_reached(t))
                break;
        } else {
            for (size_t i = 0; i < t->n_pend; i++) {
                const char *sc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t->pend[i].ck, "scope"));
                if (sc && strcmp(sc, "turn") == 0)
                    decide(t, t->pend[i].ck, t->pend[i].line);
            }
            int tm = terminated(t, conv);
            if (tm < 0)
                cut = true;
            if (tm)
                break;
        }
        if (turn && (int)turn >= max) {
            if (t->yao) {
                char why[120];
                snprintf(why, sizeof why, "max turns (%d) exceeded without reaching all checkpoints", max);
                worsen(t, V_FAILED, why);
            }
            break;
        }
        /* the next message: written in the scenario (an scc extension:
        ** `script`), else the tape's */
        const cJSON *script = cJSON_GetObjectItemCaseSensitive(
            t->yao ? cJSON_GetObjectItemCaseSensitive(t->settings, "simulator")
                   : cJSON_GetObjectItemCaseSensitive(conv, "user_simulator"),
            "script");
        JudgeResult jr;
        memset(&jr, 0, sizeof jr);
        const cJSON *rp;
        if (cJSON_IsArray(script)) {
            rp = cJSON_GetArrayItem(script, (int)(turn - base));
            if (!rp) {                      /* the script ran out */
                if (t->yao)
                    worsen(t, V_FAILED, "the simulator's script ran out before all required checkpoints were reached");
                break;
            }
        } else {
            cJSON *rq = sim_request(t, conv, turn + 1, max);
            JudgeRun run = judge_run(t);
            rp = judge_tape(&run, kind, rq, &jr);
            cJSON_Delete(rq);
        }
        emit_begin(t, "simulator");
        jw_ku64(&t->jw, "turn", (uint64_t)turn + 1);
        if (cJSON_IsArray(script))
            emit_str(t, "from", "script");
        if (!rp) {
            emit_str(t, "verdict", "skipped");
            emit_str(t, "message", jr.message);
            emit_str(t, "tape_kind", jr.kind);
            emit_str(t, "tape_key", jr.key);
            emit_str(t, "tape_request", jr.request);
            emit_end(t);
            worsen(t, V_SKIPPED, jr.message);
            judge_result_fini(&jr);
            cut = true;
            break;
        }
        judge_result_fini(&jr);
        const char *msg = cJSON_IsString(rp) ? rp->valuestring
                                             : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rp, "message"));
        bool goal = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rp, "goal_achieved"));
        emit_str(t, "message", msg);
        jw_kbool(&t->jw, "goal_achieved", goal);
        emit_end(t);
        if (t->yao && goal) {
            if (!all_required_reached(t))
                worsen(t, V_FAILED, "simulator signaled goal achieved but not all required checkpoints reached");
            break;
        }
        if (!msg || !*msg) {
            worsen(t, V_ERROR, "simulator error: the tape's reply has no message");
            snprintf(t->error, sizeof t->error, "E_AUT_PROTOCOL");
            break;
        }
        if (!open_aut(t))
            break;
        t->next_source = turn ? "simulated" : "initial";
        send_extras(t, NULL, NULL);
        play_turn(t, msg);
    }
    if (t->yao) {
        for (size_t i = 0; i < t->n_pend; i++)
            if (!t->pend[i].reached)
                cp_event(t, &t->pend[i], cp_required(t->pend[i].ck) && !cut ? "failed" : "skipped",
                         cut ? "not reached: the conversation was cut short" : "not reached");
    } else {
        /* ElizaOS: the step's and the final evaluations judge the
        ** conversation's transcript, "Turn N:\nUser: ...\nAgent: ...\n"
        ** joined by "\n", as ElizaOS gives its evaluations (a conversation
        ** cut short keeps its transcript too, for the reports) */
        sc_free(t->transcript);
        t->transcript = judge_transcript(t->turns, t->n_turns);
        for (size_t i = 0; i < t->n_pend; i++) {
            const char *sc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t->pend[i].ck, "scope"));
            if (sc && strcmp(sc, "turn") == 0)
                continue;
            if (t->v != V_ERROR && !cut) {
                decide(t, t->pend[i].ck, t->pend[i].line);      /* final (and step) checks, once */
            } else {
                JudgeResult r;
                memset(&r, 0, sizeof r);
                r.verdict = JUDGE_SKIP;
                snprintf(r.message, sizeof r.message, "not judged: the conversation %s",
                         t->v == V_ERROR ? "ended in an error" : "was cut short");
                report_check(t, t->pend[i].ck, t->pend[i].line, &r);
            }
        }
    }
}

/* ---- what each op becomes (runtime/player.h) ---- */

static int op_case(void *ctx, const BcProgram *p, const BcInsn *in)
{
    case_begin(ctx, p, in);
    return 0;
}

static int op_user_input(void *ctx, const BcProgram *p, const BcInsn *in)
{
    turn(ctx, p, in);
    return 0;
}

static int op_eval(void *ctx, const BcProgram *p, const BcInsn *in)
{
    check(ctx, p, in);
    return 0;
}

/* The rest of a scenario is not the agent's: the agent under test is real
** and answers for itself. */
const Player aut_player = {
    .name = "aut",
    .op = {
        [OP_CASE] = { op_case, NULL },
        [OP_USER_INPUT] = { op_user_input, NULL },
        [OP_EVAL] = { op_eval, NULL },
        [OP_END] = { NULL, "the run's end is a_end's" },
    },
    .ignore = {
        { OPF_AGENT, "the agent's side: the real agent under test answers for itself" },
        { OPF_USER, "only prompts (USER_INPUT) reach the agent under test" },
        { OPF_HARNESS, "harness and terminal control: not the agent's" },
        { OPF_ACP, "ACP structure: the agent is reached over HTTP, not ACP" },
    },
};

static int a_op(RtTarget *base, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    (void)at_ms;
    AutT *t = (AutT *)base;
    player_op(&aut_player, t, p, in);
    if (t->o.events)
        fflush(t->o.events);
    return 0;
}

/* rel without its "." and empty parts ("a/./b", "a//b": "a/b"), as
** file_write_beneath takes it; NUL-terminated. */
static void plain_rel(const char *rel, Buf *out)
{
    buf_reset(out);
    for (const char *p = rel; *p;) {
        const char *sl = strchr(p, '/');
        size_t n = sl ? (size_t)(sl - p) : strlen(p);
        if (n && !(n == 1 && p[0] == '.')) {
            if (out->len)
                buf_putc(out, '/');
            buf_put(out, p, n);
        }
        p += n + (sl != NULL);
    }
    buf_putc(out, 0);
}

/* The scenario's ElizaOS metadata: its judgment strategy, and its
** virtual_fs written into a fresh folder (unless --workspace names one). */
static int a_begin(RtTarget *base, const BcProgram *p)
{
    AutT *t = (AutT *)base;
    t->workspace = t->o.workspace ? t->o.workspace : ".";
    BcVal cfg = bc_val(p, p->meta.config), j, strat, setup, vfs;
    if (bc_val_get(p, &cfg, "judgment", &j) && bc_val_get(p, &j, "strategy", &strat) && strat.tag == BC_V_STR)
        snprintf(t->judgment, sizeof t->judgment, "%s", p->str[strat.n].s);
    BcVal mocks;
    if (t->o.warn && !t->o.only_case && bc_val_get(p, &cfg, "setup", &setup) &&
        bc_val_get(p, &setup, "mocks", &mocks) && mocks.tag == BC_V_ARRAY && mocks.n > 0)
        fprintf(t->o.warn, "scvm: aut: %s: its %u setup.mocks are not applied: they replace services inside an "
                           "ElizaOS runtime, and this agent is reached from outside (docs/eliza.md)\n",
                p->str[p->meta.name].s, (unsigned)mocks.n);
    if (t->o.workspace || !bc_val_get(p, &cfg, "setup", &setup) || !bc_val_get(p, &setup, "virtual_fs", &vfs) ||
        vfs.tag != BC_V_MAP)
        return 0;
    Buf js;
    buf_init(&js);
    bc_val_json_at(p, &vfs, &js);
    cJSON *files = cJSON_ParseWithLength((const char *)js.data, js.len);
    buf_fini(&js);
    if (!files || cJSON_GetArraySize(files) == 0 || file_mkdtemp("scvm-aut", t->tmp, sizeof t->tmp) != 0) {
        int had = cJSON_GetArraySize(files) > 0;
        t->tmp[0] = 0;
        cJSON_Delete(files);
        if (had && t->o.warn)
            fprintf(t->o.warn, "scvm: aut: cannot make a workspace for virtual_fs: %s\n", strerror(errno));
        return had ? SC_IO : 0;
    }
    t->workspace = t->tmp;
    const cJSON *f;
    int st = 0;
    /* every path by the one workspace path policy (scn_path_resolve, as
    ** the Scenario-Format's), written below the workspace's descriptor,
    ** never through a link */
    int dfd = open(t->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    Buf full, rel;
    buf_init(&full);
    buf_init(&rel);
    cJSON_ArrayForEach(f, files) {
        const char *name = f->string;
        while (name && name[0] == '.' && name[1] == '/')
            name += 2;
        if (!name || !cJSON_IsString(f) || scn_path_resolve(t->tmp, name, &full)) {
            if (t->o.warn)
                fprintf(t->o.warn, "scvm: aut: virtual_fs path '%s' refused: it leaves the workspace\n", name ? name : "");
            st = SC_FAILED;
            continue;
        }
        plain_rel(name, &rel);
        int e = dfd < 0 ? errno
                : rel.oom ? ENOMEM
                          : file_write_beneath(dfd, (const char *)rel.data, f->valuestring, strlen(f->valuestring), 0644);
        if (e) {
            if (t->o.warn)
                fprintf(t->o.warn, "scvm: aut: %s/%s: cannot write: %s\n", t->tmp, name, strerror(e));
            st = SC_IO;
        }
    }
    if (dfd >= 0)
        close(dfd);
    buf_fini(&full);
    buf_fini(&rel);
    cJSON_Delete(files);
    return st;
}

static int a_end(RtTarget *base, const BcProgram *p)
{
    (void)p;
    AutT *t = (AutT *)base;
    case_end(t);
    /* ElizaOS's any_pass: the scenario passes when any evaluation passed
    ** (and no step erred); else every case must have passed.  A case
    ** skipped for want of a verdict is not a pass (the verdict could have
    ** gone either way), unless allow_skipped */
    const AutCounts *c = &t->counts;
    bool unjudged = c->unjudged && !t->o.allow_skipped;
    if (strcmp(t->judgment, "any_pass") == 0)
        return c->errors ? SC_FAILED : t->checks_passed_all ? SC_OK
               : c->unjudged && !c->failed && t->o.allow_skipped ? SC_OK : SC_FAILED;
    return c->failed || c->errors || unjudged ? SC_FAILED : SC_OK;
}

static void a_destroy(RtTarget *base)
{
    AutT *t = (AutT *)base;
    case_end(t);
    tape_free(t->scratch);
    if (t->tmp[0])
        file_remove_tree(t->tmp);
    buf_fini(&t->line);
    sc_free(t);
}

static const RtTargetVtbl AUT_VT = { "aut", a_begin, a_op, a_end, a_destroy };

RtTarget *rt_aut_new(const AutTargetOpts *o)
{
    AutT *t = sc_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->base.vt = &AUT_VT;
    t->o = *o;
    t->stopped = o->stopped;
    t->t0 = sc_now_ms();
    buf_init(&t->line);
    return &t->base;
}

void rt_aut_counts(const RtTarget *base, AutCounts *out)
{
    *out = ((const AutT *)base)->counts;
}

bool rt_aut_stopped(const RtTarget *base)
{
    return ((const AutT *)base)->stopped;
}
