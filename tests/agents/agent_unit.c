/* SPDX-License-Identifier: MIT */
/* agent_unit.c - unit tests of agent profiles (runtime/agent/agent_profile.h:
** validation, templates, the tool vocabulary both ways, detection) and of
** tool results read from requests and compared (runtime/llm/llm_toolres.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "runtime/agent/agent_launch.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/llm/llm_toolres.h"
#include "tests/check.h"

static bool str_is(const Buf *b, const char *want)
{
    bool ok = b->len == strlen(want) && memcmp(b->data, want, b->len) == 0;
    if (!ok)
        fprintf(stderr, "  got: %.*s\n  want: %s\n", (int)b->len, b->data ? (const char *)b->data : "", want);
    return ok;
}

static void expand_is(const char *tmpl, const char *vars_json, const char *want)
{
    cJSON *t = cJSON_Parse(tmpl), *v = cJSON_Parse(vars_json);
    bool om;
    char err[256] = "";
    cJSON *r = agent_expand(t, v, "/ws", &om, err, sizeof err);
    char *s = r ? cJSON_PrintUnformatted(r) : NULL;
    bool ok = want ? s && strcmp(s, want) == 0 : !r;
    if (!ok)
        fprintf(stderr, "  expand %s with %s: got %s (%s), want %s\n", tmpl, vars_json, s ? s : "NULL", err,
                want ? want : "an error");
    CHECK(ok);
    cJSON_free(s);
    cJSON_Delete(r);
    cJSON_Delete(t);
    cJSON_Delete(v);
}

static void test_templates(void)
{
    expand_is("\"{a}\"", "{\"a\": 3}", "3");                        /* a whole placeholder keeps the type */
    expand_is("\"x{a}y\"", "{\"a\": 3}", "\"x3y\"");
    expand_is("\"{{lit}} {a}\"", "{\"a\": \"v\"}", "\"{lit} v\"");
    expand_is("{\"k\": \"{a?}\", \"j\": 1}", "{}", "{\"j\":1}");     /* an optional member left out */
    expand_is("[\"{a?}\", \"b\"]", "{}", "[\"b\"]");
    expand_is("\"p={a?}\"", "{}", "\"p=\"");
    expand_is("\"{a}\"", "{}", NULL);                               /* missing and required */
    expand_is("\"{p|abs}\"", "{\"p\": \"d/f.txt\"}", "\"/ws/d/f.txt\"");
    expand_is("\"{p|abs}\"", "{\"p\": \"./f\"}", "\"/ws/f\"");
    expand_is("\"{p|abs}\"", "{\"p\": \"/etc/x\"}", "\"/etc/x\"");
    expand_is("\"{p|rel}\"", "{\"p\": \"/ws/a/b\"}", "\"a/b\"");
    expand_is("\"{p|sh}\"", "{\"p\": \"it's\"}", "\"'it'\\\\''s'\"");
    expand_is("\"{s|lines:-}\"", "{\"s\": \"a\\nb\\n\"}", "\"-a\\n-b\"");
    expand_is("\"{k|tail:3}\"", "{\"k\": \"abcdef\"}", "\"def\"");
    expand_is("\"{d|or:c}\"", "{\"c\": \"cmd\"}", "\"cmd\"");
    expand_is("\"{d?|or:c}\"", "{}", NULL);                        /* an optional one with neither: left out */
    expand_is("{\"{w}\": 1}", "{\"w\": \"/ws\"}", "{\"/ws\":1}");  /* keys are templates too */
    expand_is("\"{a|nope}\"", "{\"a\": 1}", NULL);                  /* an unknown filter */
    expand_is("\"{a\"", "{\"a\": 1}", NULL);                        /* no closing brace */
    expand_is("\"a}\"", "{}", NULL);                                /* a lone closing brace */
}

static const char PROFILE[] =
    "{\"name\": \"t\", \"api\": \"anthropic\", \"command\": \"t\", \"headless\": [\"-p\", \"{prompt}\"],\n"
    " \"declares\": [\"Bash\", \"Edit\", \"Read\", \"Todo\"],\n"
    " \"tools\": {\"runCmd\": {\"tool\": \"Bash\", \"args\": {\"command\": \"{cmd}\", \"timeout\": \"{timeout?}\"}},\n"
    "   \"editFile\": {\"tool\": \"Edit\", \"args\": {\"file_path\": \"{path|abs}\", \"old_string\": \"{old_string}\",\n"
    "     \"new_string\": \"{new_string}\"}},\n"
    "   \"writeFile\": {\"tool\": \"Bash\", \"args\": {\"command\": \"cat > {path|sh} <<'EOF'\\n{content}\\nEOF\"}}}}";

