/* SPDX-License-Identifier: MIT */
/* lsp.h - `scc --lsp`: the compiler as a language server (LSP 3.17) over
** a byte stream (docs/editors.md).
**
** Messages are framed by a `Content-Length` header; each body is a
** JSON-RPC 2.0 request or notification.  Documents are kept in memory as
** the client sends them (full or incremental changes), compiled by
** scc_compile() on every open, change and save, and their diagnostics
** published with the positions, rule ids and "did you mean" notes of
** `scc --check` (the notes as quick fixes); the resolved schedule is
** offered as code lenses and the files strings name as definitions.  Anything malformed (a bad
** header, a body that is not JSON, a request without a method, an unknown
** method) is answered with a JSON-RPC error and the server goes on; it
** never exits on input, only on `exit`. */
#ifndef SC_LSP_H
#define SC_LSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct Lsp Lsp;

typedef struct LspOpts {
    const char *dialect;    /* scc --dialect; NULL = by shape */
} LspOpts;

/* Answers and notifications are written, framed, to out (flushed after
** each message).  NULL when out of memory. */
Lsp *lsp_new(FILE *out, const LspOpts *o);
void lsp_free(Lsp *l);

/* Feeds n bytes of the client's stream; every complete message in what
** has arrived so far is handled.  Returns true while the server should
** go on reading, false once `exit` arrived (or memory ran out). */
bool lsp_feed(Lsp *l, const void *data, size_t n);

/* The exit status the protocol asks for: 0 after shutdown then exit, 1
** for an exit without shutdown or a stream that ended without either. */
int lsp_status(const Lsp *l);

/* Serves the stream on fd until `exit` or its end: lsp_status(). */
int lsp_serve(int fd, FILE *out, const LspOpts *o);

#endif
