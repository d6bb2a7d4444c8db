/* SPDX-License-Identifier: MIT */
/* vm.c - the dispatch loop: begin the target, hand it each op at its
** scaled time (rt_clock_scale, the one scaling every target uses) once the
** clock has reached it, stop after END or the first nonzero status, end.
**
** There is no per-opcode code here: what an op *means* belongs to the
** target, and the only thing the loop itself must know about an op (does
** it end the program?) is a flag in ops.def.  So a new opcode needs no
** change in this file.  Each target (and each server that plays a program
** on its own clock) declares in a table what every op means to it, or why
** it ignores the op, and plays it with player_op() (runtime/player.h); the
** test players.cover fails for an op some table does not cover. */
#include "vm.h"
#include "runtime/rt_clock.h"

#include <assert.h>

int vm_run(const BcProgram *prog, RtTarget *target, RtClock *clock, const VmOpts *opts)
{
    double speed = opts ? opts->speed : 1.0;
    if (!clock)
        clock = rt_clock_virtual();
    /* The virtual clock's wait returns at once: not called per op. */
    const bool wait = clock != rt_clock_virtual();
    assert(prog && prog->n_insn > 0);
    assert(prog->insn[prog->n_insn - 1].op == OP_END);

    int st = target->vt->begin ? target->vt->begin(target, prog) : 0;
    if (st)
        return st;
    const BcInsn *in = prog->insn, *end = in + prog->n_insn;
    for (; in < end; in++) {
        assert(in->op < OP__COUNT);
        assert(in->n == bc_op_info[in->op].n_operands);
        assert(in == prog->insn || in->t >= in[-1].t);
        uint64_t at = rt_clock_scale(in->t, speed);
        if (wait)
            clock->wait_until(clock, at);
        st = target->vt->op(target, prog, in, at);
        if (st || (bc_op_info[in->op].flags & OPF_END))
            break;
    }
    int est = target->vt->end ? target->vt->end(target, prog) : 0;
    return st ? st : est;
}
