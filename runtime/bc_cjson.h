/* SPDX-License-Identifier: MIT */
/* bc_cjson.h - a program's value (formats/bc.h) as a cJSON tree, for the
** players that build protocol messages with cJSON (ACP, REST). */
#ifndef SC_BC_CJSON_H
#define SC_BC_CJSON_H

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "formats/bc.h"

/* A decoded value of p as cJSON (the caller deletes it); NULL when out of
** memory. */
static inline cJSON *bc_val_cjson_at(const BcProgram *p, const BcVal *v)
{
    Buf b;
    buf_init(&b);
    bc_val_json_at(p, v, &b);
    cJSON *j = b.oom ? NULL : cJSON_ParseWithLength((const char *)b.data, b.len);
    buf_fini(&b);
    return j;
}

/* Value k of p as cJSON. */
static inline cJSON *bc_val_cjson(const BcProgram *p, uint32_t k)
{
    BcVal v = bc_val(p, k);
    return bc_val_cjson_at(p, &v);
}

#endif
