/* SPDX-License-Identifier: MIT */
/* fuzz_lsp.c - libFuzzer target: `scc --lsp` (compiler/lsp.h) from the
** client's raw bytes: framing, JSON-RPC, documents opened and changed
** (whole or by ranges), compiled and their diagnostics published, quick
** fixes, shutdown and exit.
**
** Each input is a client's stream after an `initialize` the target sends
** first (so documents get compiled); the first byte chooses the size of
** the pieces it arrives in (1 to 64 bytes, or whole), as a pipe delivers
** it.  Besides crashes and sanitizer reports, a finding is output that is
** not a sequence of frames `Content-Length: N\r\n\r\n` + N bytes of one
** JSON object, or a server that asks to stop without `exit`.
**
** Built with -DSCC_FUZZ=ON (clang).  Seeds and findings live in
** tests/fuzz/lsp-corpus/, replayed under ctest. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char INIT[] = "Content-Length: 58\r\n\r\n"
                           "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}";

/* Every byte of out is a frame holding one JSON object. */
static void check_frames(const char *out, size_t n)
{
    size_t off = 0;
    while (off < n) {
        static const char pre[] = "Content-Length: ";
        if (n - off < sizeof pre - 1 || memcmp(out + off, pre, sizeof pre - 1) != 0)
            abort();
        char *end;
        unsigned long long len = strtoull(out + off + sizeof pre - 1, &end, 10);
        if (end > out + n - 4 || memcmp(end, "\r\n\r\n", 4) != 0)
            abort();
        size_t body = (size_t)(end + 4 - out);
        if (len > n - body)
            abort();
        cJSON *j = cJSON_ParseWithLength(out + body, (size_t)len);
        if (!cJSON_IsObject(j))
            abort();
        cJSON_Delete(j);
        off = body + (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *out = NULL;
    size_t out_n = 0;
    FILE *f = open_memstream(&out, &out_n);
    if (!f)
        abort();
    Lsp *l = lsp_new(f, NULL);
    if (!l)
        abort();
    bool go = lsp_feed(l, INIT, sizeof INIT - 1);
    size_t piece = size ? (data[0] % 65 ? data[0] % 65 : size) : 1;
    const uint8_t *p = size ? data + 1 : data;
    size_t left = size ? size - 1 : 0;
    while (go && left) {
        size_t k = left < piece ? left : piece;
        go = lsp_feed(l, p, k);
        p += k;
        left -= k;
    }
    /* it stops only on exit: the input must have said it */
    bool said = false;
    for (size_t i = 0; i + 4 <= size && !said; i++)
        said = memcmp(data + i, "exit", 4) == 0;
    if (!go && !said)
        abort();
    lsp_free(l);
    fclose(f);
    check_frames(out, out_n);
    free(out);
    return 0;
}
