/* pack_api.c - the installed C API (include/scc/scc.h) over bc_load and
** pack_load.  A .scb is presented as a suite of one scenario; events come
** from the simulation target, so they are byte-for-byte what `scvm run`
** prints. */
#include "common/levenshtein.h"
#include "include/scc/scc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "formats/bc.h"
#include "common/fileio.h"
#include "formats/pack.h"
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

struct scc_suite {
    Pack *pack;             /* or */
    BcProgram *prog;        /* a single .scb */
    char *tags_mem;         /* .scb: NUL-terminated copies of the tags */
    const char **tags;
    size_t n_tags;
};

struct scc_events {
    const BcProgram *prog;
    Buf out;
    size_t pos;
    uint32_t op;
    double speed;
};

/* Largest file read: a pack's content limit plus zstd's worst expansion. */
#define READ_MAX ((size_t)(PACK_MAX_CONTENT + PACK_MAX_CONTENT / 64 + 65536))

const char *scc_version(void)
{
    return SCC_VERSION;
}

static int set_err(char *err, size_t n, int code, const char *msg)
{
    if (err && n) {
        snprintf(err, n, "%s", msg);
    }
    return code;
}

static int collect_tags(scc_suite *s)
{
    const BcProgram *p = s->prog;
    BcVal tv = bc_val(p, p->meta.tags);
    size_t bytes = 0;
    const unsigned char *q = tv.p;
    for (uint32_t k = 0; k < tv.n; k++) {
        BcVal t;
        q = bc_val_decode(p, q, &t);
        bytes += p->str[t.n].len + 1;
    }
    s->tags = sc_calloc(tv.n ? tv.n : 1, sizeof *s->tags);
    s->tags_mem = sc_malloc(bytes ? bytes : 1);
    if (!s->tags || !s->tags_mem)
        return SCC_ENOMEM;
    char *w = s->tags_mem;
    q = tv.p;
    for (uint32_t k = 0; k < tv.n; k++) {
        BcVal t;
        q = bc_val_decode(p, q, &t);
        s->tags[k] = w;
        memcpy(w, p->str[t.n].s, p->str[t.n].len + 1);   /* strings are NUL-terminated */
        w += p->str[t.n].len + 1;
    }
    s->n_tags = tv.n;
    return SCC_OK;
}

int scc_open_memory(const void *data, size_t len, scc_suite **out, char *err, size_t errlen)
{
    *out = NULL;
    scc_suite *s = sc_calloc(1, sizeof *s);
    if (!s)
        return set_err(err, errlen, SCC_ENOMEM, "out of memory");
    int code = SCC_OK;
    char msg[400];
    if (pack_is_pack(data, len)) {
        PackError pe;
        PackErrCode c = pack_load(data, len, NULL, &s->pack, &pe);
        if (c) {
            snprintf(msg, sizeof msg, "%s [%s]", pe.msg, pack_err_name(c));
            code = c == PACK_ERR_NOMEM ? SCC_ENOMEM : SCC_EREJECTED;
        }
    } else {
        BcError be;
        BcErrCode c = bc_load(data, len, NULL, &s->prog, &be);
        if (c) {
            snprintf(msg, sizeof msg, "%s [%s]", be.msg, bc_err_name(c));
            code = c == BC_ERR_NOMEM ? SCC_ENOMEM : SCC_EREJECTED;
        } else if (collect_tags(s)) {
            snprintf(msg, sizeof msg, "out of memory");
            code = SCC_ENOMEM;
        }
    }
    if (code) {
        scc_close(s);
        return set_err(err, errlen, code, msg);
    }
    *out = s;
    return SCC_OK;
}

