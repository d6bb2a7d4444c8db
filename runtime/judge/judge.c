/* SPDX-License-Identifier: MIT */
/* judge.c - ElizaOS evaluations and Yao assertions (judge.h, docs/judge.md).
**
** Where ElizaOS has two engines that disagree, the enhanced one (its
** default) is followed; where Yao is lenient (tool names, JSON extraction)
** its leniency is kept, so a suite moved here gets the verdicts it got
** there; where either depends on something not reproducible (map key
** order in Yao's `equals`), the canonical form decides.  Each decision is
** in docs/judge.md. */
#define _GNU_SOURCE
#include "runtime/judge/judge.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <strings.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "formats/agentcheck.h"
#include "formats/term/term_regex.h"
#include "runtime/rt_proc.h"
#include "runtime/scn_assert.h"

void judge_result_fini(JudgeResult *r)
{
    sc_free(r->request);
    r->request = NULL;
}

const char *judge_verdict_name(JudgeVerdict v)
{
    static const char *const n[] = { "passed", "failed", "skipped", "error" };
    return (unsigned)v < 4 ? n[v] : "error";
}

static void set(JudgeResult *r, JudgeVerdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(JudgeResult *r, JudgeVerdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->verdict = v;
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

static const char *last_text(const JudgeRun *run)
{
    if (run->response)
        return run->response;
    return run->n_turns ? (run->turns[run->n_turns - 1].text ? run->turns[run->n_turns - 1].text : "") : "";
}

static const char *str(const cJSON *o, const char *k)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* ASCII case-insensitive substring search. */
static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n)
        return true;
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, n) == 0)
            return true;
    return false;
}

static bool regex_search(const char *pat, bool icase, const char *text, char *err, size_t errlen, bool *ok)
{
    Buf p;
    buf_init(&p);
    if (icase)
        buf_puts(&p, "(?i)");
    buf_puts(&p, pat);
    TermRegex *re = term_regex_new((const char *)p.data, p.len, err, errlen);
    buf_fini(&p);
    if (!re && icase) {                 /* the error's offset in the pattern as written */
        TermRegex *bare = term_regex_new(pat, strlen(pat), err, errlen);
        term_regex_free(bare);
    }
    *ok = re != NULL;
    bool m = re && term_regex_search(re, text, strlen(text));
    term_regex_free(re);
    return m;
}

/* ---------- the workspace ---------- */

/* path inside the workspace into full, by the one path policy
** (scn_path_resolve: relative, no '..', not out through a symbolic link);
** NULL, or why it is refused. */
static const char *in_workspace(const JudgeRun *run, const char *path, Buf *full)
{
    if (!run->workspace)
        return "there is no workspace";
    return scn_path_resolve(run->workspace, path, full);
}

/* Runs command with sh -c in the workspace; its exit code, or -1 (with
** why) when it could not run or ran out of time (killed, with all it
** started). */
static int run_command(const JudgeRun *run, const char *command, char *why, size_t n)
{
    /* the one runner (runtime/rt_proc.h): what the command starts ends
    ** with it, and with scvm */
    char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)command, NULL };
    unsigned budget = run->command_timeout_ms ? run->command_timeout_ms : 30000;
    RtProcResult r;
    if (rt_proc_run(argv, run->workspace, budget, NULL, 0, &r) != 0) {
        snprintf(why, n, "cannot start a shell: %s", strerror(errno));
        return -1;
    }
    switch (r.end) {
    case RT_PROC_EXITED: return r.code;
    case RT_PROC_SIGNALED: snprintf(why, n, "killed by signal %d", r.code); break;
    case RT_PROC_TIMEOUT: snprintf(why, n, "did not end within %u ms", budget); break;
    case RT_PROC_CANCELLED: snprintf(why, n, "cancelled by signal %d", r.code); break;
    case RT_PROC_FAILED: snprintf(why, n, "cannot start a shell: %s", strerror(r.code)); break;
    }
    return -1;
}

/* ---------- llm_judge through the tape ---------- */

