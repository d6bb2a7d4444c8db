/* SPDX-License-Identifier: MIT */
/* judge.h - the checks of ElizaOS evaluations and Yao assertions, over what
** an agent under test answered (runtime/aut) (docs/judge.md).
**
** Each check is given as the JSON object the suite wrote (an ElizaOS
** `evaluations[]` item, a Yao `assert` item), so the front ends carry them
** as written.  Its verdict is one of four: PASS and FAIL as the suite's own
** runner would decide; SKIP when the check needs a reply that only a live
** model gives and the tape (runtime/tape) does not have it, with the
** missing key, or when it needs something this runner cannot do (a V8
** script), with the reason; ERROR when the check itself is malformed.  A
** check is never passed for want of an answer.  The check types are the
** rows of formats/agentcheck.def, which the front ends and the verifier
** read too: judge_check switches over them with no default, so a new row
** the judge does not handle fails the build. */
#ifndef SC_JUDGE_H
#define SC_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "runtime/tape/tape.h"

typedef struct JudgeAction {
    const char *name;           /* the tool or action */
    const char *input;          /* its arguments, JSON text */
} JudgeAction;

typedef struct JudgeTurn {
    const char *input;          /* what was sent */
    const char *text;           /* what the agent answered */
    const JudgeAction *actions;
    size_t n_actions;
} JudgeTurn;

typedef struct JudgeRun {
    const JudgeTurn *turns;     /* the conversation so far; the last is "the response" */
    size_t n_turns;
    const char *response;       /* the response instead of the last turn's text (NULL: that): an ElizaOS
                                ** conversation's step and final evaluations judge its transcript */
    const char *workspace;      /* files and commands (NULL: none: such checks fail) */
    uint64_t duration_ms;       /* the step's time; has_duration false: not measured */
    bool has_duration;
    Tape *tape;                 /* judge verdicts; NULL: none (every such check skips) */
    /* Recording: asked for a reply the tape lacks (kind, request); returns
    ** it (the caller's to free with cJSON_Delete), or NULL with why.  The
    ** reply is added to the tape under the request and this asking's n.
    ** NULL: replay only. */
    cJSON *(*ask)(void *ctx, const char *kind, const cJSON *request, char *why, size_t n);
    void *ask_ctx;
    bool live;                  /* ask is a live judge deciding every verdict (tape: a scratch one, nothing
                                ** is written): a failed asking says so rather than "the tape has none" */
    unsigned command_timeout_ms;/* command_exit_code_is (0: 30000) */
} JudgeRun;

typedef enum JudgeVerdict { JUDGE_PASS, JUDGE_FAIL, JUDGE_SKIP, JUDGE_ERROR } JudgeVerdict;

typedef struct JudgeResult {
    JudgeVerdict verdict;
    char message[600];          /* why, as the suite's runner says it where it says it */
    char key[65];               /* SKIP for a missing tape reply: its key ("" otherwise) */
    char kind[32];              /* and its kind */
    char *request;              /* and its request, canonical JSON (sc_malloc'd; judge_result_fini) */
} JudgeResult;

/* The first n turns as ElizaOS writes a conversation's transcript: "Turn
** N:\nUser: ...\nAgent: ...\n" per turn, joined by "\n" (sc_free it; NULL
** when out of memory). */
char *judge_transcript(const JudgeTurn *turns, size_t n);

/* Frees what a result holds (its missing request).  Safe to call twice. */
void judge_result_fini(JudgeResult *r);

/* One check in the dialect-neutral agent-check language the ElizaOS and
** Yao front ends lower to ({type, scope, negate, message, ...fields} with
** every default explicit: contains, not_contains, equals, regex, json_path,
** value_type, tool_called, tool_result, script, agent, llm_judge,
** file_exists, file_contains, command_exit_code_is,
** trajectory_contains_action, execution_time, conversation_length,
** conversation_flow, user_satisfaction, context_retention). */
void judge_check(const cJSON *check, const JudgeRun *run, JudgeResult *out);

/* One ElizaOS evaluation ({type, ...}), as written in a scenario: mapped
** onto judge_check with ElizaOS's defaults. */
void judge_eliza(const cJSON *evaluation, const JudgeRun *run, JudgeResult *out);

/* One Yao assertion ({type, value, path, negate, message, ...}; a bare
** string is its type), as written in a test case: mapped onto judge_check
** with Yao's defaults. */
void judge_yao(const cJSON *assertion, const JudgeRun *run, JudgeResult *out);

/* The tape's reply to request of kind (asked of run->ask and recorded when
** the tape lacks it), or NULL with out set to SKIP naming the kind, key
** and request.  For the simulated users a runner asks in between turns. */
const cJSON *judge_tape(const JudgeRun *run, const char *kind, const cJSON *request, JudgeResult *out);

/* A yes/no question of kind asked of the tape (or the live judge): 1 yes,
** 0 no, -1 with out set (SKIP for a missing reply, ERROR for a reply that
** is not yes/no: true/false, "yes"/"no" or {"answer": ...}). */
int judge_yes_no(const JudgeRun *run, const char *kind, const cJSON *request, JudgeResult *out);

const char *judge_verdict_name(JudgeVerdict v);   /* "passed", "failed", "skipped", "error" */

#endif
