/* SPDX-License-Identifier: MIT */
/* rt_pty_mask.h - masks in golden screens (docs/golden-screens.md,
** "Masks"): a golden's optional `masks` section lists regular expressions
** (formats/term/term_regex.h, the linear-time engine of the screen
** conditions), one a line; every match in a row's text is shown as one
** PTY_MASK_TOKEN, in the screen before it is compared or written and in
** the golden's own text, so a clock, a path or an id on a real program's
** screen does not fail the comparison. */
#ifndef SC_RT_PTY_MASK_H
#define SC_RT_PTY_MASK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

/* What a masked run of text becomes: "‹mask›", six columns.  A fixed
** token, not one '*' per column, so text whose length varies (4:11 and
** 10:11, a path in another folder) masks the same. */
#define PTY_MASK_TOKEN "\xe2\x80\xb9mask\xe2\x80\xba"
#define PTY_MASK_TOKEN_COLS 6
/* What the run's workspace path and the host name become in a golden's
** text rows unless --no-normalize-goldens (rt_pty_out.c): they differ
** from run to run and machine to machine. */
#define PTY_WS_TOKEN "\xe2\x80\xb9workspace\xe2\x80\xba"
#define PTY_HOST_TOKEN "\xe2\x80\xb9host\xe2\x80\xba"

typedef struct PtyMasks PtyMasks;

/* Reads the masks of a golden file's text (`golden`, len bytes; `path`
** names it in errors).  *out is NULL when it has none.  Returns false
** with err "PATH:LINE: invalid mask 'PAT': why" when a pattern does not
** compile, is empty or matches the empty text, or there are more than
** 100; or "out of memory". */
bool pty_masks_parse(const char *golden, size_t len, const char *path, PtyMasks **out, char *err, size_t errlen);
void pty_masks_free(PtyMasks *m);

/* The section as a golden holds it ("masks\n  PAT\n..."); nothing for
** NULL. */
void pty_masks_section(const PtyMasks *m, Buf *out);

/* Marks in hit[0..len) the bytes of line that a mask covers: every match
** of every mask (leftmost-first, left to right, not overlapping), and a
** PTY_MASK_TOKEN that a match touches, whole (masking masked text again
** changes nothing).  Returns false when out of memory. */
bool pty_masks_mark(const PtyMasks *m, const char *line, size_t len, bool *hit);

/* The golden's own side: golden text with each row of its `text`
** section masked (each run of marked bytes one token); the other lines
** as they are. */
bool pty_masks_golden(const PtyMasks *m, const char *golden, size_t len, Buf *out);

#endif
