/* SPDX-License-Identifier: MIT */
/* cmd_replay.c - `scvm replay DIR` and `scvm replay-report DIR`: play a
** recorded PTY run again and compare the new artifacts with the recorded
** ones after the data model's normalization (docs/driver.md, "Replay").
**
** The recorded run's own artifacts say how to play it: scenario.scb (the
** compiled scenario), policy.json (the effective policy), run.json (the
** command and its arguments).  The new run goes to DIR/replay-<run_id>/,
** with replay.json (ReplaySummary), normalization.json (the record of what
** was applied) and, on a mismatch, diff.json (ReplayDiff).  The first
** difference decides, in a fixed order: the recorded checksums, the
** required files, run.json, the snapshots, transcript.log, events.jsonl. */
#include "scvm.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/fnv1a.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/vformat.h"
#include "formats/term/term_regex.h"
#include "include/scc/session.h"
#include "runtime/run/run_pool.h"
#include "cli.h"

enum { MAX_ARTIFACT = 64 << 20 };

/* The data model's NormalizationFilters, in its order, and ptybox's
** seventh, events: the observations' events and transcript deltas, whose
** order and split between two observations are races (a program's exit
** and its terminal's end of file come in either order); the transcript as
** a whole is still compared (transcript.log). */
static const char *const FILTERS[] = { "snapshot_id", "run_id", "run_timestamps", "step_timestamps",
                                       "observation_timestamp", "session_id", "events" };
enum { N_FILTERS = 7, F_ALL = (1u << N_FILTERS) - 1 };
enum { F_SNAPSHOT_ID = 1, F_RUN_ID = 2, F_RUN_TS = 4, F_STEP_TS = 8, F_OBS_TS = 16, F_SESSION_ID = 32, F_EVENTS = 64 };

typedef struct Rule {
    bool transcript;            /* target: transcript, else snapshot_lines */
    TermRegex *re;
    const char *replace;
} Rule;

typedef struct Replay {
    const char *dir;
    char out[PATH_MAX];         /* DIR/replay-<run_id> */
    unsigned filters;
    bool strict;
    const char *source;         /* "default" | "policy" | "cli" | "none" */
    cJSON *rules_json;          /* the rules as recorded (an array) */
    Rule rules[32];
    size_t n_rules;
    /* the first difference */
    char kind[32];
    long index;                 /* -1: none */
    char message[2048];
} Replay;

static char *read_file(const char *dir, const char *rel, size_t *len)
{
    char path[PATH_MAX];
    char *data = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%.3500s/%.500s", dir, rel);
    if (file_read_all(path, MAX_ARTIFACT, &data, &n) != 0)
        return NULL;
    if (len)
        *len = n;
    return data;
}

static cJSON *read_json(const char *dir, const char *rel)
{
    char *t = read_file(dir, rel, NULL);
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    sc_free(t);
    return j;
}

/* The recording's snapshots name indexed colours as ptybox does
** (--color-names ptybox): the replay must write them the same way. */
static bool recorded_ptybox_colors(const char *dir)
{
    for (int i = 1; i < 1000000; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "snapshots/%06d.json", i);
        char *t = read_file(dir, rel, NULL);
        if (!t)
            return false;
        bool hit = strstr(t, "{\"ansi16\":") || strstr(t, "{\"ansi256\":");
        sc_free(t);
        if (hit)
            return true;
    }
    return false;
}

static bool exists(const char *dir, const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3500s/%.500s", dir, rel);
    return access(path, F_OK) == 0;
}

