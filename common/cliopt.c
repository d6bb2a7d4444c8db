/* SPDX-License-Identifier: MIT */
/* cliopt.c - command-line options as data: the parser and the writers of
** help, docs, man pages and completions (cliopt.h). */
#include "cliopt.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "levenshtein.h"
#include "status.h"

int co_usage(const CoTable *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", t->prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    if (t->on_error)
        fputs(t->on_error, stderr);
    return SC_USAGE;
}

/* ---- reading ---- */

static bool in_cmd(const CoTable *t, const CoOpt *r, unsigned cmd)
{
    return !t->cmds || !cmd || (r->cmds & cmd);
}

static bool takes_value(const CoOpt *r)
{
    return r->arg != NULL;
}

/* Does word a spell row r?  *v gets an attached value ("--x=V", "-oV",
** a prefix's rest), NULL for none; *eq is set when it came after '='. */
static bool spells(const CoOpt *r, const char *a, const char **v, bool *eq)
{
    const char *sp[2] = { r->name, r->alias };
    *v = NULL;
    *eq = false;
    for (int k = 0; k < 2; k++) {
        const char *s = sp[k];
        if (!s)
            continue;
        size_t n = strlen(s);
        if (r->flags & CO_PREFIX) {
            if (strncmp(a, s, n) == 0) {
                *v = a[n] ? a + n : NULL;
                return true;
            }
            continue;
        }
        if (strcmp(a, s) == 0)
            return true;
        if (s[1] == '-' && strncmp(a, s, n) == 0 && a[n] == '=') {
            *v = a + n + 1;
            *eq = true;
            return true;
        }
        if (n == 2 && (r->flags & CO_ATTACH) && strncmp(a, s, 2) == 0 && a[2]) {
            *v = a + 2;
            return true;
        }
    }
    return false;
}

static bool parse_u64(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-' || *s == '+' || *s == ' ')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

/* "MS" -> " ms": the unit of a range in an error. */
static const char *unit_of(const char *arg)
{
    if (!arg)
        return "";
    if (strcmp(arg, "MS") == 0)
        return " ms";
    if (strcmp(arg, "BYTES") == 0)
        return " bytes";
    return "";
}

static bool choice_ok(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && memcmp(c, v, n) == 0)
            return true;
        if (!bar)
            break;
        c = bar + 1;
    }
    return false;
}

/* "a|b|c" -> "a, b or c" */
static void choices_text(const char *choices, char *out, size_t cap)
{
    size_t k = 0, bars = 0;
    for (const char *c = choices; *c; c++)
        bars += *c == '|';
    out[0] = 0;
    for (const char *c = choices; *c && k + 8 < cap; c++) {
        if (*c == '|') {
            const char *sep = --bars ? ", " : " or ";
            k += (size_t)snprintf(out + k, cap - k, "%s", sep);
        } else {
            out[k++] = *c;
            out[k] = 0;
        }
    }
}

static int store(const CoTable *t, const CoOpt *r, const char *as, const char *v, void *o)
{
    char *base = o;
    unsigned long long n;
    switch ((CoKind)r->kind) {
    case CO_FLAG:
        *(bool *)(base + r->off) = true;
        return 0;
    case CO_COUNT:
        *(int *)(base + r->off) += (int)(r->lo ? r->lo : 1);
        return 0;
    case CO_STR:
    case CO_LIST:
        if ((r->flags & CO_NONEMPTY) && !*v)
            return co_usage(t, "%s needs %s%s, not an empty word", as, r->arg[0] == 'A' || r->arg[0] == 'U' ? "an " : "a ",
                            r->arg);
        if (r->kind == CO_STR) {
            *(const char **)(base + r->off) = v;
        } else {
            const char **list = *(const char ***)(base + r->off);
            size_t *count = (size_t *)(base + r->off2);
            list[(*count)++] = v;
        }
        return 0;
    case CO_UINT:
    case CO_SIZE:
        if (!parse_u64(v, &n) || n < r->lo || n > r->hi)
            return co_usage(t, "invalid %s '%s' (%llu .. %llu%s)", as, v, r->lo, r->hi, unit_of(r->arg));
        if (r->kind == CO_UINT)
            *(unsigned *)(base + r->off) = (unsigned)n;
        else
            *(size_t *)(base + r->off) = (size_t)n;
        return 0;
    case CO_SPEED: {
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (!*v || *end || errno || !isfinite(d) || d < 0 || *v == ' ')
            return co_usage(t, "invalid speed '%s' (expected a finite number >= 0)", v);
        *(double *)(base + r->off) = d;
        return 0;
    }
    case CO_CHOICE:
        if (!choice_ok(r->choices, v)) {
            char c[256];
            choices_text(r->choices, c, sizeof c);
            return co_usage(t, "invalid %s '%s' (%s)", as, v, c);
        }
        *(const char **)(base + r->off) = v;
        return 0;
    case CO_CALL:
        return t->call ? t->call(o, r, as, v) : 0;
    }
    return 0;
}

