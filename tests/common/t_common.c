/* SPDX-License-Identifier: MIT */
/* t_common.c - common/: the one base64, the one UTF-8 check, the edit
** distance over what they decode, sc_strdup/sc_strndup, and the JSON
** writer. */
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "common/arena.h"
#include "common/base64.h"
#include "common/sha256.h"
#include "common/textdiff.h"
#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/levenshtein.h"
#include "common/sc_alloc.h"
#include "common/utf8.h"
#include "tests/check.h"

/* Decodes s; true when it is base64 and decodes to want (NULL: is not base64, bad offset want_bad). */
static void b64_case(const char *s, const char *want, size_t want_bad)
{
    Buf b;
    buf_init(&b);
    size_t bad = 12345;
    bool ok = b64_decode(s, strlen(s), &b, &bad);
    if (want) {
        if (!ok || b.len != strlen(want) || memcmp(b.data, want, b.len) != 0) {
            fprintf(stderr, "base64 '%s': expected '%s'\n", s, want);
            failures++;
        }
    } else if (ok || bad != want_bad) {
        fprintf(stderr, "base64 '%s': expected an error at %zu, got ok=%d bad=%zu\n", s, want_bad, ok, bad);
        failures++;
    }
    /* checking alone gives the same verdict */
    CHECK(b64_decode(s, strlen(s), NULL, NULL) == ok);
    buf_fini(&b);
}

static void test_base64(void)
{
    b64_case("aGVsbG8=", "hello", 0);
    b64_case("aGVs\nbG8g\r\n d29y\tbGQ=", "hello world", 0);
    b64_case("YQ==", "a", 0);
    b64_case("/+8=", "\xff\xef", 0);
    b64_case("", NULL, 0);                 /* no character at all */
    b64_case("  \n", NULL, 3);
    b64_case("YQ=", NULL, 3);              /* length */
    b64_case("YQ===", NULL, 5);            /* three pads */
    b64_case("YQ==YQ==", NULL, 4);         /* a character after padding */
    b64_case("_-8=", NULL, 0);             /* the URL-safe alphabet is not base64 here */
    b64_case("aGV*bG8=", NULL, 3);
    /* encoding: every tail length, and what it gives decodes back */
    static const char *const enc[][2] = { { "", "" }, { "a", "YQ==" }, { "ab", "YWI=" }, { "abc", "YWJj" },
                                          { "hello world", "aGVsbG8gd29ybGQ=" }, { "\xff\xef", "/+8=" } };
    for (size_t i = 0; i < sizeof enc / sizeof enc[0]; i++) {
        Buf e, d;
        buf_init(&e);
        buf_init(&d);
        b64_encode(enc[i][0], strlen(enc[i][0]), &e);
        CHECK(e.len == strlen(enc[i][1]) && (e.len == 0 || memcmp(e.data, enc[i][1], e.len) == 0));
        if (e.len)
            CHECK(b64_decode((const char *)e.data, e.len, &d, NULL) && d.len == strlen(enc[i][0]) &&
                  memcmp(d.data, enc[i][0], d.len) == 0);
        buf_fini(&e);
        buf_fini(&d);
    }
}

/* The bounded line diff (textdiff.h): the middle that differs, and an
** empty Buf's NULL data on either side. */
static void test_textdiff(void)
{
    Buf d;
    buf_init(&d);
    text_line_diff(&d, "a\nb\nc\n", 6, "a\nx\nc\n", 6);
    buf_putc(&d, 0);
    CHECK(strcmp((const char *)d.data, "--- expected\n+++ actual\n-b\n+x\n") == 0);
    buf_reset(&d);
    text_line_diff(&d, NULL, 0, "out\n", 4);
    text_line_diff(&d, "want", 4, NULL, 0);
    text_quote(&d, "  ", NULL, 0);
    buf_putc(&d, 0);
    CHECK(strcmp((const char *)d.data, "--- expected\n+++ actual\n+out\n--- expected\n+++ actual\n-want\n") == 0);
    buf_fini(&d);
}

