/* SPDX-License-Identifier: MIT */
/* yaml_int.h - between yaml_tree.c (the tree builder) and yaml_fast.c (the
** fast reader): the calls the reader makes to build the tree, the same
** builder the libyaml events feed (interning, core-schema typing,
** duplicate and merge-key checks, depth limit).  Not for other files. */
#ifndef SC_YAML_INT_H
#define SC_YAML_INT_H

#include "yaml_tree.h"

typedef struct Parser YSink;

/* Opens a collection whose first character is at line:col (1-based). */
void ysink_open(YSink *p, YKind kind, bool flow, uint32_t line, uint32_t col);
void ysink_close(YSink *p);
/* A scalar with no tag or anchor; s[0..len) is copied. */
void ysink_scalar(YSink *p, const char *s, size_t len, YStyle style, uint32_t line, uint32_t col);
/* False once the builder met anything it would report (the reader stops). */
bool ysink_ok(const YSink *p);

/* Reads src[0..len) (valid UTF-8) into sink.  False when the text holds
** anything the reader does not handle with certainty: the caller then
** drops what was built and reads the file with libyaml. */
bool yaml_fast_read(YSink *sink, const char *src, size_t len);

#endif
