/* cmd_aut.c - `scvm run -t aut`: the cases of an ElizaOS or Yao suite (or of
** any scenario with CASE ops) played against an agent under test
** (runtime/aut/aut_target.h; docs/aut.md).
**
** Each selected scenario gets its header line, then the target's events;
** stderr gets a line per case that did not pass and, at the end, the cases'
** totals "N passed, N failed, N skipped" (errors count as failed).  The
** exit status is 1 when a case failed or erred, else 0; a tape that cannot
** be read is 3, one that is malformed 4. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/aut/aut_target.h"
#include "runtime/rt_cancel.h"
#include "runtime/tape/tape.h"
#include "vm/vm.h"
#include "cli.h"
#include "scvm.h"

/* The reports, built as the cases end. */
typedef struct Reports {
    const Opts *o;
    Buf results;                    /* --results: Yao's JSON Lines result records */
    Buf junit;                      /* --junit: the <testcase> elements */
    size_t cases, passed, failed, skipped, errors, timeouts;
    uint64_t ms;
    const char *eliza_scenario;     /* the ElizaOS scenario whose steps are being reported */
    bool eliza_failed, eliza_erred, eliza_any;
    char eliza_judgment[16];        /* a copy: the target that knew it is gone by the status line */
} Reports;

static bool is_eliza(const char *type)
{
    return !strcmp(type, "input") || !strcmp(type, "code") || !strcmp(type, "conversation");
}

static void xml(Buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': buf_puts(b, "&amp;"); break;
        case '<': buf_puts(b, "&lt;"); break;
        case '>': buf_puts(b, "&gt;"); break;
        case '"': buf_puts(b, "&quot;"); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                buf_putc(b, *s);
        }
    }
}

static void eliza_status(Reports *r)
{
    bool any_pass = strcmp(r->eliza_judgment, "any_pass") == 0;
    bool fail = any_pass ? r->eliza_erred || !r->eliza_any : r->eliza_failed;
    if (r->eliza_scenario)
        fprintf(stderr, "SCENARIO STATUS: %s\n", fail ? "\u274c FAIL" : "\u2705 PASS");
    r->eliza_scenario = NULL;
    r->eliza_failed = r->eliza_erred = r->eliza_any = false;
}

/* Each case as its own ecosystem reports it on the console (stderr), and
** into the result records and the JUnit report. */
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
    if (is_eliza(c->type)) {
        /* ElizaOS: a heading per scenario, a line per evaluation, its status */
        if (!r->eliza_scenario || strcmp(r->eliza_scenario, c->scenario) != 0) {
            eliza_status(r);
            fprintf(stderr, "\u25b6\ufe0f RUNNING SCENARIO: %s\n", c->scenario);
            r->eliza_scenario = c->scenario;
        }
        for (unsigned i = 0; i < c->checks; i++)
            fprintf(stderr, "%s: %s\n", !strcmp(c->verdicts[i], "passed") ? "\u2705 PASS"
                                        : !strcmp(c->verdicts[i], "skipped") ? "\u23ed\ufe0f SKIP"
                                                                            : "\u274c FAIL", c->messages[i]);
        if (!c->checks && strcmp(status, "passed") != 0)
            fprintf(stderr, "%s: step %s: %s\n", !strcmp(status, "skipped") ? "\u23ed\ufe0f SKIP" : "\u274c FAIL",
                    c->id, c->why);
        r->eliza_failed |= !strcmp(status, "failed") || !strcmp(status, "error") || !strcmp(status, "timeout");
        r->eliza_erred |= !strcmp(status, "error") || !strcmp(status, "timeout");
        r->eliza_any |= c->checks_passed > 0;
        snprintf(r->eliza_judgment, sizeof r->eliza_judgment, "%s", c->judgment ? c->judgment : "");
    } else {
        /* Yao: one line per case, its input cut at 50 */
        char up[16];
        size_t k = 0;
        for (; status[k] && k + 1 < sizeof up; k++)
            up[k] = (char)(status[k] >= 'a' && status[k] <= 'z' ? status[k] - 32 : status[k]);
        up[k] = 0;
        fprintf(stderr, "\u25ba [%s] %-50.50s %s (%llums)%s%s\n", c->id, c->input ? c->input : "", up,
                (unsigned long long)c->duration_ms, strcmp(status, "passed") ? ": " : "",
                strcmp(status, "passed") ? c->why : "");
    }
    if (r->o->results || r->o->run_json) {
        Buf *b = &r->results;
        buf_puts(b, "{\"type\":\"result\",\"id\":");
        buf_json_str(b, c->id, strlen(c->id));
        buf_puts(b, ",\"scenario\":");
        buf_json_str(b, c->scenario, strlen(c->scenario));
        buf_printf(b, ",\"status\":\"%s\",\"duration_ms\":%llu,\"input\":", status, (unsigned long long)c->duration_ms);
        if (c->input)
            buf_json_str(b, c->input, strlen(c->input));
        else
            buf_puts(b, "null");
        buf_puts(b, ",\"output\":");
        if (c->output)
            buf_json_str(b, c->output, strlen(c->output));
        else
            buf_puts(b, "null");
        buf_puts(b, ",\"error\":");
        if (strcmp(status, "passed") != 0 && c->why && *c->why)
            buf_json_str(b, c->why, strlen(c->why));
        else
            buf_puts(b, "null");
        buf_puts(b, ",\"checks\":[");
        for (unsigned i = 0; i < c->checks; i++) {
            buf_printf(b, "%s{\"verdict\":\"%s\",\"message\":", i ? "," : "", c->verdicts[i]);
            buf_json_str(b, c->messages[i], strlen(c->messages[i]));
            buf_putc(b, '}');
        }
        buf_puts(b, "]}\n");
    }
    if (r->o->junit) {
        Buf *b = &r->junit;
        buf_puts(b, "    <testcase classname=\"");
        xml(b, c->scenario);
        buf_puts(b, "\" name=\"");
        xml(b, c->id);
        buf_printf(b, "\" time=\"%.3f\"", (double)c->duration_ms / 1000.0);
        if (!strcmp(status, "passed")) {
            buf_puts(b, "/>\n");
        } else {
            const char *el = !strcmp(status, "failed") ? "failure" : !strcmp(status, "skipped") ? "skipped" : "error";
            buf_printf(b, ">\n      <%s message=\"", el);
            xml(b, c->why);
            buf_printf(b, "\" type=\"%s\"/>\n    </testcase>\n", status);
        }
    }
}

