/* SPDX-License-Identifier: MIT */
/* rt_pty_cond.c - a condition on a screen and a session (rt_pty_cond.h). */
#include "rt_pty_cond.h"

#include <stdio.h>
#include <string.h>

#include "formats/term/term_regex.h"

static bool has_sub(const unsigned char *h, size_t hn, const char *n, size_t nn)
{
    if (nn == 0)
        return true;
    for (size_t i = 0; i + nn <= hn; i++)
        if (h[i] == (unsigned char)n[0] && memcmp(h + i, n, nn) == 0)
            return true;
    return false;
}

bool pty_cond_holds(const Cond *c, const PtyScreen *scr, const PtySession *sess, uint64_t last_change,
                    Buf *scratch, uint64_t *wake)
{
    Buf *b = scratch;
    int rows, cols;
    pty_screen_size(scr, &rows, &cols);
    PtyCursor cur = pty_screen_cursor(scr);
    bool exited = sess && pty_session_exited(sess);
    switch (c->kind) {
    case COND_CONTAINS:
    case COND_NOT_CONTAINS:
        pty_screen_text(scr, b);
        return has_sub(b->data, b->len, c->text, c->text_len) == (c->kind == COND_CONTAINS);
    case COND_MATCHES:
        pty_screen_text(scr, b);
        return term_regex_search(c->re, (const char *)b->data, b->len);
    case COND_CURSOR_AT:
        return cur.row == c->row && cur.col == c->col;
    case COND_LINE_EQUALS:
    case COND_LINE_CONTAINS:
    case COND_LINE_STARTS:
    case COND_LINE_ENDS:
    case COND_LINE_MATCHES:
        if (c->line < 0 || c->line >= rows)
            return false;
        pty_screen_line(scr, (int)c->line, b);
        if (c->kind == COND_LINE_EQUALS)
            return b->len == c->text_len && (b->len == 0 || memcmp(b->data, c->text, b->len) == 0);
        if (c->kind == COND_LINE_STARTS)
            return b->len >= c->text_len && (c->text_len == 0 || memcmp(b->data, c->text, c->text_len) == 0);
        if (c->kind == COND_LINE_ENDS)
            return b->len >= c->text_len &&
                   (c->text_len == 0 || memcmp(b->data + b->len - c->text_len, c->text, c->text_len) == 0);
        if (c->kind == COND_LINE_CONTAINS)
            return has_sub(b->data, b->len, c->text, c->text_len);
        return term_regex_search(c->re, (const char *)b->data, b->len);
    case COND_SCREEN_EMPTY:
        pty_screen_text(scr, b);
        for (size_t i = 0; i < b->len; i++)
            if (b->data[i] != '\n' && b->data[i] != ' ')
                return false;
        return true;
    case COND_CURSOR_VISIBLE:
        return cur.visible;
    case COND_CURSOR_HIDDEN:
        return !cur.visible;
    case COND_EXITED:
        return exited;
    case COND_EXIT_CODE:
        return exited && pty_session_exit_code(sess) == c->code;
    case COND_STABLE: {
        uint64_t now = pty_now_ms(), at = last_change + (uint64_t)c->ms;
        if (now >= at)
            return true;
        *wake = at;
        return false;
    }
    case COND_ALT_SCREEN:
        return pty_screen_altscreen(scr) == c->on;
    }
    return false;
}

/* Why a condition does not hold, for messages. */
void pty_cond_why(const Cond *c, const PtyScreen *scr, const PtySession *sess, char *out, size_t n)
{
    int rows, cols;
    pty_screen_size(scr, &rows, &cols);
    PtyCursor cur = pty_screen_cursor(scr);
    switch (c->kind) {
    case COND_CONTAINS:
        snprintf(out, n, "screen does not contain \"%.*s\"", (int)(c->text_len > 200 ? 200 : c->text_len), c->text);
        break;
    case COND_NOT_CONTAINS:
        snprintf(out, n, "screen contains \"%.*s\"", (int)(c->text_len > 200 ? 200 : c->text_len), c->text);
        break;
    case COND_MATCHES:
        snprintf(out, n, "screen does not match the pattern");
        break;
    case COND_CURSOR_AT:
        snprintf(out, n, "cursor is at %d,%d, not %lld,%lld", cur.row, cur.col, (long long)c->row, (long long)c->col);
        break;
    case COND_LINE_EQUALS:
    case COND_LINE_CONTAINS:
    case COND_LINE_STARTS:
    case COND_LINE_ENDS:
    case COND_LINE_MATCHES: {
        static const char *const what[] = { "equal the text", "contain the text", "start with the text",
                                            "end with the text", "match the pattern" };
        Buf line;
        buf_init(&line);
        if (c->line >= 0 && c->line < rows)
            pty_screen_line(scr, (int)c->line, &line);
        snprintf(out, n, "line %lld does not %s; it is \"%.*s\"", (long long)c->line,
                 what[c->kind == COND_LINE_EQUALS ? 0 : c->kind == COND_LINE_CONTAINS ? 1 : c->kind == COND_LINE_STARTS ? 2
                                                 : c->kind == COND_LINE_ENDS ? 3 : 4],
                 (int)(line.len > 200 ? 200 : line.len), line.data ? (const char *)line.data : "");
        buf_fini(&line);
        break;
    }
    case COND_SCREEN_EMPTY:
        snprintf(out, n, "screen is not empty");
        break;
    case COND_CURSOR_VISIBLE:
        snprintf(out, n, "cursor is hidden");
        break;
    case COND_CURSOR_HIDDEN:
        snprintf(out, n, "cursor is visible");
        break;
    case COND_EXITED:
        snprintf(out, n, "process has not exited");
        break;
    case COND_EXIT_CODE:
        if (sess && pty_session_exited(sess))
            snprintf(out, n, "exit code is %d, not %lld", pty_session_exit_code(sess), (long long)c->code);
        else
            snprintf(out, n, "process has not exited (expected exit code %lld)", (long long)c->code);
        break;
    case COND_STABLE:
        snprintf(out, n, "screen did not stay unchanged for %lld ms", (long long)c->ms);
        break;
    case COND_ALT_SCREEN:
        snprintf(out, n, "alternate screen is %s", pty_screen_altscreen(scr) ? "on" : "off");
        break;
    }
}