/* The tape's reply to request of kind, or NULL with out set to SKIP. */
const cJSON *judge_tape(const JudgeRun *run, const char *kind, const cJSON *request, JudgeResult *out)
{
    char key[65];
    const cJSON *rp = run->tape ? tape_take(run->tape, kind, request, key) : NULL;
    if (!run->tape)
        tape_key(kind, request, key);
    char why[300] = "";
    if (!rp && run->ask && run->tape) {
        /* recording: ask the live model once, keep its reply on the tape */
        cJSON *live = run->ask(run->ask_ctx, kind, request, why, sizeof why);
        char err[256];
        unsigned n = tape_count(run->tape, key);
        if (live && tape_add(run->tape, kind, request, n ? n - 1 : 0, live, err, sizeof err))
            rp = tape_reply(run->tape, kind, key, n ? n - 1 : 0);   /* the tape's copy, taken as this asking */
        else if (live)
            snprintf(why, sizeof why, "%s", err);
        cJSON_Delete(live);
    }
    if (!rp) {
        snprintf(out->key, sizeof out->key, "%s", key);
        snprintf(out->kind, sizeof out->kind, "%s", kind);
        Buf b;
        buf_init(&b);
        tape_canonical(request, &b);
        buf_putc(&b, 0);
        sc_free(out->request);
        out->request = b.oom ? NULL : sc_strdup((const char *)b.data);
        buf_fini(&b);
        if (run->live)
            set(out, JUDGE_SKIP, "%s: the live judge gave no reply for this request (key %s): %s", kind, key,
                why[0] ? why : "no answer");
        else if (why[0])
            set(out, JUDGE_SKIP, "%s: the tape has no reply for this request (key %s), and asking for one "
                                 "failed: %s", kind, key, why);
        else
            set(out, JUDGE_SKIP, "%s: the tape has no reply for this request (key %s)", kind, key);
    }
    return rp;
}

/* The enhanced judge's verdict: expected yes/no against overall_success,
** "x+" as confidence >= x, anything else overall_success.  A reply in the
** legacy shape ({judgment: yes|no, confidence}) is read the same way. */
static void llm_verdict(const cJSON *ev, const cJSON *rp, JudgeResult *out);

static void eliza_llm_judge(const cJSON *ev, const JudgeRun *run, JudgeResult *out)
{
    cJSON *rq = cJSON_CreateObject();
    static const char *const keep[] = { "prompt", "expected", "capabilities", "json_schema", "model_type",
                                        "temperature" };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, keep[i]);
        if (v)
            cJSON_AddItemToObject(rq, keep[i], cJSON_Duplicate(v, true));
    }
    cJSON_AddStringToObject(rq, "response", last_text(run));
    /* a verdict written in the scenario needs no tape: "yes"/"no" is the
    ** legacy judgment, an object the reply itself */
    const cJSON *inl = cJSON_GetObjectItemCaseSensitive(ev, "verdict");
    cJSON *yn = cJSON_IsString(inl) ? cJSON_CreateObject() : NULL;
    if (yn)
        cJSON_AddStringToObject(yn, "judgment", inl->valuestring);
    const cJSON *rp = yn ? yn : cJSON_IsObject(inl) ? inl : judge_tape(run, "llm_judge", rq, out);
    cJSON_Delete(rq);
    if (!rp)
        return;
    llm_verdict(ev, rp, out);
    cJSON_Delete(yn);
}

/* The judge's reply rp against the evaluation's expected. */
static void llm_verdict(const cJSON *ev, const cJSON *rp, JudgeResult *out)
{
    const cJSON *os = cJSON_GetObjectItemCaseSensitive(rp, "overall_success");
    const char *judgment = str(rp, "judgment");
    const cJSON *cf = cJSON_GetObjectItemCaseSensitive(rp, "confidence");
    if (!cJSON_IsBool(os) && !judgment) {
        set(out, JUDGE_ERROR, "llm_judge: the tape's reply has neither overall_success nor judgment");
        return;
    }
    bool success = cJSON_IsBool(os) ? cJSON_IsTrue(os) : strcasecmp(judgment, "yes") == 0;
    double conf = cJSON_IsNumber(cf) ? cf->valuedouble : 0.8;
    const char *exp = str(ev, "expected");
    if (exp && (strcasecmp(exp, "yes") == 0 || strcasecmp(exp, "no") == 0)) {
        bool want = strcasecmp(exp, "yes") == 0;
        set(out, success == want ? JUDGE_PASS : JUDGE_FAIL, "llm_judge: judged %s, expected %s (confidence %.2f)",
            success ? "yes" : "no", exp, conf);
    } else if (exp && strlen(exp) > 1 && exp[strlen(exp) - 1] == '+') {
        char *end;
        double x = strtod(exp, &end);
        if (*end != '+') {
            set(out, JUDGE_ERROR, "llm_judge: expected '%s' is not a number followed by +", exp);
            return;
        }
        set(out, conf >= x ? JUDGE_PASS : JUDGE_FAIL, "llm_judge: confidence %.2f, expected at least %g", conf, x);
    } else {
        set(out, success ? JUDGE_PASS : JUDGE_FAIL, "llm_judge: overall_success %s", success ? "true" : "false");
    }
}

/* ---------- helpers ---------- */

/* Action names as ElizaOS compares them: lower case, without '_'. */
static void action_norm(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; s && *s && k + 1 < n; s++)
        if (*s != '_')
            out[k++] = (char)tolower((unsigned char)*s);
    out[k] = 0;
}

static bool num(const cJSON *o, const char *k, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsNumber(x))
        *v = x->valuedouble;
    return cJSON_IsNumber(x);
}

