/* SPDX-License-Identifier: MIT */
/* scn_turns.c - a program's timeline as prompt turns (scn_turns.h). */
#include <errno.h>

#include "common/sc_alloc.h"
#include "scn_turns.h"

bool scn_turn_content(const BcInsn *in)
{
    unsigned f = bc_op_info[in->op].flags;
    return (f & OPF_AGENT) || in->op == OP_SET_MODE || in->op == OP_SET_MODEL || in->op == OP_USER_CANCEL ||
           in->op == OP_ASSERT;
}

int scn_turns_init(ScnTurns *t, const BcProgram *p)
{
    t->hist_end = t->live0 = 0;
    for (uint32_t i = 0; i < p->n_insn; i++)
        if (p->insn[i].op == OP_SESSION_START) {
            t->hist_end = i;
            t->live0 = i + 1;
            break;
        }
    t->end = p->n_insn - 1;
    t->start = sc_calloc((size_t)p->n_insn + 1, sizeof *t->start);
    if (!t->start)
        return ENOMEM;
    bool content = false;
    t->n = 0;
    t->start[t->n++] = t->live0;
    for (uint32_t i = t->live0; i < t->end; i++) {
        if (p->insn[i].op == OP_USER_INPUT && content) {
            t->start[t->n++] = i;
            content = false;
        }
        content |= scn_turn_content(&p->insn[i]);
    }
    t->start[t->n] = t->end;
    return 0;
}

void scn_turns_fini(ScnTurns *t)
{
    sc_free(t->start);
    t->start = NULL;
    t->n = 0;
}

uint32_t scn_turn_prompt(const ScnTurns *t, const BcProgram *p, uint32_t k)
{
    for (uint32_t i = t->start[k]; i < t->start[k + 1] && !scn_turn_content(&p->insn[i]); i++)
        if (p->insn[i].op == OP_USER_INPUT)
            return i;
    return UINT32_MAX;
}

uint64_t scn_turn_t0(const ScnTurns *t, const BcProgram *p, uint32_t k)
{
    uint32_t ui = scn_turn_prompt(t, p, k);
    return p->insn[ui != UINT32_MAX ? ui : t->start[k]].t;
}

bool scn_error_retried(const BcProgram *p, uint32_t i, uint32_t end)
{
    for (uint32_t j = i + 1; j < end && p->insn[j].op != OP_LLM_END; j++)
        if (p->insn[j].op == OP_THINK || p->insn[j].op == OP_ASSISTANT)
            return true;
    return false;
}
