/* SPDX-License-Identifier: MIT */
/* player.h - the one contract between a program and the code that plays it.
**
** A player is anything that gives ops a meaning: the simulation's event
** writer, the PTY target, the mock agent, the harness and REST servers,
** ...  Each declares, in one constant table, for every op of ops.def
** either a handler or why it ignores the op, and calls player_op() for each
** op instead of a switch of its own.  A table entry is resolved in order:
**
**   1. op[OP_X].fn      the op's own handler;
**   2. op[OP_X].ignored the op is ignored, and this string says why;
**   3. ignore[i]        the op has a flag of a whole class (OPF_* from
**                       ops.def: OPF_TERM, OPF_AGENTTEST, ...) that the
**                       player ignores, for the reason given;
**   4. every            the handler of every remaining op, for a player
**                       driven by ops.def's own columns (the simulation
**                       writes each op's event from its row);
**   5. none of these:   the op is NOT COVERED.
**
** player_op() skips ignored ops (returns 0).  An op that is not covered is
** skipped too at run time, but the test players.cover (tests/players.cmake,
** tools: tests/players/player_cover.c) fails for it and names the player
** and the op, and docs/players.md, the op-by-player matrix it generates, is
** checked against the tables: so a new op in ops.def fails the build's
** tests until every player has said what it does with it.  That replaces
** -Wswitch-enum, which only reached the players that had a switch.
**
** A handler returns 0 to go on; any other value is the player's to define
** (a status of common/status.h for targets, "stop here" for a server's
** turn) and player_op() passes it back unchanged.  ctx is the player's own
** state, given to player_op() and passed through to the handler. */
#ifndef SC_PLAYER_H
#define SC_PLAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/bc.h"

typedef int (*PlayerFn)(void *ctx, const BcProgram *p, const BcInsn *in);

typedef struct PlayerOp {
    PlayerFn fn;            /* the handler, or NULL */
    const char *ignored;    /* why the op is ignored, or NULL */
} PlayerOp;

typedef struct PlayerClass {
    unsigned flags;         /* OPF_* : an op with any of these is ignored */
    const char *why;
} PlayerClass;

#define PLAYER_MAX_CLASSES 4

typedef struct Player {
    const char *name;       /* as in docs/players.md */
    PlayerOp op[OP__COUNT];
    PlayerClass ignore[PLAYER_MAX_CLASSES];
    PlayerFn every;         /* see 4. above; NULL for most players */
} Player;

/* How player pl covers op: its handler (NULL when ignored or not covered),
** and in *why the reason it is ignored (NULL when handled or not covered).
** Returns false when the op is not covered. */
bool player_covers(const Player *pl, BcOp op, PlayerFn *fn, const char **why);

/* Plays in with pl's handler for its op, or skips it (returns 0). */
static inline int player_op(const Player *pl, void *ctx, const BcProgram *p, const BcInsn *in)
{
    PlayerFn fn = pl->op[in->op].fn;
    if (!fn && !pl->op[in->op].ignored) {
        fn = pl->every;
        for (int i = 0; fn && i < PLAYER_MAX_CLASSES && pl->ignore[i].flags; i++)
            if (bc_op_info[in->op].flags & pl->ignore[i].flags)
                fn = NULL;
    }
    return fn ? fn(ctx, p, in) : 0;
}

#endif
