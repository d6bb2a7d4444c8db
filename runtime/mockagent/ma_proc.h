/* SPDX-License-Identifier: MIT */
/* ma_proc.h - the mock agent's child processes: a command run to its end
** or its timeout with stdout and stderr captured, under rt_proc's init (a
** PID namespace where the kernel allows it) whose whole tree is killed when
** the command ends, times out or the run is cancelled, so nothing it
** started is left running, however it detached.  runCmd, sed and
** --checkpoint-cmd all go through here. */
#ifndef SC_MA_PROC_H
#define SC_MA_PROC_H

#include <stddef.h>

#include "common/buf.h"

/* Output beyond this is read and dropped; a note says how much. */
#define MA_PROC_OUT_MAX ((size_t)1 << 20)

typedef enum MaProcEnd {
    MA_PROC_EXITED,     /* exited with `code` */
    MA_PROC_SIGNALED,   /* ended by signal `code` */
    MA_PROC_TIMEOUT,    /* killed after timeout_ms */
    MA_PROC_CANCELLED,  /* killed because a signal cancelled the run (runtime/rt_cancel.h) */
    MA_PROC_FAILED,     /* could not be started (errno in `code`) */
} MaProcEnd;

typedef struct MaProcResult {
    MaProcEnd end;
    int code;
    size_t dropped;     /* output bytes beyond MA_PROC_OUT_MAX */
} MaProcResult;

/* Runs argv (argv[0] looked up on PATH) in folder dir with stdin from
** /dev/null and stdout and stderr, interleaved as written, appended to out
** (at most MA_PROC_OUT_MAX bytes).  Waits at most timeout_ms (0 = no
** limit), and watches rt_cancel_fd() when signals are caught.  Whatever
** the outcome, every process the command started has been killed and
** reaped when this returns.  Returns 0, or -1 when out of memory
** (out->oom) or a pipe cannot be made (errno). */
int ma_proc_run(char *const argv[], const char *dir, unsigned timeout_ms, Buf *out, MaProcResult *res);

/* "exit 0", "exit 2", "killed by signal 9", "timed out after 100 ms", ...
** into buf. */
void ma_proc_describe(const MaProcResult *r, unsigned timeout_ms, char *buf, size_t cap);

#endif
