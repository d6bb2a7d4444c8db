/* SPDX-License-Identifier: MIT */
/* tape.h - recorded replies for the parts of a test that would ask a live
** model: an LLM judge's verdict, a simulated user's next message, Yao's
** simulator turn (docs/tape.md).
**
** A tape is a JSON Lines file, version 1: a header line, then one entry a
** line, {"kind", "key", "n", "request", "reply"}.  An entry is found by its
** key, the SHA-256 of its kind and the canonical JSON of its request, and
** by n, how many times that same request was asked before in the same
** case (so asking twice gets the second reply the second time, and a
** case's replies do not depend on which cases ran before it).  Replaying is
** strict: a request the tape lacks is a miss that names its key, never a
** guess; entries a run did not use can be listed.  Recording adds what was
** missing and writes the tape back in a fixed order, so the same replies
** give the same bytes. */
#ifndef SC_TAPE_H
#define SC_TAPE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "common/buf.h"

#define TAPE_VERSION 1

typedef struct Tape Tape;

/* A new, empty tape (to fill inline or by recording). */
Tape *tape_new(void);

/* Reads a tape.  NULL with "PATH:LINE: reason" in err when the file cannot
** be read, has no version-1 header, or holds a malformed entry: not JSON,
** a kind outside [a-z0-9_.-], a key that is not its request's, a
** negative or missing n, or the same key and n twice.  A missing file is
** an empty tape when missing_ok. */
Tape *tape_load(const char *path, bool missing_ok, char *err, size_t errlen);

/* Adds an entry (a copy of request and reply).  False with a reason when
** kind is not a kind name or that key and n are already there. */
bool tape_add(Tape *t, const char *kind, const cJSON *request, unsigned n, const cJSON *reply, char *err,
              size_t errlen);

/* The key of a request: 64 hex digits of SHA-256 over kind, a newline,
** and the request's canonical JSON. */
void tape_key(const char *kind, const cJSON *request, char key[65]);

/* Canonical JSON (docs/tape.md): no blanks, object members sorted by the
** bytes of their names, numbers in their shortest exact form. */
void tape_canonical(const cJSON *v, Buf *out);

/* The reply to the next asking of request: the entry (kind, key, n) where
** n counts the case's earlier askings of the same key (tape_restart).  NULL on a miss,
** with the key in key (and the asking still counted, so a recorder can add
** the entry with tape_count's n - 1). */
const cJSON *tape_take(Tape *t, const char *kind, const cJSON *request, char key[65]);

/* The reply of entry (kind, key, n), marked used; NULL when there is none. */
const cJSON *tape_reply(Tape *t, const char *kind, const char *key, unsigned n);

/* A new case: every request's next asking is its first again (n = 0). */
void tape_restart(Tape *t);

/* Adds the entries of from that t lacks (same kind, key and n); those t
** has are kept as they are.  Returns how many were added. */
size_t tape_merge(Tape *t, const Tape *from);

/* Whether entries were added since the tape was read (tape_add). */
bool tape_changed(const Tape *t);

/* How many times key was taken in this run. */
unsigned tape_count(const Tape *t, const char *key);

/* Entries this run did not take, one a call: returns false past the end;
** *kind and *key point into the tape. */
bool tape_unused(const Tape *t, size_t *cursor, const char **kind, const char **key, unsigned *n);

size_t tape_size(const Tape *t);

/* The tape as a file: the header, then the entries sorted by kind, key, n.
** Written atomically. */
void tape_write(const Tape *t, Buf *out);
int tape_save(const Tape *t, const char *path);

void tape_free(Tape *t);

#endif
