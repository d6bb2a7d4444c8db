/* SPDX-License-Identifier: MIT */
/* scc/session.h - drive a program in a pseudo-terminal: spawn it under a
** tui-use policy, send keys, text and resizes, observe its screen, wait for
** conditions and for its exit, terminate it (docs/driver.md).
**
** This is the tui-use data model's Session API in C; `scvm driver` and
** `scvm exec` are built on it.  The screen is kept by libvterm; terminal
** queries the program sends (DA, CPR, colours) are answered while any call
** of a session runs, so call scc_session_idle() while waiting for something
** else (stdin, a socket) or a probing program stalls.
**
** Return codes are the data model's stable exit codes (SCC_E_*); every
** failing call writes a message to its err buffer when one is given.  A
** session is not thread-safe; several sessions may live in one process.
** The process-wide SIGCHLD handler is installed on the first spawn.
** Link with -lscc (pkg-config scc, or CMake scc::libscc). */
#ifndef SCC_SESSION_H
#define SCC_SESSION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The tui-use data model's error codes; the value is the exit status of
** `scvm driver`/`exec` for that error (docs/exit-status.md). */
enum {
    SCC_E_OK = 0,
    SCC_E_INTERNAL = 1,
    SCC_E_POLICY_DENIED = 2,
    SCC_E_SANDBOX_UNAVAILABLE = 3,
    SCC_E_TIMEOUT = 4,
    SCC_E_ASSERTION_FAILED = 5,
    SCC_E_PROCESS_EXIT = 6,
    SCC_E_TERMINAL_PARSE = 7,
    SCC_E_PROTOCOL_VERSION_MISMATCH = 8,
    SCC_E_PROTOCOL = 9,
    SCC_E_IO = 10,
    SCC_E_REPLAY_MISMATCH = 11,
    SCC_E_CLI_INVALID_ARG = 12,
};

/* The version of every JSON message (Observation, RunResult, driver
** responses). */
#define SCC_PROTOCOL_VERSION 2

/* "E_TIMEOUT" for SCC_E_TIMEOUT; "" for SCC_E_OK; "E_INTERNAL" otherwise. */
const char *scc_error_code(int e);

typedef struct scc_session scc_session;

typedef struct scc_session_config {
    const char *command;            /* an absolute path, or a name looked up on PATH */
    const char *const *args;        /* argv[1..], NULL-terminated; NULL = none */
    const char *cwd;                /* NULL = the caller's */
    int rows, cols;                 /* 1..500; 0 = 24 rows, 80 columns */
    /* A tui-use Policy object as JSON text (policy_version 4; the data
    ** model's fields, docs/pty.md "Policy").  NULL = the driver's secure
    ** default: the sandbox on, network disabled, no file-system access
    ** beyond the system baseline, only this command executable. */
    const char *policy_json;
    /* "NAME=VALUE" set after the policy's environment; NULL-terminated or NULL. */
    const char *const *env;
    const char *run_id;             /* NULL = a new one */
} scc_session_config;

/* Checks the policy, plans the sandbox and starts the program.  On success
** *out is a session to scc_session_close().  SCC_E_POLICY_DENIED,
** SCC_E_SANDBOX_UNAVAILABLE, SCC_E_PROTOCOL_VERSION_MISMATCH (a policy
** that is not version 4), SCC_E_CLI_INVALID_ARG (a bad size, no command),
** SCC_E_PROTOCOL (policy_json is not a JSON object), SCC_E_IO. */
int scc_session_spawn(const scc_session_config *cfg, scc_session **out, char *err, size_t errlen);

/* The driver's secure default policy for command, as JSON (malloc'd;
** free()): sandbox on, network disabled, empty fs lists, only the
** command (resolved) in exec.allowed_executables, the environment's
** PATH HOME USER LOGNAME LANG LC_ALL LC_CTYPE inherited.  NULL when out
** of memory. */
char *scc_session_default_policy(const char *command);

