/* SPDX-License-Identifier: MIT */
/* fuzz_agent.c - libFuzzer target: what the mock LLM server reads from an
** agent and from a profile it was given (docs/real-agents.md):
**   first byte 0-3: the rest is a request body of API 0-3 (Chat,
**     Responses, Messages, Gemini): the tool results it carries
**     (llm_toolres.h), whether each is an error (a profile's errorPattern),
**     the last user text (llm_route.h) and the declared tool names;
**   any other first byte: the whole input is an agent profile
**     (agent_profile.h; so the shipped profiles are seeds as they are): parsed,
**     and when it is accepted every tool mapped with a fixed set of
**     scenario arguments, the result read back, and the launch templates
**     (headless, interactive args, env, files) expanded.
** Every buffer passed is a heap block of exactly the bytes given, so a read
** past its end is an AddressSanitizer report.
**
** Built with -DSCC_FUZZ=ON (clang).  Seeds and findings live in
** tests/fuzz/agent-corpus/ (README.md there), replayed under ctest with
** the shipped profiles as seeds too. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/agent/agent_profile.h"
#include "runtime/llm/llm_route.h"
#include "runtime/llm/llm_toolres.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void request(const char *b, size_t n, LlmApi api)
{
    cJSON *j = cJSON_ParseWithLength(b, n);
    LlmToolResult r[8];
    size_t k = llm_tool_results(j, api, r, 8);
    for (size_t i = 0; i < k; i++) {
        llm_result_is_error(&r[i], "(?m)^Process exited with code [1-9]|^Error: [^(]");
        llm_tool_result_fini(&r[i]);
    }
    char text[512];
    llm_last_user_text(j, text, sizeof text);
    cJSON_Delete(agent_declared_tools(cJSON_GetObjectItemCaseSensitive(j, "tools")));
    cJSON_Delete(j);
}

static void expand_all(const cJSON *t, const cJSON *vars)
{
    char err[256];
    bool om;
    cJSON_Delete(agent_expand(t, vars, "/ws", &om, err, sizeof err));
}

static void profile(const char *b, size_t n)
{
    char err[512];
    AgentProfile *p = agent_profile_parse(b, n, "fuzz.json", err, sizeof err);
    if (!p)
        return;
    cJSON *args = cJSON_Parse("{\"cmd\": \"echo 'x'\", \"path\": \"d/f.txt\", \"old_string\": \"a\\nb\\n\", "
                              "\"new_string\": \"c\", \"content\": \"x\\ny\", \"pattern\": \"p\", \"timeout\": 5, "
                              "\"replace_all\": true, \"description\": \"d\"}");
    cJSON *vars = cJSON_Parse("{\"prompt\": \"go\", \"base_url\": \"http://127.0.0.1:1\", \"key\": \"k-0123456789\", "
                              "\"home\": \"/h\", \"workspace\": \"/ws\", \"model\": \"m\"}");
    const cJSON *t;
    cJSON_ArrayForEach(t, agent_profile_get(p, "tools")) {
        Buf name, out, n2, o2;
        buf_init(&name);
        buf_init(&out);
        buf_init(&n2);
        buf_init(&o2);
        if (agent_map_call(p, t->string, args, "/ws", &name, &out, err, sizeof err) == 1) {
            cJSON *back = cJSON_ParseWithLength((const char *)out.data, out.len);
            buf_putc(&name, 0);
            if (!name.oom)
                agent_unmap_call(p, (const char *)name.data, back, "/ws", &n2, &o2);
            cJSON_Delete(back);
        }
        buf_fini(&name);
        buf_fini(&out);
        buf_fini(&n2);
        buf_fini(&o2);
    }
    static const char *const launch[] = { "command", "headless", "interactive", "env", "files" };
    for (size_t i = 0; i < sizeof launch / sizeof launch[0]; i++)
        if (agent_profile_get(p, launch[i]))
            expand_all(agent_profile_get(p, launch[i]), vars);
    double score;
    AgentProfile *ps[1] = { p };
    agent_detect(ps, 1, agent_profile_declares(p), &score);
    cJSON_Delete(args);
    cJSON_Delete(vars);
    agent_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    bool req = data[0] < 4;
    size_t n = req ? size - 1 : size;
    char *b = malloc(n ? n : 1);
    if (!b)
        return 0;
    memcpy(b, req ? data + 1 : data, n);
    if (req)
        request(b, n, (LlmApi)data[0]);
    else
        profile(b, n);
    free(b);
    return 0;
}
