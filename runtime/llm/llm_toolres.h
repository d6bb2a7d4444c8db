/* SPDX-License-Identifier: MIT */
/* llm_toolres.h - the tool results an agent sends back, read from its
** request, and their comparison with what the scenario expects
** (agentToolUse `result` and `status`).  Pure functions, unit-tested.
**
** Where each API carries a result: Chat Completions `messages[]` with
** role "tool" (`tool_call_id`, `content`); Responses `input[]` items of
** type "function_call_output" (`call_id`, `output`); Anthropic `messages[]`
** content blocks of type "tool_result" (`tool_use_id`, `content`,
** `is_error`); Gemini the `functionResponse` parts of the last content that
** has any (`name`, `response.output` or `response.error`).  Content given
** as an array of text parts is joined with "\n". */
#ifndef SC_LLM_TOOLRES_H
#define SC_LLM_TOOLRES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "formats/bc.h"
#include "llm_render.h"

struct cJSON;

typedef struct LlmToolResult {
    const char *id;         /* the call id it answers, or NULL (Gemini without ids) */
    const char *name;       /* the tool's name when the API gives it, or NULL */
    Buf text;               /* the result's text */
    int is_error;           /* 1 or 0 when the API says, -1 when it does not */
} LlmToolResult;

/* The tool results in request body j (not copied: j must outlive them),
** at most cap, in request order.  Returns how many; free each with
** llm_tool_result_fini. */
size_t llm_tool_results(const struct cJSON *j, LlmApi api, LlmToolResult *out, size_t cap);
void llm_tool_result_fini(LlmToolResult *r);

/* Compares the actual result text with the expected value v of program p:
** a string must occur in it (both with CRLF as LF); {exact: S} must equal
** it (trailing whitespace aside), {contains: S} occur in it, {regex: R}
** match somewhere in it (formats/term/term_regex.h).  Returns 1 when it
** matches, 0 when it does not (what differs appended to why: a line diff
** for exact, else the expectation and the actual text), -1 when v is not
** an expectation (why says so). */
int llm_result_match(const BcProgram *p, const BcVal *v, const char *actual, size_t n, Buf *why);

/* Whether a result marks an error: the API's flag, else errorPattern
** (a regex, or NULL) on the text.  -1: unknown. */
int llm_result_is_error(const LlmToolResult *r, const char *error_pattern);

#endif
