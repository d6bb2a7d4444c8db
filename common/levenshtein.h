/* SPDX-License-Identifier: MIT */
/* levenshtein.h - edit distances.  text_levenshtein: between two texts, as
** the reference's scenario matcher counts it (notes/reference-semantics.md
** §7): over Unicode scalar values, case-sensitive, no normalisation, no cap;
** used to pick a scenario by prompt (formats/suite.h: packs, scvm --prompt,
** scvm serve llm, the C API), there on cut prefixes.
** name_distance: the capped one the compiler's suggestions use. */
#ifndef SC_LEVENSHTEIN_H
#define SC_LEVENSHTEIN_H

#include <stddef.h>

/* The distance between a[0..na) and b[0..nb) (UTF-8; a byte that is not
** part of a well-formed character counts as one symbol of its own).
** SIZE_MAX when out of memory. */
size_t text_levenshtein(const char *a, size_t na, const char *b, size_t nb);

/* text_levenshtein of the first max_chars characters of a and of b (a
** byte that starts no character counts as one, as above). */
size_t text_levenshtein_cut(const char *a, size_t na, const char *b, size_t nb, size_t max_chars);

/* The distance between two short names (bytes, NUL-terminated), for "did
** you mean" suggestions: cap + 1 as soon as it must exceed cap, and for
** names longer than 64 bytes.  Allocates nothing. */
unsigned name_distance(const char *a, const char *b, unsigned cap);

#endif