/* The nearest spellings to a (its name part) among cmd's rows, into out
** as "'--x' or '--y'"; "" when none is near. */
static void suggest(const CoTable *t, unsigned cmd, const char *a, char *out, size_t cap)
{
    char name[128];
    size_t n = strcspn(a, "=");
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, a, n);
    name[n] = 0;
    unsigned best = 3;   /* at most two edits away, or a unique prefix */
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0, found = 0;
        out[0] = 0;
        for (size_t i = 0; i < t->n_opts; i++) {
            const CoOpt *r = &t->opts[i];
            if (!in_cmd(t, r, cmd) || (r->flags & CO_HIDDEN))
                continue;
            const char *sp[2] = { r->name, r->alias };
            for (int s = 0; s < 2; s++) {
                if (!sp[s] || strlen(sp[s]) < 3)
                    continue;
                unsigned d = name_distance(name, sp[s], 2);
                bool prefix = n >= 4 && strncmp(sp[s], name, n) == 0;
                if (prefix)
                    d = 1;
                if (pass == 0) {
                    if (d < best)
                        best = d;
                    continue;
                }
                if (d != best || strstr(out, sp[s]) || found >= 3)
                    continue;
                k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s'%s'", found ? " or " : "", sp[s]);
                found++;
            }
        }
        if (best > 2)
            return;
    }
}

int co_take(const CoTable *t, unsigned cmd, int argc, char **argv, int *i, void *o, const CoOpt **row)
{
    const char *a = argv[*i];
    for (size_t k = 0; k < t->n_opts; k++) {
        const CoOpt *r = &t->opts[k];
        const char *v;
        bool eq;
        if (!in_cmd(t, r, cmd) || !spells(r, a, &v, &eq))
            continue;
        *row = r;
        char as[128];
        snprintf(as, sizeof as, "%.*s", (int)(eq ? strcspn(a, "=") : strlen(a)), a);
        if (!takes_value(r)) {
            if (v)
                return co_usage(t, "option '%s' takes no value", as);
            return store(t, r, as, NULL, o);
        }
        if (!v && (r->flags & CO_PREFIX))
            return co_usage(t, "option '%s' needs its %s attached (%s%s)", as, r->arg, r->name, r->arg);
        if (!v) {
            if (*i + 1 >= argc)
                return co_usage(t, "option '%s' needs a value (%s)", as, r->arg);
            v = argv[++*i];
        }
        if (r->flags & CO_ATTACH && !eq && strlen(as) > 2 && as[1] != '-')
            as[2] = 0;   /* "-DX=1": the option is -D */
        return store(t, r, as, v, o);
    }
    /* unknown here: another command's, or a misspelling */
    char near[512];
    suggest(t, cmd, a, near, sizeof near);
    const CoName *c = NULL;
    for (size_t k = 0; k < t->n_cmds && !c; k++)
        if (t->cmds[k].bit == cmd)
            c = &t->cmds[k];
    if (t->cmds && cmd) {
        char other[256] = "";
        size_t m = 0, found = 0;
        for (size_t j = 0; j < t->n_cmds; j++) {
            for (size_t k = 0; k < t->n_opts; k++) {
                const CoOpt *r = &t->opts[k];
                const char *v;
                bool eq;
                if ((r->cmds & t->cmds[j].bit) && !(r->flags & CO_HIDDEN) && spells(r, a, &v, &eq)) {
                    if (found < 4)
                        m += (size_t)snprintf(other + m, m < sizeof other ? sizeof other - m : 0, "%s%s %s",
                                              found ? ", " : "", t->prog, t->cmds[j].name);
                    found++;
                    break;
                }
            }
        }
        if (found)
            return co_usage(t, "%s %s takes no option '%.*s': it is an option of %s", t->prog, c ? c->name : "?",
                            (int)strcspn(a, "="), a, other);
    }
    if (near[0])
        return co_usage(t, "unknown option '%.*s'; did you mean %s?", (int)strcspn(a, "="), a, near);
    return co_usage(t, "unknown option '%.*s'", (int)strcspn(a, "="), a);
}

int co_unknown_command(const CoTable *t, const char *name)
{
    const char *best = NULL;
    unsigned bd = 3;
    for (size_t k = 0; k < t->n_cmds; k++) {
        unsigned d = name_distance(name, t->cmds[k].name, 2);
        if (d < bd)
            bd = d, best = t->cmds[k].name;
    }
    if (best)
        return co_usage(t, "unknown command '%s'; did you mean '%s'?", name, best);
    return co_usage(t, "unknown command '%s' (try '%s --help')", name, t->prog);
}

const CoName *co_command(const CoTable *t, const char *name)
{
    for (size_t k = 0; k < t->n_cmds; k++)
        if (strcmp(t->cmds[k].name, name) == 0)
            return &t->cmds[k];
    return NULL;
}

/* " pty or agent": the names of the scopes in mask. */
static void scope_names(const CoTable *t, unsigned mask, char *out, size_t cap)
{
    size_t k = 0, left = 0;
    for (size_t j = 0; j < t->n_scopes; j++)
        left += (mask & t->scopes[j].bit) != 0;
    out[0] = 0;
    for (size_t j = 0; j < t->n_scopes; j++) {
        if (!(mask & t->scopes[j].bit))
            continue;
        left--;
        k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s", t->scopes[j].name, left > 1 ? ", " : left ? " or " : "");
    }
}

