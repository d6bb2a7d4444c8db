/* SPDX-License-Identifier: MIT */
/* bc_info.c - the opcode table (from ops.def), track, flag and error names.
**
** bc_op_info[] is entirely static const data: the `fields` column is split
** at build time by gen_opcodes into bc_fields.h, so there is no lazy
** initialisation and nothing to race on. */
#include "bc.h"

#include "formats/bc_fields.h"

const BcOpInfo bc_op_info[OP__COUNT] = {
#define OP(name, ops, flags, event, fields, syn) \
    { #name, ops, flags, event, fields, syn, (uint8_t)(sizeof ops - 1), BC_FIELDS_##name, \
      BC_TEXT_##name },
#include "ops.def"
#undef OP
};

const char *bc_track_name(unsigned flags)
{
    if (flags & OPF_AGENT)
        return "agent";
    if (flags & OPF_USER)
        return "user";
    if (flags & OPF_HARNESS)
        return "harness";
    if (flags & OPF_ACP)
        return "acp";
    return "-";
}

const char *bc_flags_name(uint32_t flags)
{
    switch (flags & (BC_FLAG_LINES | BC_FLAG_DICT)) {
    case BC_FLAG_LINES: return "lines";
    case BC_FLAG_DICT: return "dict";
    case BC_FLAG_LINES | BC_FLAG_DICT: return "lines, dict";
    default: return "-";
    }
}

const char *bc_err_name(BcErrCode c)
{
    switch (c) {
#define X(name, num, text) case BC_ERR_##name: return #name;
    BC_ERRORS(X)
#undef X
    }
    return "UNKNOWN";
}
