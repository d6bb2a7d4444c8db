/* SPDX-License-Identifier: MIT */
/* base64.h - the one base64 (RFC 4648 section 4, the standard alphabet):
** the compiler checks scenario data with it, the targets decode with it
** (and encode files they send, the ACP agent's images), so what compiled is what decodes.  Spaces, tabs, CR and LF anywhere
** are ignored; '=' padding only at the end; the length without white
** space is a multiple of 4; at least one character. */
#ifndef SC_BASE64_H
#define SC_BASE64_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Decodes [s, s+n) and appends the bytes to out (NULL: only checks).
** False for text that is not base64: then *bad (if not NULL) is the
** offset of the first character outside the alphabet, or n when the
** length or the padding is wrong. */
bool b64_decode(const char *s, size_t n, Buf *out, size_t *bad);

/* Appends the base64 of p[0..n) to out, padded, without line breaks. */
void b64_encode(const void *p, size_t n, Buf *out);

#endif