/* The output as JSON: the text itself when it parses, else the first
** fenced block or {...}/[...] span that does (Yao's ExtractJSON leniency,
** without its repairs), else NULL. */
static cJSON *extract_json(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    if (j)
        return j;
    const char *f = strstr(text, "```");
    if (f) {
        const char *b = strchr(f + 3, '\n'), *e = b ? strstr(b, "```") : NULL;
        if (b && e && (j = cJSON_ParseWithLength(b + 1, (size_t)(e - b - 1))) != NULL)
            return j;
    }
    for (const char *p = text; *p; p++) {
        if (*p != '{' && *p != '[')
            continue;
        char close = *p == '{' ? '}' : ']';
        for (const char *q = text + strlen(text); q > p; q--)
            if (q[-1] == close && (j = cJSON_ParseWithLength(p, (size_t)(q - p))) != NULL)
                return j;
    }
    return NULL;
}

static bool json_eq(const cJSON *a, const cJSON *b)
{
    Buf x, y;
    buf_init(&x);
    buf_init(&y);
    tape_canonical(a, &x);
    tape_canonical(b, &y);
    bool eq = x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
    buf_fini(&x);
    buf_fini(&y);
    return eq;
}

/* "$.a.b[0].c" */
static const cJSON *json_at(const cJSON *j, const char *path)
{
    if (path[0] == '$')
        path += path[1] == '.' ? 2 : 1;
    while (j && *path) {
        if (*path == '.') {
            path++;
            continue;
        }
        if (*path == '[') {
            char *end;
            long i = strtol(path + 1, &end, 10);
            if (*end != ']' || i < 0 || i > 1000000000L)
                return NULL;
            j = cJSON_GetArrayItem(j, (int)i);
            path = end + 1;
            continue;
        }
        size_t l = strcspn(path, ".[");
        char key[256];
        if (l >= sizeof key)
            return NULL;
        memcpy(key, path, l);
        key[l] = 0;
        j = cJSON_GetObjectItemCaseSensitive(j, key);
        path += l;
    }
    return j;
}

/* Yao's tool name match: equal, or ending in "__v" or ".v", or containing v. */
static bool tool_name_match(const char *name, const char *v)
{
    size_t n = strlen(name), l = strlen(v);
    if (strcmp(name, v) == 0)
        return true;
    if (n > l + 2 && (memcmp(name + n - l - 2, "__", 2) == 0 || name[n - l - 1] == '.') &&
        strcmp(name + n - l, v) == 0)
        return true;
    return strstr(name, v) != NULL;
}

/* Every key of want equal (canonically) in got. */
static bool subset(const cJSON *want, const cJSON *got)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, want) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, w->string);
        if (!g || !json_eq(w, g))
            return false;
    }
    return true;
}

static bool tool_called(const cJSON *value, const JudgeRun *run)
{
    const JudgeTurn *t = run->n_turns ? &run->turns[run->n_turns - 1] : NULL;
    for (size_t k = 0; t && k < t->n_actions; k++) {
        const JudgeAction *a = &t->actions[k];
        if (cJSON_IsString(value) && tool_name_match(a->name, value->valuestring))
            return true;
        if (cJSON_IsArray(value)) {
            const cJSON *v;
            cJSON_ArrayForEach(v, value) if (cJSON_IsString(v) && tool_name_match(a->name, v->valuestring)) return true;
        }
        if (cJSON_IsObject(value) && str(value, "name") && tool_name_match(a->name, str(value, "name"))) {
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(value, "arguments");
            cJSON *got = args ? cJSON_Parse(a->input) : NULL;
            bool ok = !args || (got && subset(args, got));
            cJSON_Delete(got);
            if (ok)
                return true;
        }
    }
    return false;
}

static const char *type_of(const cJSON *j)
{
    return cJSON_IsString(j) ? "string" : cJSON_IsNumber(j) ? "number" : cJSON_IsBool(j) ? "boolean"
         : cJSON_IsArray(j)  ? "array"  : cJSON_IsObject(j) ? "object" : "null";
}

/* ---------- ElizaOS's conversation evaluators ---------- */

char *judge_transcript(const JudgeTurn *turns, size_t n)
{
    Buf b;
    buf_init(&b);
    for (size_t i = 0; i < n; i++)
        buf_printf(&b, "%sTurn %zu:\nUser: %s\nAgent: %s\n", i ? "\n" : "", i + 1, turns[i].input ? turns[i].input : "",
                   turns[i].text ? turns[i].text : "");
    buf_putc(&b, 0);
    char *r = b.oom ? NULL : sc_strdup((const char *)b.data);
    buf_fini(&b);
    return r;
}

/* A yes/no reply: true or false, "yes"/"no" (any case, words after), or
** an object whose "answer" is one.  -1 when it is none of these. */
static int yes_no(const cJSON *rp)
{
    if (cJSON_IsObject(rp))
        rp = cJSON_GetObjectItemCaseSensitive(rp, "answer");
    if (cJSON_IsBool(rp))
        return cJSON_IsTrue(rp);
    const char *s = cJSON_GetStringValue(rp);
    if (s && strncasecmp(s, "yes", 3) == 0 && !isalpha((unsigned char)s[3]))
        return 1;
    if (s && strncasecmp(s, "no", 2) == 0 && !isalpha((unsigned char)s[2]))
        return 0;
    return -1;
}

