/* SPDX-License-Identifier: MIT */
/* scc/scc.h - the scc C API: open compiled scenarios, verify, iterate events.
**
** A "suite" is a loaded .scb (one scenario) or pack (.scp, many scenarios
** and the files they reference; docs/pack.md).  Opening a suite verifies it
** completely (container, checksums, every op, the pack index): a suite that
** opens is safe to read and play.  Everything a suite hands out stays valid
** until scc_close().  Link with -lscc (pkg-config scc, or CMake
** find_package(scc) and scc::libscc).  Not thread-safe per object; distinct
** objects may be used from different threads. */
#ifndef SCC_SCC_H
#define SCC_SCC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: the same numbers as scc's and scvm's exit statuses
** (docs/exit-status.md). */
enum {
    SCC_OK = 0,
    SCC_EIO = 3,        /* cannot read the file */
    SCC_EREJECTED = 4,  /* not a valid .scb or pack; the message says why */
    SCC_ENOMEM = 5,
};

typedef struct scc_suite scc_suite;
typedef struct scc_events scc_events;

/* The library version, "MAJOR.MINOR.PATCH". */
const char *scc_version(void);

/* Opens and verifies a .scb or pack.  On success *out is a suite to
** scc_close().  On failure returns a code and, when err is non-NULL, writes
** a NUL-terminated message ("entry 2 'login': checksum mismatch ...") of at
** most errlen bytes.  scc_open_memory copies what it needs from data. */
int scc_open_file(const char *path, scc_suite **out, char *err, size_t errlen);
int scc_open_memory(const void *data, size_t len, scc_suite **out, char *err, size_t errlen);
void scc_close(scc_suite *s);

/* 1 when the suite came from a pack, 0 for a .scb. */
int scc_is_pack(const scc_suite *s);

/* Scenarios, 0 .. scc_count()-1, in index order. */
size_t scc_count(const scc_suite *s);
const char *scc_name(const scc_suite *s, size_t i);
const char *scc_source(const scc_suite *s, size_t i);   /* path in the pack, or base name */
const char *scc_prompt(const scc_suite *s, size_t i);   /* effective initial prompt or NULL */
size_t scc_tag_count(const scc_suite *s, size_t i);
const char *scc_tag(const scc_suite *s, size_t i, size_t k);
uint64_t scc_duration_ms(const scc_suite *s, size_t i);  /* time of the last op */

/* Index of the scenario named name, or -1. */
long scc_find(const scc_suite *s, const char *name);
/* The scenario whose initial prompt is nearest to prompt (Levenshtein over
** Unicode scalar values of the first 1024 characters of each; ties keep
** the earlier one; scenarios without a prompt are skipped; if none has
** one, 0).  -1 when the suite is empty.  scvm --prompt and scvm serve llm
** choose the same scenario for the same text. */
long scc_match_prompt(const scc_suite *s, const char *prompt, size_t *distance);

/* Files embedded for scenario i (packs only; 0 for a .scb), sorted by path
** relative to the scenario's folder. */
size_t scc_file_count(const scc_suite *s, size_t i);
const char *scc_file_path(const scc_suite *s, size_t i, size_t k);
const void *scc_file_data(const scc_suite *s, size_t i, size_t k, size_t *len);
int scc_file_executable(const scc_suite *s, size_t i, size_t k);

/* Events of scenario i as `scvm run` prints them (docs/events.md), with
** every time multiplied by speed (1.0 = as compiled).  scc_events_next
** returns 1 and fills ev, or 0 at the end; ev's strings live until the next
** call.  json is one JSON object without the newline. */
typedef struct scc_event {
    uint64_t at_ms;
    const char *kind;       /* "agent_message", "tool_start", ... */
    const char *json;       /* {"at_ms":...,"kind":...,...} */
    size_t json_len;
} scc_event;

int scc_events_open(const scc_suite *s, size_t i, double speed, scc_events **out);
int scc_events_next(scc_events *it, scc_event *ev);
void scc_events_close(scc_events *it);

#ifdef __cplusplus
}
#endif
#endif
