/* SPDX-License-Identifier: MIT */
/* rest_server.h - the Agent Harbor REST mock (`scvm serve rest`,
** docs/serve-rest.md): the subset of the Agent Harbor REST API
** (specs/Public/REST-Service/API.md) a UI watching sessions uses, for the
** Scenario-Format's simulation mode: a task's prompt picks a scenario, its
** session plays the whole timeline at the compiled times scaled by speed,
** and GET /api/v1/sessions/{id}/events streams it as Server-Sent Events
** with an id on every event, Last-Event-ID resumption and a catch-up with
** no gap and no duplicate, on the shared HTTP loop (runtime/http/). */
#ifndef SC_REST_SERVER_H
#define SC_REST_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/suite.h"
#include "runtime/player.h"

typedef struct RestOpts {
    const char *host, *port;    /* NULL: 127.0.0.1, 38180 (the reference's port) */
    double speed;               /* multiplies scripted times; 0 = at once */
    const uint32_t *only;       /* the candidate entries (NULL: all); must outlive the server */
    size_t n_only;
    unsigned keepalive_ms;      /* ": keep-alive" comments; 0 = 15000 */
    bool wall_clock;            /* ts: the time now, not the scenario's */
    bool quiet;
    FILE *log;                  /* NULL = stderr */
    size_t max_body;
    unsigned max_conns, timeout_ms, head_timeout_ms, idle_timeout_ms;
    bool no_signals;            /* leave signals alone: stopped by rest_server_stop */
} RestOpts;

typedef struct RestCounts {
    unsigned requests, tasks, sessions, events, subscribers, max_subscribers;
    unsigned retired;       /* sessions dropped to make room (docs/serve-rest.md, "Limits") */
} RestCounts;

typedef struct RestServer RestServer;

RestServer *rest_server_new(const Suite *s, const RestOpts *o, int *err);
void rest_server_free(RestServer *r);
int rest_server_listen(RestServer *r, char *bound, size_t cap);
/* Its HTTP server, served by the reactor's own calls, as llm_server_http's. */
struct HttpServer *rest_server_http(RestServer *r);
void rest_server_counts(const RestServer *r, RestCounts *c);

/* The REST server's op table (runtime/player.h): for the coverage test. */
extern const Player rest_player;

#endif
