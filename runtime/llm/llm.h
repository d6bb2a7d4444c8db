/* SPDX-License-Identifier: MIT */
/* llm.h - the mock LLM API server behind `scvm serve llm`.
**
** Serves the llmResponse events of verified programs over HTTP/1.1 as the
** OpenAI (Chat Completions, Responses) and Anthropic (Messages) APIs do,
** streamed or whole, paced by the compiled times.  One thread, one poll(2)
** loop, non-blocking sockets: a slow or vanished client never blocks the
** others.  It is not an RtTarget: playback here is pulled by requests, one
** response per request, not pushed by a clock.  docs/serve-llm.md is the
** user's reference. */
#ifndef SC_LLM_H
#define SC_LLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/bc.h"
#include "formats/suite.h"

typedef struct LlmServeOpts {
    const char *host;         /* address or host name to bind (http_server_listen); NULL = 127.0.0.1 */
    const char *port;         /* NULL or "0" = an ephemeral port */
    double speed;             /* time multiplier; 0 = send everything at once */
    const char *workspace;    /* where assert paths are resolved; NULL = cwd */
    bool strict_tools;        /* reject requests that lack the scripted tools */
    bool loop;                /* an exhausted session starts over */
    bool quiet;               /* no per-request log lines */
    bool log_json;            /* log lines as JSON objects (--log-format json) */
    size_t max_body;          /* request body limit (413 above); 0 = 16 MiB */
    unsigned max_conns;       /* simultaneous connections; 0 = 4096 (runtime/http/http_server.h) */
    unsigned timeout_ms;      /* a stalled request body or answer; 0 = 60 s */
    unsigned head_timeout_ms; /* a request head's first byte to its end (408 after); 0 = 10 s */
    unsigned idle_timeout_ms; /* nothing in flight; 0 = 15 s */
    FILE *log;                /* log and summary; NULL = none (the library never prints) */
    /* The entries served (indices into the suite; not owned), or NULL for
    ** all: scvm serve -D chooses variants this way. */
    const uint32_t *only;
    size_t n_only;
    /* Agent profiles (runtime/agent/agent_profile.h; not owned), or none.
    ** With one, every session speaks its tool vocabulary: the scenario's
    ** tools (runCmd, editFile, ...) are sent as the agent's, the tools a
    ** request declares are compared with the profile's `declares`, and the
    ** tool results the agent sends back with the scenario's `result` and
    ** `status`.  With several (--agent auto), each session's profile is
    ** detected from the tools its first request declares. */
    struct AgentProfile *const *profiles;
    size_t n_profiles;
    /* Called on the server's thread with one JSON object per thing that
    ** happened (docs/real-agents.md, "Events"): a response chosen for a
    ** request, a tool result checked, a strict-tools rejection. */
    void (*on_event)(void *ctx, const char *json, size_t len);
    void *event_ctx;
    bool no_signals;          /* leave signals alone: stopped by http_server_stop */
} LlmServeOpts;

typedef struct LlmServer LlmServer;

/* Builds a server for the scenarios of suite (formats/suite.h; not
** owned: it must outlive the server), in suite order (the order breaks
** Levenshtein ties and is the order of `GET /v1/models`).  Requests are
** routed by name with suite_find_n and by prompt with suite_best_prompt,
** as scvm --scenario and --prompt select.  Returns NULL with *err = ENOMEM,
** or EINVAL for an empty suite (or an empty `only`). */
LlmServer *llm_server_new(const Suite *suite, const LlmServeOpts *o, int *err);

/* Binds and listens.  Writes "ADDR:PORT" (the actual port) to bound.
** Returns 0 or an errno (EADDRINUSE, EADDRNOTAVAIL, EINVAL for a host that
** is not a numeric IPv4/IPv6 address, ...). */
int llm_server_listen(LlmServer *s, char *bound, size_t cap);

/* Its HTTP server: served by the reactor's own calls (runtime/http/
** http_server.h): http_server_run (until SIGINT, SIGTERM or SIGHUP, or
** http_server_stop, which is async-signal-safe), http_server_run_many with
** other servers, and without a listener, for tests and the fuzz targets,
** http_server_adopt and http_server_run_until_idle. */
struct HttpServer *llm_server_http(LlmServer *s);

/* Runs the assertions that follow the last response of every session
** that reached it, prints the summary to the log, and returns the exit
** status: 0, or 1 when an assertion failed, a request was rejected by
** strict tools mode, or (without loop) a session ended short of its
** scenario's last response or no request reached any scenario: the
** summary then ends "INCOMPLETE". */
int llm_server_finish(LlmServer *s);

/* Before serving: maps every scripted tool call of the served scenarios
** with the single profile (o->profiles[0] when n_profiles is 1), so a
** call the profile cannot map (a missing argument) is an error before any
** agent starts.  Returns 0, or EINVAL with the reason (scenario, source
** line, tool, what is missing) in err. */
int llm_server_check_tools(const LlmServer *s, char *err, size_t cap);

/* Counts for a caller's verdict (scvm run -t agent). */
typedef struct LlmServerCounts {
    uint64_t requests, scripted, strict, tool_checked, tool_mismatched, tools_unexpected, tools_missing;
    uint32_t served_sessions, responses_total, responses_served;
    unsigned asserts_passed, asserts_failed;
} LlmServerCounts;
void llm_server_counts(const LlmServer *s, LlmServerCounts *out);

void llm_server_free(LlmServer *s);

#endif
