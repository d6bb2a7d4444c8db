/* SPDX-License-Identifier: MIT */
/* cmd_aut.c - `scvm run -t aut`: the cases of an ElizaOS or Yao suite (or of
** any scenario with CASE ops) played against an agent under test
** (runtime/aut/aut_target.h; docs/aut.md).
**
** Each selected scenario gets its header line, then the target's events;
** stderr gets a line per case that did not pass and, at the end, the cases'
** totals "N passed, N failed, N skipped" (errors count as failed).  The
** exit status is 1 when a case failed or erred, or was skipped for want of
** a verdict (skipped is not passed) unless --allow-skipped, else 0; a tape
** that cannot be read is 3, one that is malformed 4. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "formats/bc_write.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "compiler/dialect_yao.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/aut/aut_target.h"
#include "runtime/rt_cancel.h"
#include "runtime/run/run_junit.h"
#include "runtime/run/run_pool.h"
#include "runtime/run/run_target.h"
#include "runtime/tape/tape.h"
#include "vm/vm.h"
#include "cli.h"
#include "eliza_logs.h"
#include "scvm.h"

/* The reports, built as the cases end. */
typedef struct Reports {
    const Opts *o;
    Buf results;                    /* --results: Yao's JSON Lines result records */
    Buf junit;                      /* --junit: the <testcase> elements */
    size_t cases, passed, failed, skipped, errors, timeouts;
    size_t unjudged;                /* of skipped: for want of a verdict (not asked for: skip: true ...) */
    uint64_t ms;
    const char *eliza_scenario;     /* the ElizaOS scenario whose steps are being reported */
    bool eliza_failed, eliza_erred, eliza_any, eliza_unjudged;
    char eliza_judgment[16];        /* a copy: the target that knew it is gone by the status line */
    ElizaLogs *logs;                /* --logs: ElizaOS's _logs_ files, kept until the run ends (NULL: none) */
    const BcProgram *prog;          /* the scenario whose cases are being reported, and its entry */
    uint32_t entry;
} Reports;

static bool is_eliza(const char *type)
{
    return !strcmp(type, "input") || !strcmp(type, "code") || !strcmp(type, "conversation");
}

/* s on one console line: line breaks, tabs and other control characters
** as blanks, at most n - 1 bytes (not cutting a UTF-8 sequence), so a
** multi-line input or message never lets the next status marker start
** mid-line.  Returns buf. */
static const char *one_line(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; s && *s && k + 1 < n; s++)
        buf[k++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
    if (s && ((unsigned char)*s & 0xc0) == 0x80) {
        /* cut inside a UTF-8 sequence: drop the part of it that fitted */
        while (k && ((unsigned char)buf[k - 1] & 0xc0) == 0x80)
            k--;
        if (k)
            k--;
    }
    buf[k] = 0;
    return buf;
}

/* ElizaOS's status line: PASS or FAIL by the judgment, as its runner
** says it; a scenario that is neither because a step went unjudged (a
** verdict the tape lacks) is SKIP, never PASS. */
static void eliza_status(Reports *r)
{
    bool any_pass = strcmp(r->eliza_judgment, "any_pass") == 0;
    const char *st = any_pass ? (r->eliza_erred ? "FAIL" : r->eliza_any ? "PASS"
                                 : r->eliza_unjudged && !r->eliza_failed ? "SKIP" : "FAIL")
                              : (r->eliza_failed ? "FAIL" : r->eliza_unjudged ? "SKIP" : "PASS");
    if (r->o->dry_run)
        st = "DRY";         /* nothing was run, so nothing passed */
    if (r->eliza_scenario)
        fprintf(stderr, "SCENARIO STATUS: %s\n", !strcmp(st, "DRY") ? "\u23ed\ufe0f SKIP (--dry-run: not run)"
                                                 : !strcmp(st, "PASS") ? "\u2705 PASS"
                                                 : !strcmp(st, "SKIP") ? "\u23ed\ufe0f SKIP (not judged)" : "\u274c FAIL");
    r->eliza_scenario = NULL;
    r->eliza_failed = r->eliza_erred = r->eliza_any = r->eliza_unjudged = false;
}

