/* SPDX-License-Identifier: MIT */
/* textdiff.h - how every check shows text that differs: a line diff of
** expected and actual (the tool results of the mock LLM server, the
** answers of an ACP client), and quoted text, both bounded so a huge text
** gives a readable message. */
#ifndef SC_TEXTDIFF_H
#define SC_TEXTDIFF_H

#include <stddef.h>

#include "buf.h"

/* Appends t[0..n), each line prefixed with pfx, at most 40 lines of at
** most 300 bytes, then "... (N more bytes)".  t (and a, b below) may be
** NULL with a length of 0: an empty Buf's data. */
void text_quote(Buf *out, const char *pfx, const char *t, size_t n);

/* Appends "--- expected\n+++ actual\n", then the lines of a (expected) and
** b (actual) between their common head and tail, as - and + lines. */
void text_line_diff(Buf *out, const char *a, size_t na, const char *b, size_t nb);

#endif
