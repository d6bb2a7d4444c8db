/* SPDX-License-Identifier: MIT */
/* rt_sim.h - the simulation target and the counting sink.
**
** The simulation target turns every op into one playback event, a JSON
** object on its own line (JSONL, docs/events.md):
**     {"at_ms":N,"kind":EVENT,FIELD:VALUE,...}
** driven entirely by ops.def: EVENT is the op's event name, and each operand
** with a field name becomes one field, in operand order (S -> JSON string,
** K -> JSON value, U -> number).  Ops flagged OPF_SILENT produce nothing.
** Output depends only on the program and the speed: byte-identical across
** runs.
**
** The counting sink receives the same ops but formats nothing: it is the
** baseline for the dispatch benchmark. */
#ifndef SC_RT_SIM_H
#define SC_RT_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "player.h"
#include "rt.h"

typedef struct RtSimOpts {
    /* Where the events go, one of:
    **   out != NULL  written to the stream's descriptor in large blocks and
    **                when the scenario ends (file_write_stream: one
    **                write(2) a block, after what the stream holds)
    **   mem != NULL  appended to this caller-owned buffer (not flushed; the
    **                caller writes it, e.g. atomically, after the run)
    **   both NULL    formatted and discarded (counts still kept) */
    FILE *out;
    Buf *mem;
    /* Write `out` after every event, so a reader sees each one when it
    ** happens (real-time playback).  Ignored without `out`. */
    bool line_flush;
    /* After each check op (OPF_CHECK: assert, wait, check, eval), one
    ** {"kind":"not_evaluated"} event per check it holds: the simulation
    ** evaluates none of them, and says so (docs/events.md).  scvm run sets
    ** it; the C API's playback and the benchmarks keep the reference's
    ** stream. */
    bool unchecked;
} RtSimOpts;

typedef struct RtCounts {
    uint64_t ops;       /* ops received, END included */
    uint64_t events;    /* ops that are events (not OPF_SILENT) */
    uint64_t bytes;     /* sim: JSONL bytes produced; count: bytes of the
                        ** events' string operands (no formatting is done) */
} RtCounts;

/* Whole scenarios' events written together: a caller that plays many
** scenarios in a row (scvm run over a suite; bench_vm's JSONL rows of a
** pack) gathers their events in one Buf (RtSimOpts.mem) and calls this
** after each scenario, so the output takes one write(2) per
** RT_SIM_BATCH bytes instead of one a scenario, and every write ends
** where a scenario does: a run killed at any point leaves whole
** scenarios behind it.  Writes b to f (file_write_stream) and empties
** it when it holds RT_SIM_BATCH bytes or more, or anything when all;
** returns 0 or an errno (b is emptied whenever a write was made, even
** one that failed).  64 KiB (a pipe's capacity on Linux) keeps write(2)
** calls few, and the buffer small: a one-shot `scvm run` over a pack
** faults every page of it in once, and with 256 KiB (the buffer grown to
** 512 KiB) those faults cost it more than the writes saved
** (docs/performance.md, "One scvm run over a pack (page faults)"). */
enum { RT_SIM_BATCH = 64 * 1024 };
/* The target's own stream (RtSimOpts.out) is written in blocks of this
** size: one long scenario's events, where a larger block keeps write(2)
** calls negligible (a 1.5 MB scenario: 6 writes, not 24). */
enum { RT_SIM_BLOCK = 256 * 1024 };
int rt_sim_batch_write(Buf *b, FILE *f, bool all);

/* Returns a new target (destroy with t->vt->destroy(t)), or NULL when out
** of memory.  The target's statuses: SC_IO when writing `out`
** fails (rt_sim_errno() says why), SC_RUNTIME when a buffer cannot
** grow. */
RtTarget *rt_sim_new(const RtSimOpts *o);
/* Only for targets from rt_sim_new. */
void rt_sim_counts(const RtTarget *t, RtCounts *out);
int rt_sim_errno(const RtTarget *t);     /* errno of a failed write, or 0 */
uint64_t rt_sim_unchecked(const RtTarget *t);   /* not_evaluated events written */

/* A target that only counts (never fails, never allocates after creation). */
RtTarget *rt_count_new(void);
/* Only for targets from rt_count_new. */
void rt_count_counts(const RtTarget *t, RtCounts *out);

/* The simulation's op table (player.h): for the coverage test. */
extern const Player rt_sim_player;

#endif