/* Each case as its own ecosystem reports it on the console (stderr), and
** into the result records and the JUnit report. */
/* -v: the case's turns as Yao's console draws them, each turn's input
** and verdict, the agent's answer (or its tool calls), and its checks;
** then the case's own checks. */
static void turn_tree(const AutCaseResult *c)
{
    cJSON *turns = c->turns_json ? cJSON_Parse(c->turns_json) : NULL;
    cJSON *fin = c->final_json ? cJSON_Parse(c->final_json) : NULL;
    const cJSON *tn, *a;
    char l1[80], l2[200];
    cJSON_ArrayForEach(tn, turns) {
        bool ok = !cJSON_GetObjectItemCaseSensitive(tn, "error");
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(tn, "assertions")) ok &= cJSON_IsTrue(
            cJSON_GetObjectItemCaseSensitive(a, "passed"));
        const char *src = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tn, "input_source"));
        fprintf(stderr, "  \u251c\u2500 Turn %d: %s\"%s\" \u2192 %s (%.0fms)\n",
                (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(tn, "turn")),
                src && !strcmp(src, "simulated") ? "[Simulated] " : src && !strcmp(src, "initial") ? "[Initial] " : "",
                one_line(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tn, "input")), l1, 50),
                ok ? "PASSED" : "FAILED", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(tn, "duration_ms")));
        const cJSON *tc = cJSON_GetObjectItemCaseSensitive(tn, "tool_calls"), *x;
        if (cJSON_GetArraySize(tc)) {
            fprintf(stderr, "  \u2502          Agent: [tool:");
            cJSON_ArrayForEach(x, tc) fprintf(stderr, " %s",
                                              one_line(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "name")),
                                                       l1, sizeof l1));
            fprintf(stderr, "]\n");
        }
        const char *out = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tn, "output"));
        if (out && *out)
            fprintf(stderr, "  \u2502          Agent: \"%s\"\n", one_line(out, l2, 100));
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tn, "awaiting_input")))
            fprintf(stderr, "  \u2502          awaiting input (%s)\n",
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tn, "awaiting_reason")));
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(tn, "assertions"))
            fprintf(stderr, "  \u2502          %s %s\n",
                    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "passed")) ? "\u2713" : "\u2717",
                    one_line(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "message")), l2, 120));
        fprintf(stderr, "  \u2502\n");
    }
    bool fok = true;
    cJSON_ArrayForEach(a, fin) fok &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "passed"));
    fprintf(stderr, "  \u2514\u2500 %s: %s\n", cJSON_GetArraySize(fin) ? "Final Assertions" : "Result",
            cJSON_GetArraySize(fin) ? (fok ? "PASSED" : "FAILED") : c->verdict);
    cJSON_ArrayForEach(a, fin)
        fprintf(stderr, "     %s %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "passed")) ? "\u2713" : "\u2717",
                one_line(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "message")), l2, 120));
    cJSON_Delete(turns);
    cJSON_Delete(fin);
}

static void on_case(void *ctx, const AutCaseResult *c)
{
    Reports *r = ctx;
    bool timeout = c->error && strcmp(c->error, "E_AUT_TIMEOUT") == 0;
    const char *status = !strcmp(c->verdict, "error") ? (timeout ? "timeout" : "error") : c->verdict;
    r->cases++;
    r->ms += c->duration_ms;
    r->passed += !strcmp(status, "passed");
    r->failed += !strcmp(status, "failed");
    r->skipped += !strcmp(status, "skipped");
    r->errors += !strcmp(status, "error");
    r->timeouts += timeout;
    bool unjudged = !strcmp(status, "skipped") && !c->on_purpose;
    r->unjudged += unjudged;
    if (is_eliza(c->type)) {
        /* ElizaOS: a heading per scenario, a line per evaluation, its status */
        if (!r->eliza_scenario || strcmp(r->eliza_scenario, c->scenario) != 0) {
            eliza_status(r);
            fprintf(stderr, "\u25b6\ufe0f RUNNING SCENARIO: %s\n", c->scenario);
            r->eliza_scenario = c->scenario;
        }
        if (!strcmp(c->type, "conversation") && c->output && c->output[0]) {
            /* ElizaOS shows it too; every status line after it on a line of its own */
            size_t ol = strlen(c->output);
            fprintf(stderr, "\U0001f4ac CONVERSATION (%s):\n%s%s", c->id, c->output, c->output[ol - 1] == '\n' ? "" : "\n");
        }
        bool said = false;              /* a check's line says why the step did not pass */
        char line[1024];
        for (unsigned i = 0; i < c->checks; i++) {
            fprintf(stderr, "%s: %s\n", !strcmp(c->verdicts[i], "passed") ? "\u2705 PASS"
                                        : !strcmp(c->verdicts[i], "skipped") ? "\u23ed\ufe0f SKIP"
                                                                            : "\u274c FAIL",
                    one_line(c->messages[i], line, sizeof line));
            said |= strcmp(c->verdicts[i], "passed") != 0;
        }
        if (!said && strcmp(status, "passed") != 0)
            fprintf(stderr, "%s: step %s: %s\n", !strcmp(status, "skipped") ? "\u23ed\ufe0f SKIP" : "\u274c FAIL",
                    c->id, one_line(c->why, line, sizeof line));
        r->eliza_unjudged |= unjudged;
        r->eliza_failed |= !strcmp(status, "failed") || !strcmp(status, "error") || !strcmp(status, "timeout");
        r->eliza_erred |= !strcmp(status, "error") || !strcmp(status, "timeout");
        r->eliza_any |= c->checks_passed > 0;
        snprintf(r->eliza_judgment, sizeof r->eliza_judgment, "%s", c->judgment ? c->judgment : "");
        if (r->logs && r->prog)
            eliza_logs_step(r->logs, r->prog, r->entry, c);
    } else {
        /* Yao: one line per case, its input cut at 50 */
        char up[16];
        size_t k = 0;
        for (; status[k] && k + 1 < sizeof up; k++)
            up[k] = (char)(status[k] >= 'a' && status[k] <= 'z' ? status[k] - 32 : status[k]);
        up[k] = 0;
        /* the case's name when it has one (Yao's "► [T001] Expense Flow (3 turns)"), else its input */
        char id[256], in[51], why[1024], label[80];
        if (c->name && c->total_turns > 1)
            snprintf(label, sizeof label, "%.50s (%u turns)", one_line(c->name, in, sizeof in), c->total_turns);
        else
            snprintf(label, sizeof label, "%s", one_line(c->name ? c->name : c->input, in, sizeof in));
        fprintf(stderr, "\u25ba [%s] %-50s %s (%llums)%s%s\n", one_line(c->id, id, sizeof id), label, up,
                (unsigned long long)c->duration_ms, strcmp(status, "passed") ? ": " : "",
                strcmp(status, "passed") ? one_line(c->why, why, sizeof why) : "");
        if (r->o->verbose)
            turn_tree(c);
    }
    if (r->o->results || r->o->run_json) {
        JsonW w;
        jw_open_obj(&w, &r->results);
        jw_kcstr(&w, "type", "result");
        jw_kcstr(&w, "id", c->id);
        jw_kcstr(&w, "scenario", c->scenario);
        jw_kcstr(&w, "status", status);
        if (!strcmp(status, "skipped"))
            jw_kbool(&w, "not_judged", unjudged);
        jw_ku64(&w, "duration_ms", c->duration_ms);
        jw_kcstr(&w, "input", c->input);
        jw_kcstr(&w, "output", c->output);
        jw_kcstr(&w, "error", strcmp(status, "passed") != 0 && c->why && *c->why ? c->why : NULL);
        if (c->name)
            jw_kcstr(&w, "name", c->name);
        /* Yao's per-turn records (docs/yao.md, "Results"): JSON the target made */
        jw_ku64(&w, "total_turns", c->total_turns);
        jw_kraw(&w, "turns", c->turns_json ? c->turns_json : "[]", c->turns_json ? strlen(c->turns_json) : 2);
        jw_kraw(&w, "final_assertions", c->final_json ? c->final_json : "[]", c->final_json ? strlen(c->final_json) : 2);
        jw_karr(&w, "checks");
        for (unsigned i = 0; i < c->checks; i++) {
            jw_obj(&w);
            jw_kcstr(&w, "verdict", c->verdicts[i]);
            jw_kcstr(&w, "message", c->messages[i]);
            jw_end(&w);
        }
        jw_end(&w);
        jw_end(&w);
        jw_nl(&w);
    }
    if (r->o->junit) {
        char cls[512];
        junit_classname(cls, sizeof cls, r->o->ops[0], c->scenario);
        JunitCase jc = {
            .classname = cls, .name = c->id, .ms = c->duration_ms, .message = c->why, .type = status,
            .verdict = !strcmp(status, "passed")    ? JUNIT_PASSED
                       : !strcmp(status, "failed")  ? JUNIT_FAILURE
                       : !strcmp(status, "skipped") ? JUNIT_SKIPPED
                                                    : JUNIT_ERROR,
        };
        junit_case(&r->junit, &jc);
    }
}

