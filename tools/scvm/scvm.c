/* SPDX-License-Identifier: MIT */
/* scvm.c - the command line: the command table and the parser, over the
** one option table of every command, target and server (options.c,
** common/cliopt.h), which also makes --help, the man page, the
** completions and docs/scvm.md's option lists.  The commands are the
** cmd_*.c files; what they run is in the layers below (runtime/run/ for
** targets and -j, runtime/agent/ for real agents; docs/architecture.md).
**
** Every command works on suites (formats/suite.h): a .scb is a suite of
** one, a pack a suite of its entries.  Data goes to stdout, diagnostics to
** stderr ("scvm: FILE: ..."), and the exit status is one of SC_STATUSES
** (common/status.h; docs/exit-status.md and --help).  Everything is loaded
** and verified before anything runs, and -o output is built in memory and
** written atomically, so a rejected or failed run never leaves a partial
** file. */
#include "scvm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "formats/bc.h"
#include "formats/version.h"
#include "runtime/run/run_junit.h"
#include "cli.h"

#ifndef SCC_VERSION
#define SCC_VERSION "unknown"
#endif

static const struct {
    const char *name;
    unsigned cmd;
    int (*fn)(const Opts *);
} CMDS[] = {
    { "run", CMD_RUN, scvm_run },
    { "verify", CMD_VERIFY, scvm_verify },
    { "info", CMD_INFO, scvm_info },
    { "dis", CMD_DIS, scvm_dis },
    { "ls", CMD_LS, scvm_ls },
    { "extract", CMD_EXTRACT, scvm_extract },
    { "serve", CMD_SERVE, scvm_serve },
    { "report", CMD_REPORT, scvm_report },
    { "agents", CMD_AGENTS, scvm_agents },
    { "agent", CMD_MOCKAGENT, scvm_mockagent },
    { "tape", CMD_TAPE, scvm_tape },
    { "driver", CMD_DRIVER, scvm_driver },
    { "exec", CMD_EXEC, scvm_exec },
    { "replay", CMD_REPLAY, scvm_replay },
    { "replay-report", CMD_REPLAY_REPORT, scvm_replay_report },
    { "trace", CMD_TRACE, scvm_trace },
    { "protocol-help", CMD_PROTOCOL_HELP, scvm_protocol_help },
    { "completions", CMD_COMPLETIONS, scvm_completions },
};

