/* cmd_aut.c - `scvm run -t aut`: the cases of an ElizaOS or Yao suite (or of
** any scenario with CASE ops) played against an agent under test
** (runtime/aut/aut_target.h; docs/aut.md).
**
** Each selected scenario gets its header line, then the target's events;
** stderr gets a line per case that did not pass and, at the end, the cases'
** totals "N passed, N failed, N skipped" (errors count as failed).  The
** exit status is 1 when a case failed or erred, else 0; a tape that cannot
** be read is 3, one that is malformed 4. */
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/status.h"
#include "runtime/aut/aut_target.h"
#include "runtime/rt_cancel.h"
#include "runtime/tape/tape.h"
#include "vm/vm.h"
#include "cli.h"
#include "scvm.h"

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
    AutKind kind = strcmp(o->via, "http") == 0 ? AUT_HTTP : strcmp(o->via, "acp") == 0 ? AUT_ACP : AUT_PTY;
    AutTargetOpts to = {
        .aut = { .kind = kind, .url = o->agent_url, .model = o->agent_model, .argv = o->command,
                 .timeout_ms = o->turn_timeout_ms, .cancel_fd = rt_cancel_fd(), .cwd = o->workspace },
        .workspace = o->workspace, .tape = tape, .events = out, .diag = stderr,
        .judge_url = o->record ? o->judge_url : NULL, .judge_model = o->judge_model,
    };
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
    if (tape && o->record && tape_changed(tape)) {
        int e = tape_save(tape, o->tape);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write the tape: %s\n", o->tape, strerror(e));
            if (worst < SC_IO)
                worst = SC_IO;
        } else {
            fprintf(stderr, "scvm: tape: %s now holds %zu entries\n", o->tape, tape_size(tape));
        }
    }
    fprintf(stderr, "%u passed, %u failed, %u skipped\n", all.passed, all.failed + all.errors, all.skipped);
    tape_free(tape);
    if (rt_cancel_signal())
        return 128 + rt_cancel_signal();
    return worst;
}
