/* SPDX-License-Identifier: MIT */
/* yaml_value.h - a YAML node as a bytecode value (the VAL_* encoding of
** docs/bytecode.md), for both front ends: what the Scenario-Format and
** tui-use record verbatim (metadata, arguments, policies) is one encoding. */
#ifndef SC_YAML_VALUE_H
#define SC_YAML_VALUE_H

#include "formats/bc_write.h"
#include "yaml_tree.h"

/* Emits n (NULL: null) into the value being built (bcb_val_begin): scalars
** by their resolved type, sequences as arrays, mappings as maps in their
** order, strings interned in b's string table. */
void yaml_value_emit(BcBuilder *b, const YNode *n);

#endif
