/* SPDX-License-Identifier: MIT */
/* player.c - how a player's table covers an op (player.h). */
#include "player.h"

#include <stddef.h>

bool player_covers(const Player *pl, BcOp op, PlayerFn *fn, const char **why)
{
    *fn = pl->op[op].fn;
    *why = NULL;
    if (*fn)
        return true;
    if ((*why = pl->op[op].ignored) != NULL)
        return true;
    for (int i = 0; i < PLAYER_MAX_CLASSES && pl->ignore[i].flags; i++)
        if (bc_op_info[op].flags & pl->ignore[i].flags) {
            *why = pl->ignore[i].why;
            return true;
        }
    *fn = pl->every;
    return *fn != NULL;
}
