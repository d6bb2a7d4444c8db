/* jsonw.h - the JSON writer every encoder uses: commas, nesting, keys
** and string escaping in one place, appended to a Buf.
**
**     JsonW w;
**     jw_init(&w, &buf);
**     jw_obj(&w);
**     jw_kstr(&w, "type", "message");
**     jw_key(&w, "content"); jw_arr(&w); ... jw_end(&w);
**     jw_end(&w);
**
** The writer does not check that what it is told makes sense (a key in an
** array, a value where a key belongs): encoders are tested by their
** output.  Nesting deeper than JW_MAX_DEPTH is not tracked (commas may be
** missing below it); no encoder comes near.  Out of memory is the Buf's
** oom flag, as for every Buf writer.  Output is compact: no blanks. */
#ifndef SC_JSONW_H
#define SC_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

enum { JW_MAX_DEPTH = 32 };

typedef struct JsonW {
    Buf *b;
    unsigned depth;
    bool after_key;                  /* the next value follows its key */
    bool first[JW_MAX_DEPTH + 1];    /* the next value opens its container */
    char close[JW_MAX_DEPTH + 1];    /* '}' or ']' */
} JsonW;

void jw_init(JsonW *w, Buf *b);

void jw_obj(JsonW *w);               /* { */
void jw_arr(JsonW *w);               /* [ */
void jw_end(JsonW *w);               /* } or ], whichever is open */
void jw_key(JsonW *w, const char *key);   /* "key": (key is written as is: a plain name) */

void jw_str(JsonW *w, const char *s, size_t n);
void jw_cstr(JsonW *w, const char *s);
void jw_u64(JsonW *w, uint64_t v);
void jw_i64(JsonW *w, int64_t v);
void jw_bool(JsonW *w, bool v);
void jw_null(JsonW *w);
void jw_raw(JsonW *w, const char *json, size_t n);   /* a value that is JSON already */
/* Before a value the caller appends to w->b itself (bc_val_json, ...). */
void jw_value(JsonW *w);

/* A string written in parts: jw_str_begin, any number of jw_str_part
** (each escaped), jw_str_end. */
void jw_str_begin(JsonW *w);
void jw_str_part(JsonW *w, const char *s, size_t n);
void jw_str_end(JsonW *w);

/* key + value */
void jw_kstr(JsonW *w, const char *key, const char *s, size_t n);
void jw_kcstr(JsonW *w, const char *key, const char *s);   /* s NULL: null */
void jw_ku64(JsonW *w, const char *key, uint64_t v);
void jw_ki64(JsonW *w, const char *key, int64_t v);
void jw_kbool(JsonW *w, const char *key, bool v);
void jw_knull(JsonW *w, const char *key);
void jw_kraw(JsonW *w, const char *key, const char *json, size_t n);
void jw_kobj(JsonW *w, const char *key);
void jw_karr(JsonW *w, const char *key);

#endif
