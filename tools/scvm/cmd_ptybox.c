/* SPDX-License-Identifier: MIT */
/* cmd_ptybox.c - the utility commands ptybox (tui-use) users script
** against, under ptybox's names (docs/tui-use.md, "ptybox's commands"):
**
**   scvm completions bash|zsh|fish   the shell completion (= --generate)
**   scvm protocol-help [--json]      the driver protocol for a program or
**                                    a model to read: versions, commands,
**                                    actions, conditions, schemas, codes
**   scvm trace [--artifacts] DIR [-o FILE]   a run's artifacts (scvm run -t
**                                    pty, driver, exec --artifacts, or a
**                                    replay's DIR/replay-ID) as one
**                                    self-contained HTML page: the run,
**                                    its steps and every snapshot drawn
**
** The commands and their help come from the option table (options.c);
** the screens are drawn by formats/term (term_svg), as golden pictures
** are.  Output is deterministic: the same artifacts give the same bytes. */
#include "scvm.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/cliopt.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "formats/term/term_svg.h"
#include "include/scc/session.h"
#include "cli.h"

/* ---- completions ---- */

int scvm_completions(const Opts *o)
{
    const char *sh = o->n_ops == 1 ? o->ops[0] : NULL;
    if (!sh || (strcmp(sh, "bash") != 0 && strcmp(sh, "zsh") != 0 && strcmp(sh, "fish") != 0))
        return co_usage(&scvm_table, "completions: give one shell: bash, zsh or fish");
    return co_write(stdout, &scvm_table, (CoFormat)co_format(sh), 0);
}

/* ---- protocol-help ---- */

static const struct {
    const char *name, *payload, *what;
} ACTIONS[] = {
    { "key", "{\"key\": \"Enter|Tab|Escape|Up|Ctrl+C|F1|a ...\"}", "press one key or a chord (Ctrl+, Alt+, Shift+)" },
    { "text", "{\"text\": \"...\"}", "type text; \\n is Enter, nothing is appended" },
    { "resize", "{\"rows\": 1-500, \"cols\": 1-500}", "change the terminal's size" },
    { "wait", "{\"condition\": {\"type\": ..., \"payload\": {...}}}", "wait until the condition holds (timeout_ms)" },
    { "observe", "{}", "the screen now (ptybox's; timeout_ms: let it settle first)" },
    { "terminate", "{}", "end the program: SIGTERM to its group, SIGKILL after 200 ms" },
};

static const struct {
    const char *name, *payload;
} CONDITIONS[] = {
    { "screen_contains", "{\"text\"}" },   { "not_contains", "{\"text\"}" },
    { "screen_matches", "{\"pattern\"}" }, { "regex_match", "{\"pattern\"}" },
    { "line_equals", "{\"line\", \"text\"}" }, { "line_contains", "{\"line\", \"text\"}" },
    { "line_starts_with", "{\"line\", \"text\"}" }, { "line_ends_with", "{\"line\", \"text\"}" },
    { "line_matches", "{\"line\", \"pattern\"}" }, { "cursor_at", "{\"row\", \"col\"}" },
    { "screen_empty", "{}" }, { "cursor_visible", "{}" }, { "cursor_hidden", "{}" },
    { "process_exited", "{}" }, { "exit_code", "{\"code\"}" }, { "screen_stable", "{\"ms\"}" },
    { "alternate_screen", "{\"on\"}" },
};

static const char *const CODE_WHAT[] = {
    [SCC_E_OK] = "success",
    [SCC_E_INTERNAL] = "internal error (a bug)",
    [SCC_E_POLICY_DENIED] = "the policy is refused, or an action attempts what it forbids",
    [SCC_E_SANDBOX_UNAVAILABLE] = "the sandbox the policy needs is not available",
    [SCC_E_TIMEOUT] = "a budget was exceeded (run time, wait, step, output)",
    [SCC_E_ASSERTION_FAILED] = "an assertion did not pass",
    [SCC_E_PROCESS_EXIT] = "the program exited (unexpectedly, or before input)",
    [SCC_E_TERMINAL_PARSE] = "the terminal output could not be parsed",
    [SCC_E_PROTOCOL_VERSION_MISMATCH] = "an incompatible protocol or policy version",
    [SCC_E_PROTOCOL] = "a malformed request",
    [SCC_E_IO] = "an I/O failure",
    [SCC_E_REPLAY_MISMATCH] = "a replay differs from its recording",
    [SCC_E_CLI_INVALID_ARG] = "an invalid command-line argument",
};