/* Parses argv[first..] for command cmd: options may come before or after
** the operands, "--" ends them ("run FILE -- CMD ARGS": the rest is the
** program of the pty target).  Returns 0 or a status (printed). */
static int parse(int argc, char **argv, int first, unsigned cmd, Opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->speed = 1.0;
    o->target = "sim";
    o->jobs = 1;
    snprintf(o->host, sizeof o->host, "127.0.0.1");
    snprintf(o->port, sizeof o->port, "8089");
    snprintf(o->rest_host, sizeof o->rest_host, "127.0.0.1");
    snprintf(o->rest_port, sizeof o->rest_port, "38180");
    snprintf(o->harness_host, sizeof o->harness_host, "127.0.0.1");
    snprintf(o->harness_port, sizeof o->harness_port, "8080");
    o->names = sc_calloc((size_t)argc, sizeof *o->names);
    o->tags = sc_calloc((size_t)argc, sizeof *o->tags);
    o->defines = sc_calloc((size_t)argc, sizeof *o->defines);
    o->ops = sc_calloc((size_t)argc, sizeof *o->ops);
    o->normalize = sc_calloc((size_t)argc, sizeof *o->normalize);
    if (!o->names || !o->tags || !o->ops || !o->defines || !o->normalize) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    bool opts = true, pty_opt = false;
    bool seen[256] = { 0 };   /* which rows were given, for the target check */
    if (scvm_table.n_opts > sizeof seen)
        return SC_RUNTIME;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!opts || a[0] != '-' || a[1] == 0) {
            o->ops[o->n_ops++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            if (cmd == CMD_RUN && o->n_ops == 1 && i + 1 < argc) {
                o->command = argv + i + 1;
                pty_opt = true;
                break;
            }
            if ((cmd & CMD_SESSION) && i + 1 < argc) {
                o->command = argv + i + 1;
                break;
            }
            opts = false;
            continue;
        }
        const CoOpt *row;
        int st = co_take(&scvm_table, cmd, argc, argv, &i, o, &row);
        if (st)
            return st;
        seen[row - scvm_table.opts] = true;
        o->selecting |= (row->flags & CO_SUITE) != 0;
        pty_opt |= (row->flags & CO_MARK) != 0;
    }
    if (o->timings && !o->shard_n)
        return cli_usage(scvm_usage, "%s", "--timings balances shards: it needs --shard");
    bool agent = strcmp(o->target, "agent") == 0, aut = strcmp(o->target, "aut") == 0;
    if (cmd == CMD_RUN && aut) {
        /* ElizaOS's --env-file and --live (docs/eliza.md, "ElizaOS's command line") */
        if (o->env_file) {
            int st = scvm_env_file(o->env_file, NULL);
            if (st)
                return st;
        }
        if (o->live) {
            if (o->record || o->tape)
                return cli_usage(scvm_usage, "%s", "--live asks the live judge for every verdict: "
                                                   "it takes no --tape or --record");
            if (!o->judge_url) {
                const char *u = getenv("OPENAI_BASE_URL");
                if (!u || !*u)
                    return cli_usage(scvm_usage, "%s", "--live needs a judge: --judge-url URL, or OPENAI_BASE_URL "
                                                       "(in the environment or the --env-file)");
                o->judge_url = u;
            }
            if (!o->judge_model) {
                const char *m = getenv("OPENAI_LARGE_MODEL");
                if (m && *m)
                    o->judge_model = m;
            }
        }
        if (!o->via)
            o->via = o->agent_url ? "http" : o->agent ? "pty" : o->command ? "acp" : NULL;
        if (!o->via && !o->dry_run)
            return cli_usage(scvm_usage, "%s", "-t aut: where is the agent? (--agent-url URL, --via acp|pty -- CMD, "
                                               "or --agent NAME --model-url URL)");
        if ((o->agent || o->agent_bin || o->model_url) && (!o->via || strcmp(o->via, "pty") != 0 || !o->agent ||
                                                           !o->model_url || o->agent_url))
            return cli_usage(scvm_usage, "%s", "-t aut: a real agent's TUI is played --via pty --agent NAME|FILE "
                                               "--model-url URL (the model it talks to) [--agent-bin PATH]");
        if (o->via && !o->agent &&
            (strcmp(o->via, "http") == 0 ? !o->agent_url || o->command : !o->command || o->agent_url))
            return cli_usage(scvm_usage, "%s", "-t aut: --via http takes --agent-url; --via acp and pty take -- CMD");
        if (pty_opt && !o->command)
            return cli_usage(scvm_usage, "%s", "the pty options need --target pty");
        if (o->report || o->artifacts || o->cast)
            return cli_usage(scvm_usage, "%s", "-t aut reports with --results, --run-json and --junit "
                                               "(--report, --artifacts and --cast are the PTY targets')");
        if (o->timings)
            return cli_usage(scvm_usage, "%s", "-t aut shards a suite's cases in turn: --timings balances scenario runs");
        if (o->record && !(o->judge_url && o->tape))
            return cli_usage(scvm_usage, "%s", "recording a tape takes all three: --record --judge-url URL --tape FILE");
        if (o->judge_url && o->tape && !o->record)
            return cli_usage(scvm_usage, "%s", "a live judge (--judge-url without --record) decides every verdict "
                                               "itself: --tape is for replaying, --record --tape FILE to fill one");
        if (o->judge_model && !o->judge_url)
            return cli_usage(scvm_usage, "%s", "--judge-model names the live judge's model: it needs --judge-url");
    }
    if (cmd == CMD_RUN) {
        /* what applies to which target is the table's: "--tape needs --target aut" */
        unsigned t = aut ? T_AUT : agent ? T_AGENT : strcmp(o->target, "pty") == 0 ? T_PTY : T_SIM;
        int st = co_check_scope(&scvm_table, cmd, t, seen);
        if (st)
            return st;
        if (o->command && t == T_SIM)
            return cli_usage(scvm_usage, "%s", "'-- CMD' and the pty options need --target pty");
    }
    if (cmd == CMD_SERVE && first > 2) {
        /* the servers named ("llm+rest"): what applies to which is the table's */
        unsigned t = 0;
        for (const char *p = argv[first - 1]; *p;) {
            size_t len = strcspn(p, "+");
            t |= len == 3 && !memcmp(p, "llm", 3) ? S_LLM : len == 3 && !memcmp(p, "acp", 3) ? S_ACP
                 : len == 7 && !memcmp(p, "harness", 7) ? S_HARNESS : len == 4 && !memcmp(p, "rest", 4) ? S_REST : 0u;
            p += len + (p[len] == '+');
        }
        int st = co_check_scope(&scvm_table, cmd, t, seen);
        if (st)
            return st;
    }
    if (o->jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (unsigned)n;
    }
    return 0;
}

