/* SPDX-License-Identifier: MIT */
/* t_judge.c - runtime/judge: every ElizaOS evaluator and Yao assertion on
** made-up conversations, a real workspace (files, commands) and tapes, with
** each decision docs/judge.md records (case folding, action names, Yao's
** tool-name leniency, canonical equality, negate, message, SKIP with the
** missing key). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/agentcheck.h"
#include "runtime/judge/judge.h"

static int failures;

enum { ELIZA, YAO, CHECK };

static void expect(const char *what, const char *json, int how, const JudgeRun *run, JudgeVerdict want,
                   const char *msg_part)
{
    cJSON *j = cJSON_Parse(json);
    if (!j) {
        fprintf(stderr, "%s: bad test JSON\n", what);
        failures++;
        return;
    }
    JudgeResult r;
    if (how == ELIZA)
        judge_eliza(j, run, &r);
    else if (how == YAO)
        judge_yao(j, run, &r);
    else
        judge_check(j, run, &r);
    if (r.verdict != want || (msg_part && !strstr(r.message, msg_part))) {
        fprintf(stderr, "FAIL %s: %s (%s), want %s with '%s'\n", what, judge_verdict_name(r.verdict), r.message,
                judge_verdict_name(want), msg_part ? msg_part : "");
        failures++;
    }
    judge_result_fini(&r);
    cJSON_Delete(j);
}

#define E(what, json, want, part) expect(what, json, ELIZA, &run, want, part)
#define Y(what, json, want, part) expect(what, json, YAO, &run, want, part)
#define C(what, json, want, part) expect(what, json, CHECK, &run, want, part)
#define CHECK_(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

int main(void)
{
    char ws[] = "/tmp/t_judge-XXXXXX";
    if (!mkdtemp(ws))
        return 1;
    char p[256];
    snprintf(p, sizeof p, "%s/notes.txt", ws);
    FILE *f = fopen(p, "w");
    fputs("hello world\n", f);
    fclose(f);

    JudgeAction acts[] = { { "LIST_GITHUB_ISSUES", "{}" }, { "mcp__files__read", "{\"path\":\"a\",\"n\":1}" } };
    JudgeTurn turns[] = {
        { "hi", "Hello! How can I help?", NULL, 0 },
        { "I need help with issues", "Sure, I NEED HELP too: here are 3 issues.", acts, 2 },
    };
    JudgeRun run = { .turns = turns, .n_turns = 2, .workspace = ws, .duration_ms = 500, .has_duration = true,
                     .command_timeout_ms = 300 };

    /* ---- ElizaOS ---- */
    E("contains, any case", "{\"type\":\"string_contains\",\"value\":\"need help\"}", JUDGE_PASS, "(any case)");
    E("contains, case", "{\"type\":\"string_contains\",\"value\":\"need help\",\"case_sensitive\":true}", JUDGE_FAIL,
      "does not contain");
    E("contains, only the last turn", "{\"type\":\"string_contains\",\"value\":\"How can I\"}", JUDGE_FAIL, NULL);
    E("regex, /i", "{\"type\":\"regex_match\",\"pattern\":\"need\\\\s+help\"}", JUDGE_PASS, "matches");
    E("regex, no match", "{\"type\":\"regex_match\",\"pattern\":\"^here\"}", JUDGE_FAIL, NULL);
    E("regex, bad", "{\"type\":\"regex_match\",\"pattern\":\"a(\"}", JUDGE_ERROR, "offset 2");
    E("file_exists ./", "{\"type\":\"file_exists\",\"path\":\"./notes.txt\"}", JUDGE_PASS, NULL);
    E("file_exists missing", "{\"type\":\"file_exists\",\"path\":\"other.txt\"}", JUDGE_FAIL, "does not exist");
    E("file_exists absolute", "{\"type\":\"file_exists\",\"path\":\"/etc/passwd\"}", JUDGE_FAIL, "absolute");
    E("file_exists ..", "{\"type\":\"file_exists\",\"path\":\"../x\"}", JUDGE_FAIL, NULL);
    /* the one workspace path policy (scn_path_resolve): a link out of the
    ** workspace is refused (the judge's own copy of the policy followed it
    ** and passed), '..' says why, a link inside still counts */
    char outside[] = "/tmp/t_judge-out-XXXXXX", lk[512];
    CHECK_(mkdtemp(outside) != NULL);
    snprintf(p, sizeof p, "%s/secret.txt", outside);
    f = fopen(p, "w");
    fputs("world\n", f);
    fclose(f);
    snprintf(lk, sizeof lk, "%s/out", ws);
    CHECK_(symlink(p, lk) == 0);
    snprintf(lk, sizeof lk, "%s/in", ws);
    CHECK_(symlink("notes.txt", lk) == 0);
    E("file_exists link out", "{\"type\":\"file_exists\",\"path\":\"out\"}", JUDGE_FAIL, "symbolic link");
    E("file_contains link out", "{\"type\":\"file_contains\",\"path\":\"out\",\"value\":\"world\"}", JUDGE_FAIL,
      "out of the workspace");
    E("file_exists link in", "{\"type\":\"file_exists\",\"path\":\"in\"}", JUDGE_PASS, NULL);
    E("file_exists .. why", "{\"type\":\"file_exists\",\"path\":\"a/../notes.txt\"}", JUDGE_FAIL, "without '..'");
    unlink(p);
    rmdir(outside);
    E("file_contains", "{\"type\":\"file_contains\",\"path\":\"notes.txt\",\"value\":\"world\"}", JUDGE_PASS, NULL);
    E("file_contains no", "{\"type\":\"file_contains\",\"path\":\"notes.txt\",\"value\":\"World\"}", JUDGE_FAIL,
      "does not contain");
    E("command 0", "{\"type\":\"command_exit_code_is\",\"command\":\"test -f notes.txt\",\"expected_code\":0}",
      JUDGE_PASS, "exited 0");
    E("command 3", "{\"type\":\"command_exit_code_is\",\"command\":\"exit 3\",\"expected_code\":0}", JUDGE_FAIL,
      "exited 3, expected 0");
    E("command time", "{\"type\":\"command_exit_code_is\",\"command\":\"sleep 5\",\"expected_code\":0}", JUDGE_FAIL,
      "did not end within 300 ms");
    E("trajectory", "{\"type\":\"trajectory_contains_action\",\"action\":\"listGithub_Issues\"}", JUDGE_PASS, NULL);
    E("trajectory no", "{\"type\":\"trajectory_contains_action\",\"action\":\"send_email\"}", JUDGE_FAIL, NULL);
    E("time", "{\"type\":\"execution_time\",\"max_duration_ms\":1000}", JUDGE_PASS, "500 ms");
    E("time min", "{\"type\":\"execution_time\",\"max_duration_ms\":1000,\"min_duration_ms\":600}", JUDGE_FAIL, NULL);
    E("length", "{\"type\":\"conversation_length\",\"min_turns\":1,\"max_turns\":3}", JUDGE_PASS, "2 turns");
    E("length range", "{\"type\":\"conversation_length\",\"target_range\":[3,5]}", JUDGE_FAIL, NULL);
    E("flow without a tape", "{\"type\":\"conversation_flow\",\"required_patterns\":[\"question_then_answer\"]}",
      JUDGE_SKIP, "conversation_flow: the tape has no reply");
    E("satisfaction by keywords, none", "{\"type\":\"user_satisfaction\",\"measurement_method\":\"keyword_analysis\"}",
      JUDGE_FAIL, "0.50 by keywords (0 positive, 0 negative");
    E("satisfaction by the scenario's keywords", "{\"type\":\"user_satisfaction\",\"measurement_method\":"
      "\"keyword_analysis\",\"indicators\":{\"positive\":[\"help\"],\"negative\":[\"issue\"]}}", JUDGE_PASS,
      "1.00 by keywords (1 positive, 0 negative");    /* whole words: "issues" is not "issue" */
    E("retention, never mentioned", "{\"type\":\"context_retention\",\"test_memory_of\":[\"vacation\"]}", JUDGE_FAIL,
      "'vacation' 0.00 (never mentioned)");
    E("retention, no turn after", "{\"type\":\"context_retention\",\"test_memory_of\":[\"issues\"]}", JUDGE_FAIL,
      "(no turn after)");
    {
        /* the conversation evaluators' questions, answered on a tape */
        const char *tr = "Turn 1:\nUser: hi\nAgent: Hello! How can I help?\n\nTurn 2:\nUser: I need help with "
                         "issues\nAgent: Sure, I NEED HELP too: here are 3 issues.\n";
        Tape *ct = tape_new();
        char e2[256];
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "pattern", "question_then_answer");
        cJSON_AddStringToObject(q, "transcript", tr);
        cJSON *a = cJSON_CreateString("yes");
        tape_add(ct, "conversation_flow", q, 0, a, e2, sizeof e2);
        cJSON_ReplaceItemInObject(q, "pattern", cJSON_CreateString("escalation_pattern"));
        cJSON_Delete(a);
        a = cJSON_Parse("{\"answer\":\"no\"}");
        tape_add(ct, "conversation_flow", q, 0, a, e2, sizeof e2);
        cJSON_Delete(q);
        cJSON_Delete(a);
        q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "measurement_method", "llm_judge");
        cJSON_AddStringToObject(q, "transcript", tr);
        a = cJSON_Parse("{\"score\":0.8}");
        tape_add(ct, "user_satisfaction", q, 0, a, e2, sizeof e2);
        cJSON_ReplaceItemInObject(q, "measurement_method", cJSON_CreateString("sentiment_analysis"));
        cJSON_Delete(a);
        a = cJSON_CreateString("very");
        tape_add(ct, "user_satisfaction", q, 0, a, e2, sizeof e2);
        cJSON_Delete(q);
        cJSON_Delete(a);
        q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "item", "help");
        cJSON_AddNumberToObject(q, "mentioned_in_turn", 1);
        cJSON_AddNumberToObject(q, "turn", 2);
        cJSON_AddStringToObject(q, "transcript", tr);
        a = cJSON_CreateTrue();
        tape_add(ct, "context_retention", q, 0, a, e2, sizeof e2);
        cJSON_Delete(q);
        cJSON_Delete(a);
        JudgeRun cr = run;
        cr.tape = ct;
        const char *flow1 = "{\"type\":\"conversation_flow\",\"required_patterns\":[\"question_then_answer\"]}";
        const char *flow2 = "{\"type\":\"conversation_flow\",\"required_patterns\":[\"question_then_answer\","
                            "\"escalation_pattern\"],\"flow_quality_threshold\":0.6}";
        tape_restart(ct);
        expect("flow: the pattern detected", flow1, ELIZA, &cr, JUDGE_PASS, "1 of 1 patterns detected");
        tape_restart(ct);
        expect("flow: one of two, under 0.6", flow2, ELIZA, &cr, JUDGE_FAIL,
               "1 of 2 patterns detected (0.50, at least 0.60); not detected: escalation_pattern");
        tape_restart(ct);
        expect("satisfaction by the judge", "{\"type\":\"user_satisfaction\"}", ELIZA, &cr, JUDGE_PASS,
               "0.80 by llm_judge, at least 0.70");
        tape_restart(ct);
        expect("satisfaction: not a score", "{\"type\":\"user_satisfaction\",\"measurement_method\":"
               "\"sentiment_analysis\"}", ELIZA, &cr, JUDGE_ERROR, "not a score");
        tape_restart(ct);
        expect("retention: remembered in the next turn", "{\"type\":\"context_retention\",\"test_memory_of\":"
               "[\"help\"]}", ELIZA, &cr, JUDGE_PASS, "accuracy 1.00 over 1 item");
        tape_restart(ct);
        expect("retention: one of two items", "{\"type\":\"context_retention\",\"test_memory_of\":[\"help\","
               "\"vacation\"],\"memory_accuracy_threshold\":0.5}", ELIZA, &cr, JUDGE_PASS, "accuracy 0.50");
        tape_free(ct);
    }
    E("unknown", "{\"type\":\"vibes\"}", JUDGE_FAIL, "Unknown evaluator type: 'vibes'");
    E("no type", "{\"value\":1}", JUDGE_ERROR, NULL);
    run.has_duration = false;
    E("time unmeasured", "{\"type\":\"execution_time\",\"max_duration_ms\":1000}", JUDGE_FAIL, "not measured");
    run.has_duration = true;

    /* llm_judge: without a tape it skips with the key of its request */
    const char *lj = "{\"type\":\"llm_judge\",\"prompt\":\"Did it list issues?\",\"expected\":\"yes\"}";
    cJSON *rq = cJSON_Parse("{\"prompt\":\"Did it list issues?\",\"expected\":\"yes\","
                            "\"response\":\"Sure, I NEED HELP too: here are 3 issues.\"}");
    char key[65];
    tape_key("llm_judge", rq, key);
    cJSON *ev = cJSON_Parse(lj);
    JudgeResult r;
    judge_eliza(ev, &run, &r);
    Buf canon;
    buf_init(&canon);
    tape_canonical(rq, &canon);
    buf_putc(&canon, 0);
    if (r.verdict != JUDGE_SKIP || strcmp(r.key, key) != 0 || strcmp(r.kind, "llm_judge") != 0 || !r.request ||
        strcmp(r.request, (char *)canon.data) != 0) {
        fprintf(stderr, "FAIL llm_judge without a tape: %s %s key %s\n", judge_verdict_name(r.verdict), r.message, r.key);
        failures++;
    }
    buf_fini(&canon);
    judge_result_fini(&r);
    Tape *t = tape_new();
    char err[256];
    cJSON *yes = cJSON_Parse("{\"overall_success\":true,\"confidence\":0.9}");
    tape_add(t, "llm_judge", rq, 0, yes, err, sizeof err);
    cJSON *rq2 = cJSON_Parse("{\"prompt\":\"Did it list issues?\",\"expected\":\"0.95+\","
                             "\"response\":\"Sure, I NEED HELP too: here are 3 issues.\"}");
    tape_add(t, "llm_judge", rq2, 0, yes, err, sizeof err);
    run.tape = t;
    E("llm_judge yes", lj, JUDGE_PASS, "judged yes, expected yes");
    E("llm_judge asked again: the tape has one reply", lj, JUDGE_SKIP, "no reply");
    E("llm_judge 0.95+", "{\"type\":\"llm_judge\",\"prompt\":\"Did it list issues?\",\"expected\":\"0.95+\"}",
      JUDGE_FAIL, "confidence 0.90, expected at least 0.95");

    /* ---- the neutral language the front ends lower to ---- */
    C("check contains, any case", "{\"type\":\"contains\",\"scope\":\"step\",\"value\":\"need help\","
      "\"case_sensitive\":false}", JUDGE_PASS, "(any case)");
    C("check contains, case", "{\"type\":\"contains\",\"scope\":\"step\",\"value\":\"need help\","
      "\"case_sensitive\":true}", JUDGE_FAIL, NULL);
    C("check regex", "{\"type\":\"regex\",\"scope\":\"step\",\"pattern\":\"^sure\",\"case_sensitive\":false}",
      JUDGE_PASS, "/^sure/i");
    C("check value_type", "{\"type\":\"value_type\",\"scope\":\"case\",\"value\":\"string\"}", JUDGE_PASS, NULL);
    C("check unknown", "{\"type\":\"vibes\",\"scope\":\"case\"}", JUDGE_FAIL, "unknown check type: vibes");
    C("check no type", "{\"scope\":\"case\"}", JUDGE_ERROR, NULL);
    Y("Yao regex is case-sensitive", "{\"type\":\"regex\",\"value\":\"^sure\"}", JUDGE_FAIL, NULL);
    Y("Yao regex takes (?i)", "{\"type\":\"regex\",\"value\":\"(?i)^sure\"}", JUDGE_PASS, NULL);

    /* ---- Yao ---- */
    turns[1].text = "```json\n{\"a\":{\"b\":[1,{\"c\":\"x\"}]},\"n\":42}\n```";
    Y("contains", "{\"type\":\"contains\",\"value\":\"\\\"c\\\"\"}", JUDGE_PASS, NULL);
    Y("contains is case-sensitive", "{\"type\":\"contains\",\"value\":\"JSON\"}", JUDGE_FAIL, NULL);
    Y("not_contains", "{\"type\":\"not_contains\",\"value\":\"error\"}", JUDGE_PASS, NULL);
    Y("regex", "{\"type\":\"regex\",\"value\":\"\\\"n\\\":\\\\d+\"}", JUDGE_PASS, NULL);
    Y("json_path", "{\"type\":\"json_path\",\"path\":\"$.a.b[1].c\",\"value\":\"x\"}", JUDGE_PASS, NULL);
    Y("json_path IN", "{\"type\":\"json_path\",\"path\":\"$.a.b[1].c\",\"value\":[\"y\",\"x\"]}", JUDGE_PASS, NULL);
    /* the specification's {"type": "type", "path": "$.count", "value": "number"} */
    C("value_type at a path", "{\"type\":\"value_type\",\"scope\":\"case\",\"path\":\"$.n\",\"value\":\"number\"}",
      JUDGE_PASS, "$.n is of type number");
    C("value_type at a path, wrong", "{\"type\":\"value_type\",\"scope\":\"case\",\"path\":\"$.a\",\"value\":"
      "\"array\"}", JUDGE_FAIL, "$.a is of type object");
    C("value_type at no such path", "{\"type\":\"value_type\",\"scope\":\"case\",\"path\":\"$.count\",\"value\":"
      "\"number\"}", JUDGE_FAIL, "$.count not found");
    Y("json_path no", "{\"type\":\"json_path\",\"path\":\"$.n\",\"value\":41}", JUDGE_FAIL, NULL);
    Y("json_path missing", "{\"type\":\"json_path\",\"path\":\"$.zz\",\"value\":1}", JUDGE_FAIL, "not found");
    Y("type (string: the fence is text)", "{\"type\":\"type\",\"value\":\"string\"}", JUDGE_PASS, NULL);
    turns[1].text = "{\"b\":2,\"a\":[1,2.0]}";
    Y("equals, canonical", "{\"type\":\"equals\",\"value\":{\"a\":[1,2],\"b\":2}}", JUDGE_PASS, NULL);
    Y("equals, default type", "{\"value\":{\"a\":[1,2],\"b\":3}}", JUDGE_FAIL, NULL);
    Y("type object", "{\"type\":\"type\",\"value\":\"object\"}", JUDGE_PASS, NULL);
    Y("bare string type", "\"equals\"", JUDGE_FAIL, NULL);
    Y("tool_called __suffix", "{\"type\":\"tool_called\",\"value\":\"read\"}", JUDGE_PASS, NULL);
    Y("tool_called any of", "{\"type\":\"tool_called\",\"value\":[\"write\",\"files__read\"]}", JUDGE_PASS, NULL);
    Y("tool_called contains (Yao's leniency)", "{\"type\":\"tool_called\",\"value\":\"file\"}", JUDGE_PASS, NULL);
    Y("tool_called args", "{\"type\":\"tool_called\",\"value\":{\"name\":\"read\",\"arguments\":{\"path\":\"a\"}}}",
      JUDGE_PASS, NULL);
    Y("tool_called args differ", "{\"type\":\"tool_called\",\"value\":{\"name\":\"read\",\"arguments\":{\"n\":2}}}",
      JUDGE_FAIL, NULL);
    Y("tool_called no value", "{\"type\":\"tool_called\",\"name\":\"read\"}", JUDGE_ERROR,
      "invalid tool_called value type: <nil>");
    Y("negate", "{\"type\":\"contains\",\"value\":\"zzz\",\"negate\":true}", JUDGE_PASS, "negated:");
    Y("message", "{\"type\":\"contains\",\"value\":\"zzz\",\"message\":\"wanted zzz\"}", JUDGE_FAIL, "wanted zzz");
    Y("script", "{\"type\":\"script\",\"script\":\"scripts.check\"}", JUDGE_SKIP, "V8");
    Y("unknown", "{\"type\":\"schema\"}", JUDGE_FAIL, "unknown assertion type: schema");
    Y("agent, missing from the tape", "{\"type\":\"agent\",\"use\":\"agents:judge\",\"value\":\"is it JSON?\"}",
      JUDGE_SKIP, "yao_validator");
    cJSON *vq = cJSON_Parse("{\"output\":\"{\\\"b\\\":2,\\\"a\\\":[1,2.0]}\",\"input\":\"I need help with issues\","
                            "\"criteria\":\"is it JSON?\",\"use\":\"agents:judge\"}");
    cJSON *vr = cJSON_Parse("{\"passed\":false,\"reason\":\"it is JSON but not the answer\"}");
    /* the second asking of this request (the first missed above): n 1 */
    tape_add(t, "yao_validator", vq, 1, vr, err, sizeof err);
    Y("agent, from the tape", "{\"type\":\"agent\",\"use\":\"agents:judge\",\"value\":\"is it JSON?\"}", JUDGE_FAIL,
      "not the answer");

    /* ---- the check types are one table (formats/agentcheck.def) ---- */
    /* every type is known to the judge, by its name and by each dialect's */
    for (size_t i = 0; ac_type_name(i); i++) {
        char what[100];
        snprintf(what, sizeof what, "table row %s", ac_type_name(i));
        CHECK_(ac_type_of(ac_type_name(i)) == (AcType)i);
        JudgeResult jr;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "type", ac_type_name(i));
        judge_check(o, &run, &jr);
        if (strstr(jr.message, "unknown check type")) {
            fprintf(stderr, "FAIL %s: %s\n", what, jr.message);
            failures++;
        }
        judge_result_fini(&jr);
        cJSON_Delete(o);
    }
    CHECK_(ac_type_of("vibes") == AC__UNKNOWN);
    const char *names[AC__UNKNOWN + 1];
    for (int d = AC_ELIZA; d <= AC_YAO; d++) {
        size_t n = ac_dialect_names((AcDialect)d, names, sizeof names / sizeof names[0]);
        CHECK_(n > 0 && names[n] == NULL);
        for (size_t i = 0; i < n; i++) {
            CHECK_(ac_dialect_type((AcDialect)d, names[i]) != AC__UNKNOWN);
            JudgeResult jr;
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "type", names[i]);
            if (d == AC_ELIZA)
                judge_eliza(o, &run, &jr);
            else
                judge_yao(o, &run, &jr);
            if (strstr(jr.message, "nknown")) {
                fprintf(stderr, "FAIL dialect %d type %s: %s\n", d, names[i], jr.message);
                failures++;
            }
            judge_result_fini(&jr);
            cJSON_Delete(o);
        }
    }
    /* the order the front ends list them in (their notes are unchanged) */
    ac_dialect_names(AC_YAO, names, sizeof names / sizeof names[0]);
    static const char *const yao_order[] = { "equals", "contains", "not_contains", "json_path", "regex", "type",
                                             "script", "agent", "tool_called", "tool_result", NULL };
    for (size_t i = 0; yao_order[i] || names[i]; i++)
        CHECK_(yao_order[i] && names[i] && strcmp(yao_order[i], names[i]) == 0);
    ac_dialect_names(AC_ELIZA, names, sizeof names / sizeof names[0]);
    static const char *const eliza_order[] = {
        "string_contains", "regex_match", "file_exists", "file_contains", "command_exit_code_is",
        "trajectory_contains_action", "execution_time", "llm_judge", "conversation_length", "conversation_flow",
        "user_satisfaction", "context_retention", NULL,
    };
    for (size_t i = 0; eliza_order[i] || names[i]; i++)
        CHECK_(eliza_order[i] && names[i] && strcmp(eliza_order[i], names[i]) == 0);
    /* a type of the other dialect is not one of this one's */
    E("a Yao type in ElizaOS", "{\"type\":\"regex\",\"pattern\":\"x\"}", JUDGE_FAIL, "Unknown evaluator type");
    Y("an ElizaOS type in Yao", "{\"type\":\"string_contains\",\"value\":\"x\"}", JUDGE_FAIL,
      "unknown assertion type");

    cJSON_Delete(vq);
    cJSON_Delete(vr);
    cJSON_Delete(ev);
    cJSON_Delete(rq);
    cJSON_Delete(rq2);
    cJSON_Delete(yes);
    tape_free(t);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", ws);
    if (system(cmd) != 0)
        failures++;
    if (failures) {
        fprintf(stderr, "t_judge: %d failed\n", failures);
        return 1;
    }
    puts("t_judge: ok");
    return 0;
}
