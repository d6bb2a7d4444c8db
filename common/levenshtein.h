/* levenshtein.h - edit distance between two texts, as the reference's
** scenario matcher counts it (notes/reference-semantics.md §7): over
** Unicode scalar values, case-sensitive, no normalisation, no cap.  Used to
** pick a scenario by prompt (packs, scvm --prompt, scvm serve llm). */
#ifndef SC_LEVENSHTEIN_H
#define SC_LEVENSHTEIN_H

#include <stddef.h>

/* The distance between a[0..na) and b[0..nb) (UTF-8; a byte that is not
** part of a well-formed character counts as one symbol of its own).
** SIZE_MAX when out of memory. */
size_t text_levenshtein(const char *a, size_t na, const char *b, size_t nb);

#endif
