/* rt_policy.h - a tui-use Policy (JSON) checked and turned into what a
** spawn needs: the command resolved and allowed, argv, the environment,
** the sandbox planned, the budgets (docs/pty.md, "Policy").
**
** One checker for every way a policy arrives: a scenario's (the PTY
** target converts the compiled value to JSON), --policy FILE, the
** driver's default, and the acknowledgement flags on top of any of them.
** Refusals carry the data model's codes (PtyErr) and a message. */
#ifndef SC_RT_POLICY_H
#define SC_RT_POLICY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_pty.h"
#include "rt_sandbox.h"

typedef struct PtyPolicyIn {
    const char *command;            /* absolute, or a name on PATH */
    const char *const *args;        /* argv[1..], NULL-terminated, or NULL */
    const char *policy_json;        /* a Policy object */
    const char *const *env;         /* "NAME=VALUE" applied last, or NULL */
} PtyPolicyIn;

typedef struct PtyPolicy {
    char exe[PATH_MAX];             /* the command as found (not resolved) */
    char **argv, **envp;            /* NULL-terminated; envp complete */
    size_t n_env;
    bool none;                      /* sandbox: none (acknowledged) */
    Sandbox *sbx;                   /* NULL with sandbox: none */
    char sbx_tmp[64];               /* the sandbox's TMPDIR, or "" */
    uint64_t max_runtime_ms, max_output_bytes, max_wait_ms, max_steps, max_snapshot_bytes;
    char *json;                     /* the effective policy (malloc'd) */
} PtyPolicy;

/* Checks in->policy_json and prepares *p (pty_policy_fini it either way).
** Returns PTY_E_OK or the refusal's code with err filled. */
PtyErr pty_policy_plan(const PtyPolicyIn *in, PtyPolicy *p, char *err, size_t n);
/* Frees, and removes the sandbox's temporary folder unless it was taken
** (p->sbx_tmp[0] cleared by the new owner). */
void pty_policy_fini(PtyPolicy *p);

/* base (a Policy object) with overlay's top-level fields replacing its
** own (NULL: none), then the flags: the effective policy as JSON
** (malloc'd).  NULL with err (PTY_E_PROTOCOL: not a JSON object) set. */
char *pty_policy_override(const char *base, const char *overlay, const PtyPolicyFlags *f, PtyErr *code,
                          char *err, size_t n);

#endif