/* Asks the tape a yes/no question of kind; -1 with out set (skipped, or
** an error for a reply that is not yes/no). */
int judge_yes_no(const JudgeRun *run, const char *kind, const cJSON *rq, JudgeResult *out)
{
    const cJSON *rp = judge_tape(run, kind, rq, out);
    int yn = rp ? yes_no(rp) : -1;
    if (rp && yn < 0)
        set(out, JUDGE_ERROR, "%s: the tape's reply is not yes or no (true/false, \"yes\"/\"no\", or {\"answer\": "
                              "...})", kind);
    return yn;
}

/* conversation_flow: for each required pattern, "does the conversation
** show it?" (a yes/no on the tape); passes when the share detected
** reaches flow_quality_threshold (0.7). */
static void conversation_flow(const cJSON *ck, const JudgeRun *run, JudgeResult *out)
{
    double th = 0.7;
    num(ck, "flow_quality_threshold", &th);
    const cJSON *pats = cJSON_GetObjectItemCaseSensitive(ck, "required_patterns"), *p;
    char *tr = judge_transcript(run->turns, run->n_turns);
    int n = 0, hit = 0;
    char missing[300] = "";
    cJSON_ArrayForEach(p, pats) {
        if (!cJSON_IsString(p))
            continue;
        cJSON *rq = cJSON_CreateObject();
        cJSON_AddStringToObject(rq, "pattern", p->valuestring);
        cJSON_AddStringToObject(rq, "transcript", tr ? tr : "");
        int yn = judge_yes_no(run, "conversation_flow", rq, out);
        cJSON_Delete(rq);
        if (yn < 0) {
            sc_free(tr);
            return;
        }
        n++;
        hit += yn;
        if (!yn)
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s", missing[0] ? ", " : "",
                     p->valuestring);
    }
    sc_free(tr);
    double rate = n ? (double)hit / n : 1.0;
    set(out, rate >= th ? JUDGE_PASS : JUDGE_FAIL, "conversation_flow: %d of %d patterns detected (%.2f, at least "
        "%.2f)%s%s", hit, n, rate, th, missing[0] ? "; not detected: " : "", missing);
}

/* Whole-word, case-insensitive occurrences of kw in s. */
static int word_count(const char *s, const char *kw)
{
    size_t k = strlen(kw);
    int c = 0;
    for (const char *p = s; k && (p = strcasestr(p, kw)) != NULL; p += k) {
        bool before = p == s || !isalnum((unsigned char)p[-1]), after = !isalnum((unsigned char)p[k]);
        c += before && after;
    }
    return c;
}

/* user_satisfaction: keyword_analysis counts the indicators in the user's
** messages (positive / (positive + negative), 0.5 with none); the other
** methods read a score from 0 to 1 off the tape.  Passes at
** satisfaction_threshold (0.7). */
static void user_satisfaction(const cJSON *ck, const JudgeRun *run, JudgeResult *out)
{
    double th = 0.7, score;
    num(ck, "satisfaction_threshold", &th);
    const char *method = str(ck, "measurement_method") ? str(ck, "measurement_method") : "llm_judge";
    const cJSON *ind = cJSON_GetObjectItemCaseSensitive(ck, "indicators");
    if (strcmp(method, "keyword_analysis") == 0) {
        static const char *const POS[] = { "thank you", "thanks", "great", "perfect", "helpful", "appreciate",
                                           "resolved", "that works", NULL };
        static const char *const NEG[] = { "frustrated", "angry", "useless", "terrible", "disappointed",
                                           "unacceptable", "not helpful", NULL };
        int pos = 0, neg = 0;
        for (size_t t = 0; t < run->n_turns; t++) {
            const char *u = run->turns[t].input ? run->turns[t].input : "";
            for (int side = 0; side < 2; side++) {
                const cJSON *list = cJSON_GetObjectItemCaseSensitive(ind, side ? "negative" : "positive"), *w;
                int *c = side ? &neg : &pos;
                if (cJSON_IsArray(list)) {
                    cJSON_ArrayForEach(w, list) if (cJSON_IsString(w)) *c += word_count(u, w->valuestring);
                } else {
                    for (const char *const *d = side ? NEG : POS; *d; d++)
                        *c += word_count(u, *d);
                }
            }
        }
        score = pos + neg ? (double)pos / (pos + neg) : 0.5;
        set(out, score >= th ? JUDGE_PASS : JUDGE_FAIL, "user_satisfaction: %.2f by keywords (%d positive, %d "
            "negative in the user's messages), at least %.2f", score, pos, neg, th);
        return;
    }
    cJSON *rq = cJSON_CreateObject();
    cJSON_AddStringToObject(rq, "measurement_method", method);
    if (ind)
        cJSON_AddItemToObject(rq, "indicators", cJSON_Duplicate(ind, true));
    char *tr = judge_transcript(run->turns, run->n_turns);
    cJSON_AddStringToObject(rq, "transcript", tr ? tr : "");
    sc_free(tr);
    const cJSON *rp = judge_tape(run, "user_satisfaction", rq, out);
    cJSON_Delete(rq);
    if (!rp)
        return;
    const cJSON *sv = cJSON_IsObject(rp) ? cJSON_GetObjectItemCaseSensitive(rp, "score") : rp;
    if (!cJSON_IsNumber(sv) || sv->valuedouble < 0 || sv->valuedouble > 1) {
        set(out, JUDGE_ERROR, "user_satisfaction: the tape's reply is not a score from 0 to 1 (a number or "
                              "{\"score\": ...})");
        return;
    }
    score = sv->valuedouble;
    set(out, score >= th ? JUDGE_PASS : JUDGE_FAIL, "user_satisfaction: %.2f by %s, at least %.2f", score, method, th);
}

