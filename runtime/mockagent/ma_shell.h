/* SPDX-License-Identifier: MIT */
/* ma_shell.h - the mock agent's background shells (docs/mock-agent.md,
** "Background shells"): `runCmd {run_in_background: true}` starts one and
** names it bash_1, bash_2, ...; `bashOutput {bash_id, filter?}` returns
** the output it wrote since the last bashOutput and its state;
** `killShell {shell_id}` ends it.  Each runs under rt_proc's init, so its
** whole tree goes when it is killed or when the run ends
** (ma_shells_free), however it detached. */
#ifndef SC_MA_SHELL_H
#define SC_MA_SHELL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

typedef struct MaShells MaShells;

typedef enum MaShellState {
    MA_SHELL_RUNNING,
    MA_SHELL_EXITED,    /* exited with `code` */
    MA_SHELL_SIGNALED,  /* ended by signal `code` */
    MA_SHELL_KILLED,    /* ended by killShell */
} MaShellState;

MaShells *ma_shells_new(void);
/* Kills every shell still running (its whole tree) and frees.  NULL is fine. */
void ma_shells_free(MaShells *s);

/* Starts `sh -c cmd` in folder dir, stdin /dev/null, stdout and stderr
** into the shell's output.  Returns 0 with its id in id, or an errno
** value (ENOMEM included). */
int ma_shell_start(MaShells *s, const char *cmd, const char *dir, char *id, size_t cap);

/* Reads what every shell has written so far, without waiting (a shell
** whose output is not read would block once the pipe is full).  A shell
** whose output has ended is waited for at most wait_ms (and 2 s) and
** reaped. */
void ma_shells_poll(MaShells *s, unsigned wait_ms);

/* bashOutput: the output of shell id not returned yet (only the lines that
** match filter, a term_regex, when it is not NULL: the others are dropped
** too) appended to out, and its state.  Returns 0, 1 when there is no such
** shell, -1 when out of memory, -2 when filter does not compile (why in
** err). */
int ma_shell_output(MaShells *s, const char *id, const char *filter, unsigned wait_ms, Buf *out,
                    MaShellState *state, int *code, char *err, size_t cap);

/* killShell: ends shell id and its tree.  Returns 0, 1 when there is no
** such shell, 2 when it had already ended (*state and *code say how). */
int ma_shell_kill(MaShells *s, const char *id, MaShellState *state, int *code);

#endif
