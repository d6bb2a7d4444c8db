/* cmd_pack.h - scvm's pack commands (vm/cmd_pack.c). */
#ifndef SC_CMD_PACK_H
#define SC_CMD_PACK_H

#include <stdbool.h>

/* Handles the command line when it is about packs: the commands ls and
** extract, run/verify/info with a pack operand or a pack-only option
** (--scenario, --tag, --prompt, --shard, --junit, -j, --fail-fast).
** Returns false to leave it to scvm.c; else true with *status set. */
bool scvm_pack_dispatch(int argc, char **argv, int *status);

#endif