static int mismatch(Replay *r, const char *kind, long index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int mismatch(Replay *r, const char *kind, long index, const char *fmt, ...)
{
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    r->index = index;
    SC_VFORMAT(r->message, sizeof r->message, fmt);
    return 1;
}

/* ---- normalization ---- */

static void replace_all(const Rule *ru, Buf *text)
{
    Buf out;
    buf_init(&out);
    size_t from = 0, s, e;
    const char *t = text->data ? (const char *)text->data : "";
    while (from <= text->len && term_regex_find(ru->re, t, text->len, from, &s, &e) == 1) {
        buf_put(&out, t + from, s - from);
        buf_puts(&out, ru->replace);
        if (e == s) {           /* an empty match: keep one character and go on */
            if (s >= text->len)
                break;
            buf_putc(&out, t[s]);
            e = s + 1;
        }
        from = e;
    }
    if (from < text->len)
        buf_put(&out, t + from, text->len - from);
    buf_reset(text);
    buf_put(text, out.data, out.len);
    buf_fini(&out);
}

static void apply_rules(const Replay *r, bool transcript, Buf *text)
{
    for (size_t i = 0; i < r->n_rules; i++)
        if (r->rules[i].transcript == transcript)
            replace_all(&r->rules[i], text);
}

static void rule_string(const Replay *r, cJSON *s, bool transcript)
{
    if (!cJSON_IsString(s) || r->strict)
        return;
    Buf b;
    buf_init(&b);
    buf_puts(&b, s->valuestring);
    apply_rules(r, transcript, &b);
    buf_putc(&b, 0);
    cJSON_SetValuestring(s, (const char *)b.data);
    buf_fini(&b);
}

/* Removes what the filters ignore, and applies the rules to screen lines
** and transcript deltas, anywhere in j.  top: j is run.json itself. */
static void normalize(const Replay *r, cJSON *j, bool top, bool in_steps)
{
    if (cJSON_IsObject(j)) {
        unsigned f = r->filters;
        if (f & F_SNAPSHOT_ID)
            cJSON_DeleteItemFromObjectCaseSensitive(j, "snapshot_id");
        if (f & F_RUN_ID)
            cJSON_DeleteItemFromObjectCaseSensitive(j, "run_id");
        if (f & F_SESSION_ID)
            cJSON_DeleteItemFromObjectCaseSensitive(j, "session_id");
        if (f & F_OBS_TS)
            cJSON_DeleteItemFromObjectCaseSensitive(j, "timestamp_ms");
        if ((f & F_EVENTS) && cJSON_GetObjectItemCaseSensitive(j, "screen") &&
            cJSON_GetObjectItemCaseSensitive(j, "transcript_delta")) {
            cJSON_DeleteItemFromObjectCaseSensitive(j, "events");
            cJSON_DeleteItemFromObjectCaseSensitive(j, "transcript_delta");
        }
        /* Where the goldens were looked up and what became of them is the
        ** invocation's, not the program's: the replay keeps its own. */
        if (top)
            cJSON_DeleteItemFromObjectCaseSensitive(j, "goldens");
        if (((f & F_RUN_TS) && top) || ((f & F_STEP_TS) && in_steps)) {
            cJSON_DeleteItemFromObjectCaseSensitive(j, "started_at_ms");
            cJSON_DeleteItemFromObjectCaseSensitive(j, "ended_at_ms");
        }
        cJSON *lines = cJSON_GetObjectItemCaseSensitive(j, "lines"), *l;
        if (cJSON_IsArray(lines))
            cJSON_ArrayForEach(l, lines) rule_string(r, l, false);
        rule_string(r, cJSON_GetObjectItemCaseSensitive(j, "transcript_delta"), true);
        cJSON *c;
        cJSON_ArrayForEach(c, j) normalize(r, c, false, top && strcmp(c->string, "steps") == 0);
    } else if (cJSON_IsArray(j)) {
        cJSON *c;
        cJSON_ArrayForEach(c, j) normalize(r, c, false, in_steps);
    }
}

/* ---- comparing ---- */

static void shown(const cJSON *j, char *out, size_t n)
{
    char *s = j ? cJSON_PrintUnformatted(j) : NULL;
    snprintf(out, n, "%.300s%s", s ? s : "nothing", s && strlen(s) > 300 ? "..." : "");
    free(s);
}

/* The first difference between want and got under path; false when equal. */
static bool first_diff(const cJSON *want, const cJSON *got, char *path, size_t cap, char *why, size_t wn)
{
    if (cJSON_Compare(want, got, true))
        return false;
    size_t len = strlen(path);
    if (cJSON_IsObject(want) && cJSON_IsObject(got)) {
        const cJSON *c;
        cJSON_ArrayForEach(c, want) {
            snprintf(path + len, cap - len, ".%s", c->string);
            if (first_diff(c, cJSON_GetObjectItemCaseSensitive(got, c->string), path, cap, why, wn))
                return true;
        }
        cJSON_ArrayForEach(c, got) {
            if (!cJSON_GetObjectItemCaseSensitive(want, c->string)) {
                snprintf(path + len, cap - len, ".%s", c->string);
                char g[400];
                shown(c, g, sizeof g);
                snprintf(why, wn, "not recorded, replayed %s", g);
                return true;
            }
        }
    } else if (cJSON_IsArray(want) && cJSON_IsArray(got)) {
        int nw = cJSON_GetArraySize(want), ng = cJSON_GetArraySize(got);
        for (int i = 0; i < nw && i < ng; i++) {
            snprintf(path + len, cap - len, "[%d]", i);
            if (first_diff(cJSON_GetArrayItem(want, i), cJSON_GetArrayItem(got, i), path, cap, why, wn))
                return true;
        }
        path[len] = 0;
        snprintf(why, wn, "recorded %d items, replayed %d", nw, ng);
        return true;
    }
    path[len] = 0;
    char w[400], g[400];
    shown(want, w, sizeof w);
    shown(got, g, sizeof g);
    snprintf(why, wn, "recorded %s, replayed %s", w, g);
    return true;
}

/* Takes ownership of want and got. */
static int compare_json(Replay *r, const char *kind, long index, const char *rel, cJSON *want, cJSON *got,
                        bool top)
{
    int d = 0;
    char path[1024] = "$", why[1024];
    if (!want || !got) {
        d = mismatch(r, kind, index, "%s: %s", rel, !want ? "not valid JSON in the recording"
                                                           : "missing or not valid JSON in the replay");
    } else {
        normalize(r, want, top, false);
        normalize(r, got, top, false);
        if (first_diff(want, got, path, sizeof path, why, sizeof why))
            d = mismatch(r, kind, index, "%s: %s: %s", rel, path, why);
    }
    cJSON_Delete(want);
    cJSON_Delete(got);
    return d;
}

/* The recording is what it was: every checksum of checksums.json. */
static int check_sums(Replay *r, const cJSON *sums)
{
    const cJSON *e;
    long i = 0;
    cJSON_ArrayForEach(e, sums) {
        size_t n;
        char *data = read_file(r->dir, e->string, &n), hex[20];
        if (!data)
            return mismatch(r, "checksum", i, "%s: listed in checksums.json but missing", e->string);
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fnv1a64(data, n));
        sc_free(data);
        if (!cJSON_IsString(e) || strcmp(hex, e->valuestring) != 0)
            return mismatch(r, "checksum", i, "%s: changed since it was recorded (checksum %s, recorded %s)",
                            e->string, hex, cJSON_IsString(e) ? e->valuestring : "not a string");
        i++;
    }
    return 0;
}

