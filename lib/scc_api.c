/* SPDX-License-Identifier: MIT */
/* scc_api.c - the installed C API (include/scc/scc.h) over the one loader
** (formats/suite.h).  A .scb is a suite of one scenario; events come
** from the simulation target, so they are byte-for-byte what `scvm run`
** prints. */
#include "include/scc/scc.h"

#include <stdio.h>
#include <string.h>

#include "formats/bc.h"
#include "formats/pack.h"
#include "formats/suite.h"
#include "runtime/rt_clock.h"
#include "runtime/rt_sim.h"
#include "common/sc_alloc.h"
#include "vm/vm.h"

/* The public codes are the exit statuses of the one table. */
_Static_assert((int)SCC_OK == (int)SC_OK && (int)SCC_EIO == (int)SC_IO && (int)SCC_EREJECTED == (int)SC_REJECTED &&
                   (int)SCC_ENOMEM == (int)SC_RUNTIME,
               "include/scc/scc.h and common/status.h disagree");

#ifndef SCC_VERSION
#define SCC_VERSION "unknown"
#endif

/* A scc_suite is the one loader's Suite (formats/suite.h). */
struct scc_suite {
    Suite *s;
};

struct scc_events {
    const BcProgram *prog;
    Buf out;
    size_t pos;
    uint32_t op;
    double speed;
};

const char *scc_version(void)
{
    return SCC_VERSION;
}

static int set_err(char *err, size_t n, const SuiteErr *e)
{
    if (err && n) {
        if (e->status == SC_RUNTIME)
            snprintf(err, n, "out of memory");
        else if (e->status == SC_IO)
            snprintf(err, n, "%s", e->msg);
        else
            snprintf(err, n, "%s [%s]", e->msg, e->code);
    }
    return e->status;
}

static int open_with(const char *path, const void *data, size_t len, scc_suite **out, char *err, size_t errlen)
{
    *out = NULL;
    SuiteErr e = { .status = SC_RUNTIME, .code = "NOMEM" };
    scc_suite *s = sc_calloc(1, sizeof *s);
    if (s)
        s->s = suite_new();
    int st = !s || !s->s ? SC_RUNTIME : path ? suite_add_file(s->s, path, &e) : suite_add_memory(s->s, data, len, NULL, &e);
    if (st) {
        scc_close(s);
        return set_err(err, errlen, &e);
    }
    *out = s;
    return SCC_OK;
}

int scc_open_memory(const void *data, size_t len, scc_suite **out, char *err, size_t errlen)
{
    return open_with(NULL, data, len, out, err, errlen);
}

int scc_open_file(const char *path, scc_suite **out, char *err, size_t errlen)
{
    return open_with(path, NULL, 0, out, err, errlen);
}

void scc_close(scc_suite *s)
{
    if (!s)
        return;
    suite_free(s->s);
    sc_free(s);
}

int scc_is_pack(const scc_suite *s)
{
    return suite_pack(s->s) != NULL;
}

size_t scc_count(const scc_suite *s)
{
    return suite_count(s->s);
}

static const PackEntry *entry(const scc_suite *s, size_t i)
{
    return suite_entry(s->s, (uint32_t)i);
}

const char *scc_name(const scc_suite *s, size_t i)
{
    return entry(s, i)->name;
}

const char *scc_source(const scc_suite *s, size_t i)
{
    return entry(s, i)->source;
}

const char *scc_prompt(const scc_suite *s, size_t i)
{
    return entry(s, i)->prompt;
}

size_t scc_tag_count(const scc_suite *s, size_t i)
{
    return entry(s, i)->n_tags;
}

const char *scc_tag(const scc_suite *s, size_t i, size_t k)
{
    return entry(s, i)->tags[k];
}

uint64_t scc_duration_ms(const scc_suite *s, size_t i)
{
    const BcProgram *p = entry(s, i)->prog;
    return p->insn[p->n_insn - 1].t;
}

long scc_find(const scc_suite *s, const char *name)
{
    return suite_find(s->s, name);
}

long scc_match_prompt(const scc_suite *s, const char *prompt, size_t *distance)
{
    size_t d = 0;
    long best = suite_best_prompt(s->s, NULL, 0, prompt, strlen(prompt), &d);
    if (distance)
        *distance = best < 0 ? 0 : d;
    return best;
}

size_t scc_file_count(const scc_suite *s, size_t i)
{
    return entry(s, i)->n_files;
}

const char *scc_file_path(const scc_suite *s, size_t i, size_t k)
{
    return entry(s, i)->files[k].path;
}

const void *scc_file_data(const scc_suite *s, size_t i, size_t k, size_t *len)
{
    const PackFile *f = &entry(s, i)->files[k];
    if (len)
        *len = f->len;
    return f->data;
}

int scc_file_executable(const scc_suite *s, size_t i, size_t k)
{
    return (entry(s, i)->files[k].mode & PACK_FILE_EXEC) != 0;
}

int scc_events_open(const scc_suite *s, size_t i, double speed, scc_events **out)
{
    *out = NULL;
    scc_events *it = sc_calloc(1, sizeof *it);
    if (!it)
        return SCC_ENOMEM;
    buf_init(&it->out);
    it->prog = entry(s, i)->prog;
    it->speed = speed;
    RtSimOpts so = { .mem = &it->out };
    RtTarget *t = rt_sim_new(&so);
    VmOpts vo = { .speed = speed };
    int st = t ? vm_run(it->prog, t, NULL, &vo) : SC_RUNTIME;
    if (t)
        t->vt->destroy(t);
    if (st || it->out.oom) {
        scc_events_close(it);
        return SCC_ENOMEM;
    }
    *out = it;
    return SCC_OK;
}

int scc_events_next(scc_events *it, scc_event *ev)
{
    const BcProgram *p = it->prog;
    while (it->op < p->n_insn && (bc_op_info[p->insn[it->op].op].flags & OPF_SILENT))
        it->op++;
    if (it->op >= p->n_insn || it->pos >= it->out.len)
        return 0;
    const BcInsn *in = &p->insn[it->op++];
    char *line = (char *)it->out.data + it->pos;
    char *nl = memchr(line, '\n', it->out.len - it->pos);
    size_t n = nl ? (size_t)(nl - line) : it->out.len - it->pos;
    if (nl)
        *nl = 0;   /* the buffer is ours: terminate the line in place */
    it->pos += n + (nl != NULL);
    ev->at_ms = rt_clock_scale(in->t, it->speed);
    ev->kind = bc_op_info[in->op].event;
    ev->json = line;
    ev->json_len = n;
    return 1;
}

void scc_events_close(scc_events *it)
{
    if (!it)
        return;
    buf_fini(&it->out);
    sc_free(it);
}