static int write_reports(Reports *r)
{
    int st = 0;
    if (r->o->run_json) {
        /* the records as one array, the totals, the run's status */
        Buf b;
        buf_init(&b);
        bool failed = r->failed + r->errors + r->timeouts > 0;
        buf_printf(&b, "{\"run_result_version\":1,\"target\":\"aut\",\"status\":\"%s\",\"via\":",
                   failed ? "failed" : "passed");
        const char *via = r->o->via ? r->o->via : "none";
        buf_json_str(&b, via, strlen(via));
        buf_puts(&b, ",\"agent\":");
        if (r->o->agent_url) {
            buf_json_str(&b, r->o->agent_url, strlen(r->o->agent_url));
        } else if (r->o->command) {
            buf_putc(&b, '[');
            for (char *const *a = r->o->command; *a; a++) {
                if (a != r->o->command)
                    buf_putc(&b, ',');
                buf_json_str(&b, *a, strlen(*a));
            }
            buf_putc(&b, ']');
        } else {
            buf_puts(&b, "null");
        }
        buf_printf(&b, ",\"duration_ms\":%llu,\"summary\":{\"total\":%zu,\"passed\":%zu,\"failed\":%zu,"
                       "\"skipped\":%zu,\"errors\":%zu,\"timeouts\":%zu},\"cases\":[",
                   (unsigned long long)r->ms, r->cases, r->passed, r->failed, r->skipped, r->errors, r->timeouts);
        /* each record line, without its "type" member */
        const char *p = (const char *)r->results.data, *end = p ? p + r->results.len : NULL;
        bool first = true;
        while (p && p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *rec = strstr(p, ",\"id\":");
            if (rec && nl && rec < nl) {
                buf_puts(&b, first ? "\n{" : ",\n{");
                buf_put(&b, rec + 1, (size_t)(nl - rec - 1));
                first = false;
            }
            p = nl ? nl + 1 : end;
        }
        buf_puts(&b, "]}\n");
        int e = b.oom ? ENOMEM : file_write_atomic(r->o->run_json, b.data, b.len);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", r->o->run_json, strerror(e));
            st = SC_IO;
        }
        buf_fini(&b);
    }
    if (r->o->results) {
        Buf b;
        buf_init(&b);
        buf_printf(&b, "{\"type\":\"start\",\"total_cases\":%zu}\n", r->cases);
        buf_put(&b, r->results.data, r->results.len);
        buf_printf(&b, "{\"type\":\"summary\",\"total\":%zu,\"passed\":%zu,\"failed\":%zu,\"skipped\":%zu,"
                       "\"errors\":%zu,\"timeouts\":%zu,\"duration_ms\":%llu}\n",
                   r->cases, r->passed, r->failed, r->skipped, r->errors, r->timeouts, (unsigned long long)r->ms);
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
        size_t bad = r->errors;
        buf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"scvm\" tests=\"%zu\" "
                       "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n  <testsuite name=\"",
                   r->cases, r->failed, bad, r->skipped, (double)r->ms / 1000.0);
        xml(&b, r->o->ops[0]);
        buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", r->cases,
                   r->failed, bad, r->skipped, (double)r->ms / 1000.0);
        buf_put(&b, r->junit.data, r->junit.len);
        buf_puts(&b, "  </testsuite>\n</testsuites>\n");
        int e = b.oom ? ENOMEM : file_write_atomic(r->o->junit, b.data, b.len);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", r->o->junit, strerror(e));
            st = SC_IO;
        }
        buf_fini(&b);
    }
    return st;
}

