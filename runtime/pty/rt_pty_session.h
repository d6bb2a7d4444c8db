/* SPDX-License-Identifier: MIT */
/* rt_pty_session.h - a program running in a pseudo-terminal: spawn, I/O,
** exit, cleanup.  No terminal emulation here (rt_pty_screen.h does that).
**
** The child runs in its own session with the PTY slave as controlling
** terminal, so it and everything it starts share one process group that
** pty_session_kill() signals as a whole.  It runs under rt_proc's init
** (runtime/rt_proc.h), as every command of a run does: pid 1 of a PID
** namespace of its own where the kernel allows it, otherwise a child
** subreaper that collects whatever detaches.  pty_session_close() ends
** every descendant however it detached, and so does the runner's death,
** even by SIGKILL.  No zombie or orphan survives a session.
**
** Child exit is an event on a file descriptor (init's status pipe), so
** callers poll(2) the PTY master and that pipe together instead of
** sleeping. */
#ifndef SC_RT_PTY_SESSION_H
#define SC_RT_PTY_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct PtySession PtySession;

typedef struct PtySpawn {
    const char *path;              /* absolute path of the executable */
    char *const *argv;             /* argv[0] .. NULL */
    char *const *envp;             /* the complete environment .. NULL */
    const char *cwd;               /* NULL = inherit */
    int rows, cols;
    /* Called in the program's process after the terminal and the working
    ** folder are set up, right before execve (the sandbox goes here).  It
    ** returns 0, or an errno value that fails the spawn with that error.
    ** Only async-signal-safe work: the process is a fork. */
    int (*before_exec)(void *arg);
    void *before_exec_arg;
    /* Called (with before_exec_arg) in the program's process before its
    ** terminal is opened: the sandbox's namespaces and mounts go here.
    ** Same contract as before_exec. */
    int (*before_tty)(void *arg);
    /* The terminal comes from the /dev/ptmx that the program's process
    ** sees after before_tty (a devpts instance of its own), not from the
    ** runner's: the master is passed back over a socket, so the program's
    ** terminal is /dev/pts/0 of a /dev/pts holding nothing else. */
    bool private_pts;
} PtySpawn;

/* Starts the program.  Returns NULL and fills err on failure; exec
** failures in the child are reported here too (through a CLOEXEC pipe),
** not as a mysterious exit status 127. */
PtySession *pty_session_spawn(const PtySpawn *sp, char *err, size_t errlen);

int pty_session_fd(const PtySession *s);        /* the master, non-blocking */
int pty_session_exit_fd(const PtySession *s);   /* readable when a child may have exited */
pid_t pty_session_pid(const PtySession *s);     /* the program's */
/* True when the program runs in a PID namespace of its own (false: the
** subreaper, SCVM_PTY_PIDNS=0 or no namespace allowed). */
bool pty_session_contained(const PtySession *s);

/* Reaps after the exit fd became readable (or any time); returns true once
** the program has exited. */
bool pty_session_reap(PtySession *s);
bool pty_session_exited(const PtySession *s);
/* After exit: exit code (>= 0) or -1 when killed by a signal (see sig). */
int pty_session_exit_code(const PtySession *s);
int pty_session_exit_signal(const PtySession *s);
bool pty_session_killed_by_us(const PtySession *s);

/* True while a process of the program's session (the program and what it
** started, unless it left the session) is running or in an
** uninterruptible wait (state R or D in /proc/PID/stat): it may still
** write.  False once every one sleeps, is stopped or is gone, or when
** /proc cannot tell.  Reads /proc: for quiet-period checks, not loops. */
bool pty_session_busy(const PtySession *s);

/* Sets the window size (TIOCSWINSZ; the kernel sends SIGWINCH). */
int pty_session_resize(PtySession *s, int rows, int cols);

/* SIGTERM to the process group, wait up to grace_ms for the program to
** exit (event-driven), then SIGKILL.  Returns true when it exited. */
bool pty_session_kill(PtySession *s, int grace_ms);

/* Kills whatever is left (group, reparented orphans), reaps every child,
** closes the descriptors and frees.  NULL is fine. */
void pty_session_close(PtySession *s);

/* The process-wide SIGCHLD pipe (set up on first use), for code that runs
** other children and waits for them without sleeping; -1 on failure.
** Readers must not assume a byte is theirs: reap with WNOHANG and check. */
int pty_child_fd(void);

/* Finds an executable: a name with a '/' as it is, a bare name on PATH
** (empty entries skipped; /usr/local/bin:/usr/bin:/bin when PATH is unset),
** into out.  False when there is none that may be executed. */
bool pty_find_exe(const char *name, char *out, size_t n);

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t pty_now_ms(void);

#endif
