/* SPDX-License-Identifier: MIT */
/* t_tape.c - runtime/tape: canonical JSON, keys (checked against Python's
** hashlib for one request), taking in order, misses, unused entries, the
** file written in a fixed order and read back byte for byte, and each way
** a tape file is refused, with its line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "runtime/tape/tape.h"
#include "tests/check.h"

static char dir[] = "/tmp/t_tape-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_canonical(void)
{
    cJSON *j = cJSON_Parse("{\"b\":{\"y\":1.0,\"x\":\"\\u0001\"},\"a\":[true,null,0.1,1e21,-3]}");
    Buf b;
    buf_init(&b);
    tape_canonical(j, &b);
    buf_putc(&b, 0);
    CHECK(strcmp((char *)b.data, "{\"a\":[true,null,0.1,1e+21,-3],\"b\":{\"x\":\"\\u0001\",\"y\":1}}") == 0);
    char key[65];
    tape_key("llm_judge", j, key);
    /* python3: hashlib.sha256(b'llm_judge\n' + canonical).hexdigest() */
    CHECK(strcmp(key, "a52140496de791a7d8d4204b0b450659e8104d4aaeb35666c4b0c76b6ec1ba90") == 0);
    /* member order and blanks do not change the key; a value does */
    cJSON *k2 = cJSON_Parse(" { \"a\" : [ true , null , 0.1 , 1E21 , -3.0 ] , \"b\" : { \"x\" : \"\\u0001\" , \"y\" : 1 } } ");
    char key2[65];
    tape_key("llm_judge", k2, key2);
    CHECK(strcmp(key, key2) == 0);
    tape_key("user_simulator", k2, key2);
    CHECK(strcmp(key, key2) != 0);
    cJSON_Delete(k2);
    cJSON_Delete(j);
    /* as deep as cJSON reads (its nesting limit, 1000): every comma there,
    ** as the hand-written canonical writer had it */
    Buf deep;
    buf_init(&deep);
    for (int i = 0; i < 499; i++)
        buf_puts(&deep, "[1,{\"k\":");
    buf_puts(&deep, "2");
    for (int i = 0; i < 499; i++)
        buf_puts(&deep, "},3]");
    buf_putc(&deep, 0);
    cJSON *dj = cJSON_Parse((const char *)deep.data);
    CHECK(dj != NULL);
    buf_reset(&b);
    tape_canonical(dj, &b);
    buf_putc(&b, 0);
    CHECK(dj && strcmp((char *)b.data, (const char *)deep.data) == 0);
    cJSON_Delete(dj);
    buf_fini(&deep);
    buf_fini(&b);
}

