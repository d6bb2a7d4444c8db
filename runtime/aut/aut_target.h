/* SPDX-License-Identifier: MIT */
/* aut_target.h - the agent-under-test target (scvm run -t aut; docs/aut.md):
** the cases of a compiled ElizaOS or Yao suite played against a real agent.
**
** Each CASE opens the agent afresh (runtime/aut: a new conversation, a new
** process for ACP and PTY), each USER_INPUT of the case is one turn, and
** each EVAL is decided on the conversation so far (runtime/judge), with
** judge verdicts and validator replies from the tape.  A case's verdict:
** error when a turn failed (the agent could not be reached, answered out of
** protocol, ran out of time), failed when a check failed or is malformed,
** skipped when a check needs a reply the tape lacks (the key is in the
** event) or the case needs what this target cannot do, else passed.  A
** skip is not a pass: the scenario's status (vm_run's) is failed unless
** allow_skipped, or the skip was asked for.  Events go out as JSON lines. */
#ifndef SC_AUT_TARGET_H
#define SC_AUT_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/aut/aut.h"
#include "runtime/player.h"
#include "runtime/rt.h"
#include "runtime/tape/tape.h"

/* One case's outcome, for reports (cmd_aut.c writes them in each
** ecosystem's shape). */
typedef struct AutCaseResult {
    const char *scenario, *id, *type;   /* type: input, code, conversation (ElizaOS); standard, dynamic (Yao) */
    const char *verdict;                /* passed, failed, skipped, error */
    const char *error;                  /* for error: the E_AUT_* name (E_AUT_TIMEOUT: Yao's "timeout") */
    const char *why;                    /* "" when passed */
    const char *input, *output;         /* the last turn's (NULL: none) */
    uint64_t duration_ms;
    unsigned checks, checks_passed;
    const char *const *messages;        /* each check's message, in order */
    const char *const *verdicts;        /* and verdict */
    const char *judgment;               /* the scenario's ElizaOS strategy (all_pass, any_pass), "" for none */
    const char *name;                   /* a Yao case's name (NULL: none) */
    const char *turns_json;             /* its turns, a JSON array of Yao's turn records: turn, input,
                                        ** input_source, output, tool_calls [{name, args}], awaiting_input,
                                        ** awaiting_reason, assertions [check + passed, verdict, message],
                                        ** duration_ms (NULL: none) */
    const char *final_json;             /* the case's own checks, a JSON array of the same (NULL: none) */
    unsigned total_turns;
    bool on_purpose;                    /* skipped because it was asked (skip: true, --dry-run, --fail-fast),
                                        ** not for want of a verdict: such a skip is not "not judged" */
    const char *const *check_types;     /* each check's type (contains, regex, llm_judge, ...) and scope */
    const char *const *check_scopes;    /* (step, turn, final, checkpoint; "" for none), in order */
    int exit_code;                      /* an ElizaOS code step's exit status (-1: killed or timed out) */
    bool has_exit_code;                 /* false: not a code step, or it never started */
    const char *termination;            /* the termination condition that ended a conversation (NULL: none) */
    int64_t ended_at_ms;                /* when it ended: milliseconds since 1970 (UTC), for reports that say so */
    const char *files_json;             /* an ElizaOS step's workspace after it, when the workspace is the
                                        ** fresh folder made for virtual_fs: a JSON object {path: content}
                                        ** as ElizaOS's ExecutionResult.files (NULL: not captured) */
} AutCaseResult;

typedef struct AutTargetOpts {
    AutConfig aut;              /* how to reach the agent; opened once per case */
    const char *workspace;      /* where file and command checks look (NULL: the current folder, or a
                                ** fresh folder holding an ElizaOS scenario's virtual_fs) */
    Tape *tape;                 /* judge and validator replies (NULL: none; such checks skip) */
    /* A live OpenAI-compatible judge (docs/aut.md, "Who decides"): with
    ** record, a reply the tape lacks is asked of it once and added to the
    ** tape (docs/tape.md); without, it decides every verdict and simulated
    ** user's message itself, tape NULL, nothing written.  NULL: the tape. */
    const char *judge_url;
    const char *judge_model;
    bool record;
    bool allow_skipped;         /* a case skipped for want of a verdict does not fail the scenario */
    FILE *events;               /* JSON lines, or NULL */
    FILE *diag;                 /* one line per case that did not pass (NULL: none) */
    FILE *warn;                 /* what the scenario asks that cannot be done (a virtual_fs that cannot be
                                ** written, setup.mocks not applied), a line each (NULL: none) */
    void (*on_case)(void *ctx, const AutCaseResult *r);   /* after each case (NULL: none) */
    void *ctx;
    bool fail_fast;             /* after a case that failed or erred, the rest are skipped unplayed */
    bool stopped;               /* an earlier scenario's case failed under fail_fast: skip every case */
    bool dry_run;               /* list the cases and their checks; reach no agent */
    const char *connector;      /* Yao's -c: the connector in every request's options (NULL: the case's) */
    const char *simulator;      /* Yao's --simulator: a dynamic case's simulator when it names none */
    unsigned case_timeout_ms;   /* Yao's --timeout: a case's time when it sets none (0: none) */
    bool skip_interactive;      /* skip the cases with interactive.enabled (on purpose) */
    FILE *human;                /* --interactive: the next message when the agent awaits input and the case
                                ** has none left, a line each (NULL: none) */
    int on_missing_input;       /* then, without one: 0 judge it as it is, 1 skip it, 2 fail it */
    unsigned only_case;         /* play only the scenario's case of this ordinal, 1 for the first, the
                                ** others leaving no trace (-j: a process per case); 0: every case */
} AutTargetOpts;

typedef struct AutCounts {
    unsigned passed, failed, skipped, errors;
    unsigned unjudged;          /* of skipped: for want of a verdict (not on purpose) */
} AutCounts;

RtTarget *rt_aut_new(const AutTargetOpts *o);
void rt_aut_counts(const RtTarget *t, AutCounts *out);
/* Whether fail_fast stopped it (the next scenario's target then starts stopped). */
bool rt_aut_stopped(const RtTarget *t);

/* The aut target's op table (runtime/player.h): for the coverage test. */
extern const Player aut_player;

#endif