static void opts_fini(Opts *o)
{
    sc_free((void *)o->names);
    sc_free((void *)o->tags);
    sc_free((void *)o->defines);
    sc_free((void *)o->ops);
    sc_free((void *)o->normalize);
}

/* ---- opening suites ---- */

int scvm_add(Suite *s, const char *path, bool quiet, SuiteErr *err)
{
    int st = suite_add_file(s, path, err);
    if (st && !quiet) {
        const char *shown = cli_display_name(path);
        if (st == SC_IO)
            fprintf(stderr, "scvm: %s: cannot read: %s\n", shown, err->msg);
        else if (st == SC_RUNTIME)
            fprintf(stderr, "scvm: %s: out of memory\n", shown);
        else if (st == SC_USAGE)
            fprintf(stderr, "scvm: %s: %s\n", shown, err->msg);
        else
            fprintf(stderr, "scvm: %s: rejected: %s [%s]\n", shown, err->msg, err->code);
    }
    return st;
}

/* ---- variants: -D and AH_SCENARIO_DEFINES at playback (docs/rules.md) ---- */

/* One define, typed as scc types them: true/false (any case), a decimal
** integer, else the string as written. */
typedef struct Def {
    char name[128];
    int tag;                 /* BC_V_TRUE, BC_V_FALSE, BC_V_INT, BC_V_STR */
    long long i;
    const char *s;           /* points into the argument */
    size_t s_len;
} Def;

static bool def_parse(const char *a, size_t n, Def *d)
{
    while (n && (*a == ' ' || *a == '\t'))
        a++, n--;
    while (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
        n--;
    const char *eq = memchr(a, '=', n);
    size_t kn = eq ? (size_t)(eq - a) : n;
    while (kn && (a[kn - 1] == ' ' || a[kn - 1] == '\t'))
        kn--;
    if (!kn || kn >= sizeof d->name)
        return false;
    memcpy(d->name, a, kn);
    d->name[kn] = 0;
    if (!eq) {
        d->tag = BC_V_TRUE;
        return true;
    }
    const char *v = eq + 1;
    size_t vn = n - (size_t)(v - a);
    while (vn && (*v == ' ' || *v == '\t'))
        v++, vn--;
    if (vn == 4 && strncasecmp(v, "true", 4) == 0) {
        d->tag = BC_V_TRUE;
    } else if (vn == 5 && strncasecmp(v, "false", 5) == 0) {
        d->tag = BC_V_FALSE;
    } else {
        char num[32], *end;
        d->tag = BC_V_STR;
        d->s = v;
        d->s_len = vn;
        if (vn && vn < sizeof num && strspn(v, "+-0123456789") == vn) {
            memcpy(num, v, vn);
            num[vn] = 0;
            errno = 0;
            d->i = strtoll(num, &end, 10);
            if (!*end && !errno)
                d->tag = BC_V_INT;
        }
    }
    return true;
}

/* Adds d to the set (a later one replaces an earlier one of its name). */
static void def_put(Def *set, size_t *n, const Def *d)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(set[i].name, d->name) == 0) {
            set[i] = *d;
            return;
        }
    set[(*n)++] = *d;
}

