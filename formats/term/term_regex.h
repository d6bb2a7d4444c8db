/* term_regex.h - a small regular-expression engine that runs in linear
** time (Thompson NFA simulated Pike-VM style: no backtracking, so no
** ReDoS), for screen and line conditions.
**
** Syntax (a subset of Rust `regex`, which tui-use uses): literals, `.`,
** classes `[a-z]` `[^...]`, escapes `\d \w \s \D \W \S \b`-free, `\.` etc.,
** groups `(...)` `(?:...)`, `|`, `* + ?`, `{m}` `{m,}` `{m,n}` (n <= 100),
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

#endif