int scc_open_file(const char *path, scc_suite **out, char *err, size_t errlen)
{
    char *data = NULL;
    size_t len = 0;
    *out = NULL;
    int e = file_read_all(path, READ_MAX, &data, &len);
    if (e == ENOMEM)
        return set_err(err, errlen, SCC_ENOMEM, "out of memory");
    if (e == EFBIG)
        return set_err(err, errlen, SCC_EREJECTED, "file is too large [SIZE]");
    if (e)
        return set_err(err, errlen, SCC_EIO, strerror(e));
    int r = scc_open_memory(data, len, out, err, errlen);
    sc_free(data);
    return r;
}

void scc_close(scc_suite *s)
{
    if (!s)
        return;
    pack_free(s->pack);
    bc_free(s->prog);
    sc_free(s->tags_mem);
    sc_free((void *)s->tags);
    sc_free(s);
}

int scc_is_pack(const scc_suite *s)
{
    return s->pack != NULL;
}

size_t scc_count(const scc_suite *s)
{
    return s->pack ? s->pack->n_entries : 1;
}

static const BcProgram *prog_of(const scc_suite *s, size_t i)
{
    return s->pack ? s->pack->entries[i].prog : s->prog;
}

const char *scc_name(const scc_suite *s, size_t i)
{
    const BcProgram *p = prog_of(s, i);
    return p->str[p->meta.name].s;
}

const char *scc_source(const scc_suite *s, size_t i)
{
    if (s->pack)
        return s->pack->entries[i].source;
    return s->prog->str[s->prog->meta.source].s;
}

const char *scc_prompt(const scc_suite *s, size_t i)
{
    const BcProgram *p = prog_of(s, i);
    BcVal v = bc_val(p, p->meta.prompt);
    return v.tag == BC_V_STR ? p->str[v.n].s : NULL;
}

size_t scc_tag_count(const scc_suite *s, size_t i)
{
    return s->pack ? s->pack->entries[i].n_tags : s->n_tags;
}

const char *scc_tag(const scc_suite *s, size_t i, size_t k)
{
    return s->pack ? s->pack->entries[i].tags[k] : s->tags[k];
}

uint64_t scc_duration_ms(const scc_suite *s, size_t i)
{
    const BcProgram *p = prog_of(s, i);
    return p->insn[p->n_insn - 1].t;
}

long scc_find(const scc_suite *s, const char *name)
{
    for (size_t i = 0; i < scc_count(s); i++)
        if (strcmp(scc_name(s, i), name) == 0)
            return (long)i;
    return -1;
}

long scc_match_prompt(const scc_suite *s, const char *prompt, size_t *distance)
{
    size_t best_d = 0;
    long best = -1;
    for (size_t i = 0; i < scc_count(s); i++) {
        const char *p = scc_prompt(s, i);
        if (!p)
            continue;
        size_t d = text_levenshtein(p, strlen(p), prompt, strlen(prompt));
        if (best < 0 || d < best_d) {
            best = (long)i;
            best_d = d;
        }
    }
    if (best < 0 && scc_count(s))
        best = 0, best_d = 0;
    if (distance)
        *distance = best_d;
    return best;
}

size_t scc_file_count(const scc_suite *s, size_t i)
{
    return s->pack ? s->pack->entries[i].n_files : 0;
}

const char *scc_file_path(const scc_suite *s, size_t i, size_t k)
{
    return s->pack->entries[i].files[k].path;
}

const void *scc_file_data(const scc_suite *s, size_t i, size_t k, size_t *len)
{
    const PackFile *f = &s->pack->entries[i].files[k];
    if (len)
        *len = f->len;
    return f->data;
}

int scc_file_executable(const scc_suite *s, size_t i, size_t k)
{
    return (s->pack->entries[i].files[k].mode & PACK_FILE_EXEC) != 0;
}

int scc_events_open(const scc_suite *s, size_t i, double speed, scc_events **out)
{
    *out = NULL;
    scc_events *it = sc_calloc(1, sizeof *it);
    if (!it)
        return SCC_ENOMEM;
    buf_init(&it->out);
    it->prog = prog_of(s, i);
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