/* The observation's and the RunResult's fields, as docs/driver.md lists them. */
static const char *const OBSERVATION[] = { "protocol_version", "run_id", "session_id", "timestamp_ms", "screen",
                                           "transcript_delta", "events", NULL };
static const char *const SNAPSHOT[] = { "snapshot_version", "snapshot_id", "rows", "cols", "cursor",
                                        "alternate_screen", "lines", "cells", NULL };
static const char *const RUN_RESULT[] = { "run_result_version", "protocol_version", "run_id", "status",
                                          "started_at_ms", "ended_at_ms", "command", "args", "cwd", "policy",
                                          "scenario", "steps", "final_observation", "exit_status", "error", NULL };
static const char *const HELP_COMMANDS[] = { "driver", "exec", "run", "replay", "replay-report", "trace",
                                             "completions", "protocol-help", NULL };

static void str_list(JsonW *w, const char *key, const char *const *v)
{
    jw_karr(w, key);
    for (int i = 0; v[i]; i++)
        jw_cstr(w, v[i]);
    jw_end(w);
}

static void protocol_json(Buf *b)
{
    JsonW w;
    jw_open_obj(&w, b);
    jw_ki64(&w, "protocol_version", SCC_PROTOCOL_VERSION);
    jw_kobj(&w, "versions");
    jw_ki64(&w, "protocol", SCC_PROTOCOL_VERSION);
    jw_ki64(&w, "scenario", 1);
    jw_ki64(&w, "policy", 4);
    jw_ki64(&w, "snapshot", 1);
    jw_ki64(&w, "run_result", 1);
    jw_end(&w);
    jw_kobj(&w, "commands");
    for (int i = 0; HELP_COMMANDS[i]; i++) {
        const CoName *c = co_command(&scvm_table, HELP_COMMANDS[i]);
        if (!c)
            continue;
        jw_kobj(&w, c->name);
        jw_kcstr(&w, "description", c->help ? c->help : "");
        char usage[512];
        snprintf(usage, sizeof usage, "scvm %s", c->synopsis ? c->synopsis : c->name);
        jw_kcstr(&w, "usage", usage);
        jw_end(&w);
    }
    jw_end(&w);
    jw_kobj(&w, "schemas");
    jw_kobj(&w, "DriverInput");
    str_list(&w, "fields", (const char *const[]){ "protocol_version", "request_id", "action", "timeout_ms", NULL });
    jw_end(&w);
    jw_kobj(&w, "Action");
    str_list(&w, "fields", (const char *const[]){ "type", "payload", NULL });
    jw_kobj(&w, "types");
    for (size_t i = 0; i < sizeof ACTIONS / sizeof *ACTIONS; i++) {
        jw_kobj(&w, ACTIONS[i].name);
        jw_kcstr(&w, "payload", ACTIONS[i].payload);
        jw_kcstr(&w, "description", ACTIONS[i].what);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    jw_kobj(&w, "Condition");
    str_list(&w, "fields", (const char *const[]){ "type", "payload", NULL });
    jw_kobj(&w, "types");
    for (size_t i = 0; i < sizeof CONDITIONS / sizeof *CONDITIONS; i++) {
        jw_kobj(&w, CONDITIONS[i].name);
        jw_kcstr(&w, "payload", CONDITIONS[i].payload);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    jw_kobj(&w, "Observation");
    str_list(&w, "fields", OBSERVATION);
    jw_end(&w);
    jw_kobj(&w, "ScreenSnapshot");
    str_list(&w, "fields", SNAPSHOT);
    str_list(&w, "colors", (const char *const[]){ "default", "ansi_16", "ansi_256", "rgb", NULL });
    jw_end(&w);
    jw_kobj(&w, "RunResult");
    str_list(&w, "fields", RUN_RESULT);
    jw_end(&w);
    jw_end(&w);
    jw_kobj(&w, "error_codes");
    for (int c = SCC_E_INTERNAL; c <= SCC_E_CLI_INVALID_ARG; c++) {
        jw_kobj(&w, scc_error_code(c));
        jw_ki64(&w, "exit_code", c);
        jw_kcstr(&w, "description", CODE_WHAT[c]);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    buf_putc(b, '\n');
}

static void protocol_text(Buf *b)
{
    buf_printf(b, "scvm driver protocol (tui-use data model)\nProtocol version: %d\n\n", SCC_PROTOCOL_VERSION);
    buf_puts(b, "COMMANDS\n");
    for (int i = 0; HELP_COMMANDS[i]; i++) {
        const CoName *c = co_command(&scvm_table, HELP_COMMANDS[i]);
        if (c)
            buf_printf(b, "  scvm %s\n", c->synopsis ? c->synopsis : c->name);
    }
    buf_puts(b, "\nREQUEST (one JSON object per line on stdin)\n"
                "  {\"protocol_version\": 2, \"request_id\": \"1\", \"action\": {\"type\": ..., \"payload\": {...}},"
                " \"timeout_ms\": N}\n\nACTION TYPES\n");
    for (size_t i = 0; i < sizeof ACTIONS / sizeof *ACTIONS; i++)
        buf_printf(b, "  %-10s %s\n             %s\n", ACTIONS[i].name, ACTIONS[i].payload, ACTIONS[i].what);
    buf_puts(b, "\nCONDITIONS (wait and assertions)\n");
    for (size_t i = 0; i < sizeof CONDITIONS / sizeof *CONDITIONS; i++)
        buf_printf(b, "  %-17s %s\n", CONDITIONS[i].name, CONDITIONS[i].payload);
    buf_puts(b, "\nERROR CODES (exit status)\n");
    for (int c = SCC_E_INTERNAL; c <= SCC_E_CLI_INVALID_ARG; c++)
        buf_printf(b, "  %2d %-28s %s\n", c, scc_error_code(c), CODE_WHAT[c]);
    buf_puts(b, "\nMore: docs/driver.md and docs/tui-use.md.\n");
}

int scvm_protocol_help(const Opts *o)
{
    if (o->n_ops)
        return co_usage(&scvm_table, "protocol-help takes no operand");
    Buf b;
    buf_init(&b);
    if (o->json)
        protocol_json(&b);
    else
        protocol_text(&b);
    int st = b.oom ? SC_RUNTIME : cli_put_stdout(&b);
    buf_fini(&b);
    return st;
}

/* ---- trace ---- */

static cJSON *read_json(const char *dir, const char *rel, char *err, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%.3000s/%.1000s", dir, rel);
    char *t = NULL;
    size_t len = 0;
    int e = file_read_all(path, (size_t)256 << 20, &t, &len);
    if (e) {
        snprintf(err, n, "failed to read %.3500s: %s", path, strerror(e));
        return NULL;
    }
    cJSON *j = cJSON_ParseWithLength(t, len);
    sc_free(t);
    if (!j)
        snprintf(err, n, "%.3500s: not JSON", path);
    return j;
}

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void esc(Buf *b, const char *s) { term_xml_esc(b, s, strlen(s)); }

/* A JSON value, compact and escaped, for a cell of the page. */
static void esc_json(Buf *b, const cJSON *v)
{
    char *s = v ? cJSON_PrintUnformatted(v) : NULL;
    esc(b, s ? s : "null");
    free(s);
}

/* A style colour as a golden attribute word's value; false: default. */
static bool color_word(const cJSON *c, char *out, size_t n)
{
    if (!cJSON_IsObject(c) || !c->child)
        return false;
    const cJSON *v = c->child;
    if (cJSON_IsNumber(v) && (!strcmp(v->string, "ansi_16") || !strcmp(v->string, "ansi16") ||
                              !strcmp(v->string, "ansi_256") || !strcmp(v->string, "ansi256"))) {
        snprintf(out, n, "%d", v->valueint & 255);
        return true;
    }
    if (!strcmp(v->string, "rgb")) {
        int r = cJSON_GetObjectItemCaseSensitive(v, "r") ? cJSON_GetObjectItemCaseSensitive(v, "r")->valueint : 0;
        int g = cJSON_GetObjectItemCaseSensitive(v, "g") ? cJSON_GetObjectItemCaseSensitive(v, "g")->valueint : 0;
        int bl = cJSON_GetObjectItemCaseSensitive(v, "b") ? cJSON_GetObjectItemCaseSensitive(v, "b")->valueint : 0;
        snprintf(out, n, "#%02x%02x%02x", r & 255, g & 255, bl & 255);
        return true;
    }
    return false;
}

/* A ScreenSnapshot as golden text (docs/golden-screens.md), so the
** golden pictures' drawing draws it: lines, cursor, and with cells
** their style. */
static bool snapshot_golden(const cJSON *s, Buf *g)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(s, "rows"), *cols = cJSON_GetObjectItemCaseSensitive(s, "cols");
    const cJSON *cur = cJSON_GetObjectItemCaseSensitive(s, "cursor"), *lines = cJSON_GetObjectItemCaseSensitive(s, "lines");
    if (!cJSON_IsNumber(rows) || !cJSON_IsNumber(cols) || !cJSON_IsArray(lines))
        return false;
    const cJSON *cr = cJSON_GetObjectItemCaseSensitive(cur, "row"), *cc = cJSON_GetObjectItemCaseSensitive(cur, "col");
    buf_printf(g, "scc-screen 1\nsize %dx%d\ncursor %d,%d %s\nalt %s\ntext\n", rows->valueint, cols->valueint,
               cJSON_IsNumber(cr) ? cr->valueint : 0, cJSON_IsNumber(cc) ? cc->valueint : 0,
               cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cur, "visible")) ? "hidden" : "visible",
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "alternate_screen")) ? "on" : "off");
    int r = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, lines) {
        buf_printf(g, "%3d|%s\n", r++, cJSON_IsString(l) ? l->valuestring : "");
    }
    buf_puts(g, "attrs\n");
    const cJSON *cells = cJSON_GetObjectItemCaseSensitive(s, "cells"), *row;
    r = 0;
    cJSON_ArrayForEach(row, cells) {
        int col = 0;
        bool started = false;
        const cJSON *c;
        cJSON_ArrayForEach(c, row) {
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "style");
            const cJSON *wd = cJSON_GetObjectItemCaseSensitive(c, "width");
            int w = cJSON_IsNumber(wd) && wd->valueint == 2 ? 2 : 1;
            char fg[16], bg[16], words[96] = "";
            if (color_word(cJSON_GetObjectItemCaseSensitive(st, "fg"), fg, sizeof fg))
                snprintf(words + strlen(words), sizeof words - strlen(words), " fg=%s", fg);
            if (color_word(cJSON_GetObjectItemCaseSensitive(st, "bg"), bg, sizeof bg))
                snprintf(words + strlen(words), sizeof words - strlen(words), " bg=%s", bg);
            static const char *const flags[] = { "bold", "italic", "underline", "inverse" };
            for (int i = 0; i < 4; i++)
                if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, flags[i])))
                    snprintf(words + strlen(words), sizeof words - strlen(words), " %s", flags[i]);
            if (words[0]) {
                if (started)
                    buf_puts(g, ",");
                else
                    buf_printf(g, "%3d:", r);
                buf_printf(g, " %d-%d%s", col, col + w - 1, words);
                started = true;
            }
            col += w;
        }
        if (started)
            buf_putc(g, '\n');
        r++;
    }
    return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The snapshots folder's .json files, sorted by name (NNNNNN: the run's order). */
