/* SPDX-License-Identifier: MIT */
/* cmd_tape.c - `scvm tape`: tapes of recorded replies (docs/tape.md) from
** the command line, for authors who write or review them by hand.
**
**   scvm tape check TAPE...                 read each; N entries, or FILE:LINE: why
**   scvm tape ls [--json] TAPE              one entry a line: kind, key, n, request
**   scvm tape key KIND REQUEST              the key of a request (JSON text, - = stdin)
**   scvm tape add TAPE KIND REQUEST REPLY   the entry for the next asking, the tape
**                                           written back sorted (made when missing) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/tape/tape.h"
#include "cli.h"
#include "scvm.h"

/* A JSON operand: the text itself, or "-" for stdin. */
static cJSON *json_arg(const char *what, const char *arg, int *st)
{
    char *data = NULL;
    size_t len = 0;
    if (strcmp(arg, "-") == 0) {
        int e = file_read_all("-", (size_t)64 << 20, &data, &len);
        if (e) {
            fprintf(stderr, "scvm: tape: cannot read stdin: %s\n", strerror(e));
            *st = SC_IO;
            return NULL;
        }
    }
    cJSON *j = data ? cJSON_ParseWithLength(data, len) : cJSON_Parse(arg);
    sc_free(data);
    if (!j) {
        fprintf(stderr, "scvm: tape: the %s is not JSON: %.200s\n", what, strcmp(arg, "-") ? arg : "(stdin)");
        *st = SC_USAGE;
    }
    return j;
}

static int load(const char *path, bool missing_ok, Tape **t)
{
    char err[1024];
    *t = tape_load(path, missing_ok, err, sizeof err);
    if (*t)
        return 0;
    fprintf(stderr, "scvm: %s\n", err);
    return strstr(err, ": cannot read: ") ? SC_IO : SC_REJECTED;
}

int scvm_tape(const Opts *o)
{
    const char *sub = o->n_ops ? o->ops[0] : "";
    int st = 0;
    if (strcmp(sub, "check") == 0) {
        if (o->n_ops < 2)
            return cli_usage(scvm_usage, "%s", "tape check: which tape?");
        for (size_t i = 1; i < o->n_ops; i++) {
            Tape *t;
            int s = load(o->ops[i], false, &t);
            if (!s)
                printf("%s: %zu entries\n", o->ops[i], tape_size(t));
            tape_free(t);
            st = s > st ? s : st;
        }
        return st;
    }
    if (strcmp(sub, "ls") == 0) {
        if (o->n_ops != 2)
            return cli_usage(scvm_usage, "%s", "tape ls: one tape");
        Tape *t;
        if ((st = load(o->ops[1], false, &t)) != 0)
            return st;
        /* the file's own order is the sorted one: list it as written */
        Buf b;
        buf_init(&b);
        tape_write(t, &b);
        buf_putc(&b, 0);
        char *line = strchr((char *)b.data, '\n');
        for (line = line ? line + 1 : NULL; line && *line;) {
            char *nl = strchr(line, '\n');
            *nl = 0;
            if (o->json) {
                puts(line);
            } else {
                cJSON *j = cJSON_Parse(line);
                const cJSON *rq = cJSON_GetObjectItemCaseSensitive(j, "request");
                Buf r;
                buf_init(&r);
                tape_canonical(rq, &r);
                printf("%-16s %.12s %3d  %.*s%s\n", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "kind")),
                       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "key")),
                       (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "n")),
                       (int)(r.len > 100 ? 100 : r.len), (const char *)r.data, r.len > 100 ? "..." : "");
                buf_fini(&r);
                cJSON_Delete(j);
            }
            line = nl + 1;
        }
        buf_fini(&b);
        tape_free(t);
        return 0;
    }
    if (strcmp(sub, "key") == 0) {
        if (o->n_ops != 3)
            return cli_usage(scvm_usage, "%s", "tape key: KIND REQUEST");
        cJSON *rq = json_arg("request", o->ops[2], &st);
        if (!rq)
            return st;
        char key[65], err[256];
        Tape *probe = tape_new();
        /* the kind is checked as an entry's would be */
        bool ok = probe && tape_add(probe, o->ops[1], rq, 0, rq, err, sizeof err);
        tape_free(probe);
        if (!ok) {
            cJSON_Delete(rq);
            return cli_usage(scvm_usage, "tape key: %s", err);
        }
        tape_key(o->ops[1], rq, key);
        puts(key);
        cJSON_Delete(rq);
        return 0;
    }
    if (strcmp(sub, "add") == 0) {
        if (o->n_ops != 5)
            return cli_usage(scvm_usage, "%s", "tape add: TAPE KIND REQUEST REPLY");
        if (!strcmp(o->ops[3], "-") && !strcmp(o->ops[4], "-"))
            return cli_usage(scvm_usage, "%s", "tape add: only one of REQUEST and REPLY can be stdin");
        Tape *t;
        if ((st = load(o->ops[1], true, &t)) != 0)
            return st;
        cJSON *rq = json_arg("request", o->ops[3], &st), *rp = rq ? json_arg("reply", o->ops[4], &st) : NULL;
        if (rq && rp) {
            /* the next asking: one more than the entries this request has */
            char key[65], err[256];
            unsigned n = 0;
            while (tape_take(t, o->ops[2], rq, key))
                n++;
            if (!tape_add(t, o->ops[2], rq, n, rp, err, sizeof err)) {
                st = cli_usage(scvm_usage, "tape add: %s", err);
            } else {
                int e = tape_save(t, o->ops[1]);
                if (e) {
                    fprintf(stderr, "scvm: %s: cannot write: %s\n", o->ops[1], strerror(e));
                    st = SC_IO;
                } else {
                    printf("%s %u\n", key, n);
                }
            }
        }
        cJSON_Delete(rq);
        cJSON_Delete(rp);
        tape_free(t);
        return st;
    }
    return cli_usage(scvm_usage, "tape: what to do? (check, ls, key, add) not '%s'", sub);
}