/* The totals, as run.json's summary and the results' last line have them. */
static void put_totals(JsonW *w, const Reports *r)
{
    jw_ku64(w, "total", r->cases);
    jw_ku64(w, "passed", r->passed);
    jw_ku64(w, "failed", r->failed);
    jw_ku64(w, "skipped", r->skipped);
    jw_ku64(w, "not_judged", r->unjudged);
    jw_ku64(w, "errors", r->errors);
    jw_ku64(w, "timeouts", r->timeouts);
}

static int write_reports(Reports *r)
{
    int st = 0;
    if (r->o->run_json) {
        /* the records as one array, the totals, the run's status */
        Buf b;
        buf_init(&b);
        bool failed = r->failed + r->errors + r->timeouts > 0;
        JsonW w;
        jw_open_obj(&w, &b);
        jw_ku64(&w, "run_result_version", 1);
        jw_kcstr(&w, "target", "aut");
        jw_kcstr(&w, "status", failed ? "failed" : r->unjudged ? "skipped" : "passed");
        jw_kbool(&w, "allow_skipped", r->o->allow_skipped);
        jw_kcstr(&w, "judge", r->o->record ? "record" : r->o->judge_url ? "live" : "tape");
        jw_kcstr(&w, "via", r->o->via ? r->o->via : "none");
        jw_key(&w, "agent");
        if (r->o->agent_url) {
            jw_cstr(&w, r->o->agent_url);
        } else if (r->o->agent) {
            jw_cstr(&w, r->o->agent);   /* the profile */
        } else if (r->o->command) {
            jw_arr(&w);
            for (char *const *a = r->o->command; *a; a++)
                jw_cstr(&w, *a);
            jw_end(&w);
        } else {
            jw_null(&w);
        }
        jw_ku64(&w, "duration_ms", r->ms);
        jw_kobj(&w, "summary");
        put_totals(&w, r);
        jw_end(&w);
        /* each record line, without its "type" member, on a line of its own */
        jw_karr(&w, "cases");
        const char *p = (const char *)r->results.data, *end = p ? p + r->results.len : NULL;
        while (p && p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *rec = strstr(p, ",\"id\":");
            if (rec && nl && rec < nl) {
                jw_value(&w);
                buf_puts(&b, "\n{");
                buf_put(&b, rec + 1, (size_t)(nl - rec - 1));
            }
            p = nl ? nl + 1 : end;
        }
        jw_end(&w);
        jw_end(&w);
        jw_nl(&w);
        int e = b.oom ? ENOMEM : file_write_atomic(r->o->run_json, b.data, b.len);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", r->o->run_json, strerror(e));
            st = SC_IO;
        }
        buf_fini(&b);
    }
    if (r->o->results) {
        Buf b;
        JsonW w;
        jw_new_obj(&w, &b);
        jw_kcstr(&w, "type", "start");
        jw_ku64(&w, "total_cases", r->cases);
        jw_end(&w);
        jw_nl(&w);
        buf_put(&b, r->results.data, r->results.len);
        jw_obj(&w);
        jw_kcstr(&w, "type", "summary");
        put_totals(&w, r);
        jw_ku64(&w, "duration_ms", r->ms);
        jw_end(&w);
        jw_nl(&w);
        int e = b.oom ? ENOMEM : file_write_atomic(r->o->results, b.data, b.len);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", r->o->results, strerror(e));
            st = SC_IO;
        }
        buf_fini(&b);
    }
    if (r->o->junit) {
        Buf b;
        buf_init(&b);
        /* a timeout is written as an <error> too */
        JunitTotals t = { .tests = r->cases, .failures = r->failed, .errors = r->errors + r->timeouts,
                          .skipped = r->skipped, .ms = r->ms };
        junit_begin(&b, &t);
        junit_suite_begin(&b, r->o->ops[0], &t);
        buf_put(&b, r->junit.data, r->junit.len);
        junit_suite_end(&b);
        junit_end(&b);
        int e = junit_write(r->o->junit, &b);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", r->o->junit, strerror(e));
            st = SC_IO;
        }
        buf_fini(&b);
    }
    return st;
}

