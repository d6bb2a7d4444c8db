/* SPDX-License-Identifier: MIT */
/* report.h - the HTML run report (scvm run --report DIR; docs/report.md).
**
** A report folder holds, for a suite (a pack, a selection, or one .scb):
**   report.json           what the index is drawn from: the suite, the
**                         target, and one record per selected scenario
**                         (verdict, scheduled duration, counts, its page);
**   index.html            the suite's page: totals and a row per scenario;
**   NNNN-<scenario>.html  one page per run that ran: verdict, the timeline
**                         of its events with times, its screenshots inline
**                         (goldens and differing cells on a mismatch), its
**                         diagnostics and diffs, the transcript, and the
**                         session's recording playable in the page;
**   <scenario>/           the run's artifacts (PTY and agent targets), when
**                         --artifacts does not put them elsewhere.
** Every page is self-contained: inline CSS, SVG and script, nothing
** fetched, so it opens from a local file.  Only the index links (to the run
** pages beside it).  The bytes of a page depend only on what the run
** produced; the index only on report.json, so shards' reports merged
** (report_merge) give the index a single run gives. */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define REPORT_VERSION 1

typedef struct ReportRun {
    uint32_t index;             /* in the pack (0 for a .scb) */
    const char *name, *source;
    const char *suite;          /* the pack's (or .scb's) file name */
    const char *target;         /* "sim", "pty", "agent" */
    int status;                 /* the run's exit status (0 passed, 1 a check failed) */
    bool skipped;
    /* It ran, but nothing in it was judged (the simulation's assertions):
    ** "skipped", with its page. */
    bool unjudged;
    const char *why;            /* why it failed or was skipped, or NULL */
    uint64_t duration_ms;       /* the scheduled duration at the run's speed */
    const char *events;         /* the run's event lines (JSONL), may be NULL */
    size_t events_len;
    const char *diag;           /* its diagnostics (stderr), may be NULL */
    size_t diag_len;
    const char *artifacts;      /* its artifacts folder, or NULL */
} ReportRun;

/* The file name of r's page: "NNNN-<scenario as a safe name>.html". */
void report_page_name(const ReportRun *r, char *out, size_t n);

/* Appends r's page.  Reads the artifacts folder (run.json, transcript.log,
** session.cast, screenshots) when r->artifacts is set; what is missing is
** left out of the page. */
void report_run_page(const ReportRun *r, Buf *out);

/* Appends r's record for report.json (one JSON object, no newline). */
void report_run_record(const ReportRun *r, Buf *out);

/* report.json from the records (each as report_run_record wrote it),
** which must be in index order. */
void report_json(const char *suite, const char *target, const Buf *records, size_t n, Buf *out);

/* The index page drawn from report.json.  Returns false (and a reason in
** err) when json is not a report of this version. */
bool report_index_page(const char *json, size_t len, Buf *out, char *err, size_t errlen);

/* Merges shards' report.json texts into one: the same suite and target,
** records in index order, no index twice.  Returns false with a reason in
** err otherwise. */
bool report_merge(const char *const *jsons, const size_t *lens, size_t n, Buf *out, char *err, size_t errlen);

/* The page names a report.json lists (for copying them), one per call:
** the k-th record's page, or NULL past the end or without one. */
char *report_page_of(const char *json, size_t len, size_t k, char *out, size_t n);

/* The recording (asciicast v2) as a player: the screens it passes through
** drawn by libvterm as the PTY target draws them, kept as frames of rows
** (each distinct row once) with their times, and a small script that
** plays, pauses, seeks and changes speed.  Shows the last frame until
** played.  Returns false (appending nothing) when cast is not a
** recording. */
bool report_cast_player(const char *cast, size_t len, Buf *out);

#endif
