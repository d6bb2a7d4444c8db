/* SPDX-License-Identifier: MIT */
/* sc_alloc.h - the one allocation hook every module goes through.
**
** Tests set sc_alloc_fail_after to make the Nth allocation fail, so the
** out-of-memory paths are exercised like any other error path. */
#ifndef SC_ALLOC_H
#define SC_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* Like malloc/realloc/calloc/free.  Return NULL on failure (never abort). */
void *sc_malloc(size_t n);
void *sc_realloc(void *p, size_t n);
void *sc_calloc(size_t count, size_t size);
void sc_free(void *p);
/* A NUL-terminated copy of s (of its first n bytes); NULL when out of memory. */
char *sc_strdup(const char *s);
char *sc_strndup(const char *s, size_t n);

/* Room for more in a growing array: v is the array (any element type),
** cap its capacity (any unsigned integer type, or an int that is never
** negative).  Doubles cap (first, when it is 0) and reallocates v through
** sc_realloc.  True, or false when out of memory or when the new capacity
** would not fit cap's type or size_t, with v and cap as they were:
**
**     if (a->n == a->cap && !SC_GROW(a->v, a->cap, 16))
**         return false;
*/
#define SC_GROW(v, cap, first) sc_grow_(&(v), sizeof *(v), &(cap), sizeof(cap), (first))
bool sc_grow_(void *vp, size_t elem, void *capp, size_t cap_size, size_t first);

/* Asks the C library to keep the memory the process frees for its next
** allocations instead of giving it back to the system at once: glibc
** returns big free blocks (mmap'd ones at free, the heap's top past a
** threshold), and a process that compiles one large file after another
** then faults the same pages in again for every file, which costs 13-14
** us a page on some virtual machines (docs/performance.md, "Keeping
** freed memory").  For runs over many files (scc --check DIR, --pack,
** the language server); one-shot runs keep the default, which holds
** their peak lower.  Process-wide; call it before the work.  True when
** the policy is in force: false with another C library or under
** AddressSanitizer (whose allocator is not glibc's). */
bool sc_alloc_keep_freed(void);

/* Memory for a large buffer that a run fills once (a pack's content and
** its verified programs): n of at least SC_BIG_MIN bytes comes from a
** mapping of its own, aligned to 2 MiB and advised for transparent huge
** pages (madvise(MADV_HUGEPAGE); where the system allows them), so that
** touching it costs a page fault per 2 MiB instead of one per 4 KiB.  A
** fault costs 13-14 us on some virtual machines: a one-shot `scvm run`
** over a 1,000-scenario pack spent two thirds of its time in them
** (docs/performance.md, "One scvm run over a pack").  Untouched parts of
** the mapping cost nothing.  Less than SC_BIG_MIN comes from sc_malloc.
** The fail hook counts it as one allocation.  Free with sc_free_big and
** the same n. */
enum { SC_BIG_MIN = 512 << 10 };
void *sc_alloc_big(size_t n);
void sc_free_big(void *p, size_t n);

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