static void test_utf8(void)
{
    static const struct { const char *s; size_t n; bool ok; size_t bad; } cases[] = {
        { "plain ascii, longer than eight bytes", 36, true, 0 },
        { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, true, 0 },
        { "ab\xc0\x80", 4, false, 2 },            /* overlong NUL */
        { "ab\xe0\x80\xaf", 5, false, 2 },        /* overlong '/' */
        { "\xed\xa0\x80", 3, false, 0 },          /* a surrogate */
        { "x\xf4\x90\x80\x80", 5, false, 1 },     /* above U+10FFFF */
        { "abcdefgh\xe2\x82", 10, false, 8 },     /* cut short */
        { "\x80", 1, false, 0 },                  /* a lone continuation */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t bad = 999;
        bool ok = utf8_valid((const unsigned char *)cases[i].s, cases[i].n, &bad);
        if (ok != cases[i].ok || (!ok && bad != cases[i].bad)) {
            fprintf(stderr, "utf8 case %zu: ok=%d bad=%zu\n", i, ok, bad);
            failures++;
        }
        /* the same judgement with no NUL in the text */
        CHECK(utf8_valid_nonul((const unsigned char *)cases[i].s, cases[i].n) == cases[i].ok);
    }
    /* a NUL anywhere, in the eight-byte words or the tail, in ASCII or not */
    static const char *const nul[] = { "abcdefgh\0jklmnopq", "abcdefghijklmno\0q", "\0", "caf\xc3\xa9\0" };
    static const size_t nul_n[] = { 18, 18, 1, 6 };
    for (size_t i = 0; i < sizeof nul / sizeof *nul; i++)
        CHECK(!utf8_valid_nonul((const unsigned char *)nul[i], nul_n[i]) &&
              utf8_valid((const unsigned char *)nul[i], nul_n[i], NULL));
    CHECK(utf8_valid_nonul((const unsigned char *)"", 0));
    /* every length to 25, a NUL, a lone 0x80 or a two-byte character at
    ** every position: in the words, the overlapping last eight, or both */
    unsigned char t[25];
    for (size_t n = 1; n <= sizeof t; n++)
        for (size_t at = 0; at < n; at++) {
            memset(t, 'a', sizeof t);
            CHECK(utf8_valid_nonul(t, n));
            t[at] = 0;
            CHECKF(!utf8_valid_nonul(t, n), "NUL at %zu of %zu", at, n);
            t[at] = 0x80;
            CHECKF(!utf8_valid_nonul(t, n), "0x80 at %zu of %zu", at, n);
            if (at + 1 < n) {
                t[at] = 0xc3, t[at + 1] = 0xa9;
                CHECKF(utf8_valid_nonul(t, n), "e-acute at %zu of %zu", at, n);
            }
        }
    uint32_t cp = 0;
    CHECK(utf8_char((const unsigned char *)"\xe2\x82\xac", 3, &cp) == 3 && cp == 0x20ac);
    CHECK(utf8_char((const unsigned char *)"\xe2\x82\xac", 2, &cp) == 0);
    CHECK(utf8_char((const unsigned char *)"\xc0\x80", 2, &cp) == 0);
}

/* The edit distance decodes with utf8_char: a character is one symbol, a
** byte that starts none is a symbol of its own (an overlong pair is two). */
/* A pack's programs live in one arena that is reset between packs and
** gives back a failed load's block (arena_reset, arena_unalloc). */
static void test_arena(void)
{
    Arena *a = arena_new();
    CHECK(a != NULL);
    void *first[40];
    for (int i = 0; i < 40; i++)   /* several blocks: 16 KiB, 32 KiB, ... */
        CHECK((first[i] = arena_alloc(a, 3000)) != NULL);
    size_t fp = arena_footprint(a);
    arena_reset(a);
    for (int i = 0; i < 40; i++)   /* the same blocks again, in the same order */
        CHECK(arena_alloc(a, 3000) == first[i]);
    CHECK(arena_footprint(a) == fp);
    void *p = arena_alloc(a, 100), *q = arena_alloc(a, 200);
    CHECK(!arena_unalloc(a, p, 100));   /* not the last */
    CHECK(arena_unalloc(a, q, 200));
    CHECK(arena_alloc(a, 200) == q);    /* its bytes taken again */
    CHECK(!arena_unalloc(a, q, 100));   /* not its whole size */
    arena_free(a);
}

/* Whether the mapping that holds p is advised for huge pages: "hg" in
** its VmFlags (/proc/self/smaps). */
static bool advised_huge(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return false;
    char line[512];
    bool in = false, hg = false;
    uintptr_t a = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = a >= lo && a < hi;
        else if (in && strncmp(line, "VmFlags:", 8) == 0)
            hg = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return hg;
}