static int snapshot_count(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3500s/snapshots", dir);
    DIR *d = opendir(path);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Line number of the first difference of two texts, and the two lines. */
static int compare_text(Replay *r, const char *kind, const char *rel, Buf *want, Buf *got)
{
    if (want->len == got->len && (!want->len || memcmp(want->data, got->data, want->len) == 0))
        return 0;
    size_t i = 0, line = 1, bol = 0;
    while (i < want->len && i < got->len && want->data[i] == got->data[i]) {
        if (want->data[i] == '\n') {
            line++;
            bol = i + 1;
        }
        i++;
    }
    Buf a, b;
    buf_init(&a);
    buf_init(&b);
    size_t ea = bol, eb = bol;
    while (ea < want->len && want->data[ea] != '\n' && ea - bol < 200)
        ea++;
    while (eb < got->len && got->data[eb] != '\n' && eb - bol < 200)
        eb++;
    buf_json_str(&a, (const char *)want->data + (bol < want->len ? bol : want->len), bol < want->len ? ea - bol : 0);
    buf_json_str(&b, (const char *)got->data + (bol < got->len ? bol : got->len), bol < got->len ? eb - bol : 0);
    buf_putc(&a, 0);
    buf_putc(&b, 0);
    mismatch(r, kind, -1, "%s: line %zu (byte %zu): recorded %s, replayed %s", rel, line, i, (const char *)a.data,
             (const char *)b.data);
    buf_fini(&a);
    buf_fini(&b);
    return 1;
}

static int compare(Replay *r, const Opts *o)
{
    char rel[64];
    /* run.json */
    if (compare_json(r, "run", -1, "run.json", read_json(r->dir, "run.json"), read_json(r->out, "run.json"), true))
        return 1;
    /* the snapshots */
    int nw = snapshot_count(r->dir), ng = snapshot_count(r->out);
    for (int i = 1; i <= nw && i <= ng; i++) {
        snprintf(rel, sizeof rel, "snapshots/%06d.json", i);
        if (compare_json(r, "snapshot", i, rel, read_json(r->dir, rel), read_json(r->out, rel), false))
            return 1;
    }
    if (nw != ng)
        return mismatch(r, "snapshot", (nw < ng ? nw : ng) + 1, "snapshots: recorded %d, replayed %d", nw, ng);
    /* transcript.log */
    Buf w, g;
    buf_init(&w);
    buf_init(&g);
    size_t n;
    char *t = read_file(r->dir, "transcript.log", &n);
    if (t)
        buf_put(&w, t, n);
    sc_free(t);
    t = read_file(r->out, "transcript.log", &n);
    if (t)
        buf_put(&g, t, n);
    sc_free(t);
    if (!r->strict) {
        apply_rules(r, true, &w);
        apply_rules(r, true, &g);
    }
    int d = compare_text(r, "transcript", "transcript.log", &w, &g);
    buf_fini(&w);
    buf_fini(&g);
    if (d)
        return 1;
    /* events.jsonl: record by record */
    char *ew = read_file(r->dir, "events.jsonl", NULL), *eg = read_file(r->out, "events.jsonl", NULL);
    if (ew && eg) {
        char *sw, *sg, *lw = strtok_r(ew, "\n", &sw), *lg = strtok_r(eg, "\n", &sg);
        long i = 0;
        while (lw && lg && !d) {
            char where[64];
            snprintf(where, sizeof where, "events.jsonl record %ld", i + 1);
            d = compare_json(r, "events", i, where, cJSON_Parse(lw), cJSON_Parse(lg), false);
            lw = strtok_r(NULL, "\n", &sw);
            lg = strtok_r(NULL, "\n", &sg);
            i++;
        }
        if (!d && (lw || lg))
            d = mismatch(r, "events", i, "events.jsonl: the %s has more records (from record %ld)",
                         lw ? "recording" : "replay", i + 1);
    }
    sc_free(ew);
    sc_free(eg);
    (void)o;
    return d;
}

/* ---- the normalization to apply ---- */

static int add_filter(Replay *r, const char *name, char *err, size_t n)
{
    if (strcmp(name, "none") == 0) {
        r->strict = true;
        r->filters = 0;
        return 0;
    }
    if (strcmp(name, "all") == 0) {
        r->filters = F_ALL;
        return 0;
    }
    for (int i = 0; i < N_FILTERS; i++)
        if (strcmp(name, FILTERS[i]) == 0) {
            r->filters |= 1u << i;
            return 0;
        }
    snprintf(err, n, "unknown normalization filter '%s' (none, all, snapshot_id, run_id, run_timestamps, "
                     "step_timestamps, observation_timestamp, session_id, events)", name);
    return -1;
}

/* --strict, else --normalize, else the recording's normalization.json
** (the policy's or the default), else the default: every filter. */
static int choose(Replay *r, const Opts *o, char *err, size_t n)
{
    r->filters = F_ALL;
    r->source = "default";
    cJSON *rec = read_json(r->dir, "normalization.json");
    if (o->strict) {
        r->strict = true;
        r->filters = 0;
        r->source = "cli";
    } else if (o->n_normalize) {
        r->filters = 0;
        r->source = "cli";
        for (size_t i = 0; i < o->n_normalize; i++)
            if (add_filter(r, o->normalize[i], err, n) < 0) {
                cJSON_Delete(rec);
                return -1;
            }
    } else if (rec) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(rec, "filters"), *e;
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(rec, "source");
        r->strict = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "strict"));
        r->filters = 0;
        r->source = cJSON_IsString(src) && strcmp(src->valuestring, "policy") == 0 ? "policy"
                    : r->strict                                                   ? "none"
                                                                                  : "default";
        cJSON_ArrayForEach(e, f) {
            if (!cJSON_IsString(e) || add_filter(r, e->valuestring, err, n) < 0) {
                snprintf(err, n, "normalization.json: unknown filter %s",
                         cJSON_IsString(e) ? e->valuestring : "(not a string)");
                cJSON_Delete(rec);
                return -1;
            }
        }
    }
    /* Rules come from the recording (the policy's), unless strict. */
    const cJSON *rules = rec ? cJSON_GetObjectItemCaseSensitive(rec, "rules") : NULL, *e;
    r->rules_json = cJSON_CreateArray();
    if (!r->strict) {
        cJSON_ArrayForEach(e, rules) {
            const char *tg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "target"));
            const char *pat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "pattern"));
            const char *rep = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "replace"));
            char rerr[160];
            if (!tg || !pat || !rep || (strcmp(tg, "transcript") != 0 && strcmp(tg, "snapshot_lines") != 0) ||
                r->n_rules >= sizeof r->rules / sizeof r->rules[0]) {
                snprintf(err, n, "normalization.json: a rule needs target (transcript or snapshot_lines), "
                                 "pattern and replace (at most 32 rules)");
                cJSON_Delete(rec);
                return -1;
            }
            Rule *ru = &r->rules[r->n_rules];
            ru->re = term_regex_new(pat, strlen(pat), rerr, sizeof rerr);
            if (!ru->re) {
                snprintf(err, n, "normalization.json: rule pattern: %s", rerr);
                cJSON_Delete(rec);
                return -1;
            }
            ru->transcript = strcmp(tg, "transcript") == 0;
            ru->replace = rep;
            r->n_rules++;
            cJSON_AddItemToArray(r->rules_json, cJSON_Duplicate(e, true));
        }
    }
    /* the rules' strings live in rules_json's copies from here on */
    size_t k = 0;
    cJSON_ArrayForEach(e, r->rules_json) r->rules[k++].replace =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "replace"));
    cJSON_Delete(rec);
    return 0;
}

