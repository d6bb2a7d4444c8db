/* SPDX-License-Identifier: MIT */
/* fnv1a.h - FNV-1a, the one definition of it in the tree.  64 bits: the
** checksum of the tui-use data model's checksums.json (ptybox computes it
** so: the PTY target's artifacts, scvm driver/exec's and scvm replay's
** check), the LLM server's deterministic ids, report's and file_open's
** small hash sets.  32 bits: the YAML tree's mapping-key hash.  It
** catches accidents, not attacks. */
#ifndef SC_FNV1A_H
#define SC_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_INIT 0xcbf29ce484222325u
#define FNV1A32_INIT 2166136261u

/* h continued over len bytes at data: fnv1a64_more(FNV1A64_INIT, ...) is
** fnv1a64(...), and hashing a buffer in pieces equals hashing it whole. */
static inline uint64_t fnv1a64_more(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3u;
    }
    return h;
}

static inline uint64_t fnv1a64(const void *data, size_t len)
{
    return fnv1a64_more(FNV1A64_INIT, data, len);
}

static inline uint32_t fnv1a32(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t h = FNV1A32_INIT;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

#endif
