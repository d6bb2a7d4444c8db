/* SPDX-License-Identifier: MIT */
/* yaml_value.c - a YAML node as a bytecode value (yaml_value.h). */
#include "yaml_value.h"

static uint32_t str_of(BcBuilder *b, const YNode *n) { return bcb_str(b, n->u.s, n->n); }

void yaml_value_emit(BcBuilder *b, const YNode *n)
{
    if (!n) {
        bcb_val_null(b);
        return;
    }
    switch ((YKind)n->kind) {
    case YN_SCALAR:
        switch ((YType)n->type) {
        case YT_NULL: bcb_val_null(b); break;
        case YT_BOOL: bcb_val_bool(b, ybool(n)); break;
        case YT_INT: bcb_val_int(b, yint(n)); break;
        case YT_FLOAT: bcb_val_float(b, yfloat(n)); break;
        case YT_STR: bcb_val_str(b, str_of(b, n)); break;
        }
        break;
    case YN_SEQ:
        bcb_val_array(b, n->n);
        for (uint32_t i = 0; i < n->n; i++)
            yaml_value_emit(b, &n->u.items[i]);
        break;
    case YN_MAP:
        bcb_val_map(b, n->n);
        for (uint32_t i = 0; i < n->n; i++) {
            bcb_val_key(b, str_of(b, &n->u.pairs[i].key));
            yaml_value_emit(b, &n->u.pairs[i].val);
        }
        break;
    }
}
