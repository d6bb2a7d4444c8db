/* SPDX-License-Identifier: MIT */
/* llm_route.c - the last user text of a request (llm_route.h). */
#include "llm_route.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <string.h>

#include "common/utf8.h"

/* Appends text to out[*len..cap), cutting at a character boundary. */
static void append(char *out, size_t cap, size_t *len, const char *t)
{
    size_t n = strlen(t);
    if (*len + n + 1 > cap) {
        n = cap - 1 - *len;
        while (n > 0 && ((unsigned char)t[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(out + *len, t, n);
    *len += n;
    out[*len] = 0;
}

/* Text of one message's content: a string, or an array of parts whose
** type is one of the text types. */
static size_t content_text(const cJSON *content, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    if (cJSON_IsString(content)) {
        append(out, cap, &len, content->valuestring);
        return len;
    }
    if (!cJSON_IsArray(content))
        return 0;
    const cJSON *part;
    cJSON_ArrayForEach(part, content) {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(part, "type");
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(part, "text");
        if (!cJSON_IsString(text))
            continue;
        /* typed parts (OpenAI, Anthropic), or Gemini's untyped {"text"}
        ** (its thoughts, {"thought": true}, are not the user's) */
        if (cJSON_IsString(type) ? strcmp(type->valuestring, "text") != 0 &&
                                       strcmp(type->valuestring, "input_text") != 0
                                 : type != NULL || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(part, "thought")))
            continue;
        if (len && len + 1 < cap)
            append(out, cap, &len, "\n");
        append(out, cap, &len, text->valuestring);
    }
    return len;
}

size_t llm_last_user_text(const cJSON *body, char *out, size_t cap)
{
    if (!cap)
        return 0;
    out[0] = 0;
    if (cap < 2 || !cJSON_IsObject(body))
        return 0;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(body, "messages");
    const char *content_key = "content";
    if (!list && (list = cJSON_GetObjectItemCaseSensitive(body, "contents")) != NULL)
        content_key = "parts";      /* Gemini: contents[{role, parts}] */
    if (!list) {
        list = cJSON_GetObjectItemCaseSensitive(body, "input");
        if (cJSON_IsString(list)) {
            size_t len = 0;
            append(out, cap, &len, list->valuestring);
            return len;
        }
    }
    if (!cJSON_IsArray(list))
        return 0;
    /* forward, keeping the last match: cJSON's prev links are not part of its API */
    const cJSON *last = NULL, *m;
    char probe[8];
    cJSON_ArrayForEach(m, list) {
        const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
        /* Gemini's role may be left out: the user's */
        bool user = cJSON_IsString(role) ? strcmp(role->valuestring, "user") == 0 : content_key[0] == 'p' && !role;
        if (user && content_text(cJSON_GetObjectItemCaseSensitive(m, content_key), probe, sizeof probe) > 0)
            last = m;
    }
    if (last)
        return content_text(cJSON_GetObjectItemCaseSensitive(last, content_key), out, cap);
    out[0] = 0;
    return 0;
}
