/* SPDX-License-Identifier: MIT */
/* run_junit.h - JUnit XML, the one place it is written, read and merged
** (docs/ci.md): `scvm run --junit` on every target, `--timings` (the
** times of an earlier report, to balance shards) and `scvm report
** --merge` (the shards' reports made into one).  One XML escaper for all
** of them, so a scenario's name is written the same whatever the target.
**
** The layout is the one scvm has always written:
**
**   <?xml version="1.0" encoding="UTF-8"?>
**   <testsuites name="scvm" tests=.. failures=.. errors=.. skipped=.. time=..>
**     <testsuite name=".." tests=.. ...>
**       <testcase classname=".." name=".." [file=".."] time="..">...</testcase>
**     </testsuite>
**   </testsuites>
**
** Nothing here prints or touches a file but junit_merge's inputs. */
#ifndef SC_RUN_JUNIT_H
#define SC_RUN_JUNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* The one XML escaper (attribute values and text): & < > " ' as
** entities; the control characters XML 1.0 forbids even escaped (all
** below 0x20 but tab, line feed and carriage return) as &#xFFFD;. */
void junit_esc(Buf *b, const char *s);

typedef struct JunitTotals {
    size_t tests, failures, errors, skipped;
    uint64_t ms;            /* the sum of the testcases' times */
} JunitTotals;

/* The XML declaration and <testsuites ...>, then each <testsuite ...>
** (name escaped), its end, and the end of the document. */
void junit_begin(Buf *b, const JunitTotals *t);
void junit_suite_begin(Buf *b, const char *name, const JunitTotals *t);
void junit_suite_end(Buf *b);
void junit_end(Buf *b);

typedef enum JunitVerdict { JUNIT_PASSED, JUNIT_FAILURE, JUNIT_ERROR, JUNIT_SKIPPED } JunitVerdict;

typedef struct JunitCase {
    const char *classname, *name;
    const char *file;       /* or NULL: no file attribute */
    uint64_t ms;            /* its time */
    const char *props;      /* <property> elements (escaped), or NULL: no <properties> */
    JunitVerdict verdict;
    const char *message;    /* the <failure>/<error>/<skipped> message */
    const char *type;       /* its type attribute, or NULL */
    const char *system_out; /* <system-out> text (escaped here), or NULL: none */
} JunitCase;

/* One <testcase>, indented four blanks, ending in a newline; a passed case
** without properties is an empty element. */
void junit_case(Buf *b, const JunitCase *c);

/* A testcase's classname as dashboards read it (Jenkins, GitLab,
** Buildkite: package.class): the suite file's stem, a dot, the scenario,
** with the scenario's own dots as '_' ("suite.scp", "a.b" -> "suite.a_b"),
** so every scenario of a pack is a class of one package. */
void junit_classname(char *out, size_t cap, const char *suite, const char *scenario);

/* Writes a report to path, atomically, creating its missing folders
** (--junit out/reports/x.xml).  Returns 0 or an errno. */
int junit_write(const char *path, const Buf *b);

/* --timings: calls each(ctx, name, seconds) for every <testcase> of xml
** with a name and a time (entities decoded; the scheduled_time property
** instead when it is longer: a simulation takes no wall time but a PTY
** run of the same scenario takes at least that long).  Returns how many
** <testcase> elements there are (0: not a JUnit report). */
size_t junit_times(const char *xml, void (*each)(void *ctx, const char *name, double secs), void *ctx);

/* report --merge: the reports at paths[0..n) as the one report a single
** run writes, into out: each <testcase> kept as written, grouped by
** <testsuite> (in the order the suites first appear), in pack order (by
** its file attribute, then name); the totals counted again; the shards'
** <properties> dropped.  Returns 0 with *cases the testcases merged, or
** SC_IO (a file cannot be read), SC_USAGE (not JUnit; a testcase in two
** reports: the shards overlapped) or SC_RUNTIME (out of memory), with the
** reason in err. */
int junit_merge(const char *const *paths, size_t n, Buf *out, size_t *cases, char *err, size_t errn);

#endif
