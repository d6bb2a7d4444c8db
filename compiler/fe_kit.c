/* SPDX-License-Identifier: MIT */
/* fe_kit.c - diagnostics and suggestions shared by the front ends (fe_kit.h). */
#include "fe_kit.h"

#include <stdio.h>
#include <string.h>

#include "common/levenshtein.h"

void fe_vreport(const FeDiag *f, DiagLevel lv, const char *flag, const YNode *n, const char *fmt, va_list ap)
{
    char msg[512];     /* diag_add keeps no more */
    vsnprintf(msg, sizeof msg, fmt, ap);
    diag_add(f->d, lv, f->file, n ? n->line + f->line_offset : 0, n ? n->col : 0, flag, "%s", msg);
}

void fe_err(const FeDiag *f, const YNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fe_vreport(f, DIAG_ERROR, NULL, n, fmt, ap);
    va_end(ap);
}

void fe_warn(const FeDiag *f, const char *flag, const YNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fe_vreport(f, DIAG_WARNING, flag, n, fmt, ap);
    va_end(ap);
}

void fe_note(const FeDiag *f, const YNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fe_vreport(f, DIAG_NOTE, NULL, n, fmt, ap);
    va_end(ap);
}

bool fe_in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (fe_streq(s, list[i]))
            return true;
    return false;
}

const char *fe_closest(const char *word, const char *const *list)
{
    const char *best = NULL;
    size_t wl = strlen(word);
    unsigned cap = wl < 4 ? 1 : wl < 9 ? 2 : 3, bestd = cap + 1;
    for (size_t i = 0; list[i]; i++) {
        unsigned dist = name_distance(word, list[i], cap);
        if (dist < bestd) {
            bestd = dist;
            best = list[i];
        }
    }
    return best;
}

bool fe_suggest(const FeDiag *f, const YNode *n, const char *word, const char *const *list)
{
    const char *s = fe_closest(word, list);
    if (s)
        fe_note(f, n, "did you mean '%s'?", s);
    return s != NULL;
}

void fe_unknown_keys(const FeDiag *f, const YNode *map, const char *what, const char *const *known,
                     const char *const *also, const char *ignored_by)
{
    if (!map || map->kind != YN_MAP)
        return;
    for (uint32_t i = 0; i < map->n; i++) {
        const YNode *k = &map->u.pairs[i].key;
        if (fe_in_list(k->u.s, known) || (also && fe_in_list(k->u.s, also)))
            continue;
        if (ignored_by)
            fe_warn(f, "unknown-key", k, "unknown key '%s' in %s; %s ignores it, and so does scc", k->u.s, what,
                    ignored_by);
        else
            fe_warn(f, "unknown-key", k, "unknown key '%s' in %s; it is ignored", k->u.s, what);
        fe_suggest(f, k, k->u.s, known);
    }
}
