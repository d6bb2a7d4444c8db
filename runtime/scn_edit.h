/* SPDX-License-Identifier: MIT */
/* scn_edit.h - the one rule that turns an `agentEdits {path, linesAdded,
** linesRemoved}` into file content, for every target that performs it (the
** mock LLM server's edit tool call, the ACP agent's fs/write_text_file, the
** mock agent's real edit): the file loses its last linesRemoved lines and
** gains linesAdded lines "scvm agentEdits PATH +K/N" (K = 1..N).  The edit is
** deterministic, and the line counts the scenario states are exactly what
** a diff of the file before and after shows. */
#ifndef SC_SCN_EDIT_H
#define SC_SCN_EDIT_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Lines of text: its newlines, plus one for a last line without one. */
int64_t scn_edit_count_lines(const char *t, size_t n);

/* Appends added line k of n (with its newline) for path to b. */
void scn_edit_line(Buf *b, const char *path, uint64_t k, uint64_t n);

/* The file text (n bytes; NULL/0 for a file that does not exist) after the
** edit, into out (replaced, NUL-terminated; out->len excludes the NUL).
** The kept lines are byte for byte the old ones; an emptied or new file
** ends with a newline, otherwise the result ends with one when the old text
** did.  Returns 0, or -1 when the file has fewer than rm lines (why, of
** cap bytes, says so); out->oom reports an allocation failure. */
int scn_edit_apply(const char *path, const char *text, size_t n, uint64_t add, uint64_t rm, Buf *out,
                   char *why, size_t cap);

#endif