/* context_retention: each item of test_memory_of, from the first turn
** that mentions it (any case), is asked "does the agent still remember
** it?" on each of the next retention_turns (3) turns; an item never
** mentioned, or with no turn after, scores 0.  Passes when the mean
** reaches memory_accuracy_threshold (0.8). */
static void context_retention(const cJSON *ck, const JudgeRun *run, JudgeResult *out)
{
    double th = 0.8, rt = 3;
    num(ck, "memory_accuracy_threshold", &th);
    num(ck, "retention_turns", &rt);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(ck, "test_memory_of"), *it;
    double sum = 0;
    int n = 0;
    char low[300] = "";
    cJSON_ArrayForEach(it, items) {
        if (!cJSON_IsString(it))
            continue;
        n++;
        size_t first = run->n_turns;
        for (size_t t = 0; t < run->n_turns && first == run->n_turns; t++)
            if ((run->turns[t].input && strcasestr(run->turns[t].input, it->valuestring)) ||
                (run->turns[t].text && strcasestr(run->turns[t].text, it->valuestring)))
                first = t;
        int asked = 0, yes = 0;
        for (size_t t = first + 1; first < run->n_turns && t < run->n_turns && t <= first + (size_t)rt; t++) {
            cJSON *rq = cJSON_CreateObject();
            char *tr = judge_transcript(run->turns, t + 1);
            cJSON_AddStringToObject(rq, "item", it->valuestring);
            cJSON_AddNumberToObject(rq, "mentioned_in_turn", (double)first + 1);
            cJSON_AddNumberToObject(rq, "turn", (double)t + 1);
            cJSON_AddStringToObject(rq, "transcript", tr ? tr : "");
            sc_free(tr);
            int yn = judge_yes_no(run, "context_retention", rq, out);
            cJSON_Delete(rq);
            if (yn < 0)
                return;
            asked++;
            yes += yn;
        }
        double sc = asked ? (double)yes / asked : 0;
        sum += sc;
        if (sc < th)
            snprintf(low + strlen(low), sizeof low - strlen(low), "%s'%s' %.2f%s", low[0] ? ", " : "",
                     it->valuestring, sc, first == run->n_turns ? " (never mentioned)" : !asked ? " (no turn after)" : "");
    }
    double acc = n ? sum / n : 1.0;
    set(out, acc >= th ? JUDGE_PASS : JUDGE_FAIL, "context_retention: accuracy %.2f over %d item%s, at least %.2f%s%s",
        acc, n, n == 1 ? "" : "s", th, low[0] ? "; low: " : "", low);
}

/* ---------- one check, in the dialect-neutral language ---------- */

