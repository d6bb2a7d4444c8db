/* SPDX-License-Identifier: MIT */
/* pty_unit.c - the PTY target's layers, in libvterm's test spirit: push
** bytes, check the screen; press keys, check the bytes; spawn programs,
** check that nothing is left behind.  Each check names what it tests. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/term/term_regex.h"
#include "runtime/pty/rt_pty_mask.h"
#include "runtime/pty/rt_pty_screen.h"
#include "runtime/pty/rt_pty_session.h"
#include "tests/check.h"

/* ---- screen ---- */

static Buf sent;        /* what the screen sent towards the program */
static Buf notes;

static void on_out(const char *s, size_t n, void *u)
{
    (void)u;
    buf_put(&sent, s, n);
}

static void on_note(const char *kind, const char *d, size_t n, void *u)
{
    (void)u;
    buf_printf(&notes, "%s:%.*s;", kind, (int)n, d);
}

static void push(PtyScreen *s, const char *bytes)
{
    pty_screen_feed(s, bytes, strlen(bytes));
}

static bool sent_is(const char *want)
{
    bool ok = sent.len == strlen(want) && memcmp(sent.data, want, sent.len) == 0;
    buf_reset(&sent);
    return ok;
}

static void test_screen(void)
{
    PtyScreen *s = pty_screen_new(5, 20, on_out, on_note, NULL);
    Buf b;
    buf_init(&b);

    push(s, "hello\r\n\x1b[1;31mred\x1b[0m wor\xc3\xa9ld   ");
    pty_screen_line(s, 0, &b);
    CHECKF(b.len == 5 && memcmp(b.data, "hello", 5) == 0, "line 0 is 'hello'");
    pty_screen_line(s, 1, &b);
    CHECKF(b.len == 11 && memcmp(b.data, "red wor\xc3\xa9ld", 11) == 0, "line 1 trailing spaces trimmed, UTF-8 kept");

    buf_reset(&b);
    pty_screen_golden(s, NULL, &b);
    buf_putc(&b, 0);
    const char *g = (const char *)b.data;
    CHECKF(strstr(g, "size 5x20\n") != NULL, "golden has the size");
    CHECKF(strstr(g, "  1: 0-2 bold fg=1\n") != NULL, "golden attrs: bold red run on row 1 (%s)", g);
    CHECKF(strstr(g, "cursor 1,") != NULL, "golden has the cursor row");

    /* APC/PM/SOS strings are not shown (libvterm 0.1.4 would print their
    ** payload), whole or split across writes, and the text around them is */
    push(s, "\x1b[2J\x1b[Ha\x1b_Gi=31,a=q;AAAA\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x07" "d");
    buf_reset(&b);
    pty_screen_line(s, 0, &b);
    CHECKF(b.len == 4 && memcmp(b.data, "abcd", 4) == 0, "APC, PM, SOS cut out (%.*s)", (int)b.len, (const char *)b.data);
    push(s, "\x1b[H");
    const char *parts[] = { "x\x1b", "_Gpay", "load\x1b", "\\y\x1b", "[1mz\x1b", "", "\x1b[0m!" };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        push(s, parts[i]);
    buf_reset(&b);
    pty_screen_line(s, 0, &b);
    CHECKF(b.len == 4 && memcmp(b.data, "xyz!", 4) == 0, "an APC split across writes, an ESC held (%.*s)", (int)b.len,
          (const char *)b.data);

    /* queries: cursor position report and device attributes */
    push(s, "\x1b[3;4H\x1b[6n");
    CHECKF(sent_is("\x1b[3;4R"), "CPR answered with the cursor position");
    push(s, "\x1b[c");
    CHECKF(sent.len > 3 && memcmp(sent.data, "\x1b[?", 3) == 0, "DA answered");
    buf_reset(&sent);
    push(s, "\x1b]11;?\x1b\\");
    CHECKF(sent.len > 5 && memcmp(sent.data, "\x1b]11;rgb:", 9) == 0, "OSC 11 colour query answered");
    buf_reset(&sent);

    /* keys follow the modes the program set */
    CHECKF(pty_screen_key(s, "Up") && sent_is("\x1b[A"), "Up in normal mode is CSI A");
    push(s, "\x1b[?1h");
    CHECKF(pty_screen_key(s, "Up") && sent_is("\x1bOA"), "Up in DECCKM is SS3 A");
    push(s, "\x1b[?1l");
    CHECKF(pty_screen_key(s, "Ctrl+C") && sent_is("\x03"), "Ctrl+C is ETX");
    CHECKF(pty_screen_key(s, "ctrl+c") && sent_is("\x03"), "modifier names are case-insensitive");
    CHECKF(pty_screen_key(s, "Enter") && sent_is("\r"), "Enter is CR");
    CHECKF(pty_screen_key(s, "F5") && sent_is("\x1b[15~"), "F5");
    CHECKF(pty_screen_key(s, "Alt+x") && sent_is("\x1bx"), "Alt+x is ESC x");
    CHECKF(pty_screen_key(s, "Shift+Up") && sent_is("\x1b[1;2A"), "Shift+Up");
    CHECKF(!pty_key_valid("Hyper+Q") && !pty_key_valid("Entr") && !pty_key_valid(""), "unknown keys refused");
    pty_screen_type(s, "ab\n", 3, true);
    CHECKF(sent_is("ab\r"), "typing without bracketed paste mode");
    push(s, "\x1b[?2004h");
    pty_screen_type(s, "ab", 2, true);
    CHECKF(sent_is("\x1b[200~ab\x1b[201~"), "paste is bracketed when the program asks");

    /* alternate screen, cursor visibility, invalid UTF-8 */
    push(s, "\x1b[?1049h\x1b[?25l");
    CHECKF(pty_screen_altscreen(s) && !pty_screen_cursor(s).visible, "alt screen on, cursor hidden");
    buf_reset(&notes);
    push(s, "bad\xff\xfe!");
    CHECKF(strstr((const char *)notes.data, "invalid_utf8") != NULL, "invalid UTF-8 becomes an event");
    buf_reset(&notes);
    push(s, "\x1b[H\x1b[2K\xe2\x82");
    push(s, "\xac");
    CHECKF(notes.len == 0, "a character split across reads is not invalid");
    pty_screen_line(s, 0, &b);
    CHECKF(b.len == 3 && memcmp(b.data, "\xe2\x82\xac", 3) == 0, "a character split across reads is shown whole");
    push(s, "\r\x1b[2K\xf0\x9f");
    push(s, "\x98");
    push(s, "\x80ok");
    pty_screen_line(s, 0, &b);
    CHECKF(b.len == 6 && memcmp(b.data, "\xf0\x9f\x98\x80ok", 6) == 0, "split into three reads, shown whole");

    uint64_t g0 = pty_screen_gen(s);
    push(s, "x");
    CHECKF(pty_screen_gen(s) != g0, "a change bumps the generation");

    /* wide characters take two cells but one character of text */
    PtyScreen *w = pty_screen_new(2, 10, on_out, on_note, NULL);
    push(w, "\xe4\xb8\xad\xe6\x96\x87|");
    pty_screen_line(w, 0, &b);
    CHECKF(b.len == 7 && memcmp(b.data, "\xe4\xb8\xad\xe6\x96\x87|", 7) == 0, "wide characters once in text");
    CHECKF(pty_screen_cursor(w).col == 5, "the cursor moved four cells then one");
    pty_screen_free(w);

    buf_fini(&b);
    pty_screen_free(s);
}

