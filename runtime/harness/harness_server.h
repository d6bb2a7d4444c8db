/* SPDX-License-Identifier: MIT */
/* harness_server.h - the harness event server (`scvm serve harness`,
** docs/serve-harness.md): the HTTP contract of the Go harness a terminal
** UI talks to (GET /events as Server-Sent Events, POST /prompt, POST
** /cancel; notes/mock-protocols.md section 8), played from a suite's
** scenarios instead of a live model, on the shared HTTP loop
** (runtime/http/).
**
** A prompt plays the next turn of the conversation's scenario (chosen by
** the first prompt: --scenario, or the nearest effective initial prompt;
** the turns of runtime/scn_turns.h) at its compiled times scaled by speed,
** broadcast to every subscriber as the harness's events: user, status,
** reasoning, text, tool_call, tool_result.  Timestamps come from the
** scenario's clock unless wall_clock is set, so the stream is the same on
** every run. */
#ifndef SC_HARNESS_SERVER_H
#define SC_HARNESS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/suite.h"
#include "runtime/player.h"

typedef struct HarnessOpts {
    const char *host, *port;    /* NULL: 127.0.0.1, 8080 */
    double speed;               /* multiplies scripted times; 0 = at once */
    const uint32_t *only;       /* the candidate entries (NULL: all); must outlive the server */
    size_t n_only;
    unsigned heartbeat_ms;      /* ": heartbeat" comments; 0 = 30000 */
    bool wall_clock;            /* timestamps: Unix seconds now, not the scenario's */
    bool quiet;                 /* no per-request log lines */
    FILE *log;                  /* NULL = stderr */
    size_t max_body;            /* 0: the HTTP layer's defaults */
    unsigned max_conns, timeout_ms, head_timeout_ms, idle_timeout_ms;
    bool no_signals;            /* leave signals alone: stopped by harness_server_stop */
} HarnessOpts;

typedef struct HarnessCounts {
    unsigned requests, prompts, busy, cancels, events, heartbeats;
    unsigned subscribers, max_subscribers;
} HarnessCounts;

typedef struct HarnessServer HarnessServer;

/* NULL when out of memory (*err ENOMEM). */
HarnessServer *harness_server_new(const Suite *s, const HarnessOpts *o, int *err);
void harness_server_free(HarnessServer *h);
/* As http_server_listen. */
int harness_server_listen(HarnessServer *h, char *bound, size_t cap);
/* Its HTTP server, served by the reactor's own calls, as llm_server_http's. */
struct HttpServer *harness_server_http(HarnessServer *h);
void harness_server_counts(const HarnessServer *h, HarnessCounts *c);

/* The harness server's op table (runtime/player.h): for the coverage test. */
extern const Player harness_player;

#endif
