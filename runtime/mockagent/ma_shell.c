/* SPDX-License-Identifier: MIT */
/* ma_shell.c - background shells for the mock agent (ma_shell.h). */
#include "ma_shell.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/sc_alloc.h"
#include "formats/term/term_regex.h"
#include "ma_proc.h"
#include "runtime/rt_cancel.h"
#include "runtime/rt_proc.h"

/* How long bashOutput waits for a shell whose output has ended to exit. */
enum { EXIT_WAIT_MS = 2000 };

typedef struct MaShell {
    char id[16];
    RtProc *proc;           /* NULL once it has ended and been closed */
    int fd;                 /* its output, -1 after the end of it */
    Buf out;                /* output not yet returned by bashOutput */
    size_t dropped;         /* bytes beyond MA_PROC_OUT_MAX, not kept */
    MaShellState state;
    int code;
} MaShell;

struct MaShells {
    MaShell *v;
    size_t n, cap;
};

MaShells *ma_shells_new(void) { return sc_calloc(1, sizeof(MaShells)); }

static void shell_end(MaShell *sh)
{
    if (sh->fd >= 0)
        close(sh->fd);
    sh->fd = -1;
    rt_proc_close(sh->proc);
    sh->proc = NULL;
}

void ma_shells_free(MaShells *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        shell_end(&s->v[i]);
        buf_fini(&s->v[i].out);
    }
    free(s->v);
    free(s);
}

int ma_shell_start(MaShells *s, const char *cmd, const char *dir, char *id, size_t cap)
{
    if (s->n == s->cap && !SC_GROW(s->v, s->cap, 4))
        return ENOMEM;
    int op[2];
    if (pipe2(op, O_CLOEXEC) != 0)
        return errno;
    char *argv[] = { "sh", "-c", (char *)cmd, NULL };
    RtProcSpawn sp = { .argv = argv, .cwd = dir, .fd0 = -1, .fd1 = op[1], .fd2 = op[1] };
    int e = 0;
    RtProc *p = rt_proc_spawn(&sp, &e);
    close(op[1]);
    if (!p) {
        close(op[0]);
        return e ? e : EIO;
    }
    fcntl(op[0], F_SETFL, fcntl(op[0], F_GETFL) | O_NONBLOCK);
    MaShell *sh = &s->v[s->n];
    memset(sh, 0, sizeof *sh);
    snprintf(sh->id, sizeof sh->id, "bash_%zu", s->n + 1);
    sh->proc = p;
    sh->fd = op[0];
    buf_init(&sh->out);
    s->n++;
    snprintf(id, cap, "%s", sh->id);
    return 0;
}

/* Reads what sh has written; at its end, waits up to wait_ms for it to
** exit and reaps it. */
static void shell_poll(MaShell *sh, unsigned wait_ms)
{
    char chunk[8192];
    while (sh->fd >= 0) {
        ssize_t k = read(sh->fd, chunk, sizeof chunk);
        if (k > 0) {
            size_t room = sh->out.len < MA_PROC_OUT_MAX ? MA_PROC_OUT_MAX - sh->out.len : 0;
            size_t keep = (size_t)k < room ? (size_t)k : room;
            buf_put(&sh->out, chunk, keep);
            sh->dropped += (size_t)k - keep;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        close(sh->fd);      /* the end of its output (or an error reading it) */
        sh->fd = -1;
    }
    if (!sh->proc || sh->state != MA_SHELL_RUNNING)
        return;
    int ws = 0;
    bool done = rt_proc_reap(sh->proc, &ws);
    if (!done && sh->fd < 0 && wait_ms) {
        /* its output has ended: it is exiting, or it closed it and runs on
        ** (then it stays "running", after this short wait) */
        struct pollfd pf[2] = { { .fd = rt_proc_exit_fd(sh->proc), .events = POLLIN },
                                { .fd = rt_cancel_fd(), .events = POLLIN } };
        if (poll(pf, pf[1].fd >= 0 ? 2 : 1, (int)(wait_ms < EXIT_WAIT_MS ? wait_ms : EXIT_WAIT_MS)) > 0 &&
            pf[0].revents)
            done = rt_proc_reap(sh->proc, &ws);
    }
    if (!done)
        return;
    if (WIFEXITED(ws)) {
        sh->state = MA_SHELL_EXITED;
        sh->code = WEXITSTATUS(ws);
    } else {
        sh->state = MA_SHELL_SIGNALED;
        sh->code = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    }
    shell_end(sh);          /* what it left running goes with it */
}

void ma_shells_poll(MaShells *s, unsigned wait_ms)
{
    for (size_t i = 0; s && i < s->n; i++)
        shell_poll(&s->v[i], wait_ms);
}

static MaShell *find(MaShells *s, const char *id)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (strcmp(s->v[i].id, id) == 0)
            return &s->v[i];
    return NULL;
}

int ma_shell_output(MaShells *s, const char *id, const char *filter, unsigned wait_ms, Buf *out,
                    MaShellState *state, int *code, char *err, size_t cap)
{
    MaShell *sh = find(s, id);
    if (!sh)
        return 1;
    TermRegex *re = NULL;
    if (filter && !(re = term_regex_new(filter, strlen(filter), err, cap)))
        return -2;
    shell_poll(sh, wait_ms);
    const char *t = sh->out.data ? (const char *)sh->out.data : "";
    for (size_t i = 0; i < sh->out.len;) {
        const char *nl = memchr(t + i, '\n', sh->out.len - i);
        size_t l = nl ? (size_t)(nl - (t + i)) + 1 : sh->out.len - i;
        if (!re || term_regex_search(re, t + i, nl ? l - 1 : l))
            buf_put(out, t + i, l);
        i += l;
    }
    if (sh->dropped)
        buf_printf(out, "%s[%zu more bytes of output dropped]\n",
                   out->len && out->data[out->len - 1] != '\n' ? "\n" : "", sh->dropped);
    sh->out.len = 0;
    sh->dropped = 0;
    term_regex_free(re);
    *state = sh->state;
    *code = sh->code;
    return out->oom ? -1 : 0;
}

int ma_shell_kill(MaShells *s, const char *id, MaShellState *state, int *code)
{
    MaShell *sh = find(s, id);
    if (!sh)
        return 1;
    shell_poll(sh, 0);
    if (sh->state != MA_SHELL_RUNNING) {
        *state = sh->state;
        *code = sh->code;
        return 2;
    }
    shell_end(sh);          /* SIGKILL to the tree, reaped */
    sh->state = MA_SHELL_KILLED;
    sh->code = SIGKILL;
    *state = sh->state;
    *code = sh->code;
    return 0;
}