static void put_filters(JsonW *w, const Replay *r)
{
    jw_arr(w);
    for (int i = 0; i < N_FILTERS; i++)
        if (r->filters & (1u << i))
            jw_cstr(w, FILTERS[i]);
    jw_end(w);
}

/* "rules": the rules applied, as JSON */
static void put_rules(JsonW *w, const Replay *r)
{
    char *rules = cJSON_PrintUnformatted(r->rules_json);
    jw_kraw(w, "rules", rules ? rules : "[]", strlen(rules ? rules : "[]"));
    free(rules);
}

/* "index": N, or null when the difference has none */
static void put_index(JsonW *w, long index)
{
    if (index >= 0)
        jw_ki64(w, "index", index);
    else
        jw_knull(w, "index");
}

/* replay.json's members, in the object open in w. */
static void put_summary(JsonW *w, const Replay *r, bool passed, int run_status)
{
    jw_ku64(w, "replay_version", 1);
    jw_kcstr(w, "status", passed ? "passed" : "failed");
    jw_kcstr(w, "source", r->source);
    jw_kbool(w, "strict", r->strict);
    jw_key(w, "filters");
    put_filters(w, r);
    put_rules(w, r);
    if (passed) {
        jw_knull(w, "mismatch");
    } else {
        jw_kobj(w, "mismatch");
        jw_kcstr(w, "kind", r->kind);
        put_index(w, r->index);
        jw_end(w);
    }
    jw_kcstr(w, "replay_dir", r->out);
    jw_ki64(w, "run_exit_status", run_status);
}