/* sc_alloc_big: below SC_BIG_MIN from the heap; from it up a mapping of
** its own, 2 MiB aligned, advised for huge pages where the kernel has
** them, writable to its end, gone after sc_free_big; the fail hook
** counts it.  arena_reserve: one block of that size, used before any
** other, kept by arena_reset. */
static void test_alloc_big(void)
{
    unsigned char *s = sc_alloc_big(1000);
    CHECK(s != NULL);
    if (s)
        memset(s, 1, 1000);
    sc_free_big(s, 1000);
    size_t n = SC_BIG_MIN + 12345;
    unsigned char *b = sc_alloc_big(n);
    CHECK(b != NULL);
    if (!b)
        return;
    CHECK(((uintptr_t)b & (((uintptr_t)2 << 20) - 1)) == 0);
    memset(b, 2, n);
    CHECK(b[0] == 2 && b[n - 1] == 2);
    struct stat st;
    if (stat("/sys/kernel/mm/transparent_hugepage/enabled", &st) == 0)
        CHECK(advised_huge(b + n / 2));
    CHECK(msync(b, 4096, MS_ASYNC) == 0);
    sc_free_big(b, n);
    CHECK(msync(b, 4096, MS_ASYNC) != 0 && errno == ENOMEM);   /* unmapped */
    sc_alloc_reset();
    sc_alloc_fail_after = 1;
    CHECK(sc_alloc_big(n) == NULL);
    sc_alloc_reset();
    sc_alloc_fail_after = 1;
    CHECK(sc_alloc_big(1000) == NULL);
    sc_alloc_fail_after = 0;

    Arena *a = arena_new();
    CHECK(a != NULL);
    if (!a)
        return;
    size_t want = (size_t)3 << 20;
    CHECK(arena_reserve(a, want));
    size_t fp = arena_footprint(a);
    CHECK(fp >= want && fp < want + 4096);
    unsigned char *first = arena_alloc(a, 1000), *last = NULL;
    for (int i = 0; i < 90; i++)             /* 2.9 MB of objects and strings */
        last = i % 2 ? arena_alloc(a, 30000) : (unsigned char *)arena_strndup(a, "x", 1);
    CHECK(first && last && arena_footprint(a) == fp);   /* no block besides */
    CHECK(advised_huge(first) || stat("/sys/kernel/mm/transparent_hugepage/enabled", &st) != 0);
    CHECK(arena_reserve(a, 4096));           /* room left in it: nothing new */
    CHECK(arena_footprint(a) == fp);
    arena_reset(a);
    CHECK(arena_reserve(a, want));           /* the kept block */
    CHECK(arena_footprint(a) == fp);
    CHECK(arena_alloc(a, 1000) == first);
    sc_alloc_reset();
    sc_alloc_fail_after = 1;
    CHECK(!arena_reserve(a, (size_t)8 << 20));   /* more than it has: a new block, refused */
    sc_alloc_fail_after = 0;
    CHECK(arena_footprint(a) == fp);
    arena_free(a);
}

static void test_levenshtein(void)
{
    CHECK(text_levenshtein("kitten", 6, "sitting", 7) == 3);
    CHECK(text_levenshtein("caf\xc3\xa9", 5, "cafe", 4) == 1);
    CHECK(text_levenshtein("a\xc0\x80", 3, "a", 1) == 2);
    CHECK(text_levenshtein("\xed\xa0\x80", 3, "", 0) == 3);
    /* The capped one: exact up to the cap, cap + 1 beyond it and for
    ** names over 64 bytes. */
    CHECK(name_distance("timline", "timeline", 2) == 1);
    CHECK(name_distance("kitten", "sitting", 3) == 3);
    CHECK(name_distance("kitten", "sitting", 2) == 3);
    CHECK(name_distance("abc", "xyz", 1) == 2);
    CHECK(name_distance("", "", 0) == 0);
    static const char long_name[] = "a_name_that_is_much_longer_than_sixty_four_bytes_for_certain_yes_1";
    CHECK(name_distance(long_name, long_name, 3) == 4);
}

static void test_strdup(void)
{
    char *a = sc_strdup("scenario"), *b = sc_strndup("scenario", 4);
    CHECK(a && strcmp(a, "scenario") == 0);
    CHECK(b && strcmp(b, "scen") == 0);
    sc_free(a);
    sc_free(b);
    sc_alloc_reset();
    sc_alloc_fail_after = 1;
    CHECK(sc_strdup("x") == NULL);
    sc_alloc_fail_after = 0;
}