static void test_profile(void)
{
    char err[512];
    AgentProfile *p = agent_profile_parse(PROFILE, sizeof PROFILE - 1, "t.json", err, sizeof err);
    CHECK(p != NULL);
    if (!p) {
        fprintf(stderr, "  %s\n", err);
        return;
    }
    CHECK(strcmp(agent_profile_name(p), "t") == 0 && agent_profile_api(p) == AGENT_API_ANTHROPIC);
    Buf n, a;
    buf_init(&n);
    buf_init(&a);
    cJSON *args = cJSON_Parse("{\"path\": \"src/m.py\", \"old_string\": \"x\", \"new_string\": \"y\"}");
    CHECK(agent_map_call(p, "editFile", args, "/ws", &n, &a, err, sizeof err) == 1);
    CHECK(str_is(&n, "Edit"));
    CHECK(str_is(&a, "{\"file_path\":\"/ws/src/m.py\",\"old_string\":\"x\",\"new_string\":\"y\"}"));
    /* and back: the agent's call read as the scenario's */
    cJSON *back = cJSON_ParseWithLength((const char *)a.data, a.len);
    buf_reset(&n);
    buf_reset(&a);
    CHECK(agent_unmap_call(p, "Edit", back, "/ws", &n, &a) == 1);
    CHECK(str_is(&n, "editFile"));
    CHECK(str_is(&a, "{\"path\":\"src/m.py\",\"old_string\":\"x\",\"new_string\":\"y\"}"));
    cJSON_Delete(back);
    /* a call the profile does not map is sent as written; a missing argument is an error */
    buf_reset(&n);
    buf_reset(&a);
    CHECK(agent_map_call(p, "grep", args, "/ws", &n, &a, err, sizeof err) == 0);
    cJSON *noargs = cJSON_Parse("{}");
    CHECK(agent_map_call(p, "runCmd", noargs, "/ws", &n, &a, err, sizeof err) == -1);
    CHECK(strstr(err, "needs 'cmd'") != NULL);
    cJSON_Delete(noargs);
    cJSON_Delete(args);
    CHECK(agent_is_scenario_tool("runCmd") && agent_is_scenario_tool("glob") && !agent_is_scenario_tool("Bash"));
    CHECK(strcmp(agent_scenario_tool(p, "Bash"), "runCmd") == 0 && !agent_scenario_tool(p, "Nope"));

    /* detection: the largest overlap of declared tools, at least half */
    char e2[256];
    AgentProfile *q = agent_profile_parse("{\"name\": \"q\", \"api\": \"gemini\", \"command\": \"q\", \"headless\": [],"
                                          " \"declares\": [\"run_shell_command\", \"replace\"]}",
                                          strlen("{\"name\": \"q\", \"api\": \"gemini\", \"command\": \"q\", "
                                                 "\"headless\": [], \"declares\": [\"run_shell_command\", "
                                                 "\"replace\"]}"),
                                          "q", e2, sizeof e2);
    CHECK(q != NULL);
    AgentProfile *ps[2] = { p, q };
    cJSON *d1 = cJSON_Parse("[\"Bash\", \"Edit\", \"Read\"]"), *d2 = cJSON_Parse("[\"replace\", \"run_shell_command\"]"),
          *d3 = cJSON_Parse("[\"Bash\", \"x1\", \"x2\", \"x3\", \"x4\"]");
    double sc;
    CHECK(agent_detect(ps, 2, d1, &sc) == 0 && sc == 0.75);
    CHECK(agent_detect(ps, 2, d2, &sc) == 1 && sc == 1.0);
    CHECK(agent_detect(ps, 2, d3, &sc) == -1);
    cJSON_Delete(d1);
    cJSON_Delete(d2);
    cJSON_Delete(d3);
    /* the names a request declares, in each API's shape */
    cJSON *tools = cJSON_Parse("[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},{\"name\":\"b\"},"
                               "{\"functionDeclarations\":[{\"name\":\"c\"},{\"name\":\"a\"}]}]");
    cJSON *names = agent_declared_tools(tools);
    char *ns = cJSON_PrintUnformatted(names);
    CHECK(ns && strcmp(ns, "[\"a\",\"b\",\"c\"]") == 0);
    cJSON_free(ns);
    cJSON_Delete(names);
    cJSON_Delete(tools);
    agent_profile_free(q);
    agent_profile_free(p);
    buf_fini(&n);
    buf_fini(&a);

    /* validation: clear errors, with the position of a JSON error */
    static const char *const bad[][2] = {
        { "{\"name\": \"x\",\n \"api\": }", "bad.json:2:9: not valid JSON" },
        { "{\"name\": \"x\", \"api\": \"cohere\", \"command\": \"x\", \"headless\": []}", "'api' must be one of" },
        { "{\"name\": \"x\", \"api\": \"gemini\", \"command\": \"x\"}", "needs 'headless' or 'interactive'" },
        { "{\"name\": \"x\", \"api\": \"gemini\", \"command\": \"x\", \"headless\": [], \"tols\": {}}",
          "unknown field 'tols'" },
        { "{\"name\": \"x\", \"api\": \"gemini\", \"command\": \"x\", \"headless\": [], \"tools\": {\"runCmd\": "
          "{\"tool\": 1}}}", "tools.runCmd must be" },
        { "{\"name\": \"x\", \"api\": \"gemini\", \"command\": \"x\", \"headless\": [], \"env\": {\"A=B\": \"1\"}}",
          "env: 'A=B' is not a variable name" },
        { "{\"name\": \"a b\", \"api\": \"gemini\", \"command\": \"x\", \"headless\": []}", "'name' must be" },
        { "{\"name\": \"x\", \"api\": \"gemini\", \"command\": \"x\", \"headless\": [\"{prompt|upper}\"]}",
          "bad.json: headless: template placeholder '{prompt|upper}': unknown filter 'upper'" },
        { "{\"name\": \"x\", \"api\": \"gemini\", \"command\": \"x\", \"headless\": [], \"tools\": {\"runCmd\": "
          "{\"tool\": \"B\", \"args\": {\"c\": \"{cmd\"}}}}", "bad.json: tools: template '{cmd': '{' without '}'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        AgentProfile *b = agent_profile_parse(bad[i][0], strlen(bad[i][0]), "bad.json", err, sizeof err);
        CHECK(b == NULL && strstr(err, bad[i][1]) != NULL);
        if (b || !strstr(err, bad[i][1]))
            fprintf(stderr, "  case %zu: %s\n", i, err);
        agent_profile_free(b);
    }
    /* every shipped profile loads */
    for (size_t i = 0; agent_profile_builtins[i]; i++) {
        AgentProfile *b = agent_profile_load(agent_profile_builtins[i], err, sizeof err);
        CHECK(b != NULL);
        if (!b)
            fprintf(stderr, "  %s\n", err);
        agent_profile_free(b);
    }
    CHECK(agent_profile_load("no-such-agent", err, sizeof err) == NULL && strstr(err, "shipped: claude-code"));
}

/* ---- tool results ---- */

static void results_are(const char *body, LlmApi api, const char *id0, const char *text0, int err0, size_t want_n)
{
    cJSON *j = cJSON_Parse(body);
    LlmToolResult r[8];
    size_t n = llm_tool_results(j, api, r, 8);
    CHECK(n == want_n);
    if (n) {
        CHECK(id0 ? r[0].id && strcmp(r[0].id, id0) == 0 : r[0].id == NULL);
        CHECK(str_is(&r[0].text, text0));
        CHECK(r[0].is_error == err0);
    }
    for (size_t i = 0; i < n; i++)
        llm_tool_result_fini(&r[i]);
    cJSON_Delete(j);
}

static void test_results(void)
{
    results_are("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"tool\",\"tool_call_id\":\"call_1\","
                "\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]}]}",
                LLM_API_CHAT, "call_1", "a\nb", -1, 1);
    results_are("{\"input\":[{\"type\":\"function_call\",\"call_id\":\"c\"},{\"type\":\"function_call_output\","
                "\"call_id\":\"c\",\"output\":\"done\"}]}",
                LLM_API_RESPONSES, "c", "done", -1, 1);
    results_are("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\","
                "\"content\":\"boom\",\"is_error\":true},{\"type\":\"tool_result\",\"tool_use_id\":\"t2\","
                "\"content\":\"ok\"}]}]}",
                LLM_API_MESSAGES, "toolu_1", "boom", 1, 2);
    results_are("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"old\",\"response\":"
                "{\"output\":\"x\"}}}]},{\"role\":\"model\",\"parts\":[{\"text\":\"t\"}]},{\"role\":\"user\",\"parts\":"
                "[{\"functionResponse\":{\"name\":\"run\",\"response\":{\"error\":\"nope\"}}}]}]}",
                LLM_API_GEMINI, NULL, "nope", 1, 1);
    results_are("{\"messages\":[]}", LLM_API_CHAT, NULL, "", -1, 0);
    /* the expectations (a string, exact, contains, regex) are compared in
    ** tests/agents/fake_test.py, with programs scc compiled */
}

/* A profile's files are written under {home} or {workspace} only: no '..'
** (a trailing one too), no symbolic link leading out of the folder, no path
** elsewhere; what is refused writes nothing (docs/real-agents.md). */
static int launch_with_file(const char *root, const char *file, char *err, size_t cap)
{
    char json[1024], home[600], ws[600];
    snprintf(json, sizeof json,
             "{\"name\": \"f\", \"api\": \"anthropic\", \"command\": \"f\", \"headless\": [],"
             " \"files\": {\"%s\": \"hello {workspace}\"}}", file);
    snprintf(home, sizeof home, "%s/home", root);
    snprintf(ws, sizeof ws, "%s/ws", root);
    AgentProfile *p = agent_profile_parse(json, strlen(json), "f.json", err, cap);
    if (!p)
        return -1;
    cJSON *vars = cJSON_CreateObject();
    cJSON_AddStringToObject(vars, "home", home);
    cJSON_AddStringToObject(vars, "workspace", ws);
    AgentLaunch l;
    int st = agent_launch_prepare(p, false, vars, home, ws, NULL, NULL, &l, err, cap);
    if (!st)
        agent_launch_fini(&l);
    cJSON_Delete(vars);
    agent_profile_free(p);
    return st;
}

static void test_files_policy(void)
{
    char root[] = "/tmp/agent_unit.XXXXXX", path[700], err[512];
    CHECK(mkdtemp(root) != NULL);
    snprintf(path, sizeof path, "%s/home", root);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/ws", root);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/outside", root);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/ws/out", root);
    CHECK(symlink("../outside", path) == 0);
    struct stat st;
    /* the good ones: a new folder on the way is made */
    CHECK(launch_with_file(root, "{home}/.f/config.json", err, sizeof err) == 0);
    snprintf(path, sizeof path, "%s/home/.f/config.json", root);
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(launch_with_file(root, "{workspace}/AGENTS.md", err, sizeof err) == 0);
    static const char *const bad[] = {
        "{home}/..", "{home}/a/..", "{home}/../ws/x", "{home}/a/../../x", "{workspace}/out/x",
        "/tmp/x", "{home}", "{home}/",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        int r = launch_with_file(root, bad[i], err, sizeof err);
        CHECK(r != 0);
        if (r == 0)
            fprintf(stderr, "  accepted: %s\n", bad[i]);
        CHECK(strstr(err, "agent profile 'f': file") != NULL);
    }
    /* a link where the file is wanted is replaced, never written through */
    CHECK(launch_with_file(root, "{workspace}/out", err, sizeof err) == 0);
    snprintf(path, sizeof path, "%s/ws/out", root);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
    /* nothing was written or made outside, or before a refusal */
    snprintf(path, sizeof path, "%s/outside/x", root);
    CHECK(lstat(path, &st) != 0);
    snprintf(path, sizeof path, "%s/x", root);
    CHECK(lstat(path, &st) != 0);
    snprintf(path, sizeof path, "%s/home/a", root);
    CHECK(lstat(path, &st) != 0);
    file_remove_tree(root);
}

int main(void)
{
    test_templates();
    test_profile();
    test_results();
    test_files_policy();
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
