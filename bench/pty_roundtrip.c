/* SPDX-License-Identifier: MIT */
/* pty_roundtrip.c - issue 5's speed figure: N round trips of "type a line
** into `tr a-z A-Z`, wait until the upper-cased line is on the screen".
**
** usage: pty_roundtrip N [FILE.scb]
**
**   layers_*   the PTY target's own layers in-process: rt_pty_session
**              spawns tr in a pseudo-terminal, rt_pty_screen (libvterm)
**              keeps its screen; each trip types "line<i>\n" through the
**              screen's keyboard and polls the master until the screen text
**              holds "LINE<i>" (checked only when the screen changed, as the
**              target's waits are).  The floor of what scvm can do.
**   target_*   with FILE.scb (bench/run.py compiles a tui-use scenario of N
**              `text` steps, each asserting screen_contains LINE<i>, with
**              run.command tr): the whole PTY target in-process, vm_run
**              with rt_pty_new, as `scvm run -t pty` runs it, minus the
**              process start and the load.
**
** Prints `key value` lines (bench/run.py): trips, layers_sec, layers_ms_trip,
** target_sec, target_ms_trip.  Each figure is one timed run after a short
** warm-up session; run.py takes the median of several runs.  Nothing here
** asserts a time. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/bc.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/pty/rt_pty_screen.h"
#include "runtime/pty/rt_pty_session.h"
#include "vm/vm.h"
#include "bench_util.h"

static PtySession *sess;

static void to_program(const char *s, size_t n, void *u)
{
    (void)u;
    /* tr reads in cooked mode: a line is a few bytes, the master takes it. */
    while (n > 0) {
        ssize_t w = write(pty_session_fd(sess), s, n);
        if (w < 0) {
            struct pollfd p = { pty_session_fd(sess), POLLOUT, 0 };
            poll(&p, 1, 1000);
            continue;
        }
        s += w;
        n -= (size_t)w;
    }
}

/* Returns the seconds n trips took, or -1 when tr did not answer in 10 s. */
static double layers(int n)
{
    char *argv[] = { "tr", "a-z", "A-Z", NULL };
    char *envp[] = { "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "TERM=xterm-256color", NULL };
    const char *tr = access("/usr/bin/tr", X_OK) == 0 ? "/usr/bin/tr" : "/bin/tr";
    PtySpawn sp = { .path = tr, .argv = argv, .envp = envp, .rows = 24, .cols = 80 };
    char err[256];
    sess = pty_session_spawn(&sp, err, sizeof err);
    if (!sess) {
        fprintf(stderr, "pty_roundtrip: %s\n", err);
        exit(2);
    }
    PtyScreen *scr = pty_screen_new(24, 80, to_program, NULL, NULL);
    Buf text;
    buf_init(&text);
    char line[32], want[32], rd[4096];
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        int k = snprintf(line, sizeof line, "line%d\n", i);
        snprintf(want, sizeof want, "LINE%d", i);
        pty_screen_type(scr, line, (size_t)k, false);
        uint64_t seen = pty_screen_gen(scr);
        for (;;) {
            struct pollfd p = { pty_session_fd(sess), POLLIN, 0 };
            if (poll(&p, 1, 10000) <= 0) {
                t0 = -1;
                goto out;
            }
            ssize_t r = read(p.fd, rd, sizeof rd);
            if (r > 0)
                pty_screen_feed(scr, rd, (size_t)r);
            if (pty_screen_gen(scr) == seen)
                continue;
            seen = pty_screen_gen(scr);
            pty_screen_text(scr, &text);
            buf_putc(&text, 0);
            if (strstr((const char *)text.data, want))
                break;
        }
    }
out:;
    double dt = t0 < 0 ? -1 : bench_now() - t0;
    buf_fini(&text);
    pty_screen_free(scr);
    pty_session_close(sess);
    sess = NULL;
    return dt;
}

static double target(const char *scb)
{
    BcProgram *prog;
    BcError e;
    if (bc_load_file(scb, NULL, &prog, &e) != BC_ERR_OK) {
        fprintf(stderr, "pty_roundtrip: %s: cannot load\n", scb);
        exit(2);
    }
    RtPtyOpts po = { .diag = stderr, .speed = 1.0 };
    RtTarget *t = rt_pty_new(&po);
    if (!t) {
        bc_free(prog);
        return -1;
    }
    VmOpts vo = { .speed = 1.0 };
    double t0 = bench_now();
    int st = vm_run(prog, t, rt_pty_clock(t), &vo);
    double dt = bench_now() - t0;
    const char *msg;
    PtyErr pe = rt_pty_result(t, &msg);
    if (st != 0 || pe != PTY_E_OK) {
        fprintf(stderr, "pty_roundtrip: %s: the run failed (%d): %s\n", scb, st, msg ? msg : "");
        dt = -1;
    }
    t->vt->destroy(t);
    bc_free(prog);
    return dt;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: pty_roundtrip N [FILE.scb]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    layers(n < 20 ? n : 20);                     /* warm-up: page cache, tr's pages */
    double l = layers(n);
    if (l < 0) {
        fprintf(stderr, "pty_roundtrip: tr did not answer\n");
        return 1;
    }
    printf("trips %d\nlayers_sec %.6f\nlayers_ms_trip %.4f\n", n, l, l * 1e3 / n);
    if (argc == 3) {
        double t = target(argv[2]);
        if (t < 0)
            return 1;
        printf("target_sec %.6f\ntarget_ms_trip %.4f\n", t, t * 1e3 / n);
    }
    return 0;
}
