/* scvm.c - the command line: run, verify, info, dis.
**
** Data goes to stdout, diagnostics to stderr ("scvm: FILE: ..."), and the
** exit status is one of SC_STATUSES (vm.h; the table is in docs/scvm.md
** and --help).  Everything is loaded and verified before anything runs, and
** -o output is built in memory and written atomically, so a rejected or
** failed run never leaves a partial file. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "runtime/rt_clock.h"
#include "cmd_pack.h"
#include "runtime/rt_sim.h"
#include "cli.h"
#include "vm/vm.h"
#include "runtime/pty/rt_pty.h"

int scvm_serve_main(int argc, char **argv);   /* vm/cmd_serve.c (sc_rt_llm) */

#ifndef SCC_VERSION
#define SCC_VERSION "unknown"
#endif

/* Largest input read: the content limit plus room for zstd's worst-case
** expansion of incompressible data and the header.  Bigger files are
** rejected (SIZE) without being read in full. */
#define INPUT_MAX ((size_t)(BC_MAX_CONTENT + BC_MAX_CONTENT / 64 + 4096))

static const char usage_text[] =
    "usage: scvm run [options] FILE.scb\n"
    "       scvm verify [--json] FILE...\n"
    "       scvm info [--json] FILE\n"
    "       scvm dis [--no-lines] FILE\n"
    "       scvm ls|extract [options] FILE.scp; run/verify/info take packs too\n"
    "       scvm --help | --version\n";

static const char help_text[] =
    "Loads and verifies compiled scenarios (.scb) and plays them.\n"
    "\n"
    "commands:\n"
    "  run FILE       play the scenario; the sim target prints one JSON event\n"
    "                 per line (docs/events.md)\n"
    "  verify FILE... load and verify only; prints 'FILE: ok' for each good file\n"
    "  info FILE      header and metadata\n"
    "  dis FILE       disassembly listing, with source lines when present\n"
    "  serve llm FILE serve the scenarios as mock OpenAI/Anthropic APIs (scvm serve --help)\n"
    "  ls FILE.scp    list a pack's scenarios; extract -C DIR writes them out\n"
    "                 packs: --scenario, --tag, --prompt, --shard I/N, --junit FILE,\n"
    "                 -j N, --fail-fast (docs/scvm.md, \"Packs\")\n"
    "\n"
    "run options:\n"
    "  -o, --output FILE  write to FILE (atomically: nothing on failure); '-' = stdout\n"
    "  -t, --target NAME  target to drive: sim (the default) or pty: a real program in\n"
    "                     a pseudo-terminal (docs/pty.md); after FILE, '-- CMD ARGS...'\n"
    "                     names the program\n"
    "  --speed X          multiply every scheduled time by X: < 1 faster, > 1 slower;\n"
    "                     at_ms = round(t * X); X below 0.01 counts as 0.01\n"
    "  --realtime         wait for each op's time on the monotonic clock (default:\n"
    "                     virtual time, instant)\n"
    "  --count            count events instead of printing them: 'N events'\n"
    "pty options (docs/pty.md):\n"
    "  --artifacts DIR    write run.json, transcript.log, events.jsonl, snapshots/,\n"
    "                     screenshots and checksums.json into DIR\n"
    "  --goldens DIR      compare screenshots with DIR/LABEL.golden (default: the\n"
    "                     FILE's folder/goldens/SCENARIO/PROFILE); diff on mismatch\n"
    "  --update-goldens   write the goldens instead of comparing\n"
    "  --cast FILE        record the session as asciicast v2\n"
    "  --cells            snapshots carry cells with their style\n"
    "  --cancel-key KEY   the key userCancelSession presses (default Ctrl+C)\n"
    "  --type-delay MS    type text one character at a time, MS apart\n"
    "  --keep-workspace   leave the repo.init workspace behind\n"
    "  --data-model-exit  exit with the tui-use data model's status (0-12)\n"
    "  --json             with --count: print the counts as a JSON object\n"
    "other options:\n"
    "  --json             (verify, info) JSON output, one object per file\n"
    "  --no-lines         (dis) leave out source line:col\n"
    "  -h, --help         this text\n"
    "  -V, --version      version\n"
    "\n"
    "exit status (docs/exit-status.md):\n";