int co_check_scope(const CoTable *t, unsigned cmd, unsigned scope, const bool *seen)
{
    const CoName *c = NULL;
    for (size_t k = 0; k < t->n_cmds; k++)
        if (t->cmds[k].bit == cmd)
            c = &t->cmds[k];
    for (size_t k = 0; k < t->n_opts; k++) {
        if (!seen[k])
            continue;
        const CoOpt *r = &t->opts[k];
        unsigned mask = 0;
        for (size_t j = 0; j < t->n_opts; j++) {
            const CoOpt *q = &t->opts[j];
            if (in_cmd(t, q, cmd) && strcmp(q->name, r->name) == 0) {
                if (!q->only) {
                    mask = 0;
                    break;
                }
                mask |= q->only;
            }
        }
        if (!mask || (mask & scope))
            continue;
        char names[256], how[320];
        scope_names(t, mask, names, sizeof names);
        const char *fmt = c && c->scope_fmt ? c->scope_fmt : "applies to %s", *at = strstr(fmt, "%s");
        if (at)
            snprintf(how, sizeof how, "%.*s%s%s", (int)(at - fmt), fmt, names, at + 2);
        else
            snprintf(how, sizeof how, "%s", fmt);
        return co_usage(t, "%s %s", r->name, how);
    }
    return 0;
}

int co_format(const char *name)
{
    static const char *const names[] = { "help", "markdown", "man", "bash", "zsh", "fish" };
    for (int k = 0; k < 6; k++)
        if (strcmp(name, names[k]) == 0)
            return k;
    return -1;
}

/* ---- writing ---- */

/* "  -o, --output FILE" */
static void left_of(const CoOpt *r, char *out, size_t cap)
{
    if (r->alias && r->alias[1] != '-')
        snprintf(out, cap, "  %s, %s%s%s", r->alias, r->name, r->arg ? (r->flags & CO_PREFIX ? "" : " ") : "",
                 r->arg ? r->arg : "");
    else if (r->alias)
        snprintf(out, cap, "  %s, %s%s%s", r->name, r->alias, r->arg ? " " : "", r->arg ? r->arg : "");
    else
        snprintf(out, cap, "  %s%s%s", r->name, r->arg ? (r->flags & CO_PREFIX ? "" : " ") : "", r->arg ? r->arg : "");
}

/* Lines of text, the first after a left part, the rest at column col. */
static void hang(FILE *f, const char *left, const char *text, int col)
{
    int n = (int)strlen(left);
    fputs(left, f);
    if (n + 2 > col) {
        fputs("  ", f);
    } else {
        fprintf(f, "%*s", col - n, "");
    }
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        fwrite(p, 1, len, f);
        fputc('\n', f);
        p += len;
        if (*p == '\n' && *++p)
            fprintf(f, "%*s", col, "");
    }
    if (!*text)
        fputc('\n', f);
}

static bool shown(const CoTable *t, const CoOpt *r, unsigned cmd)
{
    return !(r->flags & CO_HIDDEN) && (!t->cmds || (r->cmds & cmd));
}

/* The distinct sections of cmd's rows, in the order of first use. */
static size_t sections(const CoTable *t, unsigned cmd, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < t->n_opts; k++) {
        const CoOpt *r = &t->opts[k];
        if (!shown(t, r, cmd))
            continue;
        const char *s = r->section ? r->section : "options";
        size_t j = 0;
        while (j < n && strcmp(out[j], s) != 0)
            j++;
        if (j == n && n < cap)
            out[n++] = s;
    }
    return n;
}

static void synopsis_lines(FILE *f, const char *first, const char *prog, const char *syn)
{
    bool one = true;
    for (const char *p = syn; *p;) {
        size_t len = strcspn(p, "\n");
        fprintf(f, "%s%s %.*s\n", one ? first : "       ", prog, (int)len, p);
        one = false;
        p += len + (p[len] == '\n');
    }
}

static void statuses(FILE *f, const CoTable *t)
{
    fputs("exit status (docs/exit-status.md):\n", f);
#define X(name, num, text) fprintf(f, "  %d  %s\n", num, text);
    SC_STATUSES(X)
#undef X
    if (t->after_statuses)
        fputs(t->after_statuses, f);
}

