/* SPDX-License-Identifier: MIT */
/* arena.c - bump allocator made of growing blocks. */
#include "arena.h"
#include "sc_alloc.h"

#include <stdint.h>
#include <string.h>

/* Aligned allocations grow up from the start of a block, strings (byte
** aligned) down from its end: a block is full when they meet.  Objects are
** aligned to ARENA_ALIGN (8), enough for everything the compiler puts here
** (pointers, int64_t, double): at 16, every 24-byte YAML node and every
** odd-length array of pointers wasted 8 bytes.  Packing the
** strings apart saves the padding that rounding each one to 16 bytes cost:
** 0.77 MB (0.49x the input) of the 1.5 MB benchmark scenario's YAML tree,
** whose 96,000 scalars average 10 bytes (massif peak of scc on it: 12.37 ->
** 11.32 MB; the same instruction count, callgrind). */
enum { ARENA_ALIGN = 8 };

typedef struct Block {
    struct Block *next;
    size_t size, used, top;     /* [0, used) aligned objects, [top, size) strings */
    bool big;                   /* from sc_alloc_big (arena_reserve) */
    _Alignas(ARENA_ALIGN) unsigned char data[];
} Block;

struct Arena {
    Block *head;
    Block *spare;               /* blocks kept by arena_reset, for room() */
    size_t footprint;
    size_t next_size;
};

enum { ARENA_MIN_BLOCK = 16 * 1024, ARENA_MAX_BLOCK = 1024 * 1024 };

_Static_assert(_Alignof(void *) <= ARENA_ALIGN && _Alignof(int64_t) <= ARENA_ALIGN &&
               _Alignof(double) <= ARENA_ALIGN, "ARENA_ALIGN too small for this ABI");

Arena *arena_new(void)
{
    Arena *a = sc_calloc(1, sizeof *a);
    if (a)
        a->next_size = ARENA_MIN_BLOCK;
    return a;
}

static void free_blocks(Block *b)
{
    for (Block *next; b; b = next) {
        next = b->next;
        if (b->big)
            sc_free_big(b, sizeof *b + b->size);
        else
            sc_free(b);
    }
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    free_blocks(a->head);
    free_blocks(a->spare);
    sc_free(a);
}

void arena_reset(Arena *a)
{
    while (a->head) {
        Block *b = a->head;
        a->head = b->next;
        b->next = a->spare;
        a->spare = b;
    }
}

/* The head block, or a new one when n bytes do not fit between used
** (rounded up to align, a power of two; 1 for strings) and top. */
static Block *room(Arena *a, size_t n, size_t align)
{
    Block *b = a->head;
    if (b) {
        size_t lo = (b->used + align - 1) & ~(align - 1);
        if (lo <= b->top && b->top - lo >= n)
            return b;
    }
    if (a->spare && a->spare->size >= n) {   /* a block arena_reset kept */
        b = a->spare;
        a->spare = b->next;
    } else {
        size_t size = a->next_size;
        if (size < n)
            size = n;
        if (!(b = sc_malloc(sizeof *b + size)))
            return NULL;
        b->big = false;
        b->size = size;
        a->footprint += sizeof *b + size;
        if (a->next_size < ARENA_MAX_BLOCK)
            a->next_size *= 2;
    }
    b->top = b->size;
    b->used = 0;
    b->next = a->head;
    a->head = b;
    return b;
}

bool arena_reserve(Arena *a, size_t n)
{
    Block *b = a->head;
    if ((b && b->top - b->used >= n) || (a->spare && a->spare->size >= n))
        return true;    /* room() has it */
    if (n > SIZE_MAX / 2 || !(b = sc_alloc_big(sizeof *b + n)))
        return false;
    b->big = true;      /* sc_free_big tells a mapping from the heap by the size */
    b->size = n;
    a->footprint += sizeof *b + n;
    b->top = n;
    b->used = 0;
    b->next = a->head;
    a->head = b;
    return true;
}

void *arena_alloc_aligned(Arena *a, size_t n, size_t align)
{
    if (n > SIZE_MAX / 2 || align == 0 || align > ARENA_ALIGN || (align & (align - 1)))
        return NULL;
    Block *b = room(a, n, align);
    if (!b)
        return NULL;
    size_t at = (b->used + align - 1) & ~(align - 1);
    b->used = at + n;
    return b->data + at;
}

void *arena_alloc(Arena *a, size_t n)
{
    return arena_alloc_aligned(a, n, ARENA_ALIGN);
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    if (n > SIZE_MAX / 2)
        return NULL;
    Block *b = room(a, n + 1, 1);
    if (!b)
        return NULL;
    b->top -= n + 1;
    char *p = (char *)b->data + b->top;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

bool arena_unalloc(Arena *a, const void *p, size_t n)
{
    Block *b = a->head;
    if (!b || !p || (const unsigned char *)p + n != b->data + b->used)
        return false;
    b->used -= n;
    return true;
}

size_t arena_footprint(const Arena *a)
{
    return a->footprint;
}