/* ---- diagnostics and output ---- */

static const char *err_text(BcErrCode c)
{
    switch (c) {
#define X(name, num, text) case BC_ERR_##name: return text;
        BC_ERRORS(X)
#undef X
    }
    return "unknown error";
}

/* ---- loading ---- */

typedef struct Loaded {
    BcProgram *prog;
    char *data;             /* the file, kept while prog lives */
    BcErrCode code;
    char msg[256];
} Loaded;

static void loaded_fini(Loaded *l)
{
    bc_free(l->prog);
    sc_free(l->data);
    l->prog = NULL;
    l->data = NULL;
}

/* Reads and verifies path.  Returns 0, SC_IO (cannot read), SC_REJECTED or
** SC_RUNTIME (out of memory); on failure l->code/l->msg say why and, unless
** quiet, the diagnostic has been printed. */
static int load(const char *path, Loaded *l, bool quiet)
{
    memset(l, 0, sizeof *l);
    size_t len = 0;
    int e = file_read_all(path, INPUT_MAX, &l->data, &len);
    if (e == EFBIG) {
        l->code = BC_ERR_SIZE;
        snprintf(l->msg, sizeof l->msg, "file is larger than %zu bytes", INPUT_MAX);
    } else if (e == ENOMEM) {
        l->code = BC_ERR_NOMEM;
        snprintf(l->msg, sizeof l->msg, "%s", err_text(BC_ERR_NOMEM));
    } else if (e) {
        l->code = BC_ERR_IO;
        snprintf(l->msg, sizeof l->msg, "%s", strerror(e));
    } else {
        BcError err;
        memset(&err, 0, sizeof err);
        l->code = bc_load(l->data, len, NULL, &l->prog, &err);
        if (l->code == BC_ERR_OK)
            return 0;
        l->prog = NULL;
        snprintf(l->msg, sizeof l->msg, "%s", err.msg[0] ? err.msg : err_text(l->code));
    }
    int st = l->code == BC_ERR_IO ? SC_IO : l->code == BC_ERR_NOMEM ? SC_RUNTIME : SC_REJECTED;
    if (!quiet) {
        if (st == SC_IO)
            fprintf(stderr, "scvm: %s: cannot read: %s\n", cli_display_name(path), l->msg);
        else if (st == SC_RUNTIME)
            fprintf(stderr, "scvm: %s: out of memory\n", cli_display_name(path));
        else
            fprintf(stderr, "scvm: %s: rejected: %s [%s]\n", cli_display_name(path), l->msg,
                    bc_err_name(l->code));
    }
    loaded_fini(l);
    return st;
}

/* ---- option parsing ---- */

typedef struct Cmd {
    const char *output;     /* -o */
    const char *target;     /* -t */
    double speed;
    bool realtime, count, json, no_lines;
    const char **files;     /* operands, in order */
    int n_files;
    /* pty target */
    const char *artifacts, *goldens, *cast, *cancel_key;
    bool update_goldens, cells, keep_ws, dm_exit;
    unsigned type_delay_ms;
    char **command;         /* after FILE and "--": the program, or NULL */
} Cmd;

enum { CMD_RUN = 1, CMD_VERIFY = 2, CMD_INFO = 4, CMD_DIS = 8 };

