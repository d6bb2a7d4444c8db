/* SPDX-License-Identifier: MIT */
/* rt_pty.h - the PTY target: plays a scenario against a real program in a
** pseudo-terminal whose screen libvterm keeps (docs/pty.md).
**
** The target owns the clock of the run (rt_pty_clock): waiting for an op's
** time keeps reading the PTY, answering terminal queries and noticing the
** program's exit, all on poll(2); no sleeping loops.  Waits and checks are
** woken by screen changes and child exit and bounded by deadlines.
**
** Results follow the tui-use data model: a stable error code (E_*) with
** its exit status 0-12 (rt_pty_result), and, with an artifacts directory,
** run.json, transcript.log, events.jsonl, snapshots/, screenshots and
** normalization.json and checksums.json (FNV-1a 64). */
#ifndef SC_RT_PTY_H
#define SC_RT_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "runtime/player.h"
#include "runtime/rt.h"

/* The data model's stable error codes and exit statuses. */
#define PTY_ERRORS(X)                                         \
    X(OK, "", 0)                                              \
    X(INTERNAL, "E_INTERNAL", 1)                              \
    X(POLICY_DENIED, "E_POLICY_DENIED", 2)                    \
    X(SANDBOX_UNAVAILABLE, "E_SANDBOX_UNAVAILABLE", 3)        \
    X(TIMEOUT, "E_TIMEOUT", 4)                                \
    X(ASSERTION_FAILED, "E_ASSERTION_FAILED", 5)              \
    X(PROCESS_EXIT, "E_PROCESS_EXIT", 6)                      \
    X(TERMINAL_PARSE, "E_TERMINAL_PARSE", 7)                  \
    X(PROTOCOL_VERSION_MISMATCH, "E_PROTOCOL_VERSION_MISMATCH", 8) \
    X(PROTOCOL, "E_PROTOCOL", 9)                              \
    X(IO, "E_IO", 10)                                         \
    X(REPLAY_MISMATCH, "E_REPLAY_MISMATCH", 11)               \
    X(CLI_INVALID_ARG, "E_CLI_INVALID_ARG", 12)              \
    X(INTERRUPTED, "E_INTERRUPTED", 13)     /* scvm's: a signal ended the run */

typedef enum PtyErr {
#define X(name, code, num) PTY_E_##name = num,
    PTY_ERRORS(X)
#undef X
} PtyErr;

const char *pty_err_code(PtyErr e);     /* "E_TIMEOUT"; "" for OK */

/* scvm run -t agent (tools/scvm/cmd_agent.c, docs/real-agents.md): the
** program is a real coding agent whose model is the mock LLM server on
** another thread.  The ops the agent's side plays wait for it. */
typedef struct RtPtyAgent {
    void *ctx;
    /* Readable when the agent's side may have changed (a request came):
    ** polled with the terminal, drained by the target. */
    int wake_fd;
    /* Whether the agent is where op `in` (insn index i; LLM_END,
    ** TOOL_RESULT, FILE_EDIT) says it should be: 1 yes, 0 not yet (*wake:
    ** ask again then, or UINT64_MAX: on the next wake), -1 never (why). */
    int (*ready)(void *ctx, const BcProgram *p, uint32_t i, uint64_t now_ms, uint64_t *wake, Buf *why);
    /* Appends the agent side's events (JSON lines, at_ms since t0, the
    ** monotonic ms of the spawn) to events. */
    void (*drain)(void *ctx, uint64_t t0, Buf *events);
    /* After the program has stopped: the agent side's verdict.  Appends
    ** why the run fails to why (nothing: it passes) and one JSON object
    ** to report (run.json's "agent"). */
    void (*finish)(void *ctx, Buf *why, Buf *report);
    uint64_t wait_ms;           /* how long an op waits for the agent */
    bool headless;              /* the first prompt went on the command line */
    const char *ready_text;     /* interactive: input waits for this text on the screen */
    const char *const *busy_texts; /* interactive: ... and for none of these (NULL-terminated, or NULL):
                                ** the agent shows them while it works (profile interactive.busy) */
    const char *const *quit_keys; /* interactive: pressed at END to leave (NULL-terminated) */
} RtPtyAgent;

/* The acknowledgement flags of the data model's CLI (docs/driver.md):
** each sets one field of the effective policy (rt_policy.h). */
typedef struct PtyPolicyFlags {
    bool no_sandbox, ack_sandbox, enable_network, ack_network, ack_write;
} PtyPolicyFlags;

