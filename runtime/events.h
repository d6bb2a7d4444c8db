/* SPDX-License-Identifier: MIT */
/* events.h - the one JSONL event writer (docs/events.md).  Every target
** writes its events as lines of one shape:
**
**     {"at_ms":N,"kind":"KIND",FIELD:VALUE,...}\n
**
** An op's event is the same on every target: KIND is the op's event name
** in ops.def and the fields are its operands that have a field name there
** (S -> JSON string, K -> JSON value, U -> number), in operand order.  A
** target that observes more (the PTY target: whether a check passed, the
** exit code of a command) appends its own fields after those.  Events that
** are not ops (the PTY target's spawn, exit, screen notes) are written
** field by field with the same functions.
**
** Two ways to write a line:
**   events_op_write            an op's whole event, from a table rendered
**                              once from ops.def (a few memcpys per event:
**                              the simulation writes millions)
**   events_op_begin / events_begin, the events_str/int/bool fields,
**   events_end                 a line built field by field
** Nothing here allocates per event except the Buf growing; an allocation
** failure is sticky in the Buf (b->oom). */
#ifndef SC_EVENTS_H
#define SC_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "formats/bc.h"

/* Every op's constant text (`,"kind":"tool_start"`, `,"tool_name":` ...),
** rendered from bc_op_info. */
typedef struct EventsOps EventsOps;

EventsOps *events_ops_new(void);            /* NULL when out of memory */
void events_ops_free(EventsOps *e);         /* NULL is fine */

/* Appends in's event without its closing "}\n": the caller may add fields,
** then calls events_end.  The op must not be OPF_SILENT (such ops produce
** no event).  Returns false when b could not grow. */
bool events_op_begin(const EventsOps *e, Buf *b, const BcProgram *p, const BcInsn *in, uint64_t at_ms);
/* events_op_begin + events_end. */
bool events_op_write(const EventsOps *e, Buf *b, const BcProgram *p, const BcInsn *in, uint64_t at_ms);

/* Starts a line of an event that is not an op's: {"at_ms":N,"kind":"KIND"
** (kind is written as is: a name, not text to escape). */
void events_begin(Buf *b, uint64_t at_ms, const char *kind);
/* Fields.  key is written as is (a name); s may hold any bytes: invalid
** UTF-8 becomes U+FFFD, so program output can be recorded. */
void events_str(Buf *b, const char *key, const char *s, size_t n);
void events_int(Buf *b, const char *key, int64_t v);
void events_bool(Buf *b, const char *key, bool v);
/* Ends the line: "}\n". */
void events_end(Buf *b);

#endif
