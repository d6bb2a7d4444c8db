/* SPDX-License-Identifier: MIT */
/* yaml_bare.c - the libyaml baseline: yaml_parser_parse() over every event
** of the same bytes scc compiles, and nothing else (no tree, no copies).
** This is the ceiling for any libyaml-based compiler; bench/run.py reports
** scc's compile throughput as a fraction of it.
**
**   yaml_bare [--runs N --warmup N --min-time S] FILE...
** prints: bytes, events, sec (median seconds per pass over all files), mbps */
#include <yaml.h>

#include "bench_util.h"

typedef struct Ctx {
    BenchFile *f;
    int n;
    unsigned long events;
} Ctx;

static void parse_all(void *p)
{
    Ctx *c = p;
    c->events = 0;
    for (int i = 0; i < c->n; i++) {
        yaml_parser_t yp;
        if (!yaml_parser_initialize(&yp))
            exit(2);
        yaml_parser_set_input_string(&yp, (const unsigned char *)c->f[i].data, c->f[i].len);
        for (;;) {
            yaml_event_t ev;
            if (!yaml_parser_parse(&yp, &ev)) {
                fprintf(stderr, "yaml_bare: %s: %s\n", c->f[i].path, yp.problem);
                exit(1);
            }
            int end = ev.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&ev);
            c->events++;
            if (end)
                break;
        }
        yaml_parser_delete(&yp);
    }
}

int main(int argc, char **argv)
{
    BenchOpts o;
    int i = bench_opts(argc, argv, &o);
    Ctx c = { calloc((size_t)argc, sizeof(BenchFile)), 0, 0 };
    size_t bytes = 0;
    for (; i < argc; i++) {
        bench_read(argv[i], &c.f[c.n]);
        bytes += c.f[c.n++].len;
    }
    if (c.n == 0) {
        fputs("usage: yaml_bare [--runs N --warmup N --min-time S] FILE...\n", stderr);
        return 2;
    }
    double sec = bench_time(&o, parse_all, &c);
    printf("bytes %zu\nevents %lu\nsec %.9f\nmbps %.3f\n", bytes, c.events, sec, bytes / sec / 1e6);
    for (int k = 0; k < c.n; k++) {
        free(c.f[k].data);
        free(c.f[k].path);
    }
    free(c.f);
    return 0;
}
