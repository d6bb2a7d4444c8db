/* SPDX-License-Identifier: MIT */
/* sc_alloc.c - allocation hook with fault injection for tests. */
#define _DEFAULT_SOURCE 1     /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "sc_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* Blocks up to SC_KEEP_MMAP_MAX come from the heap, and the heap's top
** is trimmed only past SC_KEEP_TRIM free: a run keeps at most that much
** beyond what it uses.  (Setting either turns off glibc's own adjustment
** of both, which raises the mmap threshold only to the largest block
** freed so far and trims the heap's top past twice that: a compilation's
** blocks outgrow it, and bench_compile's loop faulted 240 pages in per
** compilation of a 256 KB file.) */
enum { SC_KEEP_MMAP_MAX = 32 << 20, SC_KEEP_TRIM = 256 << 20 };

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SC_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SC_ASAN 1
#endif

bool sc_alloc_keep_freed(void)
{
#if defined(SC_ASAN)
    return false;
#elif defined(__GLIBC__) && defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
    return mallopt(M_MMAP_THRESHOLD, SC_KEEP_MMAP_MAX) == 1 && mallopt(M_TRIM_THRESHOLD, SC_KEEP_TRIM) == 1;
#else
    return false;
#endif
}

unsigned long sc_alloc_fail_after;
unsigned long sc_alloc_fail_count;
static unsigned long alloc_count, failed;

void sc_alloc_reset(void)
{
    alloc_count = 0;
    failed = 0;
}

unsigned long sc_alloc_failed(void)
{
    return failed;
}

static int should_fail(void)
{
    if (sc_alloc_fail_after == 0)
        return 0;
    if (++alloc_count < sc_alloc_fail_after)
        return 0;
    if (sc_alloc_fail_count && failed >= sc_alloc_fail_count)
        return 0;
    failed++;
    return 1;
}

void *sc_malloc(size_t n)
{
    return should_fail() ? NULL : malloc(n ? n : 1);
}

void *sc_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : realloc(p, n ? n : 1);
}

void *sc_calloc(size_t count, size_t size)
{
    return should_fail() ? NULL : calloc(count ? count : 1, size ? size : 1);
}

void sc_free(void *p)
{
    free(p);
}

/* Transparent huge pages are 2 MiB on x86-64 and arm64 (with 4 KiB
** pages); elsewhere the alignment is merely generous. */
#define BIG_ALIGN ((size_t)2 << 20)

static size_t big_len(size_t n) { return (n + BIG_ALIGN - 1) & ~(BIG_ALIGN - 1); }

void *sc_alloc_big(size_t n)
{
    if (n < SC_BIG_MIN)
        return sc_malloc(n);
    if (should_fail() || n > SIZE_MAX - 2 * BIG_ALIGN)
        return NULL;
    size_t len = big_len(n), span = len + BIG_ALIGN;
    unsigned char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    /* keep the aligned len bytes, give back the slack on either side */
    unsigned char *a = (unsigned char *)(((uintptr_t)m + BIG_ALIGN - 1) & ~(uintptr_t)(BIG_ALIGN - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (m + span > a + len)
        munmap(a + len, (size_t)(m + span - (a + len)));
#if defined(MADV_HUGEPAGE)
    madvise(a, len, MADV_HUGEPAGE);    /* advice: refused where THP is off, and then 4 KiB pages */
#endif
    return a;
}

void sc_free_big(void *p, size_t n)
{
    if (!p)
        return;
    if (n < SC_BIG_MIN)
        sc_free(p);
    else
        munmap(p, big_len(n));
}

char *sc_strndup(const char *s, size_t n)
{
    char *d = sc_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

char *sc_strdup(const char *s)
{
    return sc_strndup(s, strlen(s));
}

bool sc_grow_(void *vp, size_t elem, void *capp, size_t cap_size, size_t first)
{
    /* the caller's pointer and capacity, read and written through their
    ** bytes: one helper for every element and capacity type */
    size_t cap = 0;
    uint32_t c32;
    if (cap_size == sizeof(size_t)) {
        memcpy(&cap, capp, sizeof cap);
    } else if (cap_size == sizeof(uint32_t)) {
        memcpy(&c32, capp, sizeof c32);
        cap = c32;
    } else {
        return false;
    }
    size_t want = cap ? cap * 2 : first;
    if (want <= cap || want > SIZE_MAX / elem || (cap_size == sizeof(uint32_t) && want > INT32_MAX))
        return false;
    void *v;
    memcpy(&v, vp, sizeof v);
    void *nv = sc_realloc(v, want * elem);
    if (!nv)
        return false;
    memcpy(vp, &nv, sizeof nv);
    if (cap_size == sizeof(size_t)) {
        memcpy(capp, &want, sizeof want);
    } else {
        c32 = (uint32_t)want;
        memcpy(capp, &c32, sizeof c32);
    }
    return true;
}