/* ---------- units of work ---------- */

/* What one process plays: a whole scenario, or one case of a Yao suite
** (its cases are independent, as Yao runs them with --parallel; an
** ElizaOS scenario's steps share a workspace and run in order). */
typedef struct Unit {
    uint32_t entry;             /* the suite's entry */
    unsigned only;              /* the case's ordinal, 1 for the first; 0: the whole scenario */
    bool first;                 /* the scenario's first unit: its header line goes before it */
} Unit;

/* The scenario's units appended to *u (grown); false when out of memory. */
static bool units_of(const Suite *s, uint32_t idx, Unit **u, size_t *n, size_t *cap)
{
    const BcProgram *p = suite_entry(s, idx)->prog;
    unsigned cases = 0;
    bool yao = true;
    for (uint32_t i = 0; i < p->n_insn; i++) {
        if (p->insn[i].op != OP_CASE)
            continue;
        const char *type = p->str[p->insn[i].a[1]].s;
        cases++;
        yao &= strcmp(type, "standard") == 0 || strcmp(type, "dynamic") == 0;
    }
    unsigned k = yao && cases > 1 ? cases : 1;
    if (*n + k > *cap) {
        size_t nc = (*n + k) * 2;
        Unit *nu = sc_realloc(*u, nc * sizeof *nu);
        if (!nu)
            return false;
        *u = nu;
        *cap = nc;
    }
    for (unsigned c = 0; c < k; c++)
        (*u)[(*n)++] = (Unit){ idx, k > 1 ? c + 1 : 0, c == 0 };
    return true;
}

typedef struct Run {
    const Opts *o;
    const Suite *s;
    FILE *out;
    AutTargetOpts to;
    Reports rep;
    Tape *tape;
    int worst;
    bool stopped;               /* --fail-fast: a case failed; the rest are listed as skipped */
} Run;

static void header(Run *r, const Unit *u)
{
    if (!u->first)
        return;
    const PackEntry *e = suite_entry(r->s, u->entry);
    Buf h;
    JsonW w;
    jw_new_obj(&w, &h);
    jw_kcstr(&w, "kind", "scenario");
    jw_ku64(&w, "index", u->entry);
    jw_kcstr(&w, "name", e->name);
    jw_kcstr(&w, "source", e->source);
    jw_end(&w);
    jw_nl(&w);
    fwrite(h.data, 1, h.len, r->out);
    buf_fini(&h);
}

/* A unit played in this process. */
static int play_here(Run *r, const Unit *u)
{
    header(r, u);
    r->rep.prog = suite_entry(r->s, u->entry)->prog;
    r->rep.entry = u->entry;
    if (u->first)
        eliza_logs_scenario(r->rep.logs, r->rep.prog, u->entry);
    AutTargetOpts to = r->to;
    to.events = r->out;
    to.only_case = u->only;
    if (r->o->jobs > 1)
        to.human = NULL;                /* cases at once: none may read the terminal (--interactive asks no one) */
    to.stopped = r->stopped;
    RtTarget *t = run_target("aut")->create(&to);
    if (!t)
        return SC_RUNTIME;
    VmOpts vo = { .speed = 0 };
    int st = vm_run(suite_entry(r->s, u->entry)->prog, t, NULL, &vo);
    r->stopped = rt_aut_stopped(t);
    t->vt->destroy(t);
    fflush(r->out);
    return st;
}