void judge_check(const cJSON *ck, const JudgeRun *run, JudgeResult *out)
{
    memset(out, 0, sizeof *out);
    const char *type = str(ck, "type");
    if (!type) {
        set(out, JUDGE_ERROR, "a check without a type");
        return;
    }
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(ck, "value");
    const char *text = last_text(run);
    char *vtext = value && !cJSON_IsString(value) ? cJSON_PrintUnformatted(value) : NULL;
    const char *v = cJSON_IsString(value) ? value->valuestring : vtext ? vtext : "";
    const cJSON *csj = cJSON_GetObjectItemCaseSensitive(ck, "case_sensitive");
    bool cs = !cJSON_IsBool(csj) || cJSON_IsTrue(csj);      /* explicit in the language; absent: sensitive */
    char why[256];
    switch (ac_type_of(type)) {   /* formats/agentcheck.def: no default, -Wswitch-enum names a new type */
    case AC_CONTAINS:
    case AC_NOT_CONTAINS: {
        bool hit = cs ? strstr(text, v) != NULL : contains_ci(text, v), want = type[0] == 'c';
        set(out, hit == want ? JUDGE_PASS : JUDGE_FAIL, "the response %s '%.200s'%s",
            hit ? "contains" : "does not contain", v, cs ? "" : " (any case)");
        break;
    }
    case AC_REGEX: {
        const char *pat = str(ck, "pattern");
        bool ok = false, hit = pat && regex_search(pat, !cs, text, why, sizeof why, &ok);
        if (!pat || !ok)
            set(out, JUDGE_ERROR, "regex: %s", pat ? why : "no pattern");
        else
            set(out, hit ? JUDGE_PASS : JUDGE_FAIL, "/%.200s/%s %s the response", pat, cs ? "" : "i",
                hit ? "matches" : "does not match");
        break;
    }
    case AC_EQUALS: {
        bool eq;
        if (cJSON_IsString(value)) {
            eq = strcmp(text, v) == 0;
        } else {
            cJSON *o = cJSON_Parse(text);
            eq = o && value && json_eq(o, value);
            cJSON_Delete(o);
        }
        set(out, eq ? JUDGE_PASS : JUDGE_FAIL, "the response %s %.200s", eq ? "equals" : "does not equal", v);
        break;
    }
    case AC_JSON_PATH: {
        const char *p = str(ck, "path");
        cJSON *j = p ? extract_json(text) : NULL;
        const cJSON *at = j ? json_at(j, p) : NULL;
        if (!p) {
            set(out, JUDGE_ERROR, "json_path: no path");
        } else if (!j) {
            set(out, JUDGE_FAIL, "json_path: the response holds no JSON");
        } else if (!at) {
            set(out, JUDGE_FAIL, "json_path: %s not found", p);
        } else {
            bool ok = value && json_eq(at, value);
            if (!ok && cJSON_IsArray(value) && !cJSON_IsArray(at)) {
                const cJSON *x;
                cJSON_ArrayForEach(x, value) ok |= json_eq(at, x);
            }
            set(out, ok ? JUDGE_PASS : JUDGE_FAIL, "json_path: %s %s %.200s", p, ok ? "is" : "is not", v);
        }
        cJSON_Delete(j);
        break;
    }
    case AC_VALUE_TYPE: {
        /* the whole response (Yao), or the value at `path` (the
        ** specification's {"type": "type", "path": "$.count", ...}) */
        const char *p = str(ck, "path");
        cJSON *o = p ? extract_json(text) : cJSON_Parse(text);
        const cJSON *at = p && o ? json_at(o, p) : o;
        if (p && !at) {
            set(out, JUDGE_FAIL, "type: %.200s not found in the response", p);
        } else {
            const char *t = at ? type_of(at) : "string";
            bool ok = strcmp(t, v) == 0;
            set(out, ok ? JUDGE_PASS : JUDGE_FAIL, "%s%.200s is of type %s, expected %.40s", p ? "" : "the response",
                p ? p : "", t, v);
        }
        cJSON_Delete(o);
        break;
    }
    case AC_TOOL_CALLED: {
        if (!value || (!cJSON_IsString(value) && !cJSON_IsArray(value) && !cJSON_IsObject(value))) {
            set(out, JUDGE_ERROR, "invalid tool_called value type: %s", value ? type_of(value) : "<nil>");
        } else {
            bool hit = tool_called(value, run);
            set(out, hit ? JUDGE_PASS : JUDGE_FAIL, "tool %.200s %s", v, hit ? "was called" : "was not called");
        }
        break;
    }
    case AC_AGENT: {
        cJSON *rq = cJSON_CreateObject();
        cJSON_AddStringToObject(rq, "output", text);
        cJSON_AddStringToObject(rq, "input", run->n_turns && run->turns[run->n_turns - 1].input
                                                 ? run->turns[run->n_turns - 1].input : "");
        cJSON_AddItemToObject(rq, "criteria", value ? cJSON_Duplicate(value, true) : cJSON_CreateNull());
        const char *use = str(ck, "use");
        if (use)
            cJSON_AddStringToObject(rq, "use", use);
        const cJSON *inl = cJSON_GetObjectItemCaseSensitive(ck, "verdict");   /* written in: no tape */
        const cJSON *rp = cJSON_IsObject(inl) ? inl : judge_tape(run, "yao_validator", rq, out);
        cJSON_Delete(rq);
        if (rp) {
            const cJSON *pv = cJSON_GetObjectItemCaseSensitive(rp, "passed");
            const char *reason = str(rp, "reason");
            if (!cJSON_IsBool(pv))
                set(out, JUDGE_ERROR, "validator agent error: the tape's reply has no passed");
            else
                set(out, cJSON_IsTrue(pv) ? JUDGE_PASS : JUDGE_FAIL, "validator: %s", reason ? reason : "");
        }
        break;
    }
    case AC_SCRIPT:
    case AC_TOOL_RESULT: {
        set(out, JUDGE_SKIP, "%s: %s (docs/judge.md)", type,
            type[0] == 's' ? "scripts run in Yao's V8 engine, which this runner does not have"
                           : "the agent's tool results are not part of its reply on these transports");
        break;
    }
    case AC_FILE_EXISTS:
    case AC_FILE_CONTAINS: {
        const char *p = str(ck, "path");
        bool fc = type[5] == 'c';
        struct stat st;
        Buf full;
        buf_init(&full);
        const char *refused = p ? in_workspace(run, p, &full) : NULL;
        const char *fpath = (const char *)full.data;
        if (!p || (fc && !cJSON_IsString(value))) {
            set(out, JUDGE_ERROR, "%s: no %s", type, p ? "value" : "path");
        } else if (refused || stat(fpath, &st) != 0 || !S_ISREG(st.st_mode)) {
            set(out, JUDGE_FAIL, "%s: '%.200s' %s", type, p,
                p[0] == '/' ? "is absolute (only workspace paths count)"
                : refused   ? refused
                            : "does not exist in the workspace");
        } else if (!fc) {
            set(out, JUDGE_PASS, "file_exists: '%.200s' exists", p);
        } else {
            char *data = NULL;
            size_t len = 0;
            int e = file_read_all(fpath, (size_t)64 << 20, &data, &len);
            bool hit = !e && memmem(data, len, v, strlen(v)) != NULL;
            set(out, hit ? JUDGE_PASS : JUDGE_FAIL, "file_contains: '%.200s' %s '%.200s'", p,
                e ? "cannot be read, so does not contain" : hit ? "contains" : "does not contain", v);
            sc_free(data);
        }
        buf_fini(&full);
        break;
    }
    case AC_COMMAND_EXIT_CODE_IS: {
        const char *c = str(ck, "command");
        double want = 0;
        if (!c || !num(ck, "expected_code", &want) || want != floor(want) || want < -1e9 || want > 1e9) {
            set(out, JUDGE_ERROR, "command_exit_code_is: needs command and expected_code (a whole number)");
        } else if (!run->workspace) {
            set(out, JUDGE_FAIL, "command_exit_code_is: no workspace to run '%.200s' in", c);
        } else {
            int code = run_command(run, c, why, sizeof why);
            if (code < 0)
                set(out, JUDGE_FAIL, "command_exit_code_is: '%.200s' %s", c, why);
            else
                set(out, code == (int)want ? JUDGE_PASS : JUDGE_FAIL,
                    "command_exit_code_is: '%.200s' exited %d, expected %d", c, code, (int)want);
        }
        break;
    }
    case AC_TRAJECTORY_CONTAINS_ACTION: {
        const char *a = str(ck, "action");
        char want[128], got[128];
        if (!a) {
            set(out, JUDGE_ERROR, "trajectory_contains_action: no action");
        } else {
            action_norm(a, want, sizeof want);
            bool hit = false;
            for (size_t t = 0; t < run->n_turns && !hit; t++)
                for (size_t k = 0; k < run->turns[t].n_actions && !hit; k++) {
                    action_norm(run->turns[t].actions[k].name, got, sizeof got);
                    hit = strcmp(got, want) == 0;
                }
            set(out, hit ? JUDGE_PASS : JUDGE_FAIL, "trajectory_contains_action: '%.100s' %s", a,
                hit ? "was executed" : "was not among the agent's actions");
        }
        break;
    }
    case AC_EXECUTION_TIME: {
        double mx = 0, mn = 0;
        bool has_max = num(ck, "max_duration_ms", &mx), has_min = num(ck, "min_duration_ms", &mn);
        if (!has_max) {
            set(out, JUDGE_ERROR, "execution_time: no max_duration_ms");
        } else if (!run->has_duration) {
            set(out, JUDGE_FAIL, "execution_time: the step's time was not measured");
        } else {
            double d = (double)run->duration_ms;
            bool ok = d <= mx && (!has_min || d >= mn);
            set(out, ok ? JUDGE_PASS : JUDGE_FAIL, "execution_time: %.0f ms, allowed %.0f..%.0f ms", d,
                has_min ? mn : 0, mx);
        }
        break;
    }
    case AC_CONVERSATION_LENGTH: {
        double mn = 0, mx = 1e18;
        num(ck, "min_turns", &mn);
        num(ck, "max_turns", &mx);
        const cJSON *tr = cJSON_GetObjectItemCaseSensitive(ck, "target_range");
        if (cJSON_GetArraySize(tr) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(tr, 0)) &&
            cJSON_IsNumber(cJSON_GetArrayItem(tr, 1))) {
            double lo = cJSON_GetArrayItem(tr, 0)->valuedouble, hi = cJSON_GetArrayItem(tr, 1)->valuedouble;
            mn = lo > mn ? lo : mn;
            mx = hi < mx ? hi : mx;
        }
        double n = (double)run->n_turns;
        if (mx < 1e18)
            snprintf(why, sizeof why, "%.0f", mx);
        set(out, n >= mn && n <= mx ? JUDGE_PASS : JUDGE_FAIL, "conversation_length: %zu turns, allowed %.0f..%s",
            run->n_turns, mn, mx >= 1e18 ? "any" : why);
        break;
    }
    case AC_LLM_JUDGE: {
        eliza_llm_judge(ck, run, out);
        break;
    }
    case AC_CONVERSATION_FLOW: {
        conversation_flow(ck, run, out);
        break;
    }
    case AC_USER_SATISFACTION: {
        user_satisfaction(ck, run, out);
        break;
    }
    case AC_CONTEXT_RETENTION: {
        context_retention(ck, run, out);
        break;
    }
    case AC__UNKNOWN: {
        set(out, JUDGE_FAIL, "unknown check type: %.100s", type);
        break;
    }
    }
    cJSON_free(vtext);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ck, "negate")) &&
        (out->verdict == JUDGE_PASS || out->verdict == JUDGE_FAIL)) {
        out->verdict = out->verdict == JUDGE_PASS ? JUDGE_FAIL : JUDGE_PASS;
        char m[sizeof out->message];
        memcpy(m, out->message, sizeof m);
        snprintf(out->message, sizeof out->message, "negated: %.*s", (int)sizeof out->message - 10, m);
    }
    const char *msg = str(ck, "message");
    if (msg && out->verdict == JUDGE_FAIL)
        snprintf(out->message, sizeof out->message, "%s", msg);
}

