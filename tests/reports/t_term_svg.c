/* SPDX-License-Identifier: MIT */
/* t_term_svg.c - the screen pictures (formats/term/term_svg.h): golden
** text read back into cells, drawn the same bytes every time, characters
** on their cells (a wide one on two), styles, the cursor, escaping, a
** diff's outlined cells, and input that is not a golden refused.
**
** argv[1]: the expected SVG of SCREEN (tests/reports/screen.svg), compared
** byte for byte; with --update it is rewritten. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "formats/term/term_svg.h"
#include "tests/check.h"

/* bold, red, underline, inverse, a 256-colour and an RGB background, a
** wide pair, markup characters that need escaping, a combining accent, a
** masked token, the cursor on row 2 */
static const char SCREEN[] =
    "scc-screen 1\n"
    "size 4x20\n"
    "cursor 2,3 visible\n"
    "alt off\n"
    "masks\n"
    "  \\d+ms\n"
    "text\n"
    "  0|bold red <&>\"'\n"
    "  1|\xe6\x97\xa5\xe6\x9c\xac x e\xcc\x81\n"
    "  2|$ \xe2\x80\xb9mask\xe2\x80\xba\n"
    "  3|\n"
    "attrs\n"
    "  0: 0-3 bold, 5-7 fg=1 underline, 9-13 inverse\n"
    "  1: 0-3 bg=238, 5-5 bg=#102030 italic strike\n";

static char *contains(const Buf *b, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= b->len; i++)
        if (memcmp(b->data + i, s, n) == 0)
            return (char *)b->data + i;
    return NULL;
}