/* The replay's run, in a child of its own (run_in_child). */
static int replay_run(void *ctx)
{
    return scvm_run(ctx);
}

/* Plays the recording again: `scvm run -t pty` on its scenario.scb, its
** policy and its command, into r->out, in a child process tied to this
** one (killed, even by SIGKILL, the replay's run gets SIGTERM and ends
** its session as a cancelled run does).  Returns the run's exit status,
** or -1 (err). */
static int play_again(Replay *r, const cJSON *run, bool cells, bool ptybox_colors, char *err, size_t n)
{
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(run, "command");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(run, "args"), *a;
    cJSON *pol = read_json(r->dir, "policy.json");
    bool has_pol = cJSON_IsObject(pol);
    cJSON_Delete(pol);
    char scb[PATH_MAX], polf[PATH_MAX], gold[PATH_MAX];
    snprintf(gold, sizeof gold, "%.3000s/goldens", r->out);
    snprintf(scb, sizeof scb, "%.3000s/scenario.scb", r->dir);
    snprintf(polf, sizeof polf, "%.3000s/policy.json", r->dir);
    /* the options `scvm run -t pty --artifacts OUT --goldens OUT/goldens
    ** [--policy FILE] [--cells] SCB [-- CMD ARGS]` gives */
    const char *ops[1] = { scb };
    Opts o;
    memset(&o, 0, sizeof o);
    o.cmd = CMD_RUN;
    o.ops = ops;
    o.n_ops = 1;
    o.target = "pty";
    o.speed = 1.0;
    o.jobs = 1;
    o.artifacts = r->out;
    o.goldens = gold;
    o.policy_file = has_pol ? polf : NULL;
    o.cells = cells;
    o.color_names = ptybox_colors ? "ptybox" : NULL;
    /* A tui-use scenario names its command, arguments and folder itself;
    ** another ran the command recorded in run.json. */
    cJSON *scen = read_json(r->dir, "scenario.json");
    bool tuiuse = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(scen, "run"));
    cJSON_Delete(scen);
    char *argv[256];
    if (!tuiuse && cJSON_IsString(cmd) && cmd->valuestring[0]) {
        int k = 0;
        argv[k++] = cmd->valuestring;
        cJSON_ArrayForEach(a, args) {
            /* as many as the command line it replaced took */
            if (k + 10 + 2 * has_pol + cells >= 250) {
                snprintf(err, n, "run.json: too many arguments to replay");
                return -1;
            }
            if (cJSON_IsString(a))
                argv[k++] = a->valuestring;
        }
        argv[k] = NULL;
        o.command = argv;
    }
    int st = run_in_child(replay_run, &o);
    if (st < 0)
        snprintf(err, n, "cannot run the replay: %s", strerror(errno));
    return st;
}