static void test_take(void)
{
    char err[256], key[65];
    Tape *t = tape_new();
    cJSON *q = cJSON_Parse("{\"prompt\":\"Is the answer polite?\"}");
    cJSON *yes = cJSON_Parse("{\"verdict\":\"yes\"}"), *no = cJSON_Parse("{\"verdict\":\"no\"}");
    CHECK(tape_add(t, "llm_judge", q, 0, yes, err, sizeof err));
    CHECK(tape_add(t, "llm_judge", q, 1, no, err, sizeof err));
    CHECK(!tape_add(t, "llm_judge", q, 1, no, err, sizeof err) && strstr(err, "twice"));
    CHECK(!tape_add(t, "LLM judge", q, 2, no, err, sizeof err) && strstr(err, "not a kind"));
    CHECK(tape_size(t) == 2);
    const cJSON *r = tape_take(t, "llm_judge", q, key);
    CHECK(r && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict")), "yes") == 0);
    size_t cur = 0;
    const char *kind, *k;
    unsigned n;
    CHECK(tape_unused(t, &cur, &kind, &k, &n) && n == 1 && strcmp(kind, "llm_judge") == 0);
    CHECK(!tape_unused(t, &cur, &kind, &k, &n));
    r = tape_take(t, "llm_judge", q, key);
    CHECK(r && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict")), "no") == 0);
    r = tape_take(t, "llm_judge", q, key);          /* asked a third time: a miss */
    char want[65];
    tape_key("llm_judge", q, want);
    CHECK(!r && strcmp(key, want) == 0 && tape_count(t, key) == 3);
    CHECK(!tape_take(t, "user_simulator", q, key)); /* another kind: another key */
    cur = 0;
    CHECK(!tape_unused(t, &cur, &kind, &k, &n));
    /* a new case counts again from the first asking */
    tape_restart(t);
    CHECK(tape_count(t, want) == 0);
    r = tape_take(t, "llm_judge", q, key);
    CHECK(r && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict")), "yes") == 0);
    /* merging: what the other tape lacks is added, what it has is kept */
    Tape *m = tape_new();
    CHECK(tape_add(m, "llm_judge", q, 1, yes, err, sizeof err));
    CHECK(tape_merge(m, t) == 1 && tape_size(m) == 2 && tape_merge(m, t) == 0);
    const cJSON *kept = tape_reply(m, "llm_judge", want, 1);
    CHECK(kept && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(kept, "verdict")), "yes") == 0);
    tape_free(m);
    /* written sorted, read back, written again: the same bytes */
    cJSON *q2 = cJSON_Parse("{\"history\":[\"hi\"]}"), *say = cJSON_Parse("\"I need a refund\"");
    CHECK(tape_add(t, "user_simulator", q2, 0, say, err, sizeof err));
    CHECK(tape_add(t, "agent_turn", q2, 0, say, err, sizeof err));
    Buf a, b;
    buf_init(&a);
    buf_init(&b);
    tape_write(t, &a);
    char path[256];
    snprintf(path, sizeof path, "%s/round.tape.jsonl", dir);
    CHECK(tape_save(t, path) == 0);
    Tape *t2 = tape_load(path, false, err, sizeof err);
    CHECK(t2 && tape_size(t2) == 4);
    if (t2)
        tape_write(t2, &b);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    buf_putc(&a, 0);
    const char *s = (const char *)a.data;
    CHECK(strncmp(s, "{\"tape_version\":1}\n{\"kind\":\"agent_turn\"", 38) == 0);
    CHECK(strstr(s, "\"kind\":\"llm_judge\"") < strstr(s, "\"kind\":\"user_simulator\""));
    CHECK(strstr(s, "\"n\":0,\"request\":{\"prompt\":\"Is the answer polite?\"},\"reply\":{\"verdict\":\"yes\"}"));
    buf_fini(&a);
    buf_fini(&b);
    tape_free(t2);
    cJSON_Delete(q2);
    cJSON_Delete(say);
    cJSON_Delete(q);
    cJSON_Delete(yes);
    cJSON_Delete(no);
    tape_free(t);
}

static void refused(const char *name, const char *text, const char *want)
{
    char err[512] = "";
    const char *p = write_file(name, text);
    Tape *t = tape_load(p, false, err, sizeof err);
    char full[600];
    snprintf(full, sizeof full, "%s:%s", p, want);
    if (t || strncmp(err, full, strlen(full)) != 0)
        fprintf(stderr, "%s: got '%s', want '%s...'\n", name, err, full);
    CHECK(!t && strncmp(err, full, strlen(full)) == 0);
    tape_free(t);
}

static void test_load(void)
{
    char err[512];
    char key[65];
    cJSON *q = cJSON_Parse("{\"q\":1}");
    tape_key("llm_judge", q, key);
    cJSON_Delete(q);
    char good[300], bad[1024];
    snprintf(good, sizeof good, "{\"kind\":\"llm_judge\",\"key\":\"%s\",\"n\":0,\"request\":{\"q\":1},\"reply\":true}",
             key);
    snprintf(bad, sizeof bad, "{\"tape_version\":1}\n\n%s\n%s\n", good, good);
    refused("dup", bad, "4: entry llm_judge");
    refused("version", "{\"tape_version\":2}\n", "1: the first line must be");
    refused("empty", "\n\n", "1: empty");
    refused("notjson", "{\"tape_version\":1}\n{\"kind\":\n", "2: not JSON");
    refused("wrongkey", "{\"tape_version\":1}\n{\"kind\":\"llm_judge\",\"key\":\"00\",\"n\":0,\"request\":{\"q\":1},"
                        "\"reply\":true}\n", "2: the key is not its request's (it is ");
    refused("noreply", "{\"tape_version\":1}\n{\"kind\":\"llm_judge\",\"key\":\"00\",\"n\":0,\"request\":{}}\n",
            "2: an entry needs its request and its reply");
    snprintf(bad, sizeof bad, "{\"tape_version\":1}\n%.*s-1%s\n", (int)(strstr(good, "\"n\":0") - good + 4), good,
             strstr(good, "\"n\":0") + 5);
    refused("negative", bad, "2: n must be a whole number");
    refused("kind", "{\"tape_version\":1}\n{\"kind\":\"Judge!\",\"key\":\"00\",\"n\":0,\"request\":1,\"reply\":1}\n",
            "2: no kind, or not a kind name");
    snprintf(bad, sizeof bad, "{\"tape_version\":1}\r\n%s\r\n", good);
    Tape *t = tape_load(write_file("crlf", bad), false, err, sizeof err);
    CHECK(t && tape_size(t) == 1);
    tape_free(t);
    t = tape_load("/nonexistent/x.tape.jsonl", true, err, sizeof err);
    CHECK(t && tape_size(t) == 0);
    tape_free(t);
    t = tape_load("/nonexistent/x.tape.jsonl", false, err, sizeof err);
    CHECK(!t && strstr(err, "cannot read"));
}

/* Tapes written by Python (json.dumps with sorted keys, hashlib): the
** fuzz seeds.  Another implementation's keys are ours. */
static void test_python_made(const char *corpus)
{
    static const struct {
        const char *name;
        size_t n;
    } f[] = { { "judge_and_user", 3 }, { "unicode_and_numbers", 1 } };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char path[1024], err[512] = "";
        snprintf(path, sizeof path, "%s/%s", corpus, f[i].name);
        Tape *t = tape_load(path, false, err, sizeof err);
        if (!t)
            fprintf(stderr, "%s\n", err);
        CHECK(t && tape_size(t) == f[i].n);
        tape_free(t);
    }
}

int main(int argc, char **argv)
{
    if (!mkdtemp(dir))
        return 1;
    if (argc > 1)
        test_python_made(argv[1]);
    test_canonical();
    test_take();
    test_load();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        failures++;
    if (failures) {
        fprintf(stderr, "t_tape: %d failed\n", failures);
        return 1;
    }
    puts("t_tape: ok");
    return 0;
}