/* sc_alloc_keep_freed: a 24 MiB block, which glibc would mmap (its
** threshold starts at 128 KiB and rises only to the size of an mmap'd block
** freed before, none this big here), comes from the heap, and freeing it
** does not trim the heap back (the default trims past 128 KiB of free
** top).  Under AddressSanitizer, whose allocator is not glibc's, the call
** says it did nothing. */
static void test_keep_freed(void)
{
#if defined(__SANITIZE_ADDRESS__)
    CHECK(!sc_alloc_keep_freed());
#elif defined(__GLIBC__)
    CHECK(sc_alloc_keep_freed());
    size_t n = (size_t)24 << 20;
    struct mallinfo2 before = mallinfo2();
    unsigned char *p = sc_malloc(n);
    CHECK(p != NULL);
    memset(p, 1, n);
    struct mallinfo2 held = mallinfo2();
    CHECK(held.hblkhd == before.hblkhd);           /* not mmap'd */
    CHECK(held.arena >= before.arena + n);         /* the heap grew for it */
    sc_free(p);
    struct mallinfo2 after = mallinfo2();
    CHECK(after.arena == held.arena);              /* and kept it */
    CHECK(after.fordblks >= n);
#else
    CHECK(!sc_alloc_keep_freed());
#endif
}

/* file_write_stream: after what the stream holds, and in one piece, not
** left in stdio's buffer; a failed write is its errno. */
static void test_write_stream(void)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    static char buf[4096];
    CHECK(setvbuf(f, buf, _IOFBF, sizeof buf) == 0);
    size_t n = 100000;          /* not a multiple of the stream's buffer */
    char *data = sc_malloc(n);
    CHECK(data != NULL);
    if (!data) {
        fclose(f);
        return;
    }
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + i % 26);
    CHECK(fputs("head\n", f) >= 0);                /* buffered in stdio */
    CHECK(file_write_stream(f, data, n) == 0);
    struct stat st;
    CHECK(fstat(fileno(f), &st) == 0 && (size_t)st.st_size == 5 + n);   /* all of it in the file */
    char *back = sc_malloc(n + 5);
    CHECK(back && pread(fileno(f), back, n + 5, 0) == (ssize_t)(n + 5));
    CHECK(back && memcmp(back, "head\n", 5) == 0 && memcmp(back + 5, data, n) == 0);
    sc_free(back);
    fclose(f);

    FILE *full = fopen("/dev/full", "w");
    if (full) {
        CHECK(file_write_stream(full, data, 10) == ENOSPC);
        fclose(full);
    }
    int fd[2];
    CHECK(pipe(fd) == 0);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    FILE *w = fdopen(fd[1], "w");
    close(fd[0]);
    CHECK(w && file_write_stream(w, data, 10) == EPIPE);
    if (w)
        fclose(w);
    signal(SIGPIPE, old);
    sc_free(data);
}

/* SC_GROW: first capacity, doubling, either capacity type, and a failure
** (out of memory, a capacity that would not fit) leaving both as they were. */
static void test_grow(void)
{
    struct { double *v; size_t n, cap; } a = { NULL, 0, 0 };
    for (int i = 0; i < 100; i++) {
        CHECK(a.n < a.cap || SC_GROW(a.v, a.cap, 4));
        a.v[a.n++] = i;
    }
    CHECK(a.cap == 128 && a.n == 100 && a.v[99] == 99.0);
    struct { char *v; uint32_t n, cap; } b = { NULL, 0, 0 };
    CHECK(SC_GROW(b.v, b.cap, 3) && b.cap == 3);
    CHECK(SC_GROW(b.v, b.cap, 3) && b.cap == 6);
    memcpy(b.v, "abcdef", 6);
    sc_alloc_reset();
    sc_alloc_fail_after = 1;
    char *was = b.v;
    CHECK(!SC_GROW(b.v, b.cap, 3) && b.v == was && b.cap == 6);
    sc_alloc_fail_after = 0;
    CHECK(memcmp(b.v, "abcdef", 6) == 0);
    uint32_t huge = (uint32_t)1 << 31;
    CHECK(!SC_GROW(b.v, huge, 3) && huge == (uint32_t)1 << 31 && b.v == was);
    int c = 0;
    int *iv = NULL;
    CHECK(SC_GROW(iv, c, 5) && c == 5);
    sc_free(a.v);
    sc_free(b.v);
    sc_free(iv);
}

static bool buf_eq(const Buf *b, const char *s)
{
    return b->len == strlen(s) && memcmp(b->data, s, b->len) == 0;
}

/* JSON string escaping as the spec reads, one byte at a time. */
static void naive_esc(Buf *b, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i];
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c == '\n')
            buf_puts(b, "\\n");
        else if (c == '\r')
            buf_puts(b, "\\r");
        else if (c == '\t')
            buf_puts(b, "\\t");
        else if (c == '\b')
            buf_puts(b, "\\b");
        else if (c == '\f')
            buf_puts(b, "\\f");
        else if (c < 0x20)
            buf_printf(b, "\\u%04x", c);
        else
            buf_putc(b, (int)c);
    }
}

