/* fnv1a.h - FNV-1a 64, the checksum of the tui-use data model's
** checksums.json (ptybox computes it so): one definition for the PTY
** target's artifacts, scvm driver/exec's and scvm replay's check.  It
** catches accidents, not attacks. */
#ifndef SC_FNV1A_H
#define SC_FNV1A_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t fnv1a64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3u;
    }
    return h;
}

#endif
