/* SPDX-License-Identifier: MIT */
/* llm_route.h - the text a request is matched on (the matching itself is
** formats/suite.h's suite_best_prompt).  A pure function, unit-tested. */
#ifndef SC_LLM_ROUTE_H
#define SC_LLM_ROUTE_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;

/* The text of the last user message of a request body that carries text:
** Chat Completions `messages`, Anthropic `messages` (string content or
** text blocks; tool_result blocks skipped), Responses `input` (a
** string, or items with input_text parts) or Gemini `contents` (parts with
** text; functionResponse parts and thoughts skipped; a missing role is the
** user's).  Several text parts of one
** message are joined with "\n" into out (cap bytes, NUL-terminated,
** truncated at a character boundary).  Returns the length, 0 when none. */
size_t llm_last_user_text(const struct cJSON *body, char *out, size_t cap);

#endif
