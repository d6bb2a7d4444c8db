/* SPDX-License-Identifier: MIT */
/* term_regex.h - a small regular-expression engine that runs in linear
** time (Thompson NFA simulated Pike-VM style: no backtracking, so no
** ReDoS), for screen and line conditions.
**
** Syntax (a subset of Rust `regex`, which tui-use uses): literals, `.`,
** classes `[a-z]` `[^...]`, escapes `\d \w \s \D \W \S`, `\.` etc., the
** word boundaries `\b` and `\B` (ASCII word characters, as RE2 and
** JavaScript have them),
** groups `(...)` `(?:...)`, `|`, `* + ?`, `{m}` `{m,}` `{m,n}` (n <= 100),
** each lazy with a `?` after it (`*?`, `{m,n}?`),
** anchors `^ $` (start/end of text; of each line after a leading `(?m)`),
** `(?i)` for ASCII case-insensitivity.  Works on UTF-8 code points.
** Patterns are limited to 1000 bytes and 20000 compiled instructions. */
#ifndef SC_TERM_REGEX_H
#define SC_TERM_REGEX_H

#include <stdbool.h>
#include <stddef.h>

typedef struct TermRegex TermRegex;

/* Returns NULL and fills err (e.g. "unbalanced ')' at offset 3"). */
TermRegex *term_regex_new(const char *pat, size_t len, char *err, size_t errlen);
void term_regex_free(TermRegex *re);
/* True when the pattern matches anywhere in text. */
bool term_regex_search(const TermRegex *re, const char *text, size_t len);
/* The leftmost match in text at or after byte `from` (a code point's
** first byte; `^` still means the start of text), and of the matches
** starting there the one Rust's regex reports (leftmost-first: greedy
** quantifiers take the most, lazy ones `*?` the least, `a|ab` takes a):
** [*start, *end) in bytes.  Returns 1, 0 for no match, -1 when out of
** memory.  Linear in the text, like term_regex_search. */
int term_regex_find(const TermRegex *re, const char *text, size_t len, size_t from, size_t *start, size_t *end);

#endif
