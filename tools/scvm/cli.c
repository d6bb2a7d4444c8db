/* SPDX-License-Identifier: MIT */
/* cli.c - option parsing and output helpers shared by scvm's commands. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "vm/vm.h"

int cli_usage(const char *usage_text, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scvm: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    fputs(usage_text, stderr);
    return SC_USAGE;
}

int cli_opt_value(int argc, char **argv, int *i, const char *s, const char *l, const char **val,
                  const char *usage_text)
{
    const char *a = argv[*i];
    size_t ln = strlen(l);
    if ((s && strcmp(a, s) == 0) || strcmp(a, l) == 0) {
        if (*i + 1 >= argc) {
            cli_usage(usage_text, "option '%s' needs a value", a);
            return -1;
        }
        *val = argv[++*i];
        return 1;
    }
    if (strncmp(a, l, ln) == 0 && a[ln] == '=') {
        *val = a + ln + 1;
        return 1;
    }
    if (s && strncmp(a, s, 2) == 0 && a[1] != '-' && a[2]) {
        *val = a + 2;
        return 1;
    }
    return 0;
}

bool cli_parse_u64(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-' || *s == '+')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return false;
    *out = v;
    return true;
}

bool cli_parse_uint(const char *s, unsigned max, unsigned *out)
{
    unsigned long long v;
    if (!cli_parse_u64(s, max, &v))
        return false;
    *out = (unsigned)v;
    return true;
}

bool cli_parse_speed(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v) || v < 0 || s[0] == '-')
        return false;
    *out = v;
    return true;
}

const char *cli_display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

int cli_put_stdout(const Buf *b)
{
    if (b->oom) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    if (b->len && fwrite(b->data, 1, b->len, stdout) != b->len) {
        fprintf(stderr, "scvm: <stdout>: cannot write: %s\n", strerror(errno));
        return SC_IO;
    }
    return 0;
}

int cli_put_output(const char *path, const Buf *b)
{
    if (!path || strcmp(path, "-") == 0)
        return cli_put_stdout(b);
    if (b->oom) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    int e = file_write_atomic(path, b->data ? (const void *)b->data : "", b->len);
    if (e) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", path, strerror(e));
        return SC_IO;
    }
    return 0;
}