typedef struct RtPtyOpts {
    /* Command line override (`scvm run -t pty x.scb -- cmd args`):
    ** argv[0] .. NULL, or NULL to take the command from the program. */
    char *const *argv;
    /* Artifacts directory (created), or NULL for none: then a tui-use
    ** policy's artifacts.dir when artifacts.enabled (rt_pty_artifacts). */
    const char *artifacts;
    /* artifacts is the runner's own temporary folder (--json without
    ** --artifacts): not the command line's choice, so the policy's
    ** folder wins and fs_strict_write does not count it. */
    bool artifacts_tmp;
    /* Where goldens live: DIR/<label>.golden; NULL = compare nothing
    ** (each screenshot is only "recorded"). */
    const char *goldens;
    bool update_goldens;        /* write goldens instead of comparing */
    /* Keep the workspace path and the host name in goldens; by default
    ** their text rows show PTY_WS_TOKEN and PTY_HOST_TOKEN (rt_pty_mask.h)
    ** instead, in the screen and in the golden (docs/golden-screens.md). */
    bool raw_goldens;
    /* A screenshot without a golden fails the run ("missing") instead of
    ** writing its golden ("written"): scvm's --ci, or CI in the
    ** environment, as Jest and Playwright treat missing snapshots. */
    bool ci;
    FILE *events;               /* stream events here as JSON lines, or NULL */
    FILE *diag;                 /* diagnostics and golden diffs (stderr) */
    const char *cast;           /* asciicast v2 output file, or NULL */
    const char *cancel_key;     /* userCancelSession key; NULL = "Ctrl+C" */
    /* The scenario's folder: repo.dir and userEdits patches are relative
    ** to it.  NULL = the current directory. */
    const char *scenario_dir;
    bool keep_workspace;        /* leave the repo.init workspace behind */
    bool cells;                 /* snapshots carry cells with style */
    bool ptybox_colors;         /* ... their indexed colours under ptybox's keys */
    bool verbose;               /* a line per step on diag as it ends (ptybox's --verbose) */
    /* The run's speed, as VmOpts.speed: typing delays and the timeline's
    ** span are scaled by rt_clock_scale, as the VM scales op times (0 is
    ** the fastest, RT_SPEED_MIN). */
    double speed;
    /* Typing: wait this long after each character of a text (0 = type
    ** the whole text at once).  The wait runs the event loop, so output
    ** is read and queries answered meanwhile; scaled by speed. */
    unsigned type_delay_ms;
    /* --explain-policy: write what the policy enforces and how (the
    ** sandbox, docs/pty.md) here, as text or (explain_json) one JSON
    ** object, and run nothing. */
    FILE *explain;
    bool explain_json;
    /* An existing folder that is the workspace: repo.init seeds it, the
    ** program runs in it, asserts resolve in it; the caller removes it.
    ** NULL = repo.init makes a temporary one (and removes it). */
    const char *workspace;
    /* "NAME=VALUE" strings set after the scenario's environment, or NULL. */
    char *const *env_extra;
    const RtPtyAgent *agent;    /* NULL: no agent */
    /* --policy FILE's JSON: its fields replace the scenario's policy's (or
    ** it is the policy when the scenario has none); NULL = none. */
    const char *policy_overlay;
    /* The acknowledgement flags, applied to the effective policy (only
    ** when there is one). */
    PtyPolicyFlags policy_flags;
    /* The compiled scenario's bytes, kept in the artifacts as
    ** scenario.scb so that `scvm replay DIR` can play it again; NULL =
    ** none. */
    const void *scb;
    size_t scb_len;
} RtPtyOpts;

/* Returns a target (destroy with t->vt->destroy), or NULL when out of
** memory.  Nothing is spawned before begin(). */
RtTarget *rt_pty_new(const RtPtyOpts *o);
/* --explain-policy (o->explain set): checks p's policy as a run would,
** writes what it enforces to o->explain, spawns nothing; instead of
** vm_run.  Returns the run's status (0: allowed). */
int rt_pty_explain(RtTarget *t, const BcProgram *p);
/* The clock to pass to vm_run with this target. */
RtClock *rt_pty_clock(RtTarget *t);
/* A label or scenario name as a file name: [A-Za-z0-9._-] kept, anything
** else '_', never a leading dot, so it cannot leave its directory. */
void rt_pty_safe_name(const char *s, char *out, size_t n);
/* The spec's terminalProfileId of p, where its screenshots go: the
** Terminal-Config name (config.terminal.name) as a safe file name, else
** WIDTHxHEIGHT (80x24 when the program gives no size). */
void rt_pty_profile_of(const BcProgram *p, char *out, size_t n);

/* After the run: what became of the screenshots (docs/golden-screens.md). */
typedef struct RtPtyGoldens {
    unsigned matched, mismatched, written, missing, updated, recorded;
} RtPtyGoldens;
void rt_pty_goldens(const RtTarget *t, RtPtyGoldens *out);

/* The artifacts folder the run wrote (the command line's, the policy's,
** or the temporary one), or NULL; valid until the target is destroyed. */
const char *rt_pty_artifacts(const RtTarget *t);

/* After the run: the error (PTY_E_OK on success) and its message. */
PtyErr rt_pty_result(const RtTarget *t, const char **message);

/* The PTY target's op table (runtime/player.h): for the coverage test. */
extern const Player rt_pty_player;

#endif