static void write_help(FILE *f, const CoTable *t, unsigned cmd)
{
    const char *secs[64];
    if (t->cmds && !cmd) {
        for (size_t k = 0; k < t->n_cmds; k++)
            synopsis_lines(f, k ? "       " : "usage: ", t->prog, t->cmds[k].synopsis);
        fprintf(f, "       %s --help | --version\n", t->prog);
        fprintf(f, "%s\ncommands:\n", t->description);
        for (size_t k = 0; k < t->n_cmds; k++) {
            char left[64];
            snprintf(left, sizeof left, "  %s", t->cmds[k].name);
            hang(f, left, t->cmds[k].help, 17);
        }
        fprintf(f, "\nThe options of a command: %s COMMAND --help (all of them: docs/%s.md,\nor man %s).\n\n",
                t->prog, t->prog, t->prog);
        statuses(f, t);
        return;
    }
    if (t->cmds) {
        for (size_t k = 0; k < t->n_cmds; k++)
            if (t->cmds[k].bit == cmd) {
                synopsis_lines(f, "usage: ", t->prog, t->cmds[k].synopsis);
                fprintf(f, "%s\n", t->cmds[k].help);
            }
    } else {
        synopsis_lines(f, "usage: ", t->prog, t->synopsis);
        fputs(t->description, f);
    }
    size_t ns = sections(t, cmd, secs, 64);
    for (size_t s = 0; s < ns; s++) {
        fprintf(f, "\n%s:\n", secs[s]);
        for (size_t k = 0; k < t->n_opts; k++) {
            const CoOpt *r = &t->opts[k];
            if (!shown(t, r, cmd) || strcmp(r->section ? r->section : "options", secs[s]) != 0)
                continue;
            char left[128];
            left_of(r, left, sizeof left);
            hang(f, left, r->help, 21);
        }
    }
    if (t->epilogue && !t->cmds)
        fprintf(f, "\n%s", t->epilogue);
    fputs("\n", f);
    statuses(f, t);
}

/* Text with its line breaks as spaces, for one-line formats. */
static void flat(FILE *f, const char *s, const char *esc_chars, const char *esc_prefix)
{
    for (; *s; s++) {
        char c = *s == '\n' ? ' ' : *s;
        if (esc_chars && strchr(esc_chars, c))
            fputs(esc_prefix, f);
        fputc(c, f);
    }
}

static void md_spelling(FILE *f, const CoOpt *r)
{
    const char *sp[2] = { r->alias && r->alias[1] != '-' ? r->alias : r->name,
                          r->alias && r->alias[1] != '-' ? r->name : r->alias };
    for (int k = 0; k < 2; k++) {
        if (!sp[k])
            continue;
        fprintf(f, "%s`%s%s%s`", k ? ", " : "", sp[k], r->arg && !(r->flags & CO_PREFIX) ? " " : "",
                r->arg ? r->arg : "");
    }
}

static void write_markdown(FILE *f, const CoTable *t)
{
    fprintf(f, "<!-- generated by %s --generate=markdown from its option table; do not edit -->\n", t->prog);
    size_t nc = t->cmds ? t->n_cmds : 1;
    for (size_t c = 0; c < nc; c++) {
        unsigned cmd = t->cmds ? t->cmds[c].bit : 0;
        const char *secs[64];
        fprintf(f, "\n### `%s%s%s`\n\n```\n", t->prog, t->cmds ? " " : "", t->cmds ? t->cmds[c].name : "");
        synopsis_lines(f, "", t->prog, t->cmds ? t->cmds[c].synopsis : t->synopsis);
        fputs("```\n\n", f);
        flat(f, t->cmds ? t->cmds[c].help : t->description, NULL, NULL);
        fputs("\n", f);
        size_t ns = sections(t, cmd, secs, 64);
        for (size_t s = 0; s < ns; s++) {
            bool scoped = false;
            for (size_t k = 0; k < t->n_opts; k++)
                scoped |= shown(t, &t->opts[k], cmd) && t->opts[k].only &&
                          strcmp(t->opts[k].section ? t->opts[k].section : "options", secs[s]) == 0;
            fprintf(f, "\n%s:\n\n| option |%s meaning |\n| --- |%s --- |\n", secs[s], scoped ? " for |" : "",
                    scoped ? " --- |" : "");
            for (size_t k = 0; k < t->n_opts; k++) {
                const CoOpt *r = &t->opts[k];
                if (!shown(t, r, cmd) || strcmp(r->section ? r->section : "options", secs[s]) != 0)
                    continue;
                fputs("| ", f);
                md_spelling(f, r);
                fputs(" | ", f);
                if (scoped) {
                    char names[256];
                    scope_names(t, r->only, names, sizeof names);
                    fprintf(f, "%s | ", r->only ? names : "all");
                }
                flat(f, r->help, "|", "\\");
                fputs(" |\n", f);
            }
        }
    }
}

/* roff text: '-' and '\' escaped, a leading '.' or '\'' defused. */
static void roff(FILE *f, const char *s, size_t n)
{
    bool bol = true;
    for (size_t k = 0; k < n; k++) {
        char c = s[k];
        if (bol && (c == '.' || c == '\''))
            fputs("\\&", f);
        if (c == '\\')
            fputs("\\e", f);
        else if (c == '-')
            fputs("\\-", f);
        else
            fputc(c, f);
        bol = c == '\n';
    }
}

void co_roff_text(FILE *f, const char *s)
{
    roff(f, s, strlen(s));
}

static void roff_lines(FILE *f, const char *s)
{
    roff(f, s, strlen(s));
    if (*s && s[strlen(s) - 1] != '\n')
        fputc('\n', f);
}