/* Parses argv[2..] for command `which`: options may come before or after
** the operands, "--" ends them.  Returns 0 or SC_USAGE (printed). */
static int parse(int argc, char **argv, unsigned which, Cmd *c)
{
    memset(c, 0, sizeof *c);
    c->speed = 1.0;
    c->target = "sim";
    c->files = sc_calloc((size_t)argc, sizeof *c->files);
    if (!c->files) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    bool opts = true;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!opts || a[0] != '-' || a[1] == 0) {
            c->files[c->n_files++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            /* run FILE -- CMD ARGS: the rest is the program (pty target). */
            if (which == CMD_RUN && c->n_files == 1 && i + 1 < argc) {
                c->command = argv + i + 1;
                break;
            }
            opts = false;
            continue;
        }
        bool run = which == CMD_RUN;
        int r;
        if (strcmp(a, "--json") == 0 && which != CMD_DIS) {
            c->json = true;
        } else if (run && strcmp(a, "--realtime") == 0) {
            c->realtime = true;
        } else if (run && strcmp(a, "--count") == 0) {
            c->count = true;
        } else if (which == CMD_DIS && strcmp(a, "--no-lines") == 0) {
            c->no_lines = true;
        } else if (run && (r = cli_opt_value(argc, argv, &i, "-o", "--output", &v, usage_text)) != 0) {
            if (r < 0)
                return SC_USAGE;
            if (!*v)
                return cli_usage(usage_text, "%s: empty output file name", "-o");
            c->output = v;
        } else if (run && (r = cli_opt_value(argc, argv, &i, "-t", "--target", &v, usage_text)) != 0) {
            if (r < 0)
                return SC_USAGE;
            if (strcmp(v, "sim") != 0 && strcmp(v, "pty") != 0)
                return cli_usage(usage_text, "unknown target '%s' (known: sim, pty)", v);
            c->target = v;
        } else if (run && strcmp(a, "--update-goldens") == 0) {
            c->update_goldens = true;
        } else if (run && strcmp(a, "--cells") == 0) {
            c->cells = true;
        } else if (run && strcmp(a, "--keep-workspace") == 0) {
            c->keep_ws = true;
        } else if (run && strcmp(a, "--data-model-exit") == 0) {
            c->dm_exit = true;
        } else if (run && ((r = cli_opt_value(argc, argv, &i, NULL, "--artifacts", &c->artifacts, usage_text)) != 0 ||
                           (r = cli_opt_value(argc, argv, &i, NULL, "--goldens", &c->goldens, usage_text)) != 0 ||
                           (r = cli_opt_value(argc, argv, &i, NULL, "--cast", &c->cast, usage_text)) != 0 ||
                           (r = cli_opt_value(argc, argv, &i, NULL, "--cancel-key", &c->cancel_key, usage_text)) != 0)) {
            if (r < 0)
                return SC_USAGE;
        } else if (run && (r = cli_opt_value(argc, argv, &i, NULL, "--speed", &v, usage_text)) != 0) {
            if (r < 0)
                return SC_USAGE;
            if (!cli_parse_speed(v, &c->speed))
                return cli_usage(usage_text, "invalid speed '%s' (expected a finite number >= 0)", v);
        } else if (run && (r = cli_opt_value(argc, argv, &i, NULL, "--type-delay", &v, usage_text)) != 0) {
            char *end;
            unsigned long ms = r < 0 ? 0 : strtoul(v, &end, 10);
            if (r < 0)
                return SC_USAGE;
            if (!*v || *end || ms > 60000)
                return cli_usage(usage_text, "invalid --type-delay '%s' (milliseconds, 0-60000)", v);
            c->type_delay_ms = (unsigned)ms;
        } else {
            return cli_usage(usage_text, "unknown option '%s'", a);
        }
    }
    if (which == CMD_RUN && strcmp(c->target, "pty") != 0 &&
        (c->command || c->artifacts || c->goldens || c->cast || c->cancel_key || c->update_goldens ||
         c->cells || c->keep_ws || c->dm_exit || c->type_delay_ms))
        return cli_usage(usage_text, "%s", "'-- CMD' and the pty options need --target pty");
    return 0;
}

/* ---- commands ---- */

