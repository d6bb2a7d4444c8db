/* SPDX-License-Identifier: MIT */
/* llm_unit.c - unit tests of the mock LLM server's pure parts: the HTTP
** head parser (every prefix, every truncation), Levenshtein over code
** points, the request's last user text, ids and time scaling. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/levenshtein.h"
#include "formats/suite.h"
#include "runtime/http/http_parse.h"
#include "runtime/llm/llm_render.h"
#include "runtime/rt_clock.h"
#include "runtime/llm/llm_route.h"
#include "tests/check.h"

static void test_http(void)
{
    static const char req[] = "POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\n"
                              "Content-Length: 2\r\nX-Api-Key:  sk-1 \r\nConnection: keep-alive\r\n\r\n{}";
    size_t n = sizeof req - 1, head = n - 2;
    HttpReq r;
    int st;
    const char *why;
    for (size_t k = 0; k < head; k++)
        CHECK(http_parse_head(req, k, 32768, 100, &r, &st, &why) == 0);
    CHECK(http_parse_head(req, n, 32768, 100, &r, &st, &why) == 1);
    CHECK(r.head_len == head && r.content_length == 2 && r.keep_alive && r.minor == 1);
    CHECK(http_is(&r, "POST", "/v1/messages"));
    const HttpHeader *h = http_header(&r, "x-api-key");
    CHECK(h && h->value_len == 4 && memcmp(h->value, "sk-1", 4) == 0);
    CHECK(http_parse_head(req, n, 32768, 1, &r, &st, &why) == -1 && st == 413);
    CHECK(http_parse_head(req, n, 40, 100, &r, &st, &why) == -1 && st == 431);
    static const char v10[] = "GET /health HTTP/1.0\r\n\r\n";
    CHECK(http_parse_head(v10, sizeof v10 - 1, 1000, 0, &r, &st, &why) == 1 && !r.keep_alive);
    static const char nul[] = "GET /\0 HTTP/1.1\r\n";
    CHECK(http_parse_head(nul, sizeof nul - 1, 1000, 0, &r, &st, &why) == -1 && st == 400);
    /* random bytes never crash and never claim more than they have */
    unsigned seed = 1;
    char buf[256];
    for (int it = 0; it < 20000; it++) {
        size_t len = (size_t)(it % 256);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (char)((seed >> 16) & 0xff);
            if (it % 3 == 0 && i < n)
                buf[i] = req[i] ^ (char)((seed >> 24) & (it % 7 == 0));
        }
        int k = http_parse_head(buf, len, 200, 1000, &r, &st, &why);
        CHECK(k == 0 || k == -1 || (k == 1 && r.head_len <= len));
    }
    CHECK(strcmp(http_reason(429), "Too Many Requests") == 0 && strcmp(http_reason(529), "Site Overloaded") == 0);
}

static size_t lev(const char *a, const char *b)
{
    return text_levenshtein_cut(a, strlen(a), b, strlen(b), SUITE_PROMPT_CHARS);
}

static void test_levenshtein(void)
{
    CHECK(lev("kitten", "sitting") == 3);
    CHECK(lev("", "abc") == 3 && lev("abc", "") == 3 && lev("", "") == 0);
    CHECK(lev("héllo", "hello") == 1);        /* code points, not bytes */
    CHECK(lev("日本語", "日本") == 1);
    CHECK(lev("Fix", "fix") == 1);             /* case-sensitive */
    CHECK(lev("\xff\xfe", "\xff") == 1);       /* invalid bytes are symbols */
    static char big[5000];
    memset(big, 'a', sizeof big - 1);
    CHECK(text_levenshtein_cut(big, sizeof big - 1, "", 0, SUITE_PROMPT_CHARS) == SUITE_PROMPT_CHARS);   /* cut */
    static char wide[3001];                    /* 1500 two-byte characters: cut at characters */
    for (size_t i = 0; i + 1 < sizeof wide; i += 2)
        wide[i] = '\xc3', wide[i + 1] = '\xa9';
    CHECK(text_levenshtein_cut(wide, sizeof wide - 1, "", 0, SUITE_PROMPT_CHARS) == SUITE_PROMPT_CHARS);
}

static void test_user_text(void)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        { "{\"messages\":[{\"role\":\"user\",\"content\":\"first\"},{\"role\":\"assistant\",\"content\":\"x\"},"
          "{\"role\":\"user\",\"content\":\"second\"}]}", "second" },
        { "{\"messages\":[{\"role\":\"user\",\"content\":\"ask\"},{\"role\":\"user\",\"content\":"
          "[{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":\"ok\"}]}]}", "ask" },
        { "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
          "{\"type\":\"image\"},{\"type\":\"text\",\"text\":\"b\"}]}]}", "a\nb" },
        { "{\"input\":\"plain\"}", "plain" },
        { "{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"resp\"}]}]}", "resp" },
        { "{\"messages\":[{\"role\":\"system\",\"content\":\"sys\"}]}", "" },
        /* Gemini: parts with text, a missing role is the user's; thoughts
        ** and function responses are not the user's text */
        { "{\"contents\":[{\"parts\":[{\"text\":\"gem\"}]}]}", "gem" },
        { "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"q\"}]},{\"role\":\"model\",\"parts\":"
          "[{\"text\":\"t\",\"thought\":true},{\"functionCall\":{\"name\":\"f\"}}]},{\"role\":\"user\",\"parts\":"
          "[{\"functionResponse\":{\"name\":\"f\",\"response\":{}}}]}]}", "q" },
        { "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"a\"},{\"inlineData\":{}},{\"text\":\"b\"}]}]}",
          "a\nb" },
        { "[1]", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *j = cJSON_Parse(cases[i].json);
        char out[64];
        size_t n = llm_last_user_text(j, out, sizeof out);
        CHECK(n == strlen(cases[i].want) && strcmp(out, cases[i].want) == 0);
        cJSON_Delete(j);
    }
    cJSON *j = cJSON_Parse("{\"messages\":[{\"role\":\"user\",\"content\":\"ééééé\"}]}");
    char small[6];
    size_t n = llm_last_user_text(j, small, sizeof small);
    CHECK(n == 4 && strcmp(small, "éé") == 0);   /* cut at a character boundary */
    cJSON_Delete(j);
}

static void test_ids_and_scale(void)
{
    char a[40], b[40], c[40];
    llm_make_id(a, sizeof a, "msg_01", 22, "s", "message", 1, 0);
    llm_make_id(b, sizeof b, "msg_01", 22, "s", "message", 1, 0);
    llm_make_id(c, sizeof c, "msg_01", 22, "s", "message", 2, 0);
    CHECK(strcmp(a, b) == 0 && strcmp(a, c) != 0 && strlen(a) == 28);
    llm_make_id(a, 8, "toolu_01", 22, "s", "tool", 0, 0);
    CHECK(strlen(a) == 7);
    CHECK(llm_scale(1000, 0) == 0 && llm_scale(1000, 0.5) == 500 && llm_scale(3, 0.5) == 2);
    CHECK(llm_scale(UINT64_MAX, 2.0) == UINT64_MAX);
    /* the one scaling rule of scvm run (rt_clock_scale), 0 aside */
    CHECK(llm_scale(1000, 0.001) == 10 && llm_scale(1000, 0.001) == rt_clock_scale(1000, 0.001));
    CHECK(llm_scale(555, 0.5) == 278 && llm_scale((uint64_t)1 << 60, 1.0) == (uint64_t)1 << 60);
}

int main(void)
{
    test_http();
    test_levenshtein();
    test_user_text();
    test_ids_and_scale();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    puts("ok");
    return 0;
}