/* ---------- the dialects, mapped onto it ---------- */

/* A copy of o with type renamed and the given defaults set where absent. */
static cJSON *neutral(const cJSON *o, const char *type)
{
    cJSON *c = cJSON_IsObject(o) ? cJSON_Duplicate(o, true) : cJSON_CreateObject();
    if (c) {
        cJSON_DeleteItemFromObjectCaseSensitive(c, "type");
        cJSON_AddStringToObject(c, "type", type);
    }
    return c;
}

static void set_default_bool(cJSON *c, const char *k, bool v)
{
    if (!cJSON_GetObjectItemCaseSensitive(c, k))
        cJSON_AddBoolToObject(c, k, v);
}

void judge_eliza(const cJSON *ev, const JudgeRun *run, JudgeResult *out)
{
    memset(out, 0, sizeof *out);
    const char *type = str(ev, "type");
    if (!type) {
        set(out, JUDGE_ERROR, "an evaluation without a type");
        return;
    }
    /* agentcheck.def's ElizaOS column: the type it lowers to */
    AcType k = ac_dialect_type(AC_ELIZA, type);
    cJSON *c = NULL;
    if (k == AC_CONTAINS) {
        if (!str(ev, "value")) {
            set(out, JUDGE_ERROR, "string_contains: no value");
            return;
        }
        c = neutral(ev, "contains");
        set_default_bool(c, "case_sensitive", false);        /* ElizaOS's default engine */
    } else if (k == AC_REGEX) {
        c = neutral(ev, "regex");
        cJSON_DeleteItemFromObjectCaseSensitive(c, "case_sensitive");
        cJSON_AddFalseToObject(c, "case_sensitive");          /* a JS RegExp with flag i */
    } else if (k != AC__UNKNOWN) {
        c = neutral(ev, ac_type_name(k));
    } else {
        set(out, JUDGE_FAIL, "Unknown evaluator type: '%.100s'", type);
        return;
    }
    judge_check(c, run, out);
    cJSON_Delete(c);
}