/* In a child: each case's result as a JSON line, for the parent's reports. */
static void child_case(void *ctx, const AutCaseResult *c)
{
    cJSON *j = cJSON_CreateObject(), *m = cJSON_AddArrayToObject(j, "messages"),
          *v = cJSON_AddArrayToObject(j, "verdicts"), *ty = cJSON_AddArrayToObject(j, "types"),
          *sc = cJSON_AddArrayToObject(j, "scopes");
    cJSON_AddStringToObject(j, "id", c->id);
    cJSON_AddStringToObject(j, "type", c->type);
    cJSON_AddStringToObject(j, "verdict", c->verdict);
    if (c->error)
        cJSON_AddStringToObject(j, "error", c->error);
    cJSON_AddStringToObject(j, "why", c->why ? c->why : "");
    if (c->input)
        cJSON_AddStringToObject(j, "input", c->input);
    if (c->output)
        cJSON_AddStringToObject(j, "output", c->output);
    cJSON_AddNumberToObject(j, "duration_ms", (double)c->duration_ms);
    cJSON_AddNumberToObject(j, "checks_passed", c->checks_passed);
    cJSON_AddStringToObject(j, "judgment", c->judgment ? c->judgment : "");
    cJSON_AddBoolToObject(j, "on_purpose", c->on_purpose);
    if (c->name)
        cJSON_AddStringToObject(j, "name", c->name);
    if (c->turns_json)
        cJSON_AddStringToObject(j, "turns", c->turns_json);
    if (c->final_json)
        cJSON_AddStringToObject(j, "final", c->final_json);
    cJSON_AddNumberToObject(j, "total_turns", c->total_turns);
    if (c->has_exit_code)
        cJSON_AddNumberToObject(j, "exit_code", c->exit_code);
    if (c->files_json)
        cJSON_AddStringToObject(j, "files", c->files_json);
    if (c->termination)
        cJSON_AddStringToObject(j, "termination", c->termination);
    cJSON_AddNumberToObject(j, "ended_at_ms", (double)c->ended_at_ms);
    for (unsigned i = 0; i < c->checks; i++) {
        cJSON_AddItemToArray(m, cJSON_CreateString(c->messages[i]));
        cJSON_AddItemToArray(v, cJSON_CreateString(c->verdicts[i]));
        cJSON_AddItemToArray(ty, cJSON_CreateString(c->check_types ? c->check_types[i] : ""));
        cJSON_AddItemToArray(sc, cJSON_CreateString(c->check_scopes ? c->check_scopes[i] : ""));
    }
    char *text = cJSON_PrintUnformatted(j);
    if (text)
        fprintf(ctx, "%s\n", text);
    else
        fputs("{}\n", ctx);        /* out of memory: the parent reports the case in error */
    cJSON_free(text);
    cJSON_Delete(j);
}

/* A unit in a child process: events to ev, stderr to dg, the cases'
** results to rs, a recorded tape's new state to tp. */
static int play_child(Run *r, const Unit *u, const char *ev, const char *dg, const char *rs, const char *tp)
{
    FILE *out = fopen(ev, "w"), *diag = fopen(dg, "w"), *res = fopen(rs, "w");
    if (!out || !diag || !res || dup2(fileno(diag), STDERR_FILENO) < 0)
        return SC_IO;
    fclose(diag);
    if (rt_cancel_install() != 0) {     /* this process's own pipe */
        fprintf(stderr, "scvm: cannot catch signals: %s\n", strerror(errno));
        return SC_RUNTIME;
    }
    AutTargetOpts to = r->to;
    to.aut.cancel_fd = rt_cancel_fd();
    to.events = out;
    to.on_case = child_case;
    to.ctx = res;
    to.only_case = u->only;
    if (r->o->jobs > 1)
        to.human = NULL;                /* cases at once: none may read the terminal (--interactive asks no one) */
    RtTarget *t = run_target("aut")->create(&to);
    if (!t)
        return SC_RUNTIME;
    VmOpts vo = { .speed = 0 };
    int st = vm_run(suite_entry(r->s, u->entry)->prog, t, NULL, &vo);
    t->vt->destroy(t);
    if (r->tape && r->o->record && tape_changed(r->tape) && tape_save(r->tape, tp) != 0 && st < SC_IO)
        st = SC_IO;
    if (fclose(out) != 0 || fclose(res) != 0)
        st = st < SC_IO ? SC_IO : st;
    return st;
}

