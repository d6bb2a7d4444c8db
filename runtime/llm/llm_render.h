/* SPDX-License-Identifier: MIT */
/* llm_render.h - one scripted response rendered as the bytes an API sends.
**
** The result is a plan (runtime/http/http_plan.h): the full HTTP response
** (head and body) in one buffer, cut into items, each due at a time (ms
** after the request was taken, already scaled by the speed).  The
** encoders here are plain functions of (script, response, attempt,
** request), which is what makes every id, signature and byte
** deterministic.
**
** Wire formats: ../shared/notes/mock-protocols.md §1 (Chat Completions), §3
** (Responses), §4 (Anthropic Messages); Gemini's generateContent as
** docs/serve-llm.md records it; docs/serve-llm.md the mapping. */
#ifndef SC_LLM_RENDER_H
#define SC_LLM_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "runtime/http/http_plan.h"
#include "llm_script.h"

typedef enum LlmApi {
    LLM_API_CHAT,       /* OpenAI POST /v1/chat/completions */
    LLM_API_RESPONSES,  /* OpenAI POST /v1/responses */
    LLM_API_MESSAGES,   /* Anthropic POST /v1/messages */
    LLM_API_GEMINI,     /* Google POST /v1beta/models/M:generateContent, :streamGenerateContent */
    LLM_API_NONE,       /* anything else (errors use the OpenAI shape) */
} LlmApi;

/* A tool call as the agent's profile renders it (agent_profile.h). */
typedef struct LlmToolCall {
    BcStr name;
    const char *args;          /* JSON object text */
    size_t args_len;
} LlmToolCall;

/* What the renderer needs to know about the request. */
typedef struct LlmRenderReq {
    LlmApi api;
    bool stream;
    bool include_usage;        /* chat: stream_options.include_usage */
    bool gemini_array;         /* Gemini stream without alt=sse: one JSON array, paced */
    bool include_thoughts;     /* Gemini: generationConfig.thinkingConfig.includeThoughts */
    const char *model;         /* the request's "model", or NULL */
    size_t model_len;
    uint64_t input_tokens;     /* estimate from the request, when _meta gives none */
    double speed;              /* 0 = everything at once */
    bool keep_alive;
    const char *extra_headers; /* "Name: value\r\n"..., or NULL */
    const LlmToolCall *calls;  /* the calls as the agent's (n_calls: the response's n_tools tool
                               ** uses, then its agentEdits), or NULL: the tool uses as scripted */
    uint32_t n_calls;
} LlmRenderReq;

/* Renders attempt `attempt` of response `ri` of s.  Returns 0 or ENOMEM. */
int llm_render(const LlmScript *s, uint32_t ri, uint32_t attempt, const LlmRenderReq *q, HttpPlan *p);

/* The id of tool call k of response ri as api sends it (the scripted
** toolCallId, else derived; k >= n_tools: agentEdits call k - n_tools):
** what the agent's tool result refers to. */
void llm_tool_call_id(const LlmScript *s, uint32_t ri, uint32_t k, LlmApi api, char *out, size_t cap);

/* Renders the server's own error (no script involved): status, the API's
** error body with `type` (NULL = derived from status) and msg. */
int llm_render_error(LlmApi api, int status, const char *type, const char *msg,
                     const LlmRenderReq *q, const char *request_id, HttpPlan *p);

/* Renders a plain 200 JSON body (health, models). */
int llm_render_json(const char *json, size_t len, bool keep_alive, HttpPlan *p);

/* The scaled time of unscaled t: 0 when speed is 0 (everything at once),
** else rt_clock_scale(t, speed), the one rule of scvm run: round(t * X)
** with X below 0.01 counted as 0.01. */
uint64_t llm_scale(uint64_t t, double speed);

/* Deterministic ids: prefix + n characters of [0-9A-Za-z] derived from
** the parts (FNV-1a 64 chained).  Writes a NUL-terminated string. */
void llm_make_id(char *out, size_t cap, const char *prefix, size_t n,
                 const char *scenario, const char *kind, uint64_t a, uint64_t b);

#endif
