/* SPDX-License-Identifier: MIT */
/* tf.h - shared helpers for the formats tests: checks, sample programs,
** and wrapping a hand-made payload into a valid container (so a test can
** reach the verifier with exactly the damage it means). */
#ifndef TF_H
#define TF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/bc.h"
#include "formats/bc_write.h"

extern int tf_failures;
#define CHECK_FAILURES tf_failures
#include "tests/check.h"

int tf_result(const char *name);   /* prints a summary; the exit status */

/* A sample program: every opcode (variant 0, 1 and 2 differ in ops and
** values), every value tag, a value nested BC_MAX_DEPTH deep.  Returns
** false (with the builder's error) when any builder call failed. */
bool tf_build_sample(BcBuilder *b, int variant);
/* Builds the sample and finishes it with zstd level 1; NULL on failure. */
unsigned char *tf_sample_file(int variant, bool strip_lines, size_t *len);

/* A container around payload bytes: one zstd frame (level 1), correct sizes
** and checksum.  malloc()ed. */
unsigned char *tf_wrap(const void *payload, size_t n, uint32_t flags, size_t *len);
/* The decompressed payload of a well-formed file; malloc()ed, or NULL. */
unsigned char *tf_unwrap(const unsigned char *file, size_t len, size_t *n);

typedef struct TfSec {
    uint32_t id;
    const unsigned char *p;
    size_t n;
} TfSec;
/* A payload from sections laid out as the writer does (contiguous, in the
** order given).  malloc()ed. */
unsigned char *tf_payload(const TfSec *s, int n, size_t *len);

#endif
