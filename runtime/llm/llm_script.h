/* SPDX-License-Identifier: MIT */
/* llm_script.h - a verified program seen as the mock LLM server sees it:
** the list of responses it scripts, in order.
**
** One response per llmResponse (LLM_BEGIN .. LLM_END): its think, assistant
** and error steps, the agentToolUse events that follow it (TOOL_START ops
** up to the next llmResponse or user action: they become the response's
** tool calls), and the assert events placed before it (ASSERT ops since the
** previous response: they are checked before it is sent).  A tool use that
** follows no llmResponse (first in the timeline, or after a user action)
** gets a response of its own with only tool calls.
**
** Errors: the error elements an llmResponse starts with are answered one
** per request (the SDKs' retries are scripted this way: one 429, then the
** content); an error after content is an in-band (mid-stream) error.  So a
** response has n_lead_errors + 1 "attempts" (n_lead_errors when there is
** nothing after the errors).
**
** Faults: _meta.response.fault (cut, reset, refuse) makes the response's
** content attempt a network fault; it answers one request, like an error
** element (docs/serve-llm.md, "Faults", has the full mapping). */
#ifndef SC_LLM_SCRIPT_H
#define SC_LLM_SCRIPT_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/bc.h"
#include "runtime/player.h"

typedef enum LlmFault {
    LLM_FAULT_NONE,
    LLM_FAULT_CUT,      /* the stream starts, then the connection closes before its end */
    LLM_FAULT_RESET,    /* the connection is reset before any byte of the answer */
    LLM_FAULT_REFUSE,   /* reset, and new connections are refused for a while */
    LLM_FAULT_UNKNOWN,  /* a fault value the server does not know: an error when served */
} LlmFault;

typedef struct LlmResp {
    uint64_t t0;              /* unscaled time of the LLM_BEGIN (or tool) */
    uint64_t dur;             /* LLM_END time - t0: when the message ends */
    uint32_t meta;            /* K: the llmResponse _meta (or a null value) */
    bool has_meta;
    uint32_t step0, n_steps;  /* into LlmScript.steps: THINK/ASSISTANT/LLM_ERROR insns */
    uint32_t n_lead_errors;   /* steps[step0 .. step0+n_lead_errors) are errors */
    uint32_t tool0, n_tools;  /* into LlmScript.tools: TOOL_START insns */
    uint32_t edit0, n_edits;  /* into LlmScript.edits: FILE_EDIT insns (agentEdits) after it */
    uint32_t assert0, n_asserts; /* into LlmScript.asserts: ASSERT insns before it */
    uint32_t n_attempts;      /* requests this response answers (>= 1) */
    LlmFault fault;           /* _meta.response.fault, for the content attempt */
    uint32_t line;            /* source line of the llmResponse (0 = unknown) */
} LlmResp;

typedef struct LlmScript {
    const BcProgram *prog;    /* not owned */
    const char *name;         /* the scenario name (in prog's pool) */
    const char *prompt;       /* effective initial prompt, or NULL */
    uint32_t prompt_len;
    bool coalesce;            /* server.coalesceThinkingWithToolUse (default true) */
    LlmResp *resp;
    uint32_t n_resp;
    uint32_t *steps, *tools, *asserts, *edits;  /* insn indices */
    uint32_t assert_tail0, n_assert_tail; /* asserts after the last response */
} LlmScript;

/* Builds the response list of a verified program.  Returns 0, or ENOMEM. */
int llm_script_init(LlmScript *s, const BcProgram *prog);
void llm_script_fini(LlmScript *s);

/* _meta lookups on a response: "response.model" (string) and the integer
** keys "response.tokens" / "response.inputTokens".  Return false when
** absent or of another type. */
bool llm_resp_meta_str(const LlmScript *s, const LlmResp *r, const char *key,
                       const char **str, uint32_t *len);
bool llm_resp_meta_int(const LlmScript *s, const LlmResp *r, const char *key, int64_t *out);

/* "cut", "reset", "refuse"; "" for LLM_FAULT_NONE, "unknown". */
const char *llm_fault_name(LlmFault f);

/* The walk's op table (runtime/player.h): for the coverage test. */
extern const Player llm_script_player;

#endif