/* The results a child wrote, reported as if its cases had run here. */
static bool report_child(Run *r, const Unit *u, const char *rs, bool *failed)
{
    char *data = NULL;
    size_t len = 0;
    if (file_read_all(rs, (size_t)1 << 30, &data, &len) != 0)
        return false;
    const BcProgram *p = suite_entry(r->s, u->entry)->prog;
    bool ok = true;
    for (char *line = data, *nl; ok && line < data + len; line = nl + 1) {
        nl = memchr(line, '\n', (size_t)(data + len - line));
        if (!nl)
            break;
        cJSON *j = cJSON_ParseWithLength(line, (size_t)(nl - line));
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "messages"),
                    *v = cJSON_GetObjectItemCaseSensitive(j, "verdicts"),
                    *ty = cJSON_GetObjectItemCaseSensitive(j, "types"),
                    *sc = cJSON_GetObjectItemCaseSensitive(j, "scopes"),
                    *ex = cJSON_GetObjectItemCaseSensitive(j, "exit_code");
        int n = cJSON_GetArraySize(m);
        const char **ms = sc_calloc((size_t)n + 1, sizeof *ms), **vs = sc_calloc((size_t)n + 1, sizeof *vs);
        const char **ts = sc_calloc((size_t)n + 1, sizeof *ts), **ss = sc_calloc((size_t)n + 1, sizeof *ss);
#define S(k) cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, k))
        AutCaseResult c = {
            .scenario = p->str[p->meta.name].s, .id = S("id"), .type = S("type"), .verdict = S("verdict"),
            .error = S("error"), .why = S("why"), .input = S("input"), .output = S("output"),
            .duration_ms = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "duration_ms")),
            .checks = (unsigned)n, .messages = ms, .verdicts = vs, .judgment = S("judgment"),
            .checks_passed = (unsigned)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "checks_passed")),
            .on_purpose = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "on_purpose")),
            .name = S("name"), .turns_json = S("turns"), .final_json = S("final"),
            .total_turns = (unsigned)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "total_turns")),
            .check_types = ts, .check_scopes = ss, .has_exit_code = cJSON_IsNumber(ex),
            .exit_code = cJSON_IsNumber(ex) ? (int)ex->valuedouble : 0, .files_json = S("files"),
            .termination = S("termination"),
            .ended_at_ms = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "ended_at_ms"))
                               ? (int64_t)cJSON_GetObjectItemCaseSensitive(j, "ended_at_ms")->valuedouble : 0,
        };
#undef S
        for (int i = 0; ms && vs && ts && ss && i < n; i++) {
            ms[i] = cJSON_GetStringValue(cJSON_GetArrayItem(m, i));
            vs[i] = cJSON_GetStringValue(cJSON_GetArrayItem(v, i));
            ts[i] = cJSON_GetStringValue(cJSON_GetArrayItem(ty, i));
            ss[i] = cJSON_GetStringValue(cJSON_GetArrayItem(sc, i));
            ok &= ms[i] && vs[i] && ts[i] && ss[i];
        }
        ok &= ms && vs && ts && ss && c.id && c.type && c.verdict && c.why;
        if (ok) {
            r->rep.prog = p;
            r->rep.entry = u->entry;
            on_case(&r->rep, &c);
            *failed |= !strcmp(c.verdict, "failed") || !strcmp(c.verdict, "error");
        }
        sc_free(ms);
        sc_free(vs);
        sc_free(ts);
        sc_free(ss);
        cJSON_Delete(j);
    }
    sc_free(data);
    return ok;
}

/* The units on the run library's pool, each in a process of its own
** (runtime/run/run_pool.h); each one's header, events, diagnostics and
** results are written in unit order, so the output does not depend on
** -j.  A signal is passed on to the running children and nothing new
** starts; --fail-fast ends the running ones and lists the rest as
** skipped, as a run one at a time does.  A child's files are tmp/ev-K
** (events), dg-K (its stderr), rs-K (its cases' results) and tp-K (a
** recorded tape's new state). */
typedef struct AutPar {
    Run *r;
    const Unit *u;
    const char *tmp;
} AutPar;

static void aut_paths(const AutPar *ap, size_t k, char (*p)[PATH_MAX])
{
    static const char *const NAME[4] = { "ev", "dg", "rs", "tp" };
    for (int i = 0; i < 4; i++)
        snprintf(p[i], PATH_MAX, "%s/%s-%zu", ap->tmp, NAME[i], k);
}

static int aut_work(void *ctx, size_t k)
{
    AutPar *ap = ctx;
    char p[4][PATH_MAX];
    aut_paths(ap, k, p);
    return play_child(ap->r, &ap->u[k], p[0], p[1], p[2], p[3]);
}

/* The next unit in order has ended: out with it. */
static bool aut_emit(void *ctx, size_t k, int status, uint64_t wall_ms)
{
    AutPar *ap = ctx;
    Run *r = ap->r;
    const Opts *o = r->o;
    (void)wall_ms;
    char p[4][PATH_MAX];
    aut_paths(ap, k, p);
    header(r, &ap->u[k]);
    char *d = NULL;
    size_t dl = 0;
    if (file_read_all(p[0], (size_t)1 << 30, &d, &dl) == 0 && dl)
        fwrite(d, 1, dl, r->out);
    sc_free(d);
    fflush(r->out);
    d = NULL;
    dl = 0;
    if (file_read_all(p[1], (size_t)1 << 30, &d, &dl) == 0 && dl)
        fwrite(d, 1, dl, stderr);
    sc_free(d);
    bool failed = false;
    if (ap->u[k].first)
        eliza_logs_scenario(r->rep.logs, suite_entry(r->s, ap->u[k].entry)->prog, ap->u[k].entry);
    if (!report_child(r, &ap->u[k], p[2], &failed) && !status) {
        fprintf(stderr, "scvm: aut: the process of scenario %u's case %u left no results\n",
                (unsigned)ap->u[k].entry, ap->u[k].only);
        status = SC_RUNTIME;
    }
    if (r->tape && o->record && access(p[3], F_OK) == 0) {
        char err[1024];
        Tape *rec = tape_load(p[3], false, err, sizeof err);
        if (rec)
            tape_merge(r->tape, rec);
        else
            fprintf(stderr, "scvm: %s\n", err);
        tape_free(rec);
    }
    if (status > r->worst)
        r->worst = status;
    for (int i = 0; i < 4; i++)
        remove(p[i]);
    if (failed && o->fail_fast && !r->stopped) {
        /* as one at a time: the rest are not run; the running ones end */
        r->stopped = true;
        return true;
    }
    return false;
}

