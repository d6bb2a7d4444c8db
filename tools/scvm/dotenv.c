/* SPDX-License-Identifier: MIT */
/* dotenv.c - `--env-file FILE` (elizaos scenario run --env-file): the
** variables of a .env file, read as the dotenv package ElizaOS uses reads
** them: KEY=VALUE or KEY: VALUE, an optional `export ` prefix, `#`
** comments (a line's, or after an unquoted value), values in '', "" or ``
** (which may span lines; in "" \n and \r are a newline and a return),
** unquoted values trimmed, lines that are none of these ignored, and a
** variable already set left as it is (dotenv's default, override off). */
#include "scvm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"

enum { ENV_FILE_MAX = 1 << 20 };

static int is_key(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

int scvm_env_file(const char *path, unsigned *n_set)
{
    char *text;
    size_t len;
    int err = file_read_all(path, ENV_FILE_MAX, &text, &len);
    if (err) {
        fprintf(stderr, "scvm: --env-file %s: cannot read: %s\n", path, strerror(err));
        return SC_IO;
    }
    if (memchr(text, '\0', len)) {
        fprintf(stderr, "scvm: --env-file %s: not a text file (a NUL byte)\n", path);
        sc_free(text);
        return SC_IO;
    }
    unsigned set = 0;
    char *p = text, *end = text + len;
    while (p < end) {
        while (p < end && (is_blank(*p) || *p == '\r' || *p == '\n'))
            p++;
        if (p + 7 <= end && !memcmp(p, "export", 6) && is_blank(p[6])) {
            p += 6;
            while (p < end && is_blank(*p))
                p++;
        }
        char *key = p;
        while (p < end && is_key(*p))
            p++;
        size_t klen = (size_t)(p - key);
        while (p < end && is_blank(*p))
            p++;
        int ok = klen > 0 && p < end && (*p == '=' || (*p == ':' && p + 1 < end && is_blank(p[1])));
        if (!ok) {   /* not an assignment: the rest of the line is ignored */
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        p++;
        while (p < end && is_blank(*p))
            p++;
        /* dotenv's line: a quoted value (to its first unescaped closing
        ** quote, which only blanks or a comment may follow), else the rest
        ** of the line up to a '#'; trimmed, its outer quotes removed */
        char *val = p, *vend = NULL;
        char q = p < end ? *p : 0;
        if (q == '\'' || q == '"' || q == '`') {
            char *s = p + 1;
            while (s < end && *s != q)
                s += (*s == '\\' && s + 1 < end && s[1] == q) ? 2 : 1;
            if (s < end) {
                char *r = s + 1;
                while (r < end && is_blank(*r))
                    r++;
                if (r >= end || *r == '\n' || *r == '\r' || *r == '#') {
                    vend = s + 1;
                    p = r;
                }
            }
        }
        if (!vend) {
            while (p < end && *p != '\n' && *p != '\r' && *p != '#')
                p++;
            vend = p;
            while (vend > val && is_blank(vend[-1]))
                vend--;
        }
        while (p < end && *p != '\n')
            p++;
        q = vend - val >= 2 && (*val == '\'' || *val == '"' || *val == '`') && vend[-1] == *val ? *val : 0;
        if (q)
            val++, vend--;
        /* the value, unescaped as dotenv does it in "" */
        char *v = sc_malloc((size_t)(vend - val) + 1);
        if (!v) {
            sc_free(text);
            fprintf(stderr, "scvm: --env-file %s: out of memory\n", path);
            return SC_RUNTIME;
        }
        size_t n = 0;
        for (char *s = val; s < vend; s++) {
            if (q == '"' && *s == '\\' && s + 1 < vend && (s[1] == 'n' || s[1] == 'r')) {
                v[n++] = s[1] == 'n' ? '\n' : '\r';
                s++;
            } else {
                v[n++] = *s;
            }
        }
        v[n] = 0;
        char k[256];
        if (klen < sizeof k) {
            memcpy(k, key, klen);
            k[klen] = 0;
            if (!getenv(k)) {
                if (setenv(k, v, 0) != 0) {
                    fprintf(stderr, "scvm: --env-file %s: cannot set %s: %s\n", path, k, strerror(errno));
                    sc_free(v);
                    sc_free(text);
                    return SC_RUNTIME;
                }
                set++;
            }
        } else {
            fprintf(stderr, "scvm: --env-file %s: warning: a variable name over %zu bytes is ignored\n", path,
                    sizeof k - 1);
        }
        sc_free(v);
    }
    sc_free(text);
    if (n_set)
        *n_set = set;
    return SC_OK;
}