/* What the checked policy enforces, as one JSON object (the effective
** policy, the sandbox plan), without starting anything: the same checks
** as scc_session_spawn.  *json is malloc'd (free()); NULL on refusal. */
int scc_session_explain(const scc_session_config *cfg, char **json, char *err, size_t errlen);

/* Identifiers (opaque UUID strings), valid until scc_session_close. */
const char *scc_session_id(const scc_session *s);
const char *scc_session_run_id(const scc_session *s);

/* The effective policy as JSON (valid until scc_session_close). */
const char *scc_session_policy(const scc_session *s);

/* Input.  A key name: Enter, Tab, Escape, Backspace, Up, Down, Left, Right,
** Home, End, PageUp, PageDown, Insert, Delete, F1-F24, Space or one
** character, with Ctrl+, Alt+, Shift+ (encoded for the program's modes).
** SCC_E_PROTOCOL for an unknown key; SCC_E_PROCESS_EXIT once the program
** has exited. */
int scc_session_key(scc_session *s, const char *key, char *err, size_t errlen);
/* UTF-8 text as typed ('\n' is Enter). */
int scc_session_text(scc_session *s, const char *text, size_t n, char *err, size_t errlen);
/* rows, cols in 1..500 (SCC_E_PROTOCOL otherwise). */
int scc_session_resize(scc_session *s, int rows, int cols, char *err, size_t errlen);

/* Runs the session (reads output, answers queries, notices the exit)
** until fd is readable (returns 1), timeout_ms passed (0) or, with
** settle_ms > 0, the screen has not changed for settle_ms since the last
** input (0).  fd -1: none.  timeout_ms < 0: no limit (needs fd or settle). */
int scc_session_idle(scc_session *s, int fd, int timeout_ms, int settle_ms);

/* Waits until a condition holds: condition_json is a tui-use Condition
** {"type":..., "payload":{...}} (screen_contains, screen_matches,
** cursor_at, line_equals, process_exited, exit_code, screen_stable, ...;
** docs/pty.md "Conditions").  SCC_E_OK when it holds, SCC_E_TIMEOUT after
** timeout_ms (err says why it does not hold), SCC_E_PROTOCOL for a bad
** condition. */
int scc_session_wait(scc_session *s, const char *condition_json, int timeout_ms, char *err, size_t errlen);

/* The Observation now, as one JSON object (protocol_version, run_id,
** session_id, timestamp_ms, screen, transcript_delta since the previous
** observation, events since then).  *json is malloc'd (free()).
** flags: SCC_OBSERVE_CELLS adds the cells with their style to the screen
** (1, as the int with_cells this argument was); SCC_OBSERVE_PTYBOX_COLORS
** writes their indexed colours under ptybox's keys (ansi16, ansi256)
** instead of the data model's (ansi_16, ansi_256). */
enum { SCC_OBSERVE_CELLS = 1, SCC_OBSERVE_PTYBOX_COLORS = 2 };
int scc_session_observe(scc_session *s, int flags, char **json);

/* Everything the program wrote so far, raw (transcript.log), up to the
** policy's budgets.max_output_bytes; valid until the next call. */
const char *scc_session_transcript(const scc_session *s, size_t *len);

typedef struct scc_exit_status {
    int exited;                     /* 0: still running */
    int exit_code;                  /* >= 0 when it exited normally, else -1 */
    int signal;                     /* the signal that ended it, else 0 */
    int terminated_by_harness;      /* scc_session_terminate or close killed it */
} scc_exit_status;

/* Waits up to timeout_ms (-1: no limit) for the program to exit; fills st
** either way.  Returns 1 when it has exited, 0 when not yet. */
int scc_session_wait_exit(scc_session *s, int timeout_ms, scc_exit_status *st);

/* SIGTERM to the program's process group, SIGKILL after grace_ms; every
** descendant ends with it.  Returns 1 when it has exited. */
int scc_session_terminate(scc_session *s, int grace_ms);

/* Terminates what is left, reaps everything, frees.  NULL is fine. */
void scc_session_close(scc_session *s);

#ifdef __cplusplus
}
#endif

#endif
