/* SPDX-License-Identifier: MIT */
/* run_pool.h - the one worker pool behind every target's -j
** (docs/architecture.md, "The run library").
**
** n items (a suite's scenarios, an aut run's units) are played -j at a
** time and handed back to the caller strictly in index order, so what a
** run prints never depends on -j or on timing.  Two kinds of worker,
** chosen by the target (run_target.h, needs_process):
**
**   RUN_POOL_THREADS    work() on worker threads sharing the process (the
**                       simulation: each scenario writes into its own
**                       buffer); -j 1 plays in the caller's thread.
**   RUN_POOL_PROCESSES  work() in a forked child, its return value the
**                       child's exit status (the PTY, agent and aut
**                       targets: SIGCHLD handling, orphan sweeps and the
**                       cancel pipe are process-wide, so sessions never
**                       share a process).  Children are tied to the
**                       caller (run_fork_tied).  A signal caught by
**                       rt_cancel.h is passed on to the running children
**                       and nothing new starts.
**
** The pool never prints; the caller's hooks do. */
#ifndef SC_RUN_POOL_H
#define SC_RUN_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum RunPoolMode { RUN_POOL_THREADS, RUN_POOL_PROCESSES } RunPoolMode;

/* Why an item is handed to skip(): a stop (emit() or finished() asked
** for it: --fail-fast) or a signal (processes only). */
typedef enum RunSkip { RUN_SKIP_STOPPED, RUN_SKIP_SIGNAL } RunSkip;

typedef struct RunPool {
    RunPoolMode mode;
    size_t n;               /* items 0 .. n-1 */
    unsigned jobs;          /* at most this many at a time (0 counts as 1) */
    void *ctx;
    /* Plays item k: on a worker thread or in the caller's thread
    ** (threads), or in a child process that exits with its return value
    ** (processes). */
    int (*work)(void *ctx, size_t k);
    /* Optional: item k's work ended with status (on the worker thread
    ** under the pool's lock, or in the caller as the child is reaped).
    ** true: start no item after k. */
    bool (*finished)(void *ctx, size_t k, int status);
    /* Item k, in index order, in the caller's thread: its work's status
    ** and wall time (ms).  true: the rest are not emitted: running
    ** threads finish and are discarded, running children get SIGTERM and
    ** are reaped; each remaining item goes to skip(RUN_SKIP_STOPPED). */
    bool (*emit)(void *ctx, size_t k, int status, uint64_t wall_ms);
    /* Item k will not run (in index order, after the last emit). */
    void (*skip)(void *ctx, size_t k, RunSkip why);
} RunPool;

/* Plays the items.  0, or an errno when nothing could be set up (then
** no hook was called). */
int run_pool(const RunPool *p);

/* fork() for a child that plays part of a run: it gets SIGTERM when the
** caller dies (even by SIGKILL); streams are flushed first.  0 in the
** child, its pid (or -1) in the caller. */
pid_t run_fork_tied(void);

/* Runs fn(ctx) in a tied child (run_fork_tied) with stdin, stdout and
** stderr on /dev/null, and waits for it: fn's return value (the child's
** exit status, streams flushed), 128 + the signal that ended it, or -1
** (errno) when it cannot fork or wait.  `scvm replay` plays a recording
** again this way: a PTY session's signal handling is process-wide. */
int run_in_child(int (*fn)(void *ctx), void *ctx);

/* Waits for child pid, retrying on EINTR: its exit status, 128 + the
** signal that ended it, or -1 (errno). */
int run_wait_child(pid_t pid);

/* Monotonic milliseconds. */
uint64_t run_now_ms(void);

#endif