/* run -t pty: the program in a PTY; events stream to stdout (or -o). */
static int run_pty(const Cmd *c, const char *path, const BcProgram *prog)
{
    char dir[4096], goldens[8192];
    const char *sl = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", sl ? (int)(sl - path) : 1, sl ? path : ".");
    if (sl == path)
        snprintf(dir, sizeof dir, "/");
    if (!c->goldens) {
        /* <FILE's folder>/goldens/<scenario>/<terminal profile> */
        char sc[256], prof[128];
        rt_pty_safe_name(prog->str[prog->meta.name].s, sc, sizeof sc);
        rt_pty_profile_of(prog, prof, sizeof prof);
        snprintf(goldens, sizeof goldens, "%s/goldens/%s/%s", dir, sc, prof);
    }
    FILE *out = stdout;
    if (c->output && strcmp(c->output, "-") != 0 && !(out = fopen(c->output, "w"))) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", c->output, strerror(errno));
        return SC_IO;
    }
    RtPtyOpts po = {
        .argv = c->command, .artifacts = c->artifacts, .goldens = c->goldens ? c->goldens : goldens,
        .update_goldens = c->update_goldens, .events = out, .diag = stderr, .cast = c->cast,
        .cancel_key = c->cancel_key, .cells = c->cells, .speed = c->speed, .scenario_dir = dir,
        .keep_workspace = c->keep_ws, .type_delay_ms = c->type_delay_ms,
    };
    RtTarget *t = rt_pty_new(&po);
    if (!t) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    VmOpts vo = { .speed = c->speed };
    int st = vm_run(prog, t, rt_pty_clock(t), &vo);
    const char *msg;
    PtyErr e = rt_pty_result(t, &msg);
    t->vt->destroy(t);
    if (out != stdout && fclose(out) != 0 && !st)
        st = SC_IO;
    return c->dm_exit ? (int)e : st;
}

static int cmd_run(const Cmd *c)
{
    if (c->n_files != 1)
        return cli_usage(usage_text, "%s", c->n_files ? "run takes one FILE" : "run: no input file");
    const char *path = c->files[0];
    Loaded l;
    int st = load(path, &l, false);
    if (st)
        return st;
    if (strcmp(c->target, "pty") == 0) {
        st = run_pty(c, path, l.prog);
        loaded_fini(&l);
        return st;
    }

    /* Streamed to stdout unless -o names a file; then built in memory and
    ** written at the end (all or nothing). */
    bool to_file = c->output && strcmp(c->output, "-") != 0;
    Buf mem;
    buf_init(&mem);
    RtTarget *t;
    if (c->count) {
        t = rt_count_new();
    } else {
        RtSimOpts so = { .out = to_file ? NULL : stdout, .mem = to_file ? &mem : NULL,
                         .line_flush = c->realtime };
        t = rt_sim_new(&so);
    }
    if (!t) {
        fputs("scvm: out of memory\n", stderr);
        loaded_fini(&l);
        return SC_RUNTIME;
    }

    VmOpts vo = { .speed = c->speed };
    RtRealClock rc;
    RtClock *clock = NULL;
    if (c->realtime) {
        rt_clock_realtime_init(&rc);
        clock = &rc.clock;
    }
    st = vm_run(l.prog, t, clock, &vo);

    if (st == SC_IO && !c->count)
        fprintf(stderr, "scvm: %s: cannot write: %s\n", to_file ? c->output : "<stdout>",
                strerror(rt_sim_errno(t)));
    else if (st == SC_RUNTIME)
        fprintf(stderr, "scvm: %s: out of memory\n", cli_display_name(path));
    else if (st)
        fprintf(stderr, "scvm: %s: run failed (status %d)\n", cli_display_name(path), st);

    if (!st && c->count) {
        RtCounts n;
        rt_count_counts(t, &n);
        if (c->json)
            buf_printf(&mem, "{\"events\":%llu,\"ops\":%llu,\"string_bytes\":%llu}\n",
                       (unsigned long long)n.events, (unsigned long long)n.ops,
                       (unsigned long long)n.bytes);
        else
            buf_printf(&mem, "%llu events\n", (unsigned long long)n.events);
        st = cli_put_output(c->output, &mem);
    } else if (!st && to_file) {
        st = cli_put_output(c->output, &mem);
    }
    t->vt->destroy(t);
    buf_fini(&mem);
    loaded_fini(&l);
    return st;
}

