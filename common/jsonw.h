/* SPDX-License-Identifier: MIT */
/* jsonw.h - the JSON writer every encoder uses: commas, nesting, keys
** and string escaping in one place, appended to a Buf.
**
**     JsonW w;
**     jw_init(&w, &buf);
**     jw_obj(&w);
**     jw_kcstr(&w, "type", "message");
**     jw_key(&w, "content"); jw_arr(&w); ... jw_end(&w);
**     jw_end(&w);
**
** The writer does not check that what it is told makes sense (a key in an
** array, a value where a key belongs): encoders are tested by their
** output.  Nesting deeper than JW_MAX_DEPTH is not tracked (commas may be
** missing below it): an encoder that can go deeper (the tape's canonical
** form of any JSON cJSON reads) writes the deeper value after jw_value
** with a fresh JsonW on the same Buf.  Out of memory is the Buf's
** oom flag, as for every Buf writer.  Output is compact: no blanks. */
#ifndef SC_JSONW_H
#define SC_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"

enum { JW_MAX_DEPTH = 32 };

typedef struct JsonW {
    Buf *b;
    unsigned depth;
    bool after_key;                  /* the next value follows its key */
    bool first[JW_MAX_DEPTH + 1];    /* the next value opens its container */
    char close[JW_MAX_DEPTH + 1];    /* '}' or ']' */
} JsonW;

/* Everything is inline: an encoder makes a call per key and value, and a
** streamed response has thousands of them (docs/performance.md, serve). */

static inline void jw_init(JsonW *w, Buf *b)
{
    w->b = b;
    w->depth = 0;
    w->after_key = false;
    w->first[0] = true;
}

/* The comma before a value or key, unless it opens its container or
** follows its key. */
static inline void jw_sep_(JsonW *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    unsigned d = w->depth <= JW_MAX_DEPTH ? w->depth : JW_MAX_DEPTH;
    if (!w->first[d])
        buf_putc(w->b, ',');
    w->first[d] = false;
}

static inline void jw_open_(JsonW *w, char o, char c)
{
    jw_sep_(w);
    buf_putc(w->b, o);
    w->depth++;
    if (w->depth <= JW_MAX_DEPTH) {
        w->first[w->depth] = true;
        w->close[w->depth] = c;
    }
}

/* { and [ */
static inline void jw_obj(JsonW *w) { jw_open_(w, '{', '}'); }
static inline void jw_arr(JsonW *w) { jw_open_(w, '[', ']'); }

/* w writing an object into b (jw_init, then jw_obj). */
static inline void jw_open_obj(JsonW *w, Buf *b)
{
    jw_init(w, b);
    jw_obj(w);
}

/* The same into a fresh Buf b (buf_init): the usual start of a small
** JSON message. */
static inline void jw_new_obj(JsonW *w, Buf *b)
{
    buf_init(b);
    jw_open_obj(w, b);
}

/* } or ], whichever is open; nothing when nothing is. */
static inline void jw_end(JsonW *w)
{
    if (!w->depth)
        return;
    buf_putc(w->b, w->depth <= JW_MAX_DEPTH ? w->close[w->depth] : '}');
    w->depth--;
    w->after_key = false;
}

/* A newline after a top-level value, and the next one starts a new line
** without a comma (JSON Lines: events, --json listings). */
static inline void jw_nl(JsonW *w)
{
    buf_putc(w->b, '\n');
    if (!w->depth)
        w->first[0] = true;
}

/* "key": -- key is a plain name, written as is. */
static inline void jw_key(JsonW *w, const char *key)
{
    jw_sep_(w);
    size_t n = strlen(key);
    if (buf_reserve(w->b, n + 3)) {
        unsigned char *p = w->b->data + w->b->len;
        p[0] = '"';
        memcpy(p + 1, key, n);
        p[n + 1] = '"';
        p[n + 2] = ':';
        w->b->len += n + 3;
    }
    w->after_key = true;
}

static inline void jw_str(JsonW *w, const char *s, size_t n)
{
    jw_sep_(w);
    buf_json_str(w->b, s, n);
}

/* A key that is text (a path, a name from the input), escaped; _lossy as
** jw_str_lossy. */
static inline void jw_key_str(JsonW *w, const char *s, size_t n)
{
    jw_str(w, s, n);
    buf_putc(w->b, ':');
    w->after_key = true;
}
static inline void jw_key_lossy(JsonW *w, const char *s, size_t n)
{
    jw_sep_(w);
    buf_json_str_lossy(w->b, s, n);
    buf_putc(w->b, ':');
    w->after_key = true;
}

