/* SPDX-License-Identifier: MIT */
/* scn_turns.h - a program's timeline as prompt turns, the one rule every
** server that is prompted turn by turn plays by (the ACP agent, the
** harness event server; docs/serve-acp.md, "Prompts and turns").
**
** The history is the ops before sessionStart (none without one); the live
** ops, after it (or all), are cut into turns: a userInputs entry that
** follows anything the agent does (an agent-track op, setMode, setModel,
** userCancelSession or assert) starts the next turn.  A prompt plays the
** next turn; the turn's clock starts at its userInputs (the prompt), or
** at its first op when it has none before its content. */
#ifndef SC_SCN_TURNS_H
#define SC_SCN_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/bc.h"

typedef struct ScnTurns {
    uint32_t hist_end;      /* index of SESSION_START (0: none, no history) */
    uint32_t live0, end;    /* the live ops [live0, end); end is the END op */
    uint32_t *start;        /* turn k is ops [start[k], start[k+1]); start[n] = end */
    uint32_t n;             /* at least 1 */
} ScnTurns;

/* Cuts verified program p into turns.  0, or ENOMEM. */
int scn_turns_init(ScnTurns *t, const BcProgram *p);
void scn_turns_fini(ScnTurns *t);

/* Whether op in makes a turn (so a userInputs after it starts the next). */
bool scn_turn_content(const BcInsn *in);

/* Turn k's userInputs (its prompt): the first USER_INPUT before any op of
** its content, or UINT32_MAX. */
uint32_t scn_turn_prompt(const ScnTurns *t, const BcProgram *p, uint32_t k);

/* Whether the llmResponse error at op i is one the agent retries, as
** real agents do: its response goes on with thinking or text before its
** end (and before op end).  Otherwise the error ends the turn. */
bool scn_error_retried(const BcProgram *p, uint32_t i, uint32_t end);

/* The unscaled time turn k's clock starts at. */
uint64_t scn_turn_t0(const ScnTurns *t, const BcProgram *p, uint32_t k);

#endif
