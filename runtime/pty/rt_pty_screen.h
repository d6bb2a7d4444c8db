/* SPDX-License-Identifier: MIT */
/* rt_pty_screen.h - the terminal screen of a PTY session: libvterm (state +
** screen layers) behind a small interface.
**
** Bytes read from the PTY go in with pty_screen_feed(); replies libvterm
** produces (DA, CPR, DSR ...) and encoded keys come out through the `out`
** callback, which the session writes back to the PTY so probing programs do
** not stall.  Every change bumps a generation counter, so waits re-check a
** condition only when something changed (no polling).  Queries libvterm
** does not answer itself (OSC 10/11 colour queries, XTVERSION, DA2) are
** answered here and every query is recorded as an event.
**
** Rendering: text lines (UTF-8, trailing spaces trimmed), the golden text
** format (docs/golden-screens.md) and tui-use's ScreenSnapshot JSON. */
#ifndef SC_RT_PTY_SCREEN_H
#define SC_RT_PTY_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct PtyScreen PtyScreen;

/* Where bytes for the program go (replies to queries, encoded keys). */
typedef void PtyScreenOut(const char *s, size_t n, void *user);
/* Something worth an event happened: kind ("query", "title", "bell",
** "invalid_utf8", "unhandled"), and a detail string. */
typedef void PtyScreenNote(const char *kind, const char *detail, size_t n, void *user);

/* rows, cols in 1..500.  Returns NULL when out of memory. */
PtyScreen *pty_screen_new(int rows, int cols, PtyScreenOut *out, PtyScreenNote *note, void *user);
void pty_screen_free(PtyScreen *s);

/* Feeds program output.  Invalid UTF-8 becomes U+FFFD and a note; a split
** multibyte tail is carried to the next call. */
void pty_screen_feed(PtyScreen *s, const char *bytes, size_t n);
void pty_screen_resize(PtyScreen *s, int rows, int cols);

/* Increments on every visible change (damage, cursor, props, resize). */
uint64_t pty_screen_gen(const PtyScreen *s);

typedef struct PtyCursor {
    int row, col;           /* 0-based */
    bool visible;
} PtyCursor;

void pty_screen_size(const PtyScreen *s, int *rows, int *cols);
PtyCursor pty_screen_cursor(const PtyScreen *s);
bool pty_screen_altscreen(const PtyScreen *s);
const char *pty_screen_title(const PtyScreen *s);   /* "" when none */

/* Row `row` as UTF-8 without trailing spaces, replacing the contents of out. */
void pty_screen_line(const PtyScreen *s, int row, Buf *out);
/* All rows joined by '\n' (trailing spaces trimmed, no final newline). */
void pty_screen_text(const PtyScreen *s, Buf *out);

/* Keys.  name: "Enter", "Tab", "Escape", "Backspace", "Up", "Down", "Left",
** "Right", "Home", "End", "PageUp", "PageDown", "Insert", "Delete",
** "F1".."F12", "Space", one character, each optionally prefixed by
** modifiers "Ctrl+", "Alt+", "Shift+" (case-insensitive; "C-x", "^C"
** accepted).  Encoded by libvterm for the current modes (DECCKM, keypad).
** Returns false (sending nothing) for an unknown name. */
bool pty_key_valid(const char *name);
bool pty_screen_key(PtyScreen *s, const char *name);
/* Types UTF-8 text: printable characters through libvterm, '\n' and '\r'
** as Enter, other control characters as raw bytes.  paste: wrap in
** bracketed-paste markers when the program enabled mode 2004. */
void pty_screen_type(PtyScreen *s, const char *text, size_t n, bool paste);

/* The golden text (docs/golden-screens.md), masked by masks (NULL: none;
** rt_pty_mask.h): the masks section, each row's masked runs one token,
** the attributes and the cursor's column in the masked row's columns.
** Returns false when out of memory. */
typedef struct PtyMasks PtyMasks;
bool pty_screen_golden(const PtyScreen *s, const PtyMasks *masks, Buf *out);
/* pty_screen_snapshot_json's flags: the cells with their style; their
** indexed colours under ptybox's keys (ansi16/ansi256) instead of the
** data model's (ansi_16/ansi_256; docs/tui-use.md, "Colours"). */
enum { PTY_SNAP_CELLS = 1, PTY_SNAP_PTYBOX_COLORS = 2 };
/* A ScreenSnapshot object (snapshot_version 1); flags: PTY_SNAP_*. */
void pty_screen_snapshot_json(const PtyScreen *s, const char *snapshot_id, unsigned flags, Buf *out);

#endif
