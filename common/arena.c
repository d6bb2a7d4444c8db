/* arena.c - bump allocator made of growing blocks. */
#include "arena.h"
#include "sc_alloc.h"

#include <stdint.h>
#include <string.h>

typedef struct Block {
    struct Block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} Block;

struct Arena {
    Block *head;
    size_t footprint;
    size_t next_size;
};

enum { ARENA_MIN_BLOCK = 16 * 1024, ARENA_MAX_BLOCK = 1024 * 1024 };

Arena *arena_new(void)
{
    Arena *a = sc_calloc(1, sizeof *a);
    if (a)
        a->next_size = ARENA_MIN_BLOCK;
    return a;
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    for (Block *b = a->head, *next; b; b = next) {
        next = b->next;
        sc_free(b);
    }
    sc_free(a);
}

void *arena_alloc(Arena *a, size_t n)
{
    if (n > SIZE_MAX / 2)
        return NULL;
    n = (n + 15) & ~(size_t)15;
    Block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = a->next_size;
        if (size < n)
            size = n;
        b = sc_malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
        a->footprint += sizeof *b + size;
        if (a->next_size < ARENA_MAX_BLOCK)
            a->next_size *= 2;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

size_t arena_footprint(const Arena *a)
{
    return a->footprint;
}
