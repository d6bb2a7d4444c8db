/* SPDX-License-Identifier: MIT */
/* llm_toolres.c - tool results read from requests and compared with the
** scenario's expectations (llm_toolres.h). */
#include "llm_toolres.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "common/textdiff.h"
#include "formats/term/term_regex.h"

/* Text of a content value: a string, or an array of parts with "text"
** (joined with "\n"); anything else as JSON. */
static void content_text(const cJSON *c, Buf *out)
{
    if (cJSON_IsString(c)) {
        buf_puts(out, c->valuestring);
        return;
    }
    if (cJSON_IsArray(c)) {
        const cJSON *p;
        bool first = true;
        cJSON_ArrayForEach(p, c) {
            const cJSON *t = cJSON_IsString(p) ? p : cJSON_GetObjectItemCaseSensitive(p, "text");
            if (!cJSON_IsString(t))
                continue;
            if (!first)
                buf_putc(out, '\n');
            buf_puts(out, t->valuestring);
            first = false;
        }
        return;
    }
    if (c && !cJSON_IsNull(c)) {
        char *s = cJSON_PrintUnformatted(c);
        if (s) {
            buf_puts(out, s);
            cJSON_free(s);
        }
    }
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static LlmToolResult *next(LlmToolResult *out, size_t cap, size_t *n)
{
    if (*n >= cap)
        return NULL;
    LlmToolResult *r = &out[(*n)++];
    memset(r, 0, sizeof *r);
    buf_init(&r->text);
    r->is_error = -1;
    return r;
}

size_t llm_tool_results(const cJSON *j, LlmApi api, LlmToolResult *out, size_t cap)
{
    size_t n = 0;
    const cJSON *m, *b;
    switch (api) {
    case LLM_API_CHAT:
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "messages")) {
            const char *role = str_of(m, "role");
            LlmToolResult *r;
            if (!role || strcmp(role, "tool") != 0 || !(r = next(out, cap, &n)))
                continue;
            r->id = str_of(m, "tool_call_id");
            r->name = str_of(m, "name");
            content_text(cJSON_GetObjectItemCaseSensitive(m, "content"), &r->text);
        }
        break;
    case LLM_API_RESPONSES:
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "input")) {
            const char *type = str_of(m, "type");
            LlmToolResult *r;
            if (!type || strcmp(type, "function_call_output") != 0 || !(r = next(out, cap, &n)))
                continue;
            r->id = str_of(m, "call_id");
            content_text(cJSON_GetObjectItemCaseSensitive(m, "output"), &r->text);
        }
        break;
    case LLM_API_MESSAGES:
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "messages")) {
            cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(m, "content")) {
                const char *type = str_of(b, "type");
                LlmToolResult *r;
                if (!type || strcmp(type, "tool_result") != 0 || !(r = next(out, cap, &n)))
                    continue;
                r->id = str_of(b, "tool_use_id");
                content_text(cJSON_GetObjectItemCaseSensitive(b, "content"), &r->text);
                const cJSON *e = cJSON_GetObjectItemCaseSensitive(b, "is_error");
                r->is_error = cJSON_IsTrue(e) ? 1 : 0;
            }
        }
        break;
    case LLM_API_GEMINI: {
        const cJSON *last = NULL;
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "contents")) {
            cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(m, "parts")) {
                if (cJSON_GetObjectItemCaseSensitive(b, "functionResponse")) {
                    last = m;
                    break;
                }
            }
        }
        cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(last, "parts")) {
            const cJSON *fr = cJSON_GetObjectItemCaseSensitive(b, "functionResponse");
            LlmToolResult *r;
            if (!fr || !(r = next(out, cap, &n)))
                continue;
            r->id = str_of(fr, "id");
            r->name = str_of(fr, "name");
            const cJSON *resp = cJSON_GetObjectItemCaseSensitive(fr, "response");
            const cJSON *o = cJSON_GetObjectItemCaseSensitive(resp, "output"),
                        *e = cJSON_GetObjectItemCaseSensitive(resp, "error");
            if (e) {
                content_text(e, &r->text);
                r->is_error = 1;
            } else {
                content_text(o ? o : resp, &r->text);
                r->is_error = cJSON_IsObject(resp) ? 0 : -1;
            }
        }
        break;
    }
    case LLM_API_NONE:
        break;
    }
    return n;
}