/* True when entry e was compiled with exactly the defines in set. */
static bool defines_equal(const PackEntry *e, const Def *set, size_t n)
{
    const BcProgram *p = e->prog;
    BcVal m = bc_val(p, p->meta.defines);
    if (m.tag != BC_V_MAP || m.n != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        BcVal v;
        if (!bc_val_get(p, &m, set[i].name, &v))
            return false;
        if (set[i].tag == BC_V_INT ? v.tag != BC_V_INT || v.i != set[i].i
            : set[i].tag == BC_V_STR ? v.tag != BC_V_STR || p->str[v.n].len != set[i].s_len ||
                                           memcmp(p->str[v.n].s, set[i].s, set[i].s_len) != 0
                                     : v.tag != set[i].tag)
            return false;
    }
    return true;
}

/* The variant an entry is ("variant:NAME" among its tags, the name ending
** "@NAME"), or NULL; *base_len the length of the scenario's own name. */
static const char *variant_of(const PackEntry *e, size_t *base_len)
{
    size_t nl = strlen(e->name);
    *base_len = nl;
    for (uint32_t t = 0; t < e->n_tags; t++) {
        const char *v = e->tags[t];
        if (strncmp(v, "variant:", 8) != 0)
            continue;
        size_t vl = strlen(v + 8);
        if (nl > vl + 1 && e->name[nl - vl - 1] == '@' && strcmp(e->name + nl - vl, v + 8) == 0) {
            *base_len = nl - vl - 1;
            return v + 8;
        }
    }
    return NULL;
}

static void defines_text(const PackEntry *e, char *out, size_t cap)
{
    Buf b;
    buf_init(&b);
    bc_val_json(e->prog, e->prog->meta.defines, &b);
    snprintf(out, cap, "%.*s", b.oom ? 0 : (int)b.len, b.data ? (const char *)b.data : "");
    buf_fini(&b);
}

/* --timings FILE: each entry's duration from a JUnit XML report (the
** time attribute of its <testcase>, matched by name, as scvm and most
** runners write it); entries it does not name get the mean of those it
** does (1 when it names none); junit_times (runtime/run/run_junit.h)
** reads it.  Returns 0 or a status (printed). */
typedef struct Timings {
    const Suite *s;
    double *w, sum;
    bool *known;
    unsigned n_known;
} Timings;

static void timing_of(void *ctx, const char *name, double secs)
{
    Timings *t = ctx;
    int32_t i = suite_find(t->s, name);
    if (i >= 0 && !t->known[i]) {
        t->known[i] = true;
        t->w[i] = secs;
        t->sum += secs;
        t->n_known++;
    }
}