static void aut_skip(void *ctx, size_t k, RunSkip why)
{
    AutPar *ap = ctx;
    (void)why;              /* a signal: nothing more is reported */
    if (ap->r->stopped)
        play_here(ap->r, &ap->u[k]);     /* listed as skipped: reaches no agent */
}

static void play_parallel(Run *r, const Unit *u, size_t n)
{
    char tmp[PATH_MAX - 64];
    int te = file_mkdtemp("scvm-aut-j", tmp, sizeof tmp), made = te == 0;
    AutPar ap = { .r = r, .u = u, .tmp = tmp };
    RunPool pool = { .mode = RUN_POOL_PROCESSES, .n = n, .jobs = r->o->jobs, .ctx = &ap, .work = aut_work,
                     .emit = aut_emit, .skip = aut_skip };
    if (!te)
        te = run_pool(&pool);
    if (te) {
        fprintf(stderr, "scvm: cannot start the cases' processes: %s\n", strerror(te));
        r->worst = SC_RUNTIME;
    }
    if (made)
        file_remove_tree(tmp);
}

int scvm_run_aut(const Opts *o, const Suite *s, const uint32_t *sel, size_t n)
{
    Unit *all = NULL, *u = NULL;
    size_t na = 0, cap = 0, nu = 0;
    for (size_t k = 0; k < n; k++)
        if (!units_of(s, sel ? sel[k] : (uint32_t)k, &all, &na, &cap)) {
            sc_free(all);
            fputs("scvm: out of memory\n", stderr);
            return SC_RUNTIME;
        }
    /* --filter: ElizaOS's, the matrix's combinations whose parameters hold
    ** the pattern (eliza_logs.h) */
    if (o->filter) {
        size_t kept = 0, scen = 0, kept_scen = 0;
        for (size_t k = 0; k < na; k++) {
            bool hit = eliza_filter_match(suite_entry(s, all[k].entry)->prog, o->filter);
            scen += all[k].first;
            kept_scen += hit && all[k].first;
            if (hit)
                all[kept++] = all[k];
        }
        fprintf(stderr, "\U0001f50d Applying filter: %s: %zu of %zu scenarios\n", o->filter, kept_scen, scen);
        na = kept;
    }
    /* --shard: every Nth unit (a Yao suite's cases, ElizaOS scenarios) */
    u = all;
    for (size_t k = 0; k < na; k++)
        if (!o->shard_n || k % o->shard_n == o->shard_i - 1) {
            u[nu] = all[k];
            u[nu].first = nu == 0 || u[nu - 1].entry != all[k].entry;
            nu++;
        }
    Tape *tape = NULL;
    if (o->tape) {
        char err[1024];
        tape = tape_load(o->tape, o->record, err, sizeof err);     /* recording may start one */
        if (!tape) {
            sc_free(all);
            fprintf(stderr, "scvm: %s\n", err);
            return strstr(err, ": cannot read: ") ? SC_IO : SC_REJECTED;
        }
    }
    if (rt_cancel_install() != 0) {
        sc_free(all);
        tape_free(tape);
        fputs("scvm: cannot catch signals\n", stderr);
        return SC_RUNTIME;
    }
    FILE *out = stdout;
    if (o->output && strcmp(o->output, "-") != 0 && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "scvm: %s: cannot write\n", o->output);
        sc_free(all);
        tape_free(tape);
        return SC_IO;
    }
    AgentProfile *prof = NULL;
    if (o->agent) {
        char err[1024];
        if (!(prof = agent_profile_load(o->agent, err, sizeof err))) {
            fprintf(stderr, "scvm: %s\n", err);
            if (out != stdout)
                fclose(out);
            sc_free(all);
            tape_free(tape);
            return SC_USAGE;
        }
        agent_profile_set_interactive(prof, true);
    }
    AutKind kind = !o->via || strcmp(o->via, "http") == 0 ? AUT_HTTP : strcmp(o->via, "acp") == 0 ? AUT_ACP : AUT_PTY;
    Run r = {
        .o = o, .s = s, .out = out, .tape = tape,
        .to = {
            .aut = { .kind = kind, .url = o->agent_url, .model = o->agent_model, .argv = o->command,
                     .timeout_ms = o->turn_timeout_ms, .cancel_fd = rt_cancel_fd(), .cwd = o->workspace,
                     .profile = prof, .model_url = o->model_url, .bin = o->agent_bin },
            .workspace = o->workspace, .tape = tape, .warn = stderr,
            .judge_url = o->judge_url, .judge_model = o->judge_model, .record = o->record,
            .allow_skipped = o->allow_skipped,
            .on_case = on_case, .fail_fast = o->fail_fast, .dry_run = o->dry_run,
            .connector = o->connector, .simulator = o->simulator, .case_timeout_ms = o->case_timeout_ms,
            .skip_interactive = o->skip_interactive, .human = o->interactive ? stdin : NULL,
            .on_missing_input = !o->on_missing_input ? 0 : !strcmp(o->on_missing_input, "skip") ? 1 : 2,
        },
        .rep = { .o = o },
    };
    if (o->logs && !o->dry_run && !(r.rep.logs = eliza_logs_new(o->ops[0]))) {
        fputs("scvm: out of memory\n", stderr);
        sc_free(all);
        tape_free(tape);
        agent_profile_free(prof);
        if (out != stdout)
            fclose(out);
        return SC_RUNTIME;
    }
    buf_init(&r.rep.results);
    buf_init(&r.rep.junit);
    r.to.ctx = &r.rep;
    if (o->jobs > 1 && nu > 1 && !o->dry_run) {
        play_parallel(&r, u, nu);
    } else {
        for (size_t k = 0; k < nu && !rt_cancel_signal(); k++) {
            int st = play_here(&r, &u[k]);
            if (st > r.worst)
                r.worst = st;
        }
    }
    sc_free(all);
    int worst = r.worst;
    if (out != stdout && fclose(out) != 0 && !worst)
        worst = SC_IO;
    Reports *rep = &r.rep;
    eliza_status(rep);
    if (rep->failed + rep->errors + rep->timeouts)
        fputs("\u274c TESTS FAILED\n", stderr);
    else if (rep->unjudged)
        fprintf(stderr, "\u23ed\ufe0f TESTS NOT JUDGED: %zu skipped for want of a verdict%s\n", rep->unjudged,
                o->allow_skipped ? " (allowed: --allow-skipped)" : ": skipped is not passed (--allow-skipped accepts it)");
    else if (rep->cases && rep->passed + rep->skipped == rep->cases && rep->cases > rep->skipped)
        fputs("\u2728 ALL TESTS PASSED \u2728\n", stderr);
    int rs = write_reports(rep);
    if (rs > worst)
        worst = rs;
    if (rep->logs) {
        rs = eliza_logs_write(rep->logs, o->logs);
        if (rs > worst)
            worst = rs;
        eliza_logs_free(rep->logs);
    }
    buf_fini(&rep->results);
    buf_fini(&rep->junit);
    if (tape && o->record && tape_changed(tape)) {
        int e = tape_save(tape, o->tape);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write the tape: %s\n", o->tape, strerror(e));
            if (worst < SC_IO)
                worst = SC_IO;
        } else {
            fprintf(stderr, "scvm: tape: %s now holds %zu entr%s\n", o->tape, tape_size(tape),
                    tape_size(tape) == 1 ? "y" : "ies");
        }
    }
    if (o->dry_run)
        fprintf(stderr, "--dry-run: %zu cases listed, none run\n", rep->cases);
    fprintf(stderr, "%zu passed, %zu failed, %zu skipped\n", rep->passed, rep->failed + rep->errors + rep->timeouts,
            rep->skipped);
    tape_free(tape);
    agent_profile_free(prof);
    if (rt_cancel_signal())
        return 128 + rt_cancel_signal();
    return worst;
}