/* ---- regex ---- */

static bool re_match(const char *pat, const char *text)
{
    char err[128];
    TermRegex *re = term_regex_new(pat, strlen(pat), err, sizeof err);
    if (!re) {
        fprintf(stderr, "pattern %s: %s\n", pat, err);
        return false;
    }
    bool m = term_regex_search(re, text, strlen(text));
    term_regex_free(re);
    return m;
}

static bool re_bad(const char *pat)
{
    char err[128];
    TermRegex *re = term_regex_new(pat, strlen(pat), err, sizeof err);
    term_regex_free(re);
    return re == NULL;
}

/* The screen keeps each row's text until libvterm reports it changed, and
** moves it with the row when the program scrolls: after every kind of
** change (scrolling, a scroll region, inserted and deleted lines, reverse
** index, left/right margins, the alternate screen, a resize) the text read
** must be the text on the screen.  Each screen is read before and after
** the change, so a stale row would show. */
static bool text_is(PtyScreen *s, const char *want, Buf *b)
{
    pty_screen_text(s, b);
    return b->len == strlen(want) && memcmp(b->data, want, b->len) == 0;
}

static void test_line_cache(void)
{
    PtyScreen *s = pty_screen_new(4, 10, on_out, on_note, NULL);
    Buf b;
    buf_init(&b);
#define SCREEN(bytes, want, what)                                                                   \
    do {                                                                                           \
        pty_screen_text(s, &b);                                                                    \
        push(s, bytes);                                                                            \
        CHECKF(text_is(s, want, &b), "%s: got \"%.*s\"", what, (int)b.len, (const char *)b.data); \
    } while (0)
    SCREEN("a\r\nb\r\nc\r\nd", "a\nb\nc\nd", "four rows");
    SCREEN("\r\ne", "b\nc\nd\ne", "a scroll by one");
    SCREEN("\r\nf\r\ng", "d\ne\nf\ng", "a scroll by two in one write");
    for (int i = 0; i < 50; i++) {
        char line[16];
        snprintf(line, sizeof line, "\r\nL%d", i);
        push(s, line);
        pty_screen_text(s, &b);
    }
    CHECKF(text_is(s, "L46\nL47\nL48\nL49", &b), "fifty scrolls, read after each");
    SCREEN("\x1b[2;3r\x1b[3;1H\r\nX", "L46\nL48\nX\nL49", "a scroll inside rows 2-3 only");
    SCREEN("\x1b[r\x1b[1;1H\x1bM", "\nL46\nL48\nX", "reverse index at the top scrolls down");
    SCREEN("\x1b[2;1H\x1b[L", "\n\nL46\nL48", "insert line");
    SCREEN("\x1b[1;1H\x1b[2M", "L46\nL48\n\n", "delete two lines");
    SCREEN("\x1b[1;1Hab\x1b[2;1Hcd\x1b[?69h\x1b[2;3s\x1b[1;4r\x1b[1;1H\x1b[S",
           "ad8\nc\n\n", "a scroll inside columns 2-3 (left/right margins)");
    SCREEN("\x1b[?69l\x1b[r\x1b[?1049h", "\n\n\n", "the alternate screen is empty");
    SCREEN("\x1b[1;1Halt", "alt\n\n\n", "text on the alternate screen");
    SCREEN("\x1b[?1049l", "ad8\nc\n\n", "back to the main screen");
    pty_screen_resize(s, 2, 10);
    pty_screen_text(s, &b);
    CHECKF(b.len > 0 && memchr(b.data, '\n', b.len) == memrchr(b.data, '\n', b.len), "resized to two rows: \"%.*s\"",
           (int)b.len, (const char *)b.data);
    Buf line;
    buf_init(&line);
    pty_screen_line(s, 0, &line);
    CHECKF(b.len >= line.len && memcmp(b.data, line.data, line.len) == 0, "the text starts with row 0");
    SCREEN("\x1b[2J\x1b[1;1Hone\r\ntwo", "one\ntwo", "after the resize");
#undef SCREEN
    buf_fini(&line);
    buf_fini(&b);
    pty_screen_free(s);
}