int main(int argc, char **argv)
{
    bool update = argc > 2 && strcmp(argv[2], "--update") == 0;
    const char *why = NULL;
    TermShot *s = term_shot_parse(SCREEN, sizeof SCREEN - 1, &why);
    CHECK(s != NULL);
    if (!s) {
        fprintf(stderr, "parse: %s\n", why);
        return 1;
    }
    int rows, cols;
    term_shot_size(s, &rows, &cols);
    CHECK(rows == 4 && cols == 20);

    Buf a, b;
    buf_init(&a);
    buf_init(&b);
    term_svg_write(s, NULL, true, &a);
    term_svg_write(s, NULL, true, &b);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);   /* same screen, same bytes */
    CHECK(contains(&a, "xmlns=\"http://www.w3.org/2000/svg\" width=\"180\" height=\"72\""));
    /* every character at its cell's x: 9 px a cell */
    CHECK(contains(&a, "font-weight=\"bold\" x=\"0 9 18 27\">bold</text>"));
    CHECK(contains(&a, "fill=\"#cd0000\" x=\"45 54 63\">red</text>"));
    /* escaped markup; inverse: dark text on the default foreground */
    CHECK(contains(&a, "fill=\"#1c1c1c\" x=\"81 90 99 108 117\">&lt;&amp;&gt;&quot;&#39;</text>"));
    CHECK(contains(&a, "<rect x=\"81\" y=\"0\" width=\"45\" height=\"18\" fill=\"#d0d0d0\"/>"));
    /* the wide pair on cells 0-1 and 2-3, then x on cell 5; the accent joins e's cell (7) */
    CHECK(contains(&a, "x=\"1 19\">\xe6\x97\xa5\xe6\x9c\xac</text>"));
    CHECK(contains(&a, "font-style=\"italic\" x=\"45\">x</text>"));
    CHECK(contains(&a, "x=\"63\">e\xcc\x81</text>"));
    /* backgrounds: palette 238 is grey 68, RGB as written */
    CHECK(contains(&a, "<rect x=\"0\" y=\"18\" width=\"36\" height=\"18\" fill=\"#444444\"/>"));
    CHECK(contains(&a, "<rect x=\"45\" y=\"18\" width=\"9\" height=\"18\" fill=\"#102030\"/>"));
    /* underline under red, strike through x */
    CHECK(contains(&a, "<rect x=\"45\" y=\"16\" width=\"27\" height=\"1\" fill=\"#cd0000\"/>"));
    CHECK(contains(&a, "<rect x=\"45\" y=\"27\" width=\"9\" height=\"1\""));
    /* the cursor on row 2, column 3; the masked token as six cells */
    CHECK(contains(&a, "class=\"cursor\" x=\"27\" y=\"36\""));
    CHECK(contains(&a, "x=\"18 27 36 45 54 63\">\xe2\x80\xb9mask\xe2\x80\xba</text>"));
    CHECK(!contains(&a, "class=\"diff\""));

    /* the expected file, byte for byte */
    if (argc > 1) {
        if (update) {
            FILE *f = fopen(argv[1], "wb");
            CHECK(f && fwrite(a.data, 1, a.len, f) == a.len && fclose(f) == 0);
        } else {
            FILE *f = fopen(argv[1], "rb");
            CHECK(f != NULL);
            if (f) {
                static char want[1 << 16];
                size_t n = fread(want, 1, sizeof want, f);
                fclose(f);
                CHECK(n == a.len && memcmp(want, a.data, n) == 0);
            }
        }
    }

    /* a diff: one changed cell, outlined on both sides */
    static const char OTHER[] = "scc-screen 1\nsize 4x20\ncursor 2,3 visible\nalt off\ntext\n  0|bold rod <&>\"'\n"
                                "  1|\xe6\x97\xa5\xe6\x9c\xac x e\xcc\x81\n  2|$ \xe2\x80\xb9mask\xe2\x80\xba\n"
                                "attrs\n  0: 0-3 bold, 5-7 fg=1 underline, 9-13 inverse\n"
                                "  1: 0-3 bg=238, 5-5 bg=#102030 italic strike\n";
    TermShot *o = term_shot_parse(OTHER, sizeof OTHER - 1, NULL);
    CHECK(o != NULL);
    if (o) {
        CHECK(term_shot_diff_cells(s, o) == 1);
        CHECK(term_shot_diff_cells(s, s) == 0);
        buf_reset(&b);
        static const char DIFF[] = "--- a\n+++ b\n-x\n+y\n";
        term_html_diff(s, o, "shot <1>", DIFF, sizeof DIFF - 1, &b);
        CHECK(contains(&b, "<title>shot &lt;1&gt;</title>"));
        CHECK(contains(&b, "1 cell differs"));
        CHECK(contains(&b, "class=\"diff\" x=\"54.5\" y=\"0.5\""));
        CHECK(contains(&b, "<span class=\"del\">-x</span>"));
        CHECK(contains(&b, "<span class=\"add\">+y</span>"));
        CHECK(!contains(&b, "xmlns="));   /* inline SVG in HTML needs none */
        term_shot_free(o);
    }
    buf_reset(&b);
    term_html_screen(s, "a & b", &b);
    CHECK(contains(&b, "<h1>a &amp; b</h1>"));
    CHECK(contains(&b, "4x20, cursor 2,3 visible, main screen"));

    /* not goldens */
    CHECK(term_shot_parse("", 0, &why) == NULL);
    CHECK(term_shot_parse("hello\n", 6, &why) == NULL);
    CHECK(term_shot_parse("scc-screen 1\nsize 0x80\n", 23, &why) == NULL);
    CHECK(term_shot_parse("scc-screen 1\nsize 501x80\n", 25, &why) == NULL);
    TermShot *t = term_shot_parse("scc-screen 1\nsize 2x3\ntext\n  0|abcdef\n  9|x\nattrs\n  0: 1-99 bold\n  7: 0-0 bold\n",
                                  79, &why);
    CHECK(t != NULL);   /* overlong rows, rows and runs out of range: cut, not refused */
    term_shot_free(t);
    /* every truncation and every byte flipped of a golden: parsed or
    ** refused, never read out of bounds (run under ASan) */
    for (size_t n = 0; n <= sizeof SCREEN - 1; n++) {
        char *cut = malloc(n ? n : 1);
        if (!cut)
            return 1;
        memcpy(cut, SCREEN, n);
        for (int flip = -1; flip < (int)n; flip++) {
            if (flip >= 0)
                cut[flip] = (char)(cut[flip] ^ 0x5a);
            TermShot *x = term_shot_parse(cut, n, NULL);
            if (x) {
                buf_reset(&a);
                term_svg_write(x, s, true, &a);
                term_shot_free(x);
            }
            if (flip >= 0)
                cut[flip] = (char)(cut[flip] ^ 0x5a);
            if (n != sizeof SCREEN - 1 && flip >= 0)
                break;   /* all flips of the whole text only */
        }
        free(cut);
    }
    term_shot_free(s);
    buf_fini(&a);
    buf_fini(&b);
    /* escaping: control characters are not XML */
    buf_init(&a);
    term_xml_esc(&a, "a\x01\x1b" "b\xff", 5);
    CHECK(a.len == 11 && memcmp(a.data, "a\xef\xbf\xbd\xef\xbf\xbd" "b\xef\xbf\xbd", 11) == 0);
    buf_fini(&a);
    if (failures)
        fprintf(stderr, "term_svg: %d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
