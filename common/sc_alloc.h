/* SPDX-License-Identifier: MIT */
/* sc_alloc.h - the one allocation hook every module goes through.
**
** Tests set sc_alloc_fail_after to make the Nth allocation fail, so the
** out-of-memory paths are exercised like any other error path. */
#ifndef SC_ALLOC_H
#define SC_ALLOC_H

#include <stddef.h>

/* Like malloc/realloc/calloc/free.  Return NULL on failure (never abort). */
void *sc_malloc(size_t n);
void *sc_realloc(void *p, size_t n);
void *sc_calloc(size_t count, size_t size);
void sc_free(void *p);
/* A NUL-terminated copy of s (of its first n bytes); NULL when out of memory. */
char *sc_strdup(const char *s);
char *sc_strndup(const char *s, size_t n);

/* When > 0, the allocation that brings the count to this number fails, and
** every later one too.  0 disables.  For tests only. */
extern unsigned long sc_alloc_fail_after;
/* When > 0, only this many allocations fail from there on; later ones
** succeed again, so a test can check that a long-running loop (a server)
** recovers.  0 = every later one fails.  For tests only. */
extern unsigned long sc_alloc_fail_count;
/* Allocations failed by the hook since the last sc_alloc_reset(). */
unsigned long sc_alloc_failed(void);
/* Restarts the count, so a test can retry with the next N in-process. */
void sc_alloc_reset(void);

#endif