int scvm_run_aut(const Opts *o, const Suite *s, const uint32_t *sel, size_t n)
{
    Tape *tape = NULL;
    if (o->tape) {
        char err[1024];
        tape = tape_load(o->tape, o->record, err, sizeof err);     /* recording may start one */
        if (!tape) {
            fprintf(stderr, "scvm: %s\n", err);
            return strstr(err, ": cannot read: ") ? SC_IO : SC_REJECTED;
        }
    }
    if (rt_cancel_install() != 0) {
        tape_free(tape);
        fputs("scvm: cannot catch signals\n", stderr);
        return SC_RUNTIME;
    }
    FILE *out = stdout;
    if (o->output && strcmp(o->output, "-") != 0 && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "scvm: %s: cannot write\n", o->output);
        tape_free(tape);
        return SC_IO;
    }
    AutKind kind = !o->via || strcmp(o->via, "http") == 0 ? AUT_HTTP : strcmp(o->via, "acp") == 0 ? AUT_ACP : AUT_PTY;
    AutTargetOpts to = {
        .aut = { .kind = kind, .url = o->agent_url, .model = o->agent_model, .argv = o->command,
                 .timeout_ms = o->turn_timeout_ms, .cancel_fd = rt_cancel_fd(), .cwd = o->workspace },
        .workspace = o->workspace, .tape = tape, .events = out,
        .judge_url = o->record ? o->judge_url : NULL, .judge_model = o->judge_model,
        .on_case = on_case, .fail_fast = o->fail_fast, .dry_run = o->dry_run,
    };
    Reports rep = { .o = o };
    buf_init(&rep.results);
    buf_init(&rep.junit);
    to.ctx = &rep;
    AutCounts all = { 0 };
    int worst = 0;
    for (size_t k = 0; k < n && !rt_cancel_signal(); k++) {
        const PackEntry *e = suite_entry(s, sel ? sel[k] : (uint32_t)k);
        Buf h;
        buf_init(&h);
        buf_printf(&h, "{\"kind\":\"scenario\",\"index\":%u,\"name\":", sel ? sel[k] : (unsigned)k);
        buf_json_str(&h, e->name, strlen(e->name));
        buf_puts(&h, ",\"source\":");
        buf_json_str(&h, e->source, strlen(e->source));
        buf_puts(&h, "}\n");
        fwrite(h.data, 1, h.len, out);
        buf_fini(&h);
        RtTarget *t = rt_aut_new(&to);
        if (!t) {
            worst = SC_RUNTIME;
            break;
        }
        VmOpts vo = { .speed = 0 };
        int st = vm_run(e->prog, t, NULL, &vo);
        AutCounts c;
        rt_aut_counts(t, &c);
        to.stopped = rt_aut_stopped(t);
        all.passed += c.passed;
        all.failed += c.failed;
        all.skipped += c.skipped;
        all.errors += c.errors;
        t->vt->destroy(t);
        if (st > worst)
            worst = st;
    }
    if (out != stdout && fclose(out) != 0 && !worst)
        worst = SC_IO;
    eliza_status(&rep);
    if (rep.cases && rep.passed + rep.skipped == rep.cases && rep.cases > rep.skipped)
        fputs("\u2728 ALL TESTS PASSED \u2728\n", stderr);
    else if (rep.failed + rep.errors)
        fputs("\u274c TESTS FAILED\n", stderr);
    int rs = write_reports(&rep);
    if (rs > worst)
        worst = rs;
    buf_fini(&rep.results);
    buf_fini(&rep.junit);
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
        fprintf(stderr, "--dry-run: %zu cases listed, none run\n", rep.cases);
    fprintf(stderr, "%u passed, %u failed, %u skipped\n", all.passed, all.failed + all.errors, all.skipped);
    tape_free(tape);
    if (rt_cancel_signal())
        return 128 + rt_cancel_signal();
    return worst;
}