void judge_yao(const cJSON *as, const JudgeRun *run, JudgeResult *out)
{
    memset(out, 0, sizeof *out);
    const char *type = cJSON_IsString(as) ? as->valuestring : str(as, "type");
    if (!type || !*type)
        type = "equals";
    /* agentcheck.def's Yao column: the type it lowers to */
    AcType k = ac_dialect_type(AC_YAO, type);
    cJSON *c = NULL;
    if (k == AC_CONTAINS || k == AC_NOT_CONTAINS || k == AC_REGEX) {
        c = neutral(as, type);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "value");
        if (v && !cJSON_IsString(v)) {               /* a non-string value as its JSON text */
            char *t = cJSON_PrintUnformatted(v);
            cJSON_ReplaceItemInObjectCaseSensitive(c, "value", cJSON_CreateString(t ? t : ""));
            cJSON_free(t);
        } else if (!v) {
            cJSON_AddStringToObject(c, "value", "");
        }
        if (k == AC_REGEX) {                          /* regex: the value is the pattern */
            cJSON_AddStringToObject(c, "pattern", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "value")));
        }
        cJSON_DeleteItemFromObjectCaseSensitive(c, "case_sensitive");
        cJSON_AddTrueToObject(c, "case_sensitive");   /* Yao: always (RE2 takes (?i) in the pattern) */
    } else if (k != AC__UNKNOWN) {
        c = neutral(as, ac_type_name(k));                /* "type" is value_type */
    } else {
        set(out, JUDGE_FAIL, "unknown assertion type: %.100s", type);
        return;
    }
    judge_check(c, run, out);
    cJSON_Delete(c);
}