void llm_tool_result_fini(LlmToolResult *r)
{
    buf_fini(&r->text);
}

/* s[0..n) with CRLF as LF and trailing whitespace removed, into out. */
static void norm(const char *s, size_t n, Buf *out)
{
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '\r' && i + 1 < n && s[i + 1] == '\n'))
            buf_putc(out, s[i]);
    while (out->len && strchr(" \t\r\n", out->data[out->len - 1]))
        out->len--;
}

static bool contains(const Buf *h, const Buf *nd)
{
    if (nd->len == 0)
        return true;
    if (nd->len > h->len)
        return false;
    for (size_t i = 0; i + nd->len <= h->len; i++)
        if (memcmp(h->data + i, nd->data, nd->len) == 0)
            return true;
    return false;
}

int llm_result_match(const BcProgram *p, const BcVal *v, const char *actual, size_t n, Buf *why)
{
    const char *mode = "contains";
    BcVal e = *v;
    if (v->tag == BC_V_MAP) {
        static const char *const modes[] = { "exact", "contains", "regex" };
        bool found = false;
        for (int i = 0; i < 3 && !found; i++)
            if (bc_val_get(p, v, modes[i], &e) && e.tag == BC_V_STR) {
                mode = modes[i];
                found = true;
            }
        if (!found || v->n != 1) {
            buf_puts(why, "an expected result is a string, or {exact: S}, {contains: S} or {regex: R}\n");
            return -1;
        }
    } else if (v->tag != BC_V_STR) {
        buf_puts(why, "an expected result is a string, or {exact: S}, {contains: S} or {regex: R}\n");
        return -1;
    }
    const BcStr *es = &p->str[e.n];
    Buf a, x;
    buf_init(&a);
    buf_init(&x);
    norm(actual, n, &a);
    norm(es->s, es->len, &x);
    int r;
    if (mode[0] == 'r') {
        char err[160];
        TermRegex *re = term_regex_new(es->s, es->len, err, sizeof err);
        if (!re) {
            buf_printf(why, "result regex '%s': %s\n", es->s, err);
            r = -1;
        } else {
            r = term_regex_search(re, a.data ? (const char *)a.data : "", a.len);
            term_regex_free(re);
            if (!r) {
                buf_printf(why, "the result does not match the regex %s; it was:\n", es->s);
                text_quote(why, "  ", (const char *)a.data, a.len);
            }
        }
    } else if (mode[0] == 'e') {
        r = a.len == x.len && (a.len == 0 || memcmp(a.data, x.data, a.len) == 0);
        if (!r)
            text_line_diff(why, (const char *)x.data, x.len, (const char *)a.data, a.len);
    } else {
        r = contains(&a, &x);
        if (!r) {
            buf_puts(why, "the result does not contain:\n");
            text_quote(why, "  ", (const char *)x.data, x.len);
            buf_puts(why, "it was:\n");
            text_quote(why, "  ", (const char *)a.data, a.len);
        }
    }
    buf_fini(&a);
    buf_fini(&x);
    return r;
}

int llm_result_is_error(const LlmToolResult *r, const char *pat)
{
    if (r->is_error >= 0)
        return r->is_error;
    if (!pat)
        return -1;
    char err[160];
    TermRegex *re = term_regex_new(pat, strlen(pat), err, sizeof err);
    if (!re)
        return -1;
    bool m = term_regex_search(re, r->text.data ? (const char *)r->text.data : "", r->text.len);
    term_regex_free(re);
    return m ? 1 : 0;
}
