/* llm_route.h - choosing a scenario for a request: Levenshtein distance
** and the text a request is matched on.  Pure functions, unit-tested. */
#ifndef SC_LLM_ROUTE_H
#define SC_LLM_ROUTE_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;

/* Compared prefixes are cut at this many code points, so matching a long
** conversation against a pack stays cheap (a prompt longer than this is
** still matched on its beginning). */
enum { LLM_LEV_MAX = 1024 };

/* Levenshtein distance over Unicode code points (case-sensitive, no
** normalisation), as the reference matcher computes it.  Invalid UTF-8
** bytes count as one code point each.  Both inputs are cut at LLM_LEV_MAX
** code points, then compared by text_levenshtein (common/levenshtein.h). */
size_t llm_levenshtein(const char *a, size_t an, const char *b, size_t bn);

/* The text of the last user message of a request body that carries text:
** Chat Completions `messages`, Anthropic `messages` (string content or
** text blocks; tool_result blocks skipped) or Responses `input` (a
** string, or items with input_text parts).  Several text parts of one
** message are joined with "\n" into out (cap bytes, NUL-terminated,
** truncated at a character boundary).  Returns the length, 0 when none. */
size_t llm_last_user_text(const struct cJSON *body, char *out, size_t cap);

#endif