static void test_json_esc(void)
{
    /* every length up to 56 at every alignment, special bytes at every
    ** position, often and rarely (long runs for the sixteen- and
    ** eight-at-a-time scans), and random strings: the scans must agree with
    ** the byte-at-a-time reading */
    static const unsigned char pool[] = { 'a', 'Z', ' ', '"', '\\', 0, 0x1f, 0x20, 0x7f, 0x80, 0xe2, '\n', 0x5b, 0x5d };
    unsigned seed = 12345;
    unsigned char s[64];
    Buf got, want;
    buf_init(&got);
    buf_init(&want);
    int bad = 0;
    for (int round = 0; round < 40000; round++) {
        size_t n = (size_t)(round % 57);
        size_t off = (size_t)(round / 57) % 8;
        unsigned plain = round % 3 ? 200 : 252;   /* of 256: how many draws are letters */
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 16) & 0xff;
            s[off + i] = r < plain ? (unsigned char)('a' + r % 26) : pool[r % sizeof pool];
        }
        buf_reset(&got);
        buf_reset(&want);
        buf_json_esc(&got, (const char *)s + off, n);
        naive_esc(&want, s + off, n);
        bad += got.len != want.len || (n && memcmp(got.data, want.data, got.len) != 0);
    }
    /* every byte value at every position of a 48-byte run of letters */
    for (unsigned c = 0; c < 256; c++)
        for (size_t at = 0; at < 48; at++) {
            memset(s, 'q', 48);
            s[at] = (unsigned char)c;
            buf_reset(&got);
            buf_reset(&want);
            buf_json_esc(&got, (const char *)s, 48);
            naive_esc(&want, s, 48);
            bad += got.len != want.len || memcmp(got.data, want.data, got.len) != 0;
        }
    CHECK(bad == 0);
    buf_fini(&got);
    buf_fini(&want);
}

/* buf_u64 and buf_hex write what printf's %llu and %llx write */
static void test_buf_numbers(void)
{
    static const uint64_t v[] = { 0, 1, 9, 10, 15, 16, 255, 256, 4095, 4096, 14960, 99999, 100000,
                                  0xffffffffULL, 0x100000000ULL, 18446744073709551615ULL };
    Buf b;
    buf_init(&b);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        for (int k = -1; k <= 1; k++) {
            uint64_t x = v[i] + (uint64_t)(int64_t)k;
            char want[48];
            snprintf(want, sizeof want, "%llu|%llx", (unsigned long long)x, (unsigned long long)x);
            buf_reset(&b);
            buf_u64(&b, x);
            buf_putc(&b, '|');
            buf_hex(&b, x);
            CHECK(b.len == strlen(want) && memcmp(b.data, want, b.len) == 0);
        }
    buf_fini(&b);
}