static const char *dir_of(const Opts *o)
{
    if (o->artifacts && o->n_ops == 0)
        return o->artifacts;
    return !o->artifacts && o->n_ops == 1 ? o->ops[0] : NULL;
}

int scvm_replay(const Opts *o)
{
    Replay r;
    memset(&r, 0, sizeof r);
    r.index = -1;
    r.dir = dir_of(o);
    char err[1024];
    if (!r.dir)
        return scvm_report_error(o, "replay", SCC_E_CLI_INVALID_ARG, "give one artifacts folder (DIR or --artifacts DIR)");
    if (o->strict && o->n_normalize)
        return scvm_report_error(o, "replay", SCC_E_CLI_INVALID_ARG, "--strict and --normalize: choose one");
    cJSON *run = read_json(r.dir, "run.json");
    if (!cJSON_IsObject(run)) {
        snprintf(err, sizeof err, "%s/run.json: %s", r.dir, exists(r.dir, "run.json") ? "not a RunResult" : "missing");
        cJSON_Delete(run);
        return scvm_report_error(o, "replay", exists(r.dir, "run.json") ? SCC_E_PROTOCOL : SCC_E_IO, err);
    }
    if (!exists(r.dir, "scenario.scb")) {
        cJSON_Delete(run);
        snprintf(err, sizeof err, "%s/scenario.scb: missing: only a single scenario's run with --artifacts keeps "
                                  "what a replay plays", r.dir);
        return scvm_report_error(o, "replay", SCC_E_IO, err);
    }
    if (choose(&r, o, err, sizeof err) < 0) {
        cJSON_Delete(run);
        cJSON_Delete(r.rules_json);
        return scvm_report_error(o, "replay", err[0] == 'u' ? SCC_E_CLI_INVALID_ARG : SCC_E_PROTOCOL, err);
    }
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(run, "run_id");
    char safe[48];
    rt_pty_safe_name(cJSON_IsString(rid) ? rid->valuestring : "unknown", safe, sizeof safe);
    snprintf(r.out, sizeof r.out, "%s/replay-%s", r.dir, safe);
    /* What must be there, and that the recording is intact. */
    int d = 0;
    cJSON *sums = read_json(r.dir, "checksums.json");
    if (o->require_events && !exists(r.dir, "events.jsonl"))
        d = mismatch(&r, "missing_events", -1, "events.jsonl: missing (--require-events)");
    else if (o->require_checksums && !exists(r.dir, "checksums.json"))
        d = mismatch(&r, "missing_checksums", -1, "checksums.json: missing (--require-checksums)");
    else if (sums)
        d = check_sums(&r, sums);
    cJSON_Delete(sums);
    int run_status = -1;
    if (!d) {
        cJSON *s1 = read_json(r.dir, "snapshots/000001.json");
        bool cells = cJSON_GetObjectItemCaseSensitive(s1, "cells") != NULL;
        cJSON_Delete(s1);
        bool ptybox = cells && recorded_ptybox_colors(r.dir);
        file_remove_tree(r.out);
        run_status = play_again(&r, run, cells, ptybox, err, sizeof err);
        if (run_status < 0) {
            cJSON_Delete(run);
            cJSON_Delete(r.rules_json);
            return scvm_report_error(o, "replay", SCC_E_IO, err);
        }
        if (!exists(r.out, "run.json"))
            d = mismatch(&r, "run", -1, "the replay wrote no run.json (its run exited %d)", run_status);
        else
            d = compare(&r, o);
    }
    cJSON_Delete(run);
    /* replay.json, normalization.json (what was applied), diff.json */
    file_mkdirs(r.out);
    Buf b, path;
    buf_init(&b);
    buf_init(&path);
    JsonW w;
    jw_open_obj(&w, &b);
    put_summary(&w, &r, !d, run_status);
    jw_end(&w);
    jw_nl(&w);
    buf_printf(&path, "%s/replay.json", r.out);
    buf_putc(&path, 0);
    int we = file_write_atomic((const char *)path.data, b.data, b.len);
    buf_reset(&b);
    jw_open_obj(&w, &b);
    jw_ku64(&w, "normalization_version", 1);
    jw_key(&w, "filters");
    put_filters(&w, &r);
    jw_kbool(&w, "strict", r.strict);
    jw_kcstr(&w, "source", r.source);
    put_rules(&w, &r);
    jw_end(&w);
    jw_nl(&w);
    buf_reset(&path);
    buf_printf(&path, "%s/normalization.json", r.out);
    buf_putc(&path, 0);
    we = we ? we : file_write_atomic((const char *)path.data, b.data, b.len);
    buf_reset(&path);
    buf_printf(&path, "%s/diff.json", r.out);
    buf_putc(&path, 0);
    if (d) {
        buf_reset(&b);
        jw_open_obj(&w, &b);
        jw_kcstr(&w, "code", "E_REPLAY_MISMATCH");
        jw_kcstr(&w, "message", r.message);
        jw_kobj(&w, "context");
        jw_kcstr(&w, "kind", r.kind);
        put_index(&w, r.index);
        jw_end(&w);
        jw_end(&w);
        jw_nl(&w);
        we = we ? we : file_write_atomic((const char *)path.data, b.data, b.len);
    } else {
        unlink((const char *)path.data);
    }
    /* the report */
    buf_reset(&b);
    if (o->json) {
        jw_open_obj(&w, &b);
        jw_ki64(&w, "protocol_version", SCC_PROTOCOL_VERSION);
        put_summary(&w, &r, !d, run_status);
        if (d) {
            jw_kobj(&w, "error");
            jw_kcstr(&w, "code", "E_REPLAY_MISMATCH");
            jw_kcstr(&w, "message", r.message);
            jw_end(&w);
        }
        jw_end(&w);
        jw_nl(&w);
    } else if (d) {
        buf_printf(&b, "replay: failed: %s\nfirst difference (%s): %s\n", r.out, r.kind, r.message);
    } else {
        buf_printf(&b, "replay: passed: %s\n", r.out);
    }
    int wo = cli_put_stdout(&b);
    buf_fini(&b);
    buf_fini(&path);
    for (size_t i = 0; i < r.n_rules; i++)
        term_regex_free(r.rules[i].re);
    cJSON_Delete(r.rules_json);
    if (we) {
        snprintf(err, sizeof err, "%.900s: cannot write: %s", r.out, strerror(we));
        return scvm_report_error(o, "replay", SCC_E_IO, err);
    }
    return d ? SCC_E_REPLAY_MISMATCH : wo ? SCC_E_IO : 0;
}