int scvm_aut_inline(const char *message, char *path, size_t n)
{
    BcBuilder *b = bcb_new();
    if (!b) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    size_t len = strlen(message);
    uint32_t text = bcb_str(b, message, len);
    bcb_val_begin(b);
    bcb_val_map(b, 2);
    bcb_val_key(b, bcb_cstr(b, "input"));
    bcb_val_str(b, text);
    bcb_val_key(b, bcb_cstr(b, "skip"));
    bcb_val_bool(b, false);
    uint32_t settings = bcb_val_end(b);
    bcb_op(b, OP_CASE, 0, 0, 0, bcb_cstr(b, "inline"), bcb_cstr(b, "standard"), settings);
    bcb_op(b, OP_USER_INPUT, 0, 0, 0, bcb_null(b), text, bcb_strval(b, text), bcb_null(b));
    bcb_op(b, OP_END, 0, 0, 0);
    yao_set_meta(b, "inline", 6, "-i", 1);
    unsigned char *bytes = NULL;
    size_t nb = 0;
    BcWriteOpts wo = { .verify = true };
    bool ok = bcb_finish(b, &wo, &bytes, &nb);
    if (!ok) {
        fprintf(stderr, "scvm: -i: %s\n", bcb_error(b) ? bcb_error(b) : "out of memory");
        bcb_free(b);
        return SC_RUNTIME;
    }
    bcb_free(b);
    const char *tmp = getenv("TMPDIR");
    snprintf(path, n, "%s/scvm-inline-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    bool wrote = fd >= 0 && write(fd, bytes, nb) == (ssize_t)nb;
    if (fd >= 0 && close(fd) != 0)
        wrote = false;
    sc_free(bytes);
    if (!wrote) {
        fprintf(stderr, "scvm: -i: cannot write %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            unlink(path);
        path[0] = 0;
        return SC_IO;
    }
    return 0;
}
