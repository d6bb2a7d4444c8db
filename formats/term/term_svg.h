/* SPDX-License-Identifier: MIT */
/* term_svg.h - a screen as a picture: the golden text format
** (docs/golden-screens.md) read back into a cell grid and drawn as a
** self-contained SVG, or an HTML page around it, without a browser.
**
** The golden text is the one input: a screenshot artifact, a committed
** golden and both sides of a mismatch are all in that format, so one
** reader draws them all the same way.  Cells have fixed metrics
** (TERM_SVG_CELL_W x TERM_SVG_CELL_H pixels) and every character is placed
** at its cell's x, so text lands on exact cells whatever the font; a wide
** character takes two cells.  Output is deterministic: the same screen
** gives the same bytes. */
#ifndef SC_TERM_SVG_H
#define SC_TERM_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

#define TERM_SVG_CELL_W 9
#define TERM_SVG_CELL_H 18
/* The font stack every screen is drawn in. */
#define TERM_SVG_FONTS "DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace"

typedef struct TermShot TermShot;

/* Reads golden text.  Returns NULL when it is not one (no `scc-screen 1`
** or `size` line, a size out of 1..500) or out of memory; *why (if not
** NULL) then says which.  Rows beyond the size and unknown attribute
** words are ignored, so an older or hand-edited golden still draws. */
TermShot *term_shot_parse(const char *text, size_t len, const char **why);
void term_shot_free(TermShot *s);
void term_shot_size(const TermShot *s, int *rows, int *cols);

/* The number of cells that differ between a and b (text or style), over
** the larger of both sizes; a cell outside one of them differs. */
int term_shot_diff_cells(const TermShot *a, const TermShot *b);

/* Appends one <svg> element: the grid, colours, bold/italic/underline/
** strike/inverse, the cursor when visible.  diff (or NULL): cells that
** differ from it are outlined in red.  standalone: with the XML
** namespace declaration a .svg file needs. */
void term_svg_write(const TermShot *s, const TermShot *diff, bool standalone, Buf *out);

/* Appends the elements of one row (backgrounds, text, underline and
** strike) at y = 0, without the <svg> around them or the cursor: the same
** elements term_svg_write draws for that row, moved up to the top.  The
** run report's player (runtime/report) keeps each distinct row once and
** composes frames from them. */
void term_svg_row(const TermShot *s, int row, Buf *out);
/* The cursor (0-based) and screen mode. */
void term_shot_cursor(const TermShot *s, int *row, int *col, bool *visible, bool *alt);

/* A whole HTML page: title (UTF-8, escaped here) as heading, the screen's
** size, cursor and screen mode, and its SVG. */
void term_html_screen(const TermShot *s, const char *title, Buf *out);

/* A golden mismatch as one page: expected and actual side by side, the
** differing cells outlined on both, their count, and the text diff (may
** be NULL) below. */
void term_html_diff(const TermShot *want, const TermShot *got, const char *title, const char *diff,
                    size_t diff_len, Buf *out);

/* Text as a <pre> with the lines of a unified diff coloured: class `add`
** for added lines, `del` for removed ones (not the ---/+++ heads). */
void term_html_diff_text(const char *diff, size_t diff_len, Buf *out);

/* The start of a page (doctype, head with title and the pages' one
** stylesheet, <body>) for a caller composing its own page of screens;
** it ends it with "</body></html>".  Class `result` plus a verdict word
** (match, mismatch, passed, failed ...) colours a badge. */
void term_html_begin(const char *title, Buf *out);

/* XML-escapes UTF-8 text for element content and attribute values
** (& < > " '); control characters other than tab and newline become
** U+FFFD, which XML cannot carry. */
void term_xml_esc(Buf *out, const char *s, size_t n);

#endif
