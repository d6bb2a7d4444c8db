/* SPDX-License-Identifier: MIT */
/* sha256.h - SHA-256 (FIPS 180-4), for keys that name content: the tape's
** entries are found by the hash of their request (runtime/tape). */
#ifndef SC_SHA256_H
#define SC_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct Sha256 {
    uint32_t h[8];
    uint64_t len;               /* bytes hashed */
    unsigned char block[64];
    size_t fill;
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t n);
void sha256_final(Sha256 *s, unsigned char out[32]);
/* The digest of data as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t n, char out[65]);

#endif