static int cmd_verify(const Cmd *c)
{
    if (c->n_files == 0)
        return cli_usage(usage_text, "%s", "verify: no input file");
    int worst = 0;
    Buf out;
    buf_init(&out);
    for (int i = 0; i < c->n_files; i++) {
        const char *path = c->files[i];
        Loaded l;
        int st = load(path, &l, c->json);
        if (c->json) {
            buf_puts(&out, "{\"file\":");
            buf_json_str(&out, path, strlen(path));
            if (st) {
                buf_puts(&out, ",\"ok\":false,\"status\":");
                buf_printf(&out, "%d,\"code\":\"%s\",\"message\":", st, bc_err_name(l.code));
                buf_json_str(&out, l.msg, strlen(l.msg));
                buf_puts(&out, "}\n");
            } else {
                buf_puts(&out, ",\"ok\":true}\n");
            }
        } else if (!st) {
            buf_printf(&out, "%s: ok\n", cli_display_name(path));
        }
        /* Flush per file so ok lines and stderr diagnostics interleave in order. */
        int wst = cli_put_stdout(&out);
        fflush(stdout);
        buf_reset(&out);
        if (wst > st)
            st = wst;
        if (st > worst)
            worst = st;
        loaded_fini(&l);
    }
    buf_fini(&out);
    return worst;
}

static void info_text(Buf *b, const char *key, const char *val)
{
    buf_printf(b, "%-12s %s\n", key, val);
}

static int cmd_info(const Cmd *c)
{
    if (c->n_files != 1)
        return cli_usage(usage_text, "%s", c->n_files ? "info takes one FILE" : "info: no input file");
    const char *path = c->files[0];
    Loaded l;
    int st = load(path, &l, false);
    if (st)
        return st;
    const BcProgram *p = l.prog;
    const BcMeta *m = &p->meta;
    uint64_t events = 0;
    for (uint32_t i = 0; i < p->n_insn; i++)
        if (!(bc_op_info[p->insn[i].op].flags & OPF_SILENT))
            events++;
    uint64_t duration = p->insn[p->n_insn - 1].t;

    Buf b, v;
    buf_init(&b);
    buf_init(&v);
    if (c->json) {
        buf_puts(&b, "{\"file\":");
        buf_json_str(&b, path, strlen(path));
        buf_printf(&b, ",\"version\":\"%u.%u\",\"flags\":%u,\"lines\":%s,\"dict\":%s",
                   p->version_major, p->version_minor, (unsigned)p->flags,
                   (p->flags & BC_FLAG_LINES) ? "true" : "false",
                   (p->flags & BC_FLAG_DICT) ? "true" : "false");
        buf_printf(&b, ",\"file_size\":%zu,\"content_size\":%zu,\"checksum\":\"%016llx\"",
                   p->file_size, p->content_size, (unsigned long long)p->checksum);
        buf_puts(&b, ",\"name\":");
        buf_json_str(&b, p->str[m->name].s, p->str[m->name].len);
        buf_puts(&b, ",\"source\":");
        buf_json_str(&b, p->str[m->source].s, p->str[m->source].len);
        buf_puts(&b, ",\"prompt\":");
        bc_val_json(p, m->prompt, &b);
        buf_puts(&b, ",\"tags\":");
        bc_val_json(p, m->tags, &b);
        buf_printf(&b, ",\"term_width\":%u,\"term_height\":%u", (unsigned)m->term_width,
                   (unsigned)m->term_height);
        buf_printf(&b, ",\"strings\":%u,\"values\":%u,\"ops\":%u,\"events\":%llu,\"duration_ms\":%llu",
                   (unsigned)p->n_str, (unsigned)p->n_val, (unsigned)p->n_insn,
                   (unsigned long long)events, (unsigned long long)duration);
        buf_puts(&b, ",\"config\":");
        bc_val_json(p, m->config, &b);
        buf_puts(&b, ",\"defines\":");
        bc_val_json(p, m->defines, &b);
        buf_puts(&b, "}\n");
    } else {
        info_text(&b, "file", cli_display_name(path));
        buf_printf(&b, "%-12s %u.%u\n", "version", p->version_major, p->version_minor);
        info_text(&b, "flags", bc_flags_name(p->flags));
        buf_printf(&b, "%-12s %zu bytes (content %zu bytes)\n", "size", p->file_size, p->content_size);
        buf_printf(&b, "%-12s %016llx\n", "checksum", (unsigned long long)p->checksum);
        /* Names are shown as JSON strings so control characters stay visible. */
        buf_json_str(&v, p->str[m->name].s, p->str[m->name].len);
        buf_putc(&v, 0);
        info_text(&b, "name", (const char *)v.data);
        buf_reset(&v);
        buf_json_str(&v, p->str[m->source].s, p->str[m->source].len);
        buf_putc(&v, 0);
        info_text(&b, "source", (const char *)v.data);
        const char *keys[] = { "prompt", "tags", "config", "defines" };
        const uint32_t vals[] = { m->prompt, m->tags, m->config, m->defines };
        for (int i = 0; i < 4; i++) {
            if (i == 2) {
                if (m->term_width || m->term_height)
                    buf_printf(&b, "%-12s %ux%u\n", "terminal", (unsigned)m->term_width,
                               (unsigned)m->term_height);
                else
                    info_text(&b, "terminal", "-");
                buf_printf(&b, "%-12s %u\n%-12s %u\n%-12s %u\n%-12s %llu\n%-12s %llu\n",
                           "strings", (unsigned)p->n_str, "values", (unsigned)p->n_val,
                           "ops", (unsigned)p->n_insn, "events", (unsigned long long)events,
                           "duration_ms", (unsigned long long)duration);
            }
            buf_reset(&v);
            bc_val_json(p, vals[i], &v);
            buf_putc(&v, 0);
            info_text(&b, keys[i], (const char *)v.data);
        }
    }
    st = v.oom ? SC_RUNTIME : cli_put_stdout(&b);
    buf_fini(&v);
    buf_fini(&b);
    loaded_fini(&l);
    return st;
}