static void test_regex(void)
{
    CHECKF(re_match("hel+o", "say hello"), "plus");
    CHECKF(!re_match("^hello", "say hello"), "anchor at the start");
    CHECKF(re_match("(?m)^hello$", "x\nhello\ny"), "multi-line anchors");
    CHECKF(re_match("a(b|c)*d", "xabcbcd"), "group, alternation, star");
    CHECKF(re_match("[0-9]{3}-\\d{2,}", "tel 555-1234"), "classes and counted repetition");
    CHECKF(!re_match("[0-9]{3}-\\d{5,}", "tel 555-1234"), "counted repetition bound");
    CHECKF(re_match("\\w+@\\w+\\.com", "mail: a_b@example.com"), "escapes");
    CHECKF(re_match("[^a-z]x", "Ax") && !re_match("[^a-z]x", "ax"), "negated class");
    CHECKF(re_match("(?i)HELLO", "hello"), "case-insensitive");
    CHECKF(re_match("caf\xc3\xa9.", "caf\xc3\xa9!"), "UTF-8 literal then any");
    CHECKF(re_match("colou?r", "color") && re_match("colou?r", "colour"), "question mark");
    CHECKF(re_bad("(ab") && re_bad("ab)") && re_bad("*a") && re_bad("[a-") && re_bad("a{5,2}"), "bad patterns refused");
    CHECKF(re_bad("a{1000}"), "huge repetitions refused");
    /* what other engines' users write (docs/pty.md, "Regular expressions") */
    CHECKF(re_match("(?P<year>\\d{4})-(?<m>\\d\\d)", "on 2026-11") && re_match("(?:ab)+", "abab"),
           "named and non-capturing groups");
    CHECKF(re_match("\\Ahello", "hello x") && !re_match("\\Ahello", "x\nhello") &&
           !re_match("(?m)\\Ahello", "x\nhello") && re_match("(?m)^hello", "x\nhello"), "\\A: the start of the text only");
    CHECKF(re_match("done\\z", "all done") && !re_match("done\\z", "done\n") && re_match("done\\Z", "done"),
           "\\z, \\Z: the end of the text");
    CHECKF(re_match("\\x41\\x{1F600}\\u00e9", "A\xf0\x9f\x98\x80\xc3\xa9") && re_match("[\\x30-\\x39]+", "42"),
           "hex escapes, in classes too");
    CHECKF(re_match("(?is)a.B", "A\nb") && !re_match("(?i)a.B", "A\nb"), "inline flags at the start, (?s)");
    CHECKF(re_match("^[[:alpha:]]+$", "Hello") && !re_match("^[[:alpha:]]+$", "Hello1") &&
           re_match("^[[:digit:][:space:]]+$", "1 2\t3") && !re_match("[[:punct:]]", "abc") && re_match("[^[:alnum:]]", "a-b"),
           "POSIX classes, not misread as a class of '[', ':' and letters");
    char err[160];
    static const struct { const char *pat, *says; } refused[] = {
        { "(?=a)b", "lookahead" }, { "(?<=a)b", "lookbehind" }, { "(a)\\1", "backreferences" },
        { "a(?i)b", "inline flags" }, { "(?i:a)", "inline flags" }, { "[[:alpah:]]", "unknown POSIX class" },
        { "\\x4", "two hex digits" }, { "\\p{L}", "Unicode property" }, { "[[=a=]]", "equivalence" },
        { "(?P=n)", "backreferences" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        TermRegex *re = term_regex_new(refused[i].pat, strlen(refused[i].pat), err, sizeof err);
        CHECKF(!re && strstr(err, refused[i].says), "%s is refused by name: %s", refused[i].pat, re ? "accepted" : err);
        term_regex_free(re);
    }
    CHECKF(re_match("\\bhi\\b", "oh hi there") && re_match("\\bhi\\b", "hi") && !re_match("\\bhi\\b", "this"),
          "word boundary");
    CHECKF(re_match("\\Bhi", "this") && !re_match("\\Bhi", "hi there") && re_match("(?i)\\b(refund|credit)\\b", "a Refund."),
          "non-boundary, and a boundary in a group");
    CHECKF(re_match("\\b", "x") && !re_match("\\b", "") && !re_match("\\b", "  ") && re_match("\\B", ""),
          "boundaries at the ends of the text");
    /* The classic backtracking killer: (a?){n}a{n} against a^n.  A
    ** backtracking engine needs 2^n steps; here it is linear. */
    char pat[200], text[64];
    int n = 28, k = 0;
    for (int i = 0; i < n; i++)
        k += snprintf(pat + k, sizeof pat - (size_t)k, "a?");
    for (int i = 0; i < n; i++)
        k += snprintf(pat + k, sizeof pat - (size_t)k, "a");
    memset(text, 'a', (size_t)n);
    text[n] = 0;
    CHECKF(re_match(pat, text), "pathological pattern matches (and returns)");
    CHECKF(re_match("(x+x+)+y", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy"), "nested plus");
    CHECKF(!re_match("(x+x+)+y", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), "nested plus, no match, linear");
}

/* term_regex_find: where the match is, as Rust's regex reports it. */
static bool re_find(const char *pat, const char *text, size_t from, const char *want)
{
    char err[128];
    TermRegex *re = term_regex_new(pat, strlen(pat), err, sizeof err);
    if (!re) {
        fprintf(stderr, "pattern %s: %s\n", pat, err);
        return false;
    }
    size_t s = 0, e = 0;
    int r = term_regex_find(re, text, strlen(text), from, &s, &e);
    term_regex_free(re);
    if (!want)
        return r == 0;
    bool ok = r == 1 && e - s == strlen(want) && memcmp(text + s, want, e - s) == 0;
    if (!ok)
        fprintf(stderr, "find %s in '%s': got %d [%zu,%zu) want '%s'\n", pat, text, r, s, e, want);
    return ok;
}

static void test_regex_find(void)
{
    CHECKF(re_find("\\d+", "at 10:42 AM", 0, "10"), "leftmost, greedy");
    CHECKF(re_find("\\d+", "at 10:42 AM", 5, "42"), "from an offset");
    CHECKF(re_find("\\d+", "at 10:42 AM", 9, NULL), "nothing after the offset");
    CHECKF(re_find("\\d{1,2}:\\d\\d [AP]M", "done 4:11 AM.", 0, "4:11 AM"), "a clock");
    CHECKF(re_find("a|ab", "xab", 0, "a") && re_find("ab|a", "xab", 0, "ab"), "alternation: the first that matches");
    CHECKF(re_find("<.*>", "<a> <b>", 0, "<a> <b>") && re_find("<.*?>", "<a> <b>", 0, "<a>"), "greedy and lazy star");
    CHECKF(re_find("x+?", "xxx", 0, "x") && re_find("x??y", "xy", 0, "xy") && re_find("x{2,3}?", "xxxx", 0, "xx"),
          "lazy plus, question mark, counted");
    CHECKF(re_find("x{2}?", "x", 0, NULL), "x{2}? is a lazy x{2}, not an optional one");
    CHECKF(re_find("^ab", "abab", 2, NULL) && re_find("b$", "abab", 0, "b"), "anchors at the text's ends");
    CHECKF(re_find("caf\xc3\xa9", "un caf\xc3\xa9!", 0, "caf\xc3\xa9"), "UTF-8");
    CHECKF(re_find("x*", "abc", 0, ""), "an empty match where nothing matches more");
    CHECKF(re_find("\\b\\w+\\b", "  two words", 0, "two") && re_find("\\b\\w+\\b", "  two words", 3, "wo") == false &&
          re_find("\\b\\w+\\b", "  two words", 6, "words"), "words between boundaries");
}

/* ---- masks (docs/golden-screens.md, "Masks") ---- */

static PtyMasks *masks_of(const char *golden)
{
    char err[300];
    PtyMasks *m = NULL;
    if (!pty_masks_parse(golden, strlen(golden), "g.golden", &m, err, sizeof err))
        fprintf(stderr, "masks: %s\n", err);
    return m;
}

static bool masks_refused(const char *golden, const char *want_err)
{
    char err[300] = "";
    PtyMasks *m = (PtyMasks *)1;
    bool ok = pty_masks_parse(golden, strlen(golden), "g.golden", &m, err, sizeof err);
    if (ok || m != NULL || strstr(err, want_err) == NULL) {
        fprintf(stderr, "masks of '%s': ok %d, err '%s', want '%s'\n", golden, ok, err, want_err);
        pty_masks_free(ok ? m : NULL);
        return false;
    }
    return true;
}

static void test_masks(void)
{
    const char *head = "scc-screen 1\nsize 3x30\ncursor 0,0 visible\nalt off\n";
    char gold[512];
    snprintf(gold, sizeof gold, "%smasks\n  \\d+:\\d\\d\n  /tmp/\\S+\ntext\n  0|masks\nattrs\n", head);
    PtyMasks *m = masks_of(gold);
    CHECKF(m != NULL, "a golden's masks are read");
    /* a screen with a clock in bold, a path, a wide character before a
    ** clock, and an underline after it; the cursor after the clock */
    PtyScreen *s = pty_screen_new(3, 30, on_out, on_note, NULL);
    push(s, "done \x1b[1m10:42\x1b[0m in /tmp/ws-12345 \x1b[31mok\x1b[0m\r\n"
            "\xe3\x81\x82 4:11 \x1b[4mz\x1b[0m\r\nat 4:11");
    Buf b, raw;
    buf_init(&b);
    buf_init(&raw);
    CHECKF(pty_screen_golden(s, m, &b) && pty_screen_golden(s, NULL, &raw), "rendered");
    buf_putc(&b, 0);
    buf_putc(&raw, 0);
    const char *g = (const char *)b.data;
    CHECKF(strstr(g, "alt off\nmasks\n  \\d+:\\d\\d\n  /tmp/\\S+\ntext\n") != NULL, "the masks section is written back (%s)", g);
    CHECKF(strstr(g, "  0|done \xe2\x80\xb9mask\xe2\x80\xba in \xe2\x80\xb9mask\xe2\x80\xba ok\n") != NULL,
          "the clock and the path are one token each (%s)", g);
    CHECKF(strstr(g, "  1|\xe3\x81\x82 \xe2\x80\xb9mask\xe2\x80\xba z\n") != NULL, "after a wide character (%s)", g);
    /* attrs in the masked row's columns: the bold clock is hidden (plain),
    ** "ok" moved from 28-29 to 22-23, the underline from 8 to 10 */
    CHECKF(strstr(g, "attrs\n  0: 22-23 fg=1\n  1: 10-10 underline\n") != NULL, "attrs follow the masked text (%s)", g);
    CHECKF(strstr(g, "cursor 2,9 visible") != NULL, "the cursor moves with the text (%s)", g);
    const char *r = (const char *)raw.data;
    CHECKF(strstr(r, "  0|done 10:42 in /tmp/ws-12345 ok\n") != NULL && strstr(r, "0: 5-9 bold, 28-29 fg=1") != NULL &&
              strstr(r, "masks") == NULL, "without masks the screen is as it was (%s)", r);

    /* another run: other digits, a longer path; the same golden */
    PtyScreen *s2 = pty_screen_new(3, 30, on_out, on_note, NULL);
    push(s2, "done \x1b[1m9:01\x1b[0m in /tmp/w-9 \x1b[31mok\x1b[0m\r\n"
             "\xe3\x81\x82 12:59 \x1b[4mz\x1b[0m\r\nat 1:00");
    Buf b2;
    buf_init(&b2);
    CHECKF(pty_screen_golden(s2, m, &b2), "rendered again");
    buf_putc(&b2, 0);
    CHECKF(strcmp((const char *)b2.data, g) == 0, "text of another length masks the same:\n%s\n---\n%s",
          (const char *)b2.data, g);

    /* the golden's side: its rows masked, a token left as it is */
    Buf gm;
    buf_init(&gm);
    CHECKF(pty_masks_golden(m, g, strlen(g), &gm), "a masked golden masked again");
    CHECKF(gm.len == strlen(g) && memcmp(gm.data, g, gm.len) == 0, "changes nothing");
    buf_reset(&gm);
    const char *hand = "scc-screen 1\nmasks\n  [a-z]+\ntext\n  0|up 3:04 \xe2\x80\xb9mask\xe2\x80\xba | 7\nattrs\n  0: 0-1 bold\n";
    PtyMasks *m2 = masks_of(hand);
    CHECKF(m2 && pty_masks_golden(m2, hand, strlen(hand), &gm), "a golden with raw text");
    buf_putc(&gm, 0);
    CHECKF(strcmp((const char *)gm.data, "scc-screen 1\nmasks\n  [a-z]+\ntext\n  0|\xe2\x80\xb9mask\xe2\x80\xba 3:04 "
                                         "\xe2\x80\xb9mask\xe2\x80\xba | 7\nattrs\n  0: 0-1 bold\n") == 0,
          "its rows masked, a token whole (a match inside it hides all of it), the rest as written: %s",
          (const char *)gm.data);
    pty_masks_free(m2);
    CHECKF(masks_of(head) == NULL, "no masks section: none");

    /* refused, with the golden's path and line */
    snprintf(gold, sizeof gold, "%smasks\n  ok\\d\n  (\\d+\ntext\n", head);
    CHECKF(masks_refused(gold, "g.golden:7: invalid mask '(\\d+': missing ')'"), "unbalanced group");
    snprintf(gold, sizeof gold, "%smasks\n  \\d*\ntext\n", head);
    CHECKF(masks_refused(gold, "g.golden:6: invalid mask '\\d*': it can match the empty text"), "empty matches");
    snprintf(gold, sizeof gold, "%smasks\n  \ntext\n", head);
    CHECKF(masks_refused(gold, "g.golden:6: invalid mask '': an empty pattern"), "an empty line");
    snprintf(gold, sizeof gold, "%smasks\n  \\q\ntext\n", head);
    CHECKF(masks_refused(gold, "g.golden:6: invalid mask '\\q': unsupported escape"), "a bad escape");
    Buf many;
    buf_init(&many);
    buf_puts(&many, "masks\n");
    for (int i = 0; i < 101; i++)
        buf_printf(&many, "  x%d\n", i);
    buf_putc(&many, 0);
    CHECKF(masks_refused((const char *)many.data, "g.golden:102: invalid mask 'x100': more than 100 masks"), "a limit");
    buf_fini(&many);

    buf_fini(&gm);
    buf_fini(&b2);
    buf_fini(&b);
    buf_fini(&raw);
    pty_masks_free(m);
    pty_screen_free(s);
    pty_screen_free(s2);
}

/* ---- sessions: no zombie, no orphan ---- */

static int count_children(void)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    int c = 0;
    for (char *p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
        c++;
    return c;
}

static void test_sessions(void)
{
    char *env[] = { "PATH=/usr/bin:/bin", "TERM=xterm-256color", NULL };
    /* A program that ignores SIGTERM and leaves a daemonized grandchild
    ** in another session: only SIGKILL and the subreaper sweep get them. */
    char *argv[] = { "/bin/sh", "-c",
                     "trap '' TERM; setsid sleep 300 </dev/null >/dev/null 2>&1 & sleep 300 & echo ready; wait",
                     NULL };
    for (int i = 0; i < 20; i++) {
        PtySpawn sp = { .path = "/bin/sh", .argv = argv, .envp = env, .rows = 24, .cols = 80 };
        char err[256];
        PtySession *s = pty_session_spawn(&sp, err, sizeof err);
        CHECKF(s != NULL, "spawn: %s", err);
        if (!s)
            return;
        /* wait (event-driven, bounded) until it printed "ready" */
        char out[256];
        size_t got = 0;
        uint64_t dl = pty_now_ms() + 20000;
        while (got < sizeof out - 1 && pty_now_ms() < dl) {
            struct pollfd pf = { .fd = pty_session_fd(s), .events = POLLIN };
            if (poll(&pf, 1, 1000) > 0) {
                ssize_t r = read(pty_session_fd(s), out + got, sizeof out - 1 - got);
                if (r > 0)
                    got += (size_t)r;
            }
            out[got] = 0;
            if (strstr(out, "ready"))
                break;
        }
        CHECKF(strstr(out, "ready") != NULL, "session %d started", i);
        /* root (CI, this machine's tests): the program is in a namespace of
        ** its own; every other session the fallback, as without privilege */
        if (i == 10)
            setenv("SCVM_PTY_PIDNS", "0", 1);
        if (i == 0)
            CHECKF(pty_session_contained(s) == (geteuid() == 0), "namespace iff root");
        if (i == 11)
            CHECKF(!pty_session_contained(s), "SCVM_PTY_PIDNS=0: the fallback");
        CHECKF(pty_session_kill(s, 50), "session %d killed (TERM ignored, then KILL)", i);
        CHECKF(pty_session_exit_signal(s) == SIGKILL, "killed by SIGKILL");
        pty_session_close(s);
        int left = count_children();
        CHECKF(left == 0, "session %d: no child left (%d)", i, left);
    }
    unsetenv("SCVM_PTY_PIDNS");
    /* exec failures are reported, not an exit status 127 */
    PtySpawn bad = { .path = "/nonexistent/prog", .argv = (char *[]){ "prog", NULL }, .envp = env, .rows = 24, .cols = 80 };
    char err[256];
    PtySession *s = pty_session_spawn(&bad, err, sizeof err);
    CHECKF(s == NULL && strstr(err, "No such file") != NULL, "exec failure reported: %s", err);
    CHECKF(count_children() == 0, "and reaped");
    CHECKF(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no zombie at all");
}

int main(void)
{
    buf_init(&sent);
    buf_init(&notes);
    test_screen();
    test_line_cache();
    test_regex();
    test_regex_find();
    test_masks();
    test_sessions();
    buf_fini(&sent);
    buf_fini(&notes);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    puts("pty_unit: all checks passed");
    return 0;
}