/* replay-report: the latest replay's summary, without playing anything. */
int scvm_replay_report(const Opts *o)
{
    const char *dir = dir_of(o);
    if (!dir)
        return scvm_report_error(o, "replay-report", SCC_E_CLI_INVALID_ARG, "give one artifacts folder (DIR or --artifacts DIR)");
    DIR *dd = opendir(dir);
    char best[PATH_MAX] = "", err[PATH_MAX + 64];
    struct timespec bt = { 0, 0 };
    struct dirent *e;
    while (dd && (e = readdir(dd))) {
        if (strncmp(e->d_name, "replay-", 7) != 0)
            continue;
        char p[PATH_MAX];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s/replay.json", dir, e->d_name);
        if (stat(p, &st) == 0 && (st.st_mtim.tv_sec > bt.tv_sec ||
                                  (st.st_mtim.tv_sec == bt.tv_sec && st.st_mtim.tv_nsec > bt.tv_nsec))) {
            bt = st.st_mtim;
            snprintf(best, sizeof best, "%s", e->d_name);
        }
    }
    if (dd)
        closedir(dd);
    if (!best[0]) {
        snprintf(err, sizeof err, "%.1000s: no replay-*/replay.json: run 'scvm replay %.1000s' first", dir, dir);
        return scvm_report_error(o, "replay-report", SCC_E_IO, err);
    }
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%.2000s/%.1000s", dir, best);
    cJSON *sum = read_json(sub, "replay.json"), *diff = read_json(sub, "diff.json");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(sum, "status");
    if (!cJSON_IsString(status)) {
        cJSON_Delete(sum);
        cJSON_Delete(diff);
        snprintf(err, sizeof err, "%.3000s/replay.json: not a ReplaySummary", sub);
        return scvm_report_error(o, "replay-report", SCC_E_PROTOCOL, err);
    }
    bool passed = strcmp(status->valuestring, "passed") == 0;
    Buf b;
    buf_init(&b);
    if (o->json) {
        cJSON_AddNumberToObject(sum, "protocol_version", SCC_PROTOCOL_VERSION);
        if (diff)
            cJSON_AddItemToObject(sum, "diff", cJSON_Duplicate(diff, true));
        char *s = cJSON_PrintUnformatted(sum);
        buf_puts(&b, s ? s : "{}");
        buf_putc(&b, '\n');
        free(s);
    } else {
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(diff, "message"));
        buf_printf(&b, "replay: %s: %s\n", status->valuestring, sub);
        if (msg)
            buf_printf(&b, "first difference: %s\n", msg);
    }
    int w = cli_put_stdout(&b);
    buf_fini(&b);
    cJSON_Delete(sum);
    cJSON_Delete(diff);
    return !passed ? SCC_E_REPLAY_MISMATCH : w ? SCC_E_IO : 0;
}