static inline void jw_null(JsonW *w)
{
    jw_sep_(w);
    buf_put(w->b, "null", 4);
}

/* Any bytes: invalid UTF-8 becomes U+FFFD (program output, paths). */
static inline void jw_str_lossy(JsonW *w, const char *s, size_t n)
{
    jw_sep_(w);
    buf_json_str_lossy(w->b, s, n);
}

/* A string that can sit in an HTML <script> element: < > & escaped too. */
static inline void jw_str_html(JsonW *w, const char *s, size_t n)
{
    jw_sep_(w);
    buf_json_str_html(w->b, s, n);
}

/* s NULL: null */
static inline void jw_cstr(JsonW *w, const char *s)
{
    if (s)
        jw_str(w, s, strlen(s));
    else
        jw_null(w);
}

static inline void jw_u64(JsonW *w, uint64_t v)
{
    jw_sep_(w);
    buf_u64(w->b, v);
}

static inline void jw_i64(JsonW *w, int64_t v)
{
    if (v >= 0) {
        jw_u64(w, (uint64_t)v);
        return;
    }
    jw_sep_(w);
    buf_putc(w->b, '-');
    w->after_key = true;   /* the digits follow without a comma */
    jw_u64(w, (uint64_t)0 - (uint64_t)v);
}

static inline void jw_bool(JsonW *w, bool v)
{
    jw_sep_(w);
    buf_puts(w->b, v ? "true" : "false");
}

/* A value that is JSON already. */
static inline void jw_raw(JsonW *w, const char *json, size_t n)
{
    jw_sep_(w);
    buf_put(w->b, json, n);
}

/* The members of a compact JSON object text ("{...}", from another
** writer) into the object open in w; "{}" adds nothing. */
static inline void jw_members(JsonW *w, const char *obj, size_t n)
{
    if (n <= 2)
        return;
    jw_sep_(w);
    buf_put(w->b, obj + 1, n - 2);
}

/* A double as "%.17g" (it reads back the same); not finite: null, as JSON
** has no inf or nan. */
static inline void jw_f64(JsonW *w, double v)
{
    if (v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308) {
        jw_null(w);
        return;
    }
    char t[32];
    int n = snprintf(t, sizeof t, "%.17g", v);
    jw_raw(w, t, (size_t)n);
}

/* Before a value the caller appends to w->b itself (bc_val_json, ...). */
static inline void jw_value(JsonW *w) { jw_sep_(w); }

/* A 64-bit hash as a string of 16 lower-case hex digits ("%016llx"). */
static inline void jw_hex64(JsonW *w, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char t[18];
    t[0] = t[17] = '"';
    for (int i = 16; i >= 1; i--, v >>= 4)
        t[i] = hex[v & 15];
    jw_sep_(w);
    buf_put(w->b, t, sizeof t);
}

/* A string written in parts: jw_str_begin, any number of jw_str_part
** (each escaped), jw_str_end. */
static inline void jw_str_begin(JsonW *w)
{
    jw_sep_(w);
    buf_putc(w->b, '"');
}
static inline void jw_str_part(JsonW *w, const char *s, size_t n) { buf_json_esc(w->b, s, n); }
static inline void jw_str_end(JsonW *w) { buf_putc(w->b, '"'); }

/* key + value */
static inline void jw_kstr(JsonW *w, const char *key, const char *s, size_t n) { jw_key(w, key); jw_str(w, s, n); }
static inline void jw_kcstr(JsonW *w, const char *key, const char *s) { jw_key(w, key); jw_cstr(w, s); }
static inline void jw_ku64(JsonW *w, const char *key, uint64_t v) { jw_key(w, key); jw_u64(w, v); }
static inline void jw_ki64(JsonW *w, const char *key, int64_t v) { jw_key(w, key); jw_i64(w, v); }
static inline void jw_kbool(JsonW *w, const char *key, bool v) { jw_key(w, key); jw_bool(w, v); }
static inline void jw_knull(JsonW *w, const char *key) { jw_key(w, key); jw_null(w); }
static inline void jw_kraw(JsonW *w, const char *key, const char *json, size_t n) { jw_key(w, key); jw_raw(w, json, n); }
static inline void jw_kobj(JsonW *w, const char *key) { jw_key(w, key); jw_obj(w); }
static inline void jw_karr(JsonW *w, const char *key) { jw_key(w, key); jw_arr(w); }
static inline void jw_khex64(JsonW *w, const char *key, uint64_t v) { jw_key(w, key); jw_hex64(w, v); }
/* key, then a value the caller appends to w->b itself */
static inline void jw_kvalue(JsonW *w, const char *key) { jw_key(w, key); jw_value(w); }

#endif
