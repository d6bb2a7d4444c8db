/* SPDX-License-Identifier: MIT */
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

struct cJSON;

/* o[key] read leniently, as every policy field is: the boolean, else dflt;
** the string, else NULL.  o may be NULL.  (rt_session.c reads its requests
** the same way.) */
bool pty_jbool(const struct cJSON *o, const char *key, bool dflt);
const char *pty_jstr(const struct cJSON *o, const char *key);

/* What the runner itself will write (fs_strict_write and the policy's
** artifacts section, docs/tui-use.md "The policy, field by field"). */
typedef struct PtyWrites {
    const char *artifacts;          /* the command line's artifacts folder (--artifacts), or NULL */
    bool cast;                      /* the command line writes a recording (--cast) */
    /* The caller writes artifacts: with no command-line folder, the
    ** policy's artifacts.dir is the folder (its overwrite checked) and
    ** comes back in PtyPolicy.artifacts. */
    bool resolve;
} PtyWrites;

typedef struct PtyPolicyIn {
    const char *command;            /* absolute, or a name on PATH */
    const char *const *args;        /* argv[1..], NULL-terminated, or NULL */
    const char *policy_json;        /* a Policy object */
    const char *const *env;         /* "NAME=VALUE" applied last, or NULL */
    const PtyWrites *writes;        /* NULL: the runner writes nothing of its own */
} PtyPolicyIn;

typedef struct PtyPolicy {
    char exe[PATH_MAX];             /* the command as found (not resolved) */
    char **argv, **envp;            /* NULL-terminated; envp complete */
    size_t n_env;
    bool none;                      /* sandbox: none (acknowledged) */
    Sandbox *sbx;                   /* NULL with sandbox: none */
    char sbx_tmp[PATH_MAX];         /* the sandbox's TMPDIR, or "" */
    uint64_t max_runtime_ms, max_output_bytes, max_wait_ms, max_steps, max_snapshot_bytes;
    char *json;                     /* the effective policy (malloc'd) */
    char working_dir[PATH_MAX];     /* fs.working_dir (checked), or "": the program's folder when the
                                    ** run gives none */
    char artifacts[PATH_MAX];       /* with writes->resolve and no command-line folder: the policy's
                                    ** artifacts.dir when enabled, else "" */
    bool no_writes;                 /* refused by fs_strict_write: the runner must write nothing either */
} PtyPolicy;

/* Checks in->policy_json and prepares *p (pty_policy_fini it either way).
** Returns PTY_E_OK or the refusal's code with err filled. */
PtyErr pty_policy_plan(const PtyPolicyIn *in, PtyPolicy *p, char *err, size_t n);
/* The checks of the policy's artifacts section and fs_strict_write alone
** (as pty_policy_plan makes them; sandbox_on: the sandbox will run, whose
** temporary folder is a write), for callers that write artifacts before
** or without a plan (scvm driver/exec): dir gets the folder to write
** (writes->artifacts, else the policy's when enabled, else "").  Returns
** PTY_E_OK or PTY_E_POLICY_DENIED (PTY_E_PROTOCOL: not a JSON object). */
PtyErr pty_policy_writes(const char *policy_json, const PtyWrites *writes, char *dir, size_t dn, char *err,
                         size_t n);

/* Frees, and removes the sandbox's temporary folder unless it was taken
** (p->sbx_tmp[0] cleared by the new owner). */
void pty_policy_fini(PtyPolicy *p);

/* base (a Policy object) with overlay's top-level fields replacing its
** own (NULL: none), then the flags: the effective policy as JSON
** (malloc'd).  NULL with err (PTY_E_PROTOCOL: not a JSON object) set. */
char *pty_policy_override(const char *base, const char *overlay, const PtyPolicyFlags *f, PtyErr *code,
                          char *err, size_t n);

#endif