static int cmd_dis(const Cmd *c)
{
    if (c->n_files != 1)
        return cli_usage(usage_text, "%s", c->n_files ? "dis takes one FILE" : "dis: no input file");
    const char *path = c->files[0];
    Loaded l;
    int st = load(path, &l, false);
    if (st)
        return st;
    BcListOpts lo = {
        .lines = !c->no_lines && (l.prog->flags & BC_FLAG_LINES),
        .header = true,
        .source = cli_display_name(path),
    };
    Buf b;
    buf_init(&b);
    bc_list(l.prog, &lo, &b);
    st = cli_put_stdout(&b);
    buf_fini(&b);
    loaded_fini(&l);
    return st;
}

static void print_help(void)
{
    fputs(usage_text, stdout);
    fputs(help_text, stdout);
#define X(name, num, text) printf("  %d  %s\n", num, text);
    SC_STATUSES(X)
#undef X
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage(usage_text, "%s", "no command (try 'scvm --help')");
    if (strcmp(argv[1], "serve") == 0)
        return scvm_serve_main(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_help();
            return fflush(stdout) == 0 ? SC_OK : SC_IO;
        }
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("scvm (scc) %s, bytecode %d.%d\n", SCC_VERSION, BC_VERSION_MAJOR,
               BC_VERSION_MINOR);
        return fflush(stdout) == 0 ? SC_OK : SC_IO;
    }
    int pack_st;
    if (scvm_pack_dispatch(argc, argv, &pack_st))   /* vm/cmd_pack.c */
        return pack_st;
    static const struct {
        const char *name;
        unsigned which;
        int (*fn)(const Cmd *);
    } cmds[] = {
        { "run", CMD_RUN, cmd_run },
        { "verify", CMD_VERIFY, cmd_verify },
        { "info", CMD_INFO, cmd_info },
        { "dis", CMD_DIS, cmd_dis },
    };
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        if (strcmp(cmd, cmds[k].name) != 0)
            continue;
        Cmd c;
        int st = parse(argc, argv, cmds[k].which, &c);
        if (!st)
            st = cmds[k].fn(&c);
        sc_free(c.files);
        /* A full disk or closed pipe on stdout is an I/O error, not success. */
        errno = 0;
        if ((fflush(stdout) != 0 || ferror(stdout)) && !st) {
            fprintf(stderr, "scvm: <stdout>: cannot write: %s\n", strerror(errno ? errno : EIO));
            st = SC_IO;
        }
        return st;
    }
    return cli_usage(usage_text, "unknown command '%s' (try 'scvm --help')", cmd);
}