static char **snapshot_names(const char *dir, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%.4000s/snapshots", dir);
    *n = 0;
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    size_t cap = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        if (*n == cap && !SC_GROW(v, cap, 16))
            break;
        if (!(v[*n] = sc_strdup(e->d_name)))
            break;
        (*n)++;
    }
    closedir(d);
    if (*n)
        qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static void frame(Buf *h, const char *dir, const char *name, const char *caption)
{
    char rel[512], err[4200];
    snprintf(rel, sizeof rel, "snapshots/%.400s", name);
    cJSON *s = read_json(dir, rel, err, sizeof err);
    Buf g;
    buf_init(&g);
    TermShot *shot = s && snapshot_golden(s, &g) ? term_shot_parse((const char *)g.data, g.len, NULL) : NULL;
    buf_puts(h, "<section class=\"frame\"><h3>");
    esc(h, name);
    if (caption && *caption) {
        buf_puts(h, " &#8212; ");
        esc(h, caption);
    }
    buf_puts(h, "</h3>\n");
    if (shot) {
        term_svg_write(shot, NULL, false, h);
        buf_puts(h, "\n<details><summary>lines</summary><pre>");
        const cJSON *l;
        cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(s, "lines")) {
            esc(h, cJSON_IsString(l) ? l->valuestring : "");
            buf_putc(h, '\n');
        }
        buf_puts(h, "</pre></details>\n");
    } else {
        buf_puts(h, "<p class=\"meta\">not a ScreenSnapshot</p>\n");
    }
    buf_puts(h, "</section>\n");
    term_shot_free(shot);
    buf_fini(&g);
    cJSON_Delete(s);
}

