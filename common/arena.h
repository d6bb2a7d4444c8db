/* SPDX-License-Identifier: MIT */
/* arena.h - bump allocator: one per compilation, freed with one call.
**
** Everything a compilation builds (YAML nodes, interned scalars, diagnostics
** text) lives in the arena, so error paths never have to free piecemeal. */
#ifndef SC_ARENA_H
#define SC_ARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct Arena Arena;

Arena *arena_new(void);                 /* NULL when out of memory */
void arena_free(Arena *a);              /* frees every block; NULL is fine */

/* Aligned to 8 (pointers, int64_t, double; not long double or SIMD types);
** NULL when out of memory or n is absurd. */
void *arena_alloc(Arena *a, size_t n);
/* Aligned to align, a power of two from 1 to 8 (NULL otherwise): for
** objects whose size is not a multiple of 8, such as 20-byte YAML nodes. */
void *arena_alloc_aligned(Arena *a, size_t n, size_t align);
/* Copies n bytes and appends a NUL. */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);

/* Empties the arena and keeps its blocks for what is allocated next:
** for a caller that fills and empties one arena again and again (pack
** loads), without giving the memory back to the system and faulting it in
** again each time.  Everything allocated from it is gone. */
void arena_reset(Arena *a);

/* Room for n bytes more, allocated and strings alike, without a new block:
** for a caller that knows roughly how much it will put in.  Makes a block
** of n bytes the head unless the head or the first block arena_reset kept
** has that much free; from sc_alloc_big, so that a large one is touched
** in huge pages (sc_alloc.h).  False when out of memory. */
bool arena_reserve(Arena *a, size_t n);

/* Gives back p, n bytes from arena_alloc_aligned, when it is the last
** allocation of the newest block (a loader that failed after allocating);
** otherwise does nothing.  Returns whether it did. */
bool arena_unalloc(Arena *a, const void *p, size_t n);

/* Bytes obtained from the system so far (for the memory benchmark). */
size_t arena_footprint(const Arena *a);

#endif
