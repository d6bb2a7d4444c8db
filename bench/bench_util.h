/* SPDX-License-Identifier: MIT */
/* bench_util.h - what every benchmark program shares: a monotonic clock,
** reading the input files once, and "median of N timed runs after a
** warm-up", where each run repeats the work until it lasts long enough to
** time (so a 1 KB input is not timed by a single 5 us call).
**
** Every program prints its results as `key value` lines on stdout, one per
** figure, for bench/run.py to collect; nothing here asserts a time. */
#ifndef SC_BENCH_UTIL_H
#define SC_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Wall time; with BENCH_CLOCK=cpu in the environment, this thread's CPU
** time instead (user and system), which other work on a shared machine
** moves much less: what run.py --cpu-clock measures. */
static inline double bench_now(void)
{
    static int cpu = -1;
    if (cpu < 0) {
        const char *c = getenv("BENCH_CLOCK");
        cpu = c && strcmp(c, "cpu") == 0;
    }
    struct timespec ts;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct BenchFile {
    char *path;
    char *data;
    size_t len;
} BenchFile;

/* Reads a whole file into a malloc'd, NUL-terminated buffer; exits on error
** (a benchmark with a missing input has nothing to say). */
static inline void bench_read(const char *path, BenchFile *f)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "bench: cannot open %s\n", path);
        exit(2);
    }
    size_t cap = 1 << 16, len = 0;
    char *d = malloc(cap + 1);
    for (size_t r; d && (r = fread(d + len, 1, cap - len, fp)) > 0;) {
        len += r;
        if (len == cap)
            d = realloc(d, (cap *= 2) + 1);
    }
    fclose(fp);
    if (!d) {
        fprintf(stderr, "bench: out of memory reading %s\n", path);
        exit(2);
    }
    d[len] = 0;
    f->path = strdup(path);
    f->data = d;
    f->len = len;
}

/* Frees what bench_read allocated for f[0..n) and f itself, so the
** programs exit clean under LeakSanitizer (bench.quick runs in the
** sanitizer build). */
static inline void bench_free_files(BenchFile *f, int n)
{
    for (int i = 0; i < n; i++) {
        free(f[i].path);
        free(f[i].data);
    }
    free(f);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct BenchOpts {
    int runs;            /* timed runs; the median is reported */
    int warmup;          /* untimed runs first */
    double min_run;      /* seconds: repeat the work until a run lasts this long */
} BenchOpts;

/* Parses --runs N --warmup N --min-time S from argv in place; returns the
** index of the first argument that is not an option. */
static inline int bench_opts(int argc, char **argv, BenchOpts *o)
{
    o->runs = 7;
    o->warmup = 1;
    o->min_run = 0.05;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
        if (strcmp(argv[i], "--runs") == 0)
            o->runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--warmup") == 0)
            o->warmup = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--min-time") == 0)
            o->min_run = atof(argv[i + 1]);
        else
            break;
    }
    if (o->runs < 1)
        o->runs = 1;
    if (o->runs > 99)
        o->runs = 99;
    return i;
}

/* Times fn(ctx) -> the median seconds per call.  The repeat count is fixed
** by the warm-up (or a first call) so every timed run does the same work. */
static inline double bench_time(const BenchOpts *o, void (*fn)(void *), void *ctx)
{
    double t0 = bench_now();
    fn(ctx);
    double one = bench_now() - t0;
    for (int i = 1; i < o->warmup; i++)
        fn(ctx);
    long reps = one > 0 ? (long)(o->min_run / one) + 1 : 1000;
    if (reps < 1)
        reps = 1;
    double v[99];
    for (int r = 0; r < o->runs; r++) {
        t0 = bench_now();
        for (long k = 0; k < reps; k++)
            fn(ctx);
        v[r] = (bench_now() - t0) / (double)reps;
    }
    return bench_median(v, o->runs);
}

#endif