static void upper(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s >= 'a' && *s <= 'z' ? *s - 32 : *s, f);
}

static void write_man(FILE *f, const CoTable *t)
{
    fputs(".\\\" generated by ", f);
    fprintf(f, "%s --generate=man from its option table; do not edit\n.TH ", t->prog);
    upper(f, t->prog);
    fprintf(f, " 1 \"\" \"%s %s\" \"User Commands\"\n.SH NAME\n%s \\- ", t->prog, t->version ? t->version : "", t->prog);
    roff_lines(f, t->summary);
    fputs(".SH SYNOPSIS\n.nf\n", f);
    size_t nc = t->cmds ? t->n_cmds : 1;
    for (size_t c = 0; c < nc; c++) {
        const char *syn = t->cmds ? t->cmds[c].synopsis : t->synopsis;
        for (const char *p = syn; *p;) {
            size_t len = strcspn(p, "\n");
            fprintf(f, "\\fB%s\\fR ", t->prog);
            roff(f, p, len);
            fputc('\n', f);
            p += len + (p[len] == '\n');
        }
    }
    fputs(".fi\n.SH DESCRIPTION\n", f);
    roff_lines(f, t->description);
    if (t->cmds) {
        fputs(".SH COMMANDS\n", f);
        for (size_t c = 0; c < t->n_cmds; c++) {
            fprintf(f, ".TP\n.B %s\n", t->cmds[c].name);
            roff_lines(f, t->cmds[c].help);
        }
    }
    fputs(".SH OPTIONS\n", f);
    for (size_t c = 0; c < nc; c++) {
        unsigned cmd = t->cmds ? t->cmds[c].bit : 0;
        const char *secs[64];
        size_t ns = sections(t, cmd, secs, 64);
        for (size_t s = 0; s < ns; s++) {
            fputs(".SS \"", f);
            if (t->cmds)
                fprintf(f, "%s %s: ", t->prog, t->cmds[c].name);
            roff(f, secs[s], strlen(secs[s]));
            fputs("\"\n", f);
            for (size_t k = 0; k < t->n_opts; k++) {
                const CoOpt *r = &t->opts[k];
                if (!shown(t, r, cmd) || strcmp(r->section ? r->section : "options", secs[s]) != 0)
                    continue;
                fputs(".TP\n", f);
                const char *sp[2] = { r->alias && r->alias[1] != '-' ? r->alias : r->name,
                                      r->alias && r->alias[1] != '-' ? r->name : r->alias };
                for (int j = 0; j < 2; j++) {
                    if (!sp[j])
                        continue;
                    fputs(j ? ", " : "", f);
                    fputs("\\fB", f);
                    roff(f, sp[j], strlen(sp[j]));
                    fputs("\\fR", f);
                    if (r->arg) {
                        fputs(r->flags & CO_PREFIX ? "\\fI" : " \\fI", f);
                        roff(f, r->arg, strlen(r->arg));
                        fputs("\\fR", f);
                    }
                }
                fputc('\n', f);
                roff_lines(f, r->help);
            }
        }
    }
    if (t->epilogue && !t->cmds) {
        fputs(".SH ENVIRONMENT\n", f);
        roff_lines(f, t->epilogue);
    }
    fputs(".SH \"EXIT STATUS\"\n", f);
#define X(name, num, text) fprintf(f, ".TP\n.B %d\n", num), roff_lines(f, text);
    SC_STATUSES(X)
#undef X
    if (t->after_statuses) {
        fputs(".PP\n", f);
        roff_lines(f, t->after_statuses);
    }
    fprintf(f, ".SH \"SEE ALSO\"\n.BR %s (1)\n.PP\nThe documentation in docs/ of the source tree: docs/%s.md, "
               "docs/exit\\-status.md.\n",
            strcmp(t->prog, "scc") == 0 ? "scvm" : "scc", t->prog);
}

/* The rows of cmd, one per spelling (a name two rows share, once). */
static bool first_of_name(const CoTable *t, size_t k, unsigned cmd)
{
    for (size_t j = 0; j < k; j++)
        if (shown(t, &t->opts[j], cmd) && strcmp(t->opts[j].name, t->opts[k].name) == 0)
            return false;
    return shown(t, &t->opts[k], cmd);
}

