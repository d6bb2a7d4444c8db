/* SPDX-License-Identifier: MIT */
/* rt_sandbox.h - the Linux sandbox that enforces a tui-use policy on the
** program and everything it starts (docs/pty.md, "Sandbox"; the table of
** what holds by which mechanism: docs/security.md, "The sandbox").
**
** Built in the runner before the spawn (every path resolved, every rule
** and filter prepared), applied in the program's process right before
** execve (PtySpawn.before_exec) with system calls only:
**
**   user namespaces   two: the outer maps the caller to its root and owns
**                     the mounts below; the program's inner one gives it
**                     its uid back, with capabilities only in there (with
**                     the PID namespace of the session's init where scvm
**                     may make one, rt_pty_session.c)
**   network namespace `network: disabled`: no interface but a down
**                     loopback; Landlock's TCP rules as a second wall
**   Landlock          reads, writes and executions beneath the allowed
**                     paths only: fs.allowed_read and a system baseline,
**                     fs.allowed_write and the run's own temporary folder,
**                     exec.allowed_executables (and their ELF interpreter,
**                     and the shells with allow_shell); of the terminals,
**                     only /dev/tty, /dev/ptmx and /dev/pts, the
**                     sandbox's own devpts (without a user namespace: the
**                     program's own terminal, the file on its fd 0);
**                     signals and abstract sockets scoped to the sandbox
**                     (ABI 6)
**   mount namespace   (with the user namespace) a devpts instance of its
**                     own: the program's terminal is made in there and
**                     other terminals are not visible
**   binfmt_misc       in the sandbox's user namespace (a mount namespace
**                     of its own): executing an allowed executable's ELF
**                     interpreter directly is refused, so `ld.so PROGRAM`
**                     cannot run a binary the allow-list does not name
**   no_new_privs      set-uid programs gain nothing
**   seccomp           a filter refusing (EPERM) what a program under test
**                     never needs and a sandbox must not allow: ptrace,
**                     mounts, new namespaces, modules, kexec, bpf, keys,
**                     io_uring, memfd_create (an exec without a path) ...;
**                     with `network: disabled` also sockets of any family
**                     the network namespace does not isolate (UNIX, vsock,
**                     ...) and datagram socket pairs
**   rlimits           no core dumps
**
** When the kernel cannot provide a piece the policy needs, the plan fails
** with E_SANDBOX_UNAVAILABLE, unless the policy says sandbox_unsafe_ack:
** then the run goes on with the pieces there are, and says which are
** missing.  SCVM_SANDBOX_DISABLE=landlock,userns,netns,seccomp,binfmt (any
** of them) makes the probe report those pieces missing: a test hook. */
#ifndef SC_RT_SANDBOX_H
#define SC_RT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

/* What the kernel offers. */
typedef struct SandboxCaps {
    int landlock_abi;       /* 0: none */
    bool userns, netns, seccomp;
    bool binfmt;            /* binfmt_misc mountable in a user namespace (Linux 6.7) */
    bool pidns;             /* the session's init gets a PID namespace (not a piece
                            ** the plan needs: reported, rt_pty_session.c) */
} SandboxCaps;

void sandbox_probe(SandboxCaps *c);

/* The policy's parts the sandbox enforces (paths as written). */
typedef struct SandboxPolicy {
    const char *const *read;        /* fs.allowed_read */
    size_t n_read;
    const char *const *write;       /* fs.allowed_write */
    size_t n_write;
    const char *const *exec;        /* exec.allowed_executables */
    size_t n_exec;
    bool allow_shell;
    bool network;                   /* network: enabled */
    bool unsafe_ack;                /* sandbox_unsafe_ack: run with the pieces there are */
    const char *tmpdir;             /* the run's own temporary folder (writable), or NULL */
} SandboxPolicy;

typedef struct Sandbox Sandbox;

/* Plans the sandbox for p on a kernel with caps.  NULL with err filled
** and *unavailable set when the kernel lacks what p needs (without the
** acknowledgement), or *unavailable clear for a bad policy (a path that
** does not exist) or no memory. */
Sandbox *sandbox_plan(const SandboxPolicy *p, const SandboxCaps *caps, bool *unavailable, char *err,
                      size_t errlen);

/* PtySpawn.before_tty: the namespaces (user, mount, network) and the
** mounts (a devpts of the sandbox's own, its binfmt_misc) in the
** program's process, before its terminal is opened.  0 or an errno. */
int sandbox_enter_ns(void *sandbox);
/* PtySpawn.private_pts: whether the terminal must come from the devpts
** that sandbox_enter_ns mounts (with a user namespace). */
bool sandbox_private_pts(const Sandbox *s);

/* PtySpawn.before_exec: applies the rest of the plan in the program's
** process, whose fd 0 is its terminal (the one terminal Landlock leaves
** it when /dev/pts is not the sandbox's own).  0 or an errno value. */
int sandbox_enter(void *sandbox);

/* What is enforced and how, and what is not and why: text lines, or one
** JSON object when json. */
void sandbox_explain(const Sandbox *s, Buf *out, bool json);

void sandbox_free(Sandbox *s);

#endif