static void test_jsonw(void)
{
    Buf b;
    JsonW w;
    jw_new_obj(&w, &b);
    jw_kcstr(&w, "type", "x\"y");
    jw_ku64(&w, "n", UINT64_MAX);
    jw_ki64(&w, "i", -5);
    jw_kbool(&w, "t", true);
    jw_knull(&w, "z");
    jw_kcstr(&w, "none", NULL);
    jw_karr(&w, "a");
    jw_u64(&w, 1);
    jw_obj(&w);
    jw_end(&w);
    jw_arr(&w);
    jw_end(&w);
    jw_str(&w, "a\nb\x01", 4);
    jw_raw(&w, "2.5", 3);
    jw_value(&w);
    buf_puts(&b, "[true]");
    jw_end(&w);
    jw_key(&w, "parts");
    jw_str_begin(&w);
    jw_str_part(&w, "q\"", 2);
    jw_str_part(&w, "\t", 1);
    jw_str_end(&w);
    jw_kobj(&w, "o");
    jw_kraw(&w, "r", "{}", 2);
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);   /* nothing open: ignored */
    CHECK(buf_eq(&b, "{\"type\":\"x\\\"y\",\"n\":18446744073709551615,\"i\":-5,\"t\":true,\"z\":null,"
                     "\"none\":null,\"a\":[1,{},[],\"a\\nb\\u0001\",2.5,[true]],\"parts\":\"q\\\"\\t\","
                     "\"o\":{\"r\":{}}}"));
    /* top-level values are separated too (a JSON sequence) */
    buf_reset(&b);
    jw_init(&w, &b);
    jw_u64(&w, 1);
    jw_null(&w);
    CHECK(buf_eq(&b, "1,null"));
    /* JSON Lines, hashes, a value the caller appends after its key */
    buf_reset(&b);
    jw_open_obj(&w, &b);
    jw_khex64(&w, "h", 0xabcULL);
    jw_kvalue(&w, "v");
    buf_puts(&b, "[1]");
    jw_khex64(&w, "m", UINT64_MAX);
    jw_end(&w);
    jw_nl(&w);
    jw_arr(&w);
    jw_hex64(&w, 0);
    jw_end(&w);
    jw_nl(&w);
    CHECK(buf_eq(&b, "{\"h\":\"0000000000000abc\",\"v\":[1],\"m\":\"ffffffffffffffff\"}\n"
                     "[\"0000000000000000\"]\n"));
    /* strings for an HTML <script> */
    buf_reset(&b);
    jw_init(&w, &b);
    jw_arr(&w);
    jw_str_html(&w, "</script><a href=\"x\">&amp;\n", 27);
    jw_str_html(&w, "", 0);
    jw_end(&w);
    CHECK(buf_eq(&b, "[\"\\u003c/script\\u003e\\u003ca href=\\\"x\\\"\\u003e\\u0026amp;\\u000a\",\"\"]"));
    /* an object's members spliced in; doubles, not finite as null */
    buf_reset(&b);
    jw_open_obj(&w, &b);
    jw_ku64(&w, "v", 2);
    jw_members(&w, "{}", 2);
    jw_members(&w, "{\"a\":1}", 7);
    jw_key(&w, "f");
    jw_arr(&w);
    jw_f64(&w, 0.5);
    jw_f64(&w, 3);
    jw_f64(&w, INFINITY);
    jw_f64(&w, -INFINITY);
    jw_f64(&w, NAN);
    jw_f64(&w, 0.1);
    jw_end(&w);
    jw_end(&w);
    CHECK(buf_eq(&b, "{\"v\":2,\"a\":1,\"f\":[0.5,3,null,null,null,0.10000000000000001]}"));
    /* escaping: buf_json_esc is buf_json_str without the quotes */
    Buf q;
    buf_init(&q);
    char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (char)i;
    buf_reset(&b);
    buf_json_str(&b, all, sizeof all);
    buf_putc(&q, '"');
    buf_json_esc(&q, all, sizeof all);
    buf_putc(&q, '"');
    CHECK(b.len == q.len && memcmp(b.data, q.data, b.len) == 0);
    buf_fini(&q);
    buf_fini(&b);
}