/* Help as one line (its line breaks as spaces), for a completion's description. */
static void one_line(FILE *f, const char *s, const char *esc_chars, const char *esc_prefix)
{
    for (; *s; s++) {
        if (strchr(esc_chars, *s))
            fputs(esc_prefix, f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

static void bash_words(FILE *f, const char *choices)
{
    for (; *choices; choices++)
        fputc(*choices == '|' ? ' ' : *choices, f);
}

/* The row of t->args for command cmd (0: the program), or NULL. */
static const CoArgs *args_of(const CoTable *t, unsigned cmd)
{
    for (size_t k = 0; k < t->n_args; k++)
        if (cmd ? (t->args[k].cmds & cmd) != 0 : t->args[k].cmds == 0)
            return &t->args[k];
    return NULL;
}

static void write_bash_cmd(FILE *f, const CoTable *t, unsigned cmd)
{
    fputs("        case \"$prev\" in\n", f);
    for (size_t k = 0; k < t->n_opts; k++) {
        const CoOpt *r = &t->opts[k];
        if (!first_of_name(t, k, cmd) || !r->arg || (r->flags & CO_PREFIX))
            continue;
        fprintf(f, "        %s%s%s)", r->name, r->alias ? "|" : "", r->alias ? r->alias : "");
        if (r->choices) {
            fputs(" COMPREPLY=($(compgen -W \"", f);
            bash_words(f, r->choices);
            fputs("\" -- \"$cur\")); return ;;\n", f);
        } else if (r->value == CV_LISTED && t->list_cmd) {
            fprintf(f, " _%s_listed; return ;;\n", t->prog);
        } else if (r->value == CV_FILE || r->value == CV_DIR) {
            fprintf(f, " COMPREPLY=($(compgen %s -- \"$cur\")); return ;;\n", r->value == CV_DIR ? "-d" : "-f");
        } else {
            fputs(" COMPREPLY=(); return ;;\n", f);
        }
    }
    fputs("        esac\n        opts=\"", f);
    bool sp = false;
    for (size_t k = 0; k < t->n_opts; k++) {
        const CoOpt *r = &t->opts[k];
        if (!first_of_name(t, k, cmd))
            continue;
        fprintf(f, "%s%s", sp ? " " : "", r->name);
        if (r->alias)
            fprintf(f, " %s", r->alias);
        sp = true;
    }
    /* The options whose value is the next word, so that word is not taken for an argument. */
    fputs("\"\n        vopts=\" ", f);
    for (size_t k = 0; k < t->n_opts; k++) {
        const CoOpt *r = &t->opts[k];
        if (!first_of_name(t, k, cmd) || !r->arg || (r->flags & CO_PREFIX))
            continue;
        fprintf(f, "%s ", r->name);
        if (r->alias)
            fprintf(f, "%s ", r->alias);
    }
    const CoArgs *a = args_of(t, cmd);
    fputs("\"\n        first=\"", f);
    if (a && a->first)
        bash_words(f, a->first);
    fprintf(f, "\" ext='%s'\n", !a || !a->ext ? "*" : a->ext);
}

static void write_bash(FILE *f, const CoTable *t)
{
    fprintf(f, "# bash completion for %s: generated by %s --generate=bash from its option table\n", t->prog, t->prog);
    if (t->list_cmd) {
        /* CV_LISTED: the names the program lists (the first word of each line), and files. */
        fprintf(f, "_%s_listed()\n{\n    local w\n", t->prog);
        fprintf(f, "    w=$(\"${COMP_WORDS[0]}\" %s 2>/dev/null | while read -r n _; do printf '%%s ' \"$n\"; done)\n",
                t->list_cmd);
        fputs("    COMPREPLY=($(compgen -W \"$w\" -- \"$cur\"))\n", f);
        if (t->list_ext)
            fprintf(f, "    COMPREPLY+=($(compgen -f -X '!*.%s' -- \"$cur\"))\n", t->list_ext);
        fputs("}\n", f);
    }
    fprintf(f, "_%s()\n{\n    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" opts vopts first ext\n",
            t->prog);
    fputs("    COMPREPLY=()\n", f);
    if (t->cmds) {
        fputs("    if [ \"$COMP_CWORD\" -eq 1 ]; then\n        COMPREPLY=($(compgen -W \"", f);
        for (size_t c = 0; c < t->n_cmds; c++)
            fprintf(f, "%s ", t->cmds[c].name);
        fputs("--help --version\" -- \"$cur\"))\n        return\n    fi\n    case \"${COMP_WORDS[1]}\" in\n", f);
        for (size_t c = 0; c < t->n_cmds; c++) {
            fprintf(f, "    %s)\n", t->cmds[c].name);
            write_bash_cmd(f, t, t->cmds[c].bit);
            fputs("        ;;\n", f);
        }
        fputs("    *) return ;;\n    esac\n", f);
    } else {
        write_bash_cmd(f, t, 0);
    }
    fputs("    if [[ \"$cur\" == -* ]]; then\n        COMPREPLY=($(compgen -W \"$opts --help\" -- \"$cur\"))\n"
          "        return\n    fi\n", f);
    /* The arguments: how many come before this one (an option's value is not one). */
    fprintf(f, "    local i n=0\n    for ((i = %d; i < COMP_CWORD; i++)); do\n", t->cmds ? 2 : 1);
    fputs("        case \"${COMP_WORDS[i]}\" in\n"
          "        --) break ;;\n"
          "        -*=*) ;;\n"
          "        -*) [[ \"$vopts\" == *\" ${COMP_WORDS[i]} \"* ]] && i=$((i + 1)) ;;\n"
          "        *) n=$((n + 1)) ;;\n"
          "        esac\n    done\n", f);
    fputs("    if [ -n \"$first\" ] && [ \"$n\" -eq 0 ]; then\n"
          "        COMPREPLY=($(compgen -W \"$first\" -- \"$cur\"))\n        return\n    fi\n", f);
    fputs("    case \"$ext\" in\n"
          "    '*') ;;\n"
          "    '') compopt +o default +o bashdefault 2>/dev/null || true ;;\n"
          "    /) COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
          "    *)\n"
          "        local glob; glob=$(shopt -p extglob); shopt -s extglob\n"
          "        COMPREPLY=($(compgen -f -X \"!*.@($ext)\" -- \"$cur\") $(compgen -d -- \"$cur\"))\n"
          "        eval \"$glob\"\n"
          "        compopt -o filenames 2>/dev/null || true ;;\n"
          "    esac\n}\n", f);
    fprintf(f, "complete -o bashdefault -o default -F _%s %s\n", t->prog, t->prog);
}

/* A word inside '...' for zsh: a quote as '\'', and [ ] : escaped for _arguments. */
static void zsh_text(FILE *f, const char *s, const char *special)
{
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else if (strchr(special, *s))
            fprintf(f, "\\%c", *s);
        else
            fputc(*s == '\n' ? ' ' : *s, f);
    }
}

static void zsh_desc(FILE *f, const char *help)
{
    fputc('[', f);
    zsh_text(f, help, "[]");
    fputc(']', f);
}

static void zsh_action(FILE *f, const CoTable *t, const CoOpt *r)
{
    fputc(':', f);
    zsh_text(f, r->arg, ":");
    fputc(':', f);
    if (r->choices) {
        fputc('(', f);
        bash_words(f, r->choices);
        fputc(')', f);
    } else if (r->value == CV_LISTED && t->list_cmd) {
        fprintf(f, "_%s_listed", t->prog);
    } else if (r->value == CV_FILE || r->value == CV_LISTED) {
        fputs("_files", f);
    } else if (r->value == CV_DIR) {
        fputs("_files -/", f);
    } else {
        fputc(' ', f);
    }
}

static void write_zsh_cmd(FILE *f, const CoTable *t, unsigned cmd)
{
    fputs("        _arguments -S", f);
    for (size_t k = 0; k < t->n_opts; k++) {
        const CoOpt *r = &t->opts[k];
        if (!first_of_name(t, k, cmd))
            continue;
        const char *sp[2] = { r->name, r->alias };
        for (int j = 0; j < 2; j++) {
            if (!sp[j])
                continue;
            fprintf(f, " \\\n            '%s%s", r->kind == CO_LIST || r->kind == CO_COUNT ? "*" : "", sp[j]);
            if (r->arg)
                fputs(r->flags & CO_PREFIX || (strlen(sp[j]) == 2 && (r->flags & CO_ATTACH)) ? "+" : sp[j][1] == '-' ? "=" : "", f);
            zsh_desc(f, r->help);
            if (r->arg)
                zsh_action(f, t, r);
            fputc('\'', f);
        }
    }
    const CoArgs *a = args_of(t, cmd);
    if (a && a->first) {
        fputs(" \\\n            '1:argument:(", f);
        bash_words(f, a->first);
        fputs(")'", f);
    }
    if (!a || !a->ext)
        fputs(" \\\n            '*:file:_files'", f);
    else if (strcmp(a->ext, "/") == 0)
        fputs(" \\\n            '*:folder:_files -/'", f);
    else if (*a->ext)
        fprintf(f, " \\\n            '*:file:_files -g \"*.(%s)\"'", a->ext);
    fputc('\n', f);
}

static void write_zsh(FILE *f, const CoTable *t)
{
    fprintf(f, "#compdef %s\n# zsh completion for %s: generated by %s --generate=zsh from its option table\n", t->prog,
            t->prog, t->prog);
    if (t->list_cmd) {
        /* CV_LISTED: the names the program lists (the first word of each line), and files. */
        fprintf(f, "_%s_listed()\n{\n    local -a names\n", t->prog);
        fprintf(f, "    names=(${${(f)\"$($prog %s 2>/dev/null)\"}%%%%[[:space:]]*})\n", t->list_cmd);
        fputs("    compadd -a names\n", f);
        if (t->list_ext)
            fprintf(f, "    _files -g '*.%s'\n", t->list_ext);
        fputs("}\n", f);
    }
    fprintf(f, "_%s()\n{\n    local prog=$words[1]\n", t->prog);
    if (t->cmds) {
        fputs("    local -a cmds\n    cmds=(\n", f);
        for (size_t c = 0; c < t->n_cmds; c++) {
            fprintf(f, "        '%s:", t->cmds[c].name);
            zsh_text(f, t->cmds[c].help, "");
            fputs("'\n", f);
        }
        fputs("    )\n    if (( CURRENT == 2 )); then\n", f);
        fprintf(f, "        _describe -t commands '%s command' cmds\n        return\n    fi\n", t->prog);
        fputs("    local cmd=$words[2]\n    shift words\n    (( CURRENT-- ))\n    case $cmd in\n", f);
        for (size_t c = 0; c < t->n_cmds; c++) {
            fprintf(f, "    %s)\n", t->cmds[c].name);
            write_zsh_cmd(f, t, t->cmds[c].bit);
            fputs("        ;;\n", f);
        }
        fputs("    esac\n", f);
    } else {
        write_zsh_cmd(f, t, 0);
    }
    fprintf(f, "}\n_%s \"$@\"\n", t->prog);
}

static void write_fish_opt(FILE *f, const CoTable *t, const CoOpt *r, const char *cond)
{
    const char *sp[2] = { r->name, r->alias };
    fprintf(f, "complete -c %s", t->prog);
    if (cond)
        fprintf(f, " -n '__fish_seen_subcommand_from %s'", cond);
    for (int j = 0; j < 2; j++) {
        const char *s = sp[j];
        if (!s)
            continue;
        if (s[1] == '-')
            fprintf(f, " -l %s", s + 2);
        else if (strlen(s) == 2)
            fprintf(f, " -s %s", s + 1);
        else
            fprintf(f, " -o %s", s + 1);
    }
    if (r->arg) {
        if (r->choices) {
            fputs(" -x -a '", f);
            bash_words(f, r->choices);
            fputc('\'', f);
        } else if (r->value == CV_LISTED && t->list_cmd) {
            fprintf(f, " -x -a '(%s %s 2>/dev/null | string replace -r \"\\\\s.*\" \"\")", t->prog, t->list_cmd);
            if (t->list_ext)
                fprintf(f, " (__%s_files %s)", t->prog, t->list_ext);
            fputc('\'', f);
        } else if (r->value == CV_FILE || r->value == CV_DIR || r->value == CV_LISTED) {
            fputs(" -r -F", f);
        } else {
            fputs(" -x", f);
        }
    }
    fputs(" -d '", f);
    one_line(f, r->help, "'\\", "\\");
    fputs("'\n", f);
}

/* A command's arguments in fish: its first words, and files by extension
** (__PROG_files: fish 3.6's __fish_complete_suffix only puts the files of
** one suffix first, and offers the others after them). */
static void write_fish_args(FILE *f, const CoTable *t, unsigned cmd, const char *cond)
{
    const CoArgs *a = args_of(t, cmd);
    if (a && a->first) {
        fprintf(f, "complete -c %s%s -a '", t->prog, cond);
        bash_words(f, a->first);
        fputs("'\n", f);
    }
    if (!a || !a->ext) {
        fprintf(f, "complete -c %s%s -F\n", t->prog, cond);
    } else if (strcmp(a->ext, "/") == 0) {
        fprintf(f, "complete -c %s%s -a '(__fish_complete_directories)'\n", t->prog, cond);
    } else if (*a->ext) {
        fprintf(f, "complete -c %s%s -a '(__%s_files ", t->prog, cond, t->prog);
        bash_words(f, a->ext);
        fputs(")'\n", f);
    }
}

static void write_fish(FILE *f, const CoTable *t)
{
    fprintf(f, "# fish completion for %s: generated by %s --generate=fish from its option table\n", t->prog, t->prog);
    fprintf(f, "function __%s_files --description 'files with these extensions, and folders'\n"
               "    set -l re (string join '|' $argv)\n"
               "    complete -C\"__fish_command_without_completions \"(commandline -ct) | "
               "string match -r -- \"^[^\\t]*(?:\\.(?:$re)|/)(?:\\t.*)?\\$\"\nend\n", t->prog);
    if (t->cmds) {
        fprintf(f, "complete -c %s -f\n", t->prog);
        for (size_t c = 0; c < t->n_cmds; c++) {
            fprintf(f, "complete -c %s -n __fish_use_subcommand -a %s -d '", t->prog, t->cmds[c].name);
            one_line(f, t->cmds[c].help, "'\\", "\\");
            fputs("'\n", f);
        }
        for (size_t c = 0; c < t->n_cmds; c++) {
            char cond[128];
            snprintf(cond, sizeof cond, " -n '__fish_seen_subcommand_from %s'", t->cmds[c].name);
            write_fish_args(f, t, t->cmds[c].bit, cond);
            for (size_t k = 0; k < t->n_opts; k++)
                if (first_of_name(t, k, t->cmds[c].bit))
                    write_fish_opt(f, t, &t->opts[k], t->cmds[c].name);
        }
    } else {
        fprintf(f, "complete -c %s -f\n", t->prog);
        write_fish_args(f, t, 0, "");
        for (size_t k = 0; k < t->n_opts; k++)
            if (first_of_name(t, k, 0))
                write_fish_opt(f, t, &t->opts[k], NULL);
    }
}

int co_write(FILE *f, const CoTable *t, CoFormat fmt, unsigned cmd)
{
    switch (fmt) {
    case CO_HELP: write_help(f, t, cmd); break;
    case CO_MARKDOWN: write_markdown(f, t); break;
    case CO_MAN: write_man(f, t); break;
    case CO_BASH: write_bash(f, t); break;
    case CO_ZSH: write_zsh(f, t); break;
    case CO_FISH: write_fish(f, t); break;
    }
    return fflush(f) == 0 && !ferror(f) ? 0 : SC_IO;
}