static int read_timings(const char *path, const Suite *s, double *w)
{
    char *x = NULL;
    size_t n = 0;
    int e = file_read_all(path, 256u << 20, &x, &n);
    if (e) {
        fprintf(stderr, "scvm: %s: cannot read: %s\n", path, strerror(e));
        return SC_IO;
    }
    uint32_t count = suite_count(s);
    Timings t = { .s = s, .w = w, .known = sc_calloc(count ? count : 1, sizeof *t.known) };
    if (!t.known) {
        sc_free(x);
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    size_t cases = junit_times(x, timing_of, &t);
    sc_free(x);
    if (!cases) {
        sc_free(t.known);
        fprintf(stderr, "scvm: %s: no <testcase> elements: not a JUnit XML report\n", path);
        return SC_USAGE;
    }
    double mean = t.n_known ? t.sum / t.n_known : 1.0;
    for (uint32_t i = 0; i < count; i++)
        if (!t.known[i])
            w[i] = mean;
    sc_free(t.known);
    return 0;
}

/* allowed[i]: entry i is the variant the defines ask for.  Every
** scenario with variants must have one that matches; with -D, a scenario
** compiled without variants must have been compiled with those defines.
** Returns 0 or SC_USAGE (printed). */
int scvm_variants(const Opts *o, const Suite *s, bool *allowed)
{
    const char *env = getenv("AH_SCENARIO_DEFINES");
    size_t cap = o->n_defines + 1;
    for (const char *c = env; c && *c; c++)
        cap += *c == ',';
    Def *set = sc_calloc(cap, sizeof *set);
    if (!set) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    size_t n = 0;
    for (const char *c = env; c && *c;) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        Def d;
        if (strspn(c, " \t") < len && def_parse(c, len, &d))
            def_put(set, &n, &d);
        c += len + (end != NULL);
    }
    for (size_t i = 0; i < o->n_defines; i++) {
        Def d;
        if (def_parse(o->defines[i], strlen(o->defines[i]), &d))
            def_put(set, &n, &d);
    }
    const char *file = cli_display_name(o->ops[0]);
    int st = 0;
    uint32_t count = suite_count(s);
    bool has_variants = false;
    for (uint32_t i = 0; i < count && !has_variants; i++) {
        size_t bl;
        has_variants = variant_of(suite_entry(s, i), &bl) != NULL;
    }
    for (uint32_t i = 0; i < count && !st; i++) {
        const PackEntry *e = suite_entry(s, i);
        size_t bl;
        const char *var = variant_of(e, &bl);
        allowed[i] = defines_equal(e, set, n);
        if (allowed[i] || var)
            continue;
        if (has_variants) {
            allowed[i] = true;   /* compiled once beside variants: nothing to vary (no rules, tui-use) */
        } else if (o->n_defines) {
            char have[300];
            defines_text(e, have, sizeof have);
            fprintf(stderr, "scvm: %s: %s was compiled with the defines %s: they were resolved at compile time "
                            "and -D cannot change them; compile variants with scc --variant to choose at playback\n",
                    file, e->name, have);
            st = SC_USAGE;
        } else {
            allowed[i] = true;   /* AH_SCENARIO_DEFINES alone: for other tools too */
        }
    }
    /* each scenario with variants: one of them must match */
    for (uint32_t i = 0; i < count && !st; i++) {
        const PackEntry *e = suite_entry(s, i);
        size_t bl;
        if (!variant_of(e, &bl))
            continue;
        bool any = false, first = true;
        for (uint32_t k = 0; k < count && !any; k++) {
            size_t kl;
            const PackEntry *f = suite_entry(s, k);
            if (variant_of(f, &kl) && kl == bl && strncmp(f->name, e->name, bl) == 0) {
                any = allowed[k];
                first = first && k >= i;
            }
        }
        if (any || !first)
            continue;
        fprintf(stderr, "scvm: %s: no variant of %.*s was compiled with these defines; its variants:\n", file,
                (int)bl, e->name);
        for (uint32_t k = 0; k < count; k++) {
            size_t kl;
            const PackEntry *f = suite_entry(s, k);
            const char *v = variant_of(f, &kl);
            if (v && kl == bl && strncmp(f->name, e->name, bl) == 0) {
                char have[300];
                defines_text(f, have, sizeof have);
                fprintf(stderr, "scvm: note:   %s %s\n", v, have);
            }
        }
        st = SC_USAGE;
    }
    sc_free(set);
    return st;
}

