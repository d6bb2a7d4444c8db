/* SPDX-License-Identifier: MIT */
/* rt_proc.h - running a command so that nothing it starts outlives it.
**
** Every command a run starts (the mock agent's runCmd, an ElizaOS code
** step, a judge's command, an ACP agent under test, the PTY target's
** workspace helpers, the git of a Scenario-Format assert) goes through
** here: it is the one "run a command with a timeout".  It
** runs under a small init of ours:
**
**     scvm --> init --fork--> program --> ... (daemons, setsid -f, ...)
**
** Where the kernel allows it, init is pid 1 of a new PID namespace (as
** root: CLONE_NEWPID; otherwise in a user namespace of its own too,
** CLONE_NEWUSER|CLONE_NEWPID, with the caller's uid and gid mapped to
** themselves), with a /proc of its own, so the kernel kills the whole tree
** when init ends.  Without namespaces (the kernel refuses, or SCVM_PIDNS=0)
** init is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever detaches
** from the tree is reparented to init, and init SIGKILLs every child it
** has, repeatedly, until none is left, before it ends.
**
** init ends when rt_proc_close() closes its "life" pipe, or when scvm dies
** (PR_SET_PDEATHSIG, SIGKILL in a namespace, SIGTERM for the sweep
** without one, and the pipe's end-of-file as a second witness): even
** SIGKILL of scvm leaves nothing running.  docs/security.md, "Processes
** and signals", tells the whole story. */
#ifndef SC_RT_PROC_H
#define SC_RT_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/buf.h"

typedef struct RtProcSpawn {
    const char *path;       /* the executable; NULL: argv[0], on PATH unless it has a '/' */
    char *const *argv;
    char *const *envp;      /* NULL: scvm's environment */
    const char *cwd;        /* NULL or "": inherit */
    int fd0, fd1, fd2;      /* the program's stdin, stdout, stderr; -1: /dev/null */
    /* Optional: called in the program's process right before exec,
    ** instead of the default set-up (its own process group; cwd): the
    ** PTY session makes its terminal and session there, and runs its
    ** sandbox.  Returns 0, or an errno value that fails the spawn.  Only
    ** async-signal-safe work: the process is a fork. */
    int (*setup)(void *arg);
    void *setup_arg;
    int keep_fd;            /* a descriptor (>= 3) passed on to the program; 0: none */
    bool no_pidns;          /* the subreaper even where a namespace is possible */
    const char *name;       /* init's name for ps(1) (15 bytes); NULL: "scvm-proc-init" */
} RtProcSpawn;

typedef struct RtProc RtProc;

/* Starts the program in its own process group, under its init.  Returns
** NULL with *err an errno value when it cannot be started (ENOENT for a
** program not found: exec failures are reported here, not as status 127),
** with nothing left running. */
RtProc *rt_proc_spawn(const RtProcSpawn *sp, int *err);

/* The program's pid as scvm sees it (a host pid also in a namespace). */
pid_t rt_proc_pid(const RtProc *p);
/* True when the tree lives in a PID namespace (false: the subreaper). */
bool rt_proc_contained(const RtProc *p);
/* Readable once the program may have exited: poll it, then rt_proc_reap. */
int rt_proc_exit_fd(const RtProc *p);
/* True once the program has exited; *wstatus gets its wait status (a
** SIGKILL status when its tree was killed before it reported). */
bool rt_proc_reap(RtProc *p, int *wstatus);
/* Sends sig to the program's process group (SIGKILL included). */
void rt_proc_signal(RtProc *p, int sig);
/* Ends every process of the tree (SIGKILL; in a namespace, init's end),
** reaps init and frees.  NULL is fine.  Returns when nothing is left. */
void rt_proc_close(RtProc *p);

/* Closes every descriptor from 3 up but keep[0..n) (numbers below 3 and
** repeats allowed), in a process about to exec: only system calls, so it
** is safe in a clone of a process with threads.  RT_CLOSE_ANY: the gaps
** between the kept ones with close_range(2), a system call each; where
** the kernel has none (before Linux 5.9), or more than RT_CLOSE_KEEP_MAX
** are kept, what /proc/self/fd lists; without /proc, every number below
** RLIMIT_NOFILE.  The other ways start at that fallback: for the tests.
** The init of every spawn runs it: a loop over the limit's numbers cost
** 4.5 ms a spawn at a limit of 20,000 and missed descriptors above
** 65,536. */
typedef enum RtCloseWay { RT_CLOSE_ANY, RT_CLOSE_PROC, RT_CLOSE_LOOP } RtCloseWay;
enum { RT_CLOSE_KEEP_MAX = 8 };
void rt_close_others(const int *keep, size_t n, RtCloseWay way);

/* ---- the one runner: a command to its end, its timeout or a signal ---- */

typedef enum RtProcEnd {
    RT_PROC_EXITED,     /* exited with `code` */
    RT_PROC_SIGNALED,   /* ended by signal `code` */
    RT_PROC_TIMEOUT,    /* killed after timeout_ms */
    RT_PROC_CANCELLED,  /* killed: signal `code` cancelled the run (rt_cancel.h) */
    RT_PROC_FAILED,     /* could not be started (errno in `code`) */
} RtProcEnd;

typedef struct RtProcResult {
    RtProcEnd end;
    int code;
    size_t dropped;     /* output bytes beyond max_out */
} RtProcResult;

/* Runs argv in folder dir (NULL: here), stdin /dev/null, stdout and
** stderr interleaved into out (NULL: /dev/null; at most max_out bytes, the
** rest read and counted in dropped).  Waits at most timeout_ms (0: no
** limit) and watches rt_cancel_fd() when signals are caught.  Whatever the
** outcome, every process the command started has been killed and reaped
** when this returns.  Returns 0, or -1 when out of memory (out->oom) or a
** pipe cannot be made (errno). */
int rt_proc_run(char *const argv[], const char *dir, unsigned timeout_ms, Buf *out, size_t max_out,
                RtProcResult *res);
/* The same with the environment envp (NULL: scvm's). */
int rt_proc_run_env(char *const argv[], char *const envp[], const char *dir, unsigned timeout_ms, Buf *out,
                    size_t max_out, RtProcResult *res);
/* The same with stdout alone in out, stderr to /dev/null: for a command
** whose output is read as data (scn_assert's `git log`), not shown. */
int rt_proc_run_stdout(char *const argv[], const char *dir, unsigned timeout_ms, Buf *out, size_t max_out,
                       RtProcResult *res);

#endif