static void test_mkdirs(void)
{
    char root[] = "/tmp/t_common_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char path[512], big[PATH_MAX + 16];
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b/c.txt", root);
    CHECK(file_mkparents(path) == 0);
    snprintf(path, sizeof path, "%s/a/b", root);
    CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    snprintf(path, sizeof path, "%s/a/b/c.txt", root);
    CHECK(stat(path, &st) != 0);                   /* parents only */
    snprintf(path, sizeof path, "%s/x/y", root);
    CHECK(file_mkdirs(path) == 0 && file_mkdirs(path) == 0);   /* and again: already there */
    CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    memset(big, 'd', sizeof big - 1);
    big[0] = '/';
    big[sizeof big - 1] = 0;
    CHECK(file_mkdirs(big) == ENAMETOOLONG);
    snprintf(path, sizeof path, "%s/a/b/f", root);
    CHECK(file_write_atomic(path, "x", 1) == 0);
    snprintf(path, sizeof path, "%s/a/b/f/g", root);
    CHECK(file_mkdirs(path) == ENOTDIR);           /* a file in the way */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

static bool exists_in(const char *dir, const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static void touch_at(const char *dir, const char *name, time_t mtime)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
    CHECK(utimensat(AT_FDCWD, p, ts, 0) == 0);
}

/* Temporaries a killed writer left: the next write into the folder removes
** those whose writer is certainly gone, and nothing else (docs/security.md,
** "Processes and signals"). */
static void test_stale_tmp(void)
{
    char root[] = "/tmp/t_common_tmp_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    struct stat ns;
    CHECK(stat("/proc/self/ns/pid", &ns) == 0);
    unsigned long long ino = (unsigned long long)ns.st_ino;
    /* a dead writer: a child that has exited and been reaped */
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    CHECK(dead > 0 && waitpid(dead, NULL, 0) == dead);
    /* a live writer (another run writing there now): a child that waits */
    int hold[2];
    CHECK(pipe(hold) == 0);
    pid_t live = fork();
    if (live == 0) {
        char c;
        close(hold[1]);
        ssize_t r = read(hold[0], &c, 1);
        _exit(r < 0);
    }
    close(hold[0]);
    time_t now = time(NULL);
    char name[200];
    snprintf(name, sizeof name, "run.json.tmp.%d.%llu.AbC123", (int)dead, ino);
    touch_at(root, name, now);
    char dead_name[200];
    snprintf(dead_name, sizeof dead_name, "%s", name);
    char live_name[200];
    snprintf(live_name, sizeof live_name, "events.jsonl.tmp.%d.%llu.xYz789", (int)live, ino);
    touch_at(root, live_name, now);
    /* the live pid, but the file is older than that process: the pid was
    ** taken again after its writer died */
    char reused[200];
    snprintf(reused, sizeof reused, "old.json.tmp.%d.%llu.QwErTy", (int)live, ino);
    touch_at(root, reused, now - 86400);
    /* another PID namespace's writer: its pids mean nothing here */
    char other_ns[200];
    snprintf(other_ns, sizeof other_ns, "x.json.tmp.%d.%llu.AAAAAA", (int)dead, ino + 1);
    touch_at(root, other_ns, now - 86400);
    /* not our naming: the old one without a pid, and look-alikes */
    touch_at(root, "y.json.tmp.AbC123", now - 86400);
    touch_at(root, "notes.tmp", now - 86400);
    snprintf(name, sizeof name, ".tmp.%d.%llu.AbC123", (int)dead, ino);     /* no name before */
    touch_at(root, name, now - 86400);
    char path[600];
    snprintf(path, sizeof path, "%s/out.json", root);
    CHECK(file_write_atomic(path, "{}", 2) == 0);
    CHECK(!exists_in(root, dead_name));
    CHECK(exists_in(root, live_name));
    CHECK(!exists_in(root, reused));
    CHECK(exists_in(root, other_ns));
    CHECK(exists_in(root, "y.json.tmp.AbC123"));
    CHECK(exists_in(root, "notes.tmp"));
    CHECK(exists_in(root, name));
    CHECK(exists_in(root, "out.json"));
    /* once per folder and process: a second file there sweeps no more */
    touch_at(root, dead_name, now);
    snprintf(path, sizeof path, "%s/out2.json", root);
    CHECK(file_write_atomic(path, "{}", 2) == 0);
    CHECK(exists_in(root, dead_name));
    CHECK(file_sweep_tmp(root) == 1 && !exists_in(root, dead_name));
    close(hold[1]);
    CHECK(waitpid(live, NULL, 0) == live);
    /* file_mkdtemp honours TMPDIR */
    char t[600];
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", root, 1);
    CHECK(file_mkdtemp("scvm-x", t, sizeof t) == 0 && strncmp(t, root, strlen(root)) == 0 && rmdir(t) == 0);
    snprintf(path, sizeof path, "%s/out.json", root);
    setenv("TMPDIR", path, 1);                 /* a file: no folder in it */
    CHECK(file_mkdtemp("scvm-x", t, sizeof t) == ENOTDIR);
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    file_remove_tree(root);
}

static size_t count_in(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static bool file_is(const char *path, const char *want)
{
    char *data = NULL;
    size_t len = 0;
    bool ok = file_read_all(path, 1 << 20, &data, &len) == 0 && len == strlen(want) && memcmp(data, want, len) == 0;
    sc_free(data);
    return ok;
}

/* FileAtomic: pieces go to a temporary beside the file; the commit
** renames it into place, an abort leaves the file as it was and no
** temporary; in place (a FIFO) nothing is written before the commit;
** an error at open is sticky and is the commit's. */
static void test_file_atomic(void)
{
    char root[] = "/tmp/t_common_atomic_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/out.jsonl", root);
    CHECK(file_write_atomic(path, "old\n", 4) == 0);
    FileAtomic a;
    CHECK(file_atomic_open(&a, path) == 0);
    CHECK(file_atomic_write(&a, "one\n", 4) == 0 && file_atomic_write(&a, "", 0) == 0);
    CHECK(count_in(root) == 2 && file_is(path, "old\n"));       /* a temporary beside it, the file as it was */
    CHECK(file_atomic_write(&a, "two\n", 4) == 0);
    CHECK(file_atomic_commit(&a) == 0);
    CHECK(count_in(root) == 1 && file_is(path, "one\ntwo\n"));
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    file_atomic_abort(&a);                                      /* after the commit: nothing */
    CHECK(file_is(path, "one\ntwo\n"));
    /* aborted: the file as it was, no temporary */
    CHECK(file_atomic_open(&a, path) == 0 && file_atomic_write(&a, "three\n", 6) == 0);
    file_atomic_abort(&a);
    CHECK(count_in(root) == 1 && file_is(path, "one\ntwo\n"));
    /* a new file */
    snprintf(path, sizeof path, "%s/new.jsonl", root);
    CHECK(file_atomic_open(&a, path) == 0 && file_atomic_commit(&a) == 0 && file_is(path, ""));
    /* errors at open are sticky and the commit's */
    snprintf(path, sizeof path, "%s/missing/out.jsonl", root);
    CHECK(file_atomic_open(&a, path) == ENOENT && file_atomic_write(&a, "x", 1) == ENOENT);
    CHECK(file_atomic_commit(&a) == ENOENT);
    CHECK(file_atomic_open(&a, root) == EISDIR);
    file_atomic_abort(&a);
    /* in place (a FIFO): nothing written until the commit, then all of it
    ** in one piece; a reader holds the FIFO open from the start */
    snprintf(path, sizeof path, "%s/fifo", root);
    CHECK(mkfifo(path, 0600) == 0);
    int rd = open(path, O_RDONLY | O_NONBLOCK);
    CHECK(rd >= 0);
    CHECK(file_atomic_open(&a, path) == 0);
    static char big[100000];
    memset(big, 'z', sizeof big);
    CHECK(file_atomic_write(&a, "head:", 5) == 0 && file_atomic_write(&a, big, 90000) == 0);
    static char got[100000];
    ssize_t r0 = read(rd, got, sizeof got);
    CHECK(r0 == 0 || (r0 < 0 && errno == EAGAIN));              /* nothing yet */
    CHECK(file_atomic_write(&a, "!", 1) == 0);
    /* a reader draining as the commit writes (more than the pipe holds).
    ** A read of a FIFO that no one holds open for writing returns 0 at
    ** once: wr keeps a writer there from before the fork until after the
    ** commit, or a reader that ran first would see the end before the
    ** commit opened the FIFO, and the commit would then fill the pipe
    ** with no one left to read it. */
    int wr = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    CHECK(wr >= 0);
    pid_t kid = fork();
    if (kid == 0) {
        close(wr);
        int fl = fcntl(rd, F_GETFL);
        fcntl(rd, F_SETFL, fl & ~O_NONBLOCK);
        size_t n = 0;
        for (ssize_t r; n < sizeof got && (r = read(rd, got + n, sizeof got - n)) > 0;)
            n += (size_t)r;
        _exit(n == 90006 && memcmp(got, "head:", 5) == 0 && got[5] == 'z' && got[90005] == '!' ? 0 : 1);
    }
    CHECK(kid > 0);
    CHECK(file_atomic_commit(&a) == 0);
    close(wr);
    int ks = -1;
    CHECK(waitpid(kid, &ks, 0) == kid && WIFEXITED(ks) && WEXITSTATUS(ks) == 0);
    close(rd);
    /* aborted in place: nothing written */
    rd = open(path, O_RDONLY | O_NONBLOCK);
    CHECK(rd >= 0 && file_atomic_open(&a, path) == 0 && file_atomic_write(&a, "x", 1) == 0);
    file_atomic_abort(&a);
    r0 = read(rd, got, sizeof got);
    CHECK(r0 == 0 || (r0 < 0 && errno == EAGAIN));
    close(rd);
    file_remove_tree(root);
}

/* FIPS 180-4's examples, the empty message, and a million 'a' fed in
** uneven pieces (block boundaries and the length padding). */
static void test_sha256(void)
{
    char h[65];
    sha256_hex("abc", 3, h);
    CHECK(strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    sha256_hex("", 0, h);
    CHECK(strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two, strlen(two), h);
    CHECK(strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
    Sha256 s;
    sha256_init(&s);
    char a[1000];
    memset(a, 'a', sizeof a);
    for (size_t done = 0, k = 1; done < 1000000; k = k % 997 + 1) {
        size_t n = 1000000 - done < k ? 1000000 - done : k;
        sha256_update(&s, a, n);
        done += n;
    }
    unsigned char d[32];
    sha256_final(&s, d);
    static const unsigned char want[32] = { 0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7,
                                            0xe2, 0x84, 0xd7, 0x3e, 0x67, 0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97,
                                            0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0 };
    CHECK(memcmp(d, want, 32) == 0);
}

int main(void)
{
    test_sha256();
    test_base64();
    test_textdiff();
    test_utf8();
    test_arena();
    test_alloc_big();
    test_levenshtein();
    test_strdup();
    test_grow();
    test_keep_freed();
    test_write_stream();
    test_mkdirs();
    test_stale_tmp();
    test_file_atomic();
    test_json_esc();
    test_buf_numbers();
    test_jsonw();
    if (failures) {
        fprintf(stderr, "t_common: %d failed\n", failures);
        return 1;
    }
    return 0;
}