int scvm_open(const Opts *o, const char *what, Suite **out, uint32_t **sel, size_t *n)
{
    *out = NULL;
    if (o->n_ops != 1)
        return o->n_ops ? cli_usage(scvm_usage, "%s takes one FILE", what)
                        : cli_usage(scvm_usage, "%s: no input file", what);
    Suite *s = suite_new();
    if (!s) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    SuiteErr e;
    /* a source (or a folder of them) is compiled with the defines: they are
    ** resolved already, nothing is left to choose among */
    bool source = scvm_is_source(o->ops[0]);
    int st = source ? scvm_add_source(s, o, o->ops[0], false, &e) : scvm_add(s, o->ops[0], false, &e);
    bool *allowed = NULL;
    if (!st && sel && !source && (o->n_defines || getenv("AH_SCENARIO_DEFINES"))) {
        allowed = sc_calloc(suite_count(s) ? suite_count(s) : 1, sizeof *allowed);
        st = allowed ? scvm_variants(o, s, allowed) : SC_RUNTIME;
        if (!allowed)
            fputs("scvm: out of memory\n", stderr);
        if (st) {
            sc_free(allowed);
            suite_free(s);
            return st;
        }
    }
    double *weights = NULL;
    if (!st && sel && o->timings) {
        weights = sc_calloc(suite_count(s) ? suite_count(s) : 1, sizeof *weights);
        st = weights ? read_timings(o->timings, s, weights) : SC_RUNTIME;
        if (!weights)
            fputs("scvm: out of memory\n", stderr);
    }
    /* -t aut shards its units, a Yao suite's cases (cmd_aut.c) */
    bool aut_cases = o->target && strcmp(o->target, "aut") == 0;
    if (!st && sel) {
        SuiteQuery q = { .names = o->names, .n_names = o->n_names, .tags = o->tags, .n_tags = o->n_tags,
                         .prompt = o->prompt, .shard_i = o->shard_i, .shard_n = aut_cases ? 0 : o->shard_n,
                         .allowed = allowed,
                         .weights = weights };
        st = suite_select(s, &q, sel, n, &e);
        if (st == SC_USAGE) {
            fprintf(stderr, "scvm: %s: %s\n", cli_display_name(o->ops[0]), e.msg);
            for (size_t k = 0; k < o->n_names; k++) {
                const char *near = suite_find(s, o->names[k]) < 0 ? suite_nearest_name(s, o->names[k]) : NULL;
                if (near) {
                    fprintf(stderr, "scvm: note: did you mean '%s'?\n", near);
                    break;
                }
            }
        } else if (st) {
            fputs("scvm: out of memory\n", stderr);
        }
    }
    sc_free(allowed);
    sc_free(weights);
    if (st) {
        suite_free(s);
        return st;
    }
    *out = s;
    return 0;
}

/* ---- main ---- */

static int scvm_main(int argc, char **argv);

int main(int argc, char **argv)
{
    scvm_usage_init(0);
    if (argc < 2)
        return cli_usage(scvm_usage, "%s", "no command (try 'scvm --help')");
    /* --generate=FORMAT: the help, docs/scvm.md's option lists, the man page
    ** or a shell's completion, from the option table */
    if (strncmp(argv[1], "--generate", 10) == 0 && (argv[1][10] == '=' || (!argv[1][10] && argc > 2))) {
        const char *f = argv[1][10] == '=' ? argv[1] + 11 : argv[2];
        int fmt = co_format(f);
        if (fmt < 0)
            return cli_usage(scvm_usage, "invalid --generate '%s' (help, markdown, man, bash, zsh or fish)", f);
        return co_write(stdout, &scvm_table, (CoFormat)fmt, 0);
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            const CoName *c = i > 1 ? co_command(&scvm_table, argv[1]) : NULL;
            return co_write(stdout, &scvm_table, CO_HELP, c ? c->bit : 0);
        }
    }
    /* ElizaOS's spellings (docs/eliza.md, "ElizaOS's command line"):
    ** "scenario run FILE ..." and "scenario matrix CONFIG ..." are "run -t
    ** aut FILE ...", a matrix's --parallel N its -j N, and --logs _logs_
    ** unless a --logs is given. */
    char **eargv = NULL;
    if (strcmp(argv[1], "scenario") == 0) {
        if (argc < 3 || (strcmp(argv[2], "run") != 0 && strcmp(argv[2], "matrix") != 0))
            return cli_usage(scvm_usage, "%s", "scenario: run FILE or matrix CONFIG (ElizaOS's spellings of "
                                               "'scvm run -t aut'; docs/eliza.md)");
        bool matrix = strcmp(argv[2], "matrix") == 0, logs = false;
        eargv = sc_malloc((2 * (size_t)argc + 6) * sizeof *eargv);   /* --parallel=N: two words */
        if (!eargv)
            return SC_RUNTIME;
        int n = 0;
        eargv[n++] = argv[0];
        eargv[n++] = (char *)"run";
        eargv[n++] = (char *)"-t";
        eargv[n++] = (char *)"aut";
        for (int i = 3; i < argc; i++) {
            if (strcmp(argv[i], "--") == 0) {
                while (i < argc)
                    eargv[n++] = argv[i++];
                break;
            }
            if (matrix && strcmp(argv[i], "--parallel") == 0)
                eargv[n++] = (char *)"-j";
            else if (matrix && strncmp(argv[i], "--parallel=", 11) == 0)
                eargv[n++] = (char *)"-j", eargv[n++] = argv[i] + 11;
            else
                eargv[n++] = argv[i];
            if (strcmp(argv[i], "--logs") == 0 || strncmp(argv[i], "--logs=", 7) == 0)
                logs = true;
        }
        if (!logs) {
            /* ElizaOS writes its _logs_ files every time: here into ./_logs_
            ** (first, so that an option missing its value never takes it) */
            memmove(eargv + 6, eargv + 4, (size_t)(n - 4) * sizeof *eargv);
            eargv[4] = (char *)"--logs";
            eargv[5] = (char *)"_logs_";
            n += 2;
        }
        eargv[n] = NULL;
        int st = scvm_main(n, eargv);
        sc_free(eargv);
        return st;
    }
    return scvm_main(argc, argv);
}

