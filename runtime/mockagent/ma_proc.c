/* SPDX-License-Identifier: MIT */
/* ma_proc.c - running a command for the mock agent (ma_proc.h), on the
** one runner every command of a run goes through (runtime/rt_proc.h): the
** command and everything it started (a `setsid -f` daemon included) are
** gone when it returns. */
#include "ma_proc.h"

#include <stdio.h>
#include <string.h>

#include "runtime/rt_proc.h"

int ma_proc_run(char *const argv[], const char *dir, unsigned timeout_ms, Buf *out, MaProcResult *res)
{
    RtProcResult r;
    int rc = rt_proc_run(argv, dir, timeout_ms, out, MA_PROC_OUT_MAX, &r);
    static const MaProcEnd end[] = {
        [RT_PROC_EXITED] = MA_PROC_EXITED,       [RT_PROC_SIGNALED] = MA_PROC_SIGNALED,
        [RT_PROC_TIMEOUT] = MA_PROC_TIMEOUT,     [RT_PROC_CANCELLED] = MA_PROC_CANCELLED,
        [RT_PROC_FAILED] = MA_PROC_FAILED,
    };
    res->end = end[r.end];
    res->code = r.code;
    res->dropped = r.dropped;
    return rc;
}

void ma_proc_describe(const MaProcResult *r, unsigned timeout_ms, char *buf, size_t cap)
{
    switch (r->end) {
    case MA_PROC_EXITED: snprintf(buf, cap, "exit %d", r->code); break;
    case MA_PROC_SIGNALED: snprintf(buf, cap, "killed by signal %d", r->code); break;
    case MA_PROC_TIMEOUT: snprintf(buf, cap, "timed out after %u ms, killed", timeout_ms); break;
    case MA_PROC_CANCELLED: snprintf(buf, cap, "cancelled by signal %d, killed", r->code); break;
    case MA_PROC_FAILED: snprintf(buf, cap, "cannot be started: %s", strerror(r->code)); break;
    }
}