int scvm_trace(const Opts *o)
{
    const char *dir = o->artifacts ? o->artifacts : o->n_ops == 1 ? o->ops[0] : NULL;
    if (!dir || (o->artifacts && o->n_ops))
        return scvm_report_error(o, "trace", SCC_E_CLI_INVALID_ARG, "give one artifacts folder (DIR or --artifacts DIR)");
    char err[4200];
    cJSON *run = read_json(dir, "run.json", err, sizeof err);
    if (!run)
        return scvm_report_error(o, "trace", SCC_E_IO, err);
    Buf h;
    buf_init(&h);
    char title[600];
    snprintf(title, sizeof title, "scvm trace: %.500s", jstr(run, "run_id"));
    term_html_begin(title, &h);
    buf_puts(&h, "<h1>scvm trace</h1>\n<p class=\"result ");
    esc(&h, jstr(run, "status"));
    buf_puts(&h, "\">");
    esc(&h, jstr(run, "status"));
    buf_puts(&h, "</p>\n<table class=\"run\">\n<tr><th>run_id</th><td>");
    esc(&h, jstr(run, "run_id"));
    buf_puts(&h, "</td></tr>\n<tr><th>command</th><td><code>");
    esc(&h, jstr(run, "command"));
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(run, "args")) {
        buf_putc(&h, ' ');
        esc(&h, cJSON_IsString(a) ? a->valuestring : "");
    }
    buf_puts(&h, "</code></td></tr>\n<tr><th>cwd</th><td>");
    esc(&h, jstr(run, "cwd"));
    const cJSON *t0 = cJSON_GetObjectItemCaseSensitive(run, "started_at_ms");
    const cJSON *t1 = cJSON_GetObjectItemCaseSensitive(run, "ended_at_ms");
    buf_printf(&h, "</td></tr>\n<tr><th>duration</th><td>%.0f ms</td></tr>\n<tr><th>exit_status</th><td><code>",
               cJSON_IsNumber(t0) && cJSON_IsNumber(t1) ? t1->valuedouble - t0->valuedouble : 0.0);
    esc_json(&h, cJSON_GetObjectItemCaseSensitive(run, "exit_status"));
    buf_puts(&h, "</code></td></tr>\n");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(run, "error");
    if (cJSON_IsObject(e)) {
        buf_puts(&h, "<tr><th>error</th><td><code>");
        esc(&h, jstr(e, "code"));
        buf_puts(&h, "</code> ");
        esc(&h, jstr(e, "message"));
        buf_puts(&h, "</td></tr>\n");
    }
    /* a replay's folder (DIR/replay-ID): its verdict and first difference */
    char rerr[4200];
    cJSON *rep = read_json(dir, "replay.json", rerr, sizeof rerr);
    if (rep) {
        buf_puts(&h, "<tr><th>replay</th><td><span class=\"result ");
        esc(&h, jstr(rep, "status"));
        buf_puts(&h, "\">");
        esc(&h, jstr(rep, "status"));
        buf_puts(&h, "</span> <code>");
        esc_json(&h, cJSON_GetObjectItemCaseSensitive(rep, "mismatch"));
        buf_puts(&h, "</code></td></tr>\n");
        cJSON *diff = read_json(dir, "diff.json", rerr, sizeof rerr);
        if (diff) {
            buf_puts(&h, "<tr><th>difference</th><td>");
            esc(&h, jstr(diff, "message"));
            buf_puts(&h, "</td></tr>\n");
        }
        cJSON_Delete(diff);
    }
    cJSON_Delete(rep);
    buf_puts(&h, "</table>\n");

    size_t ns = 0;
    char **snaps = snapshot_names(dir, &ns);
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(run, "steps"), *s;
    if (cJSON_GetArraySize(steps) > 0) {
        buf_puts(&h, "<h2>Steps</h2>\n<table class=\"steps\">\n<tr><th>#</th><th>step</th><th>status</th>"
                     "<th>attempts</th><th>ms</th><th>action</th><th>assertions</th></tr>\n");
        int i = 0;
        cJSON_ArrayForEach(s, steps) {
            const cJSON *st0 = cJSON_GetObjectItemCaseSensitive(s, "started_at_ms");
            const cJSON *st1 = cJSON_GetObjectItemCaseSensitive(s, "ended_at_ms");
            const cJSON *att = cJSON_GetObjectItemCaseSensitive(s, "attempts");
            buf_printf(&h, "<tr><td>%d</td><td>", ++i);
            esc(&h, jstr(s, "name"));
            buf_puts(&h, "</td><td class=\"result ");
            esc(&h, jstr(s, "status"));
            buf_puts(&h, "\">");
            esc(&h, jstr(s, "status"));
            buf_printf(&h, "</td><td>%d</td><td>%.0f</td><td><code>", cJSON_IsNumber(att) ? att->valueint : 0,
                       cJSON_IsNumber(st0) && cJSON_IsNumber(st1) ? st1->valuedouble - st0->valuedouble : 0.0);
            esc_json(&h, cJSON_GetObjectItemCaseSensitive(s, "action"));
            buf_puts(&h, "</code></td><td>");
            const cJSON *as;
            cJSON_ArrayForEach(as, cJSON_GetObjectItemCaseSensitive(s, "assertions")) {
                bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(as, "passed"));
                buf_printf(&h, "<div class=\"result %s\">", ok ? "passed" : "failed");
                esc(&h, jstr(as, "type"));
                const char *m = jstr(as, "message");
                if (*m) {
                    buf_puts(&h, ": ");
                    esc(&h, m);
                }
                buf_puts(&h, "</div>");
            }
            const cJSON *se = cJSON_GetObjectItemCaseSensitive(s, "error");
            if (cJSON_IsObject(se)) {
                buf_puts(&h, "<div class=\"result failed\">");
                esc(&h, jstr(se, "code"));
                buf_puts(&h, ": ");
                esc(&h, jstr(se, "message"));
                buf_puts(&h, "</div>");
            }
            buf_puts(&h, "</td></tr>\n");
        }
        buf_puts(&h, "</table>\n");
    }
    /* the frames: each snapshot, captioned with its step when they pair
    ** up (a tui-use scenario writes one per step, in order, and the final
    ** screen) */
    size_t nst = (size_t)cJSON_GetArraySize(steps);
    bool paired = nst && (ns == nst || ns == nst + 1);
    buf_printf(&h, "<h2>Frames (%zu)</h2>\n", ns);
    for (size_t i = 0; i < ns; i++) {
        const cJSON *st = paired ? cJSON_GetArrayItem(steps, (int)i) : NULL;
        frame(&h, dir, snaps[i], st ? jstr(st, "name") : paired ? "final" : "");
        sc_free(snaps[i]);
    }
    sc_free(snaps);
    buf_puts(&h, "</body>\n</html>\n");
    cJSON_Delete(run);
    int st = h.oom ? SC_RUNTIME : cli_put_output(o->output ? o->output : "trace.html", &h);
    buf_fini(&h);
    return st;
}
