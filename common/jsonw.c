/* jsonw.c - the JSON writer (jsonw.h). */
#include "jsonw.h"

#include <inttypes.h>
#include <string.h>

void jw_init(JsonW *w, Buf *b)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->first[0] = true;
}

/* The comma before a value or key, if it is not the first of its container. */
static void sep(JsonW *w)
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

static void open_container(JsonW *w, char o, char c)
{
    sep(w);
    buf_putc(w->b, o);
    w->depth++;
    if (w->depth <= JW_MAX_DEPTH) {
        w->first[w->depth] = true;
        w->close[w->depth] = c;
    }
}

void jw_obj(JsonW *w)
{
    open_container(w, '{', '}');
}

void jw_arr(JsonW *w)
{
    open_container(w, '[', ']');
}

void jw_end(JsonW *w)
{
    if (!w->depth)
        return;
    buf_putc(w->b, w->depth <= JW_MAX_DEPTH ? w->close[w->depth] : '}');
    w->depth--;
    w->after_key = false;
}

void jw_key(JsonW *w, const char *key)
{
    sep(w);
    buf_putc(w->b, '"');
    buf_puts(w->b, key);
    buf_puts(w->b, "\":");
    w->after_key = true;
}

void jw_str(JsonW *w, const char *s, size_t n)
{
    sep(w);
    buf_json_str(w->b, s, n);
}

void jw_cstr(JsonW *w, const char *s)
{
    if (s)
        jw_str(w, s, strlen(s));
    else
        jw_null(w);
}

void jw_u64(JsonW *w, uint64_t v)
{
    sep(w);
    buf_printf(w->b, "%" PRIu64, v);
}

void jw_i64(JsonW *w, int64_t v)
{
    sep(w);
    buf_printf(w->b, "%" PRId64, v);
}

void jw_bool(JsonW *w, bool v)
{
    sep(w);
    buf_puts(w->b, v ? "true" : "false");
}

void jw_null(JsonW *w)
{
    sep(w);
    buf_puts(w->b, "null");
}

void jw_raw(JsonW *w, const char *json, size_t n)
{
    sep(w);
    buf_put(w->b, json, n);
}

void jw_value(JsonW *w)
{
    sep(w);
}

void jw_str_begin(JsonW *w)
{
    sep(w);
    buf_putc(w->b, '"');
}

void jw_str_part(JsonW *w, const char *s, size_t n)
{
    buf_json_esc(w->b, s, n);
}

void jw_str_end(JsonW *w)
{
    buf_putc(w->b, '"');
}

void jw_kstr(JsonW *w, const char *key, const char *s, size_t n)
{
    jw_key(w, key);
    jw_str(w, s, n);
}

void jw_kcstr(JsonW *w, const char *key, const char *s)
{
    jw_key(w, key);
    jw_cstr(w, s);
}

void jw_ku64(JsonW *w, const char *key, uint64_t v)
{
    jw_key(w, key);
    jw_u64(w, v);
}

void jw_ki64(JsonW *w, const char *key, int64_t v)
{
    jw_key(w, key);
    jw_i64(w, v);
}

void jw_kbool(JsonW *w, const char *key, bool v)
{
    jw_key(w, key);
    jw_bool(w, v);
}

void jw_knull(JsonW *w, const char *key)
{
    jw_key(w, key);
    jw_null(w);
}

void jw_kraw(JsonW *w, const char *key, const char *json, size_t n)
{
    jw_key(w, key);
    jw_raw(w, json, n);
}

void jw_kobj(JsonW *w, const char *key)
{
    jw_key(w, key);
    jw_obj(w);
}

void jw_karr(JsonW *w, const char *key)
{
    jw_key(w, key);
    jw_arr(w);
}