static int scvm_main(int argc, char **argv)
{
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        return sc_version_write(stdout, "scvm") == 0 ? SC_OK : SC_IO;
    }
    for (size_t k = 0; k < sizeof CMDS / sizeof CMDS[0]; k++) {
        if (strcmp(name, CMDS[k].name) != 0)
            continue;
        int first = 2;
        const char *server = NULL;
        scvm_usage_init(CMDS[k].cmd);
        if (CMDS[k].cmd == CMD_SERVE) {
            if (argc < 3)
                return cli_usage(scvm_usage, "%s", "serve: which server? (llm, acp, harness, rest)");
            if (strcmp(argv[2], "acp") != 0) {
                /* one of llm, harness, rest, or several joined by '+' (each once) */
                const char *p = argv[2];
                unsigned seen = 0;
                do {
                    size_t len = strcspn(p, "+");
                    unsigned bit = len == 3 && !memcmp(p, "llm", 3)       ? 1u
                                   : len == 4 && !memcmp(p, "rest", 4)    ? 2u
                                   : len == 7 && !memcmp(p, "harness", 7) ? 4u
                                                                          : 0u;
                    if (!bit || (seen & bit))
                        return cli_usage(scvm_usage, "serve: unknown server '%s' (known: llm, acp, harness, rest, "
                                         "or several of llm, rest and harness joined by '+')", argv[2]);
                    seen |= bit;
                    p += len + (p[len] == '+');
                } while (p[-1] == '+' || *p);
            }
            server = argv[2];
            first = 3;
        }
        Opts o;
        int st = parse(argc, argv, first, CMDS[k].cmd, &o);
        o.server = server;
        /* The data model's commands exit with its statuses: a usage
        ** error is E_CLI_INVALID_ARG (12), not scvm's 2. */
        if (st == SC_USAGE && (CMDS[k].cmd & CMD_DATA_MODEL))
            st = 12;
        if (!st)
            st = CMDS[k].fn(&o);
        opts_fini(&o);
        /* A full disk or closed pipe on stdout is an I/O error, not success. */
        errno = 0;
        if ((fflush(stdout) != 0 || ferror(stdout)) && !st) {
            fprintf(stderr, "scvm: <stdout>: cannot write: %s\n", strerror(errno ? errno : EIO));
            st = SC_IO;
        }
        return st;
    }
    return co_unknown_command(&scvm_table, name);
}
