/* SPDX-License-Identifier: MIT */
/* yaml_tree.h - YAML text -> a tree of nodes with 1-based line:col.
**
** Built from libyaml's event stream straight into the compilation's arena;
** scalars are typed with the YAML 1.2 core schema (docs/yaml.md).  Rejected
** with a positioned error: invalid UTF-8, several documents, duplicate map
** keys, non-scalar keys, unknown tags, merge keys, nesting deeper than
** YAML_MAX_DEPTH, alias expansion past YAML_MAX_EXPANSION nodes.  An alias
** is a copy of its anchored node: a scalar's text and a collection's
** children are shared, never copied. */
#ifndef SC_YAML_TREE_H
#define SC_YAML_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/arena.h"
#include "common/diag.h"

typedef enum YKind { YN_SCALAR = 1, YN_SEQ, YN_MAP } YKind;
typedef enum YType { YT_NULL = 0, YT_BOOL, YT_INT, YT_FLOAT, YT_STR } YType;
typedef enum YStyle { YS_PLAIN = 0, YS_SINGLE, YS_DOUBLE, YS_LITERAL, YS_FOLDED, YS_BLOCK, YS_FLOW } YStyle;

enum { YAML_MAX_DEPTH = 64 };
/* Longer input is rejected: every line and column number then fits in a
** node's 27-bit fields (scc itself reads at most 64 MB). */
#define YAML_MAX_INPUT ((1u << 27) - 2)
#define YAML_MAX_EXPANSION 1000000u

typedef struct YNode YNode;
typedef struct YPair YPair;

/* 20 bytes: one per scalar, mapping and sequence, so the node is most of
** the tree's memory (147,800 of them for the 1.5 MB benchmark scenario,
** 2.96 MB).  Hence the bit-fields (a line or column fits in 27 bits as
** inputs are at most YAML_MAX_INPUT bytes), the 4-byte alignment (packed:
** the pointer is not 8-aligned, which x86-64 and arm64 load at no cost),
** and no stored value: yint(), yfloat() and ybool() read a scalar's value
** from its text, whose type the parser has already checked. */
struct __attribute__((packed, aligned(4))) YNode {
    uint32_t line : 27;    /* 1-based position of the node's first character */
    uint32_t kind : 2;     /* YKind */
    uint32_t type : 3;     /* YType (scalars) */
    uint32_t col : 27;     /* in characters, as libyaml counts them */
    uint32_t style : 3;    /* YStyle */
    uint32_t flags : 2;    /* YF_* below, free for passes to use */
    uint32_t n;            /* scalar: byte length; seq/map: element count */
    union {
        const char *s;     /* scalar text, NUL-terminated (may hold NULs); short
                           ** texts are shared by the scalars that have them */
        YNode *items;      /* seq */
        YPair *pairs;      /* map, in source order */
    } u;
};

/* Children are stored by value: a sequence's items are an array of
** nodes, a mapping's pairs an array of (key, value) nodes, so there is no
** pointer per child (8 bytes for each of the 95,000 pairs and items of
** the 1.5 MB benchmark scenario).  An alias is a copy of the anchored node:
** for a collection, a second node for the same children array. */
struct YPair {
    YNode key;             /* always a scalar */
    YNode val;
};

enum { YF_RESOLVED = 1, YF_ALIASED = 2 };

typedef struct YDoc {
    YNode *root;           /* NULL for an empty document */
    const char *file;      /* name used in diagnostics */
    const char *src;       /* the text (for carets) */
    size_t src_len;
    bool rules_key;        /* some mapping has the key 'rules' (without one,
                           ** rules_resolve has nothing to do: its walk was 4%
                           ** of compiling a corpus file, callgrind) */
} YDoc;

/* Parses src.  Returns true and fills doc on success; on failure records
** positioned errors in diags and returns false.  Everything is allocated in
** arena; src must stay alive as long as the doc. */
bool yaml_parse(const char *src, size_t len, const char *file, Arena *arena,
                Diags *diags, YDoc *doc);

/* Which reader builds the tree.  AUTO (what yaml_parse() uses) tries the
** fast reader (yaml_fast.c) and, when it declines, libyaml; LIBYAML and
** FAST are for the tests that compare the two: FAST returns false, with
** nothing recorded, when the fast reader declines. */
typedef enum YamlReader { YAML_READ_AUTO = 0, YAML_READ_LIBYAML, YAML_READ_FAST } YamlReader;
bool yaml_parse_with(const char *src, size_t len, const char *file, Arena *arena,
                     Diags *diags, YDoc *doc, YamlReader how);
/* The reader yaml_parse() uses; tests set it to compare scc's output
** through either reader.  Nothing else writes it. */
extern YamlReader yaml_default_reader;

/* The value of a scalar of type YT_INT, YT_FLOAT (an int is a float too)
** or YT_BOOL, from its text; 0 (false) for a scalar of another type. */
int64_t yint(const YNode *n);
double yfloat(const YNode *n);
bool ybool(const YNode *n);

/* True when scalar n's text is s[0..len): the length, then the first byte
** inline, then memcmp (every key of a mapping is compared with the key
** looked up, and most differ in length or first byte: memcmp calls were
** 2% of compiling a small scenario, perf). */
static inline bool ytext_is(const YNode *n, const char *s, size_t len)
{
    return n->kind == YN_SCALAR && n->n == len && (len == 0 || (n->u.s[0] == s[0] && memcmp(n->u.s, s, len) == 0));
}

/* Map lookup by key text (scalar keys only); NULL when absent.  Inline,
** so that the length of a literal key is known at compile time: the
** lowering looks keys up by literal thousands of times per scenario. */
YNode *ymap_getn(const YNode *map, const char *key, size_t len);
static inline YNode *ymap_get(const YNode *map, const char *key)
{
    return ymap_getn(map, key, strlen(key));
}
/* True when n is a scalar whose text equals s. */
static inline bool yscalar_is(const YNode *n, const char *s)
{
    return n && ytext_is(n, s, strlen(s));
}
const char *ykind_name(const YNode *n);   /* "mapping", "sequence", "string", "integer", ... */

#endif
