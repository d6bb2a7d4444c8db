/* SPDX-License-Identifier: MIT */
/* session_unit.c - the session C API (include/scc/session.h) called as a
** library user would: cat driven to its exit, every refusal with its code,
** and every allocation failing in turn (the sc_alloc hook): each call then
** answers SCC_E_INTERNAL (or the spawn's error) and nothing crashes or
** leaks (under ASan). */
#include "include/scc/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "tests/check.h"

static const char POLICY[] = "{\"policy_version\":4,\"sandbox\":\"none\",\"sandbox_unsafe_ack\":true,"
                             "\"network_unsafe_ack\":true,\"exec\":{\"allowed_executables\":[\"/bin/cat\"]}}";

/* cat: type, wait for the echo, observe, Ctrl+D, wait for the exit.
** Returns the first code other than SCC_E_OK, or SCC_E_OK. */
static int cat_session(int strict)
{
    scc_session_config cfg = { .command = "/bin/cat", .rows = 4, .cols = 20, .policy_json = POLICY };
    scc_session *s;
    char err[512], *obs = NULL;
    int rc = scc_session_spawn(&cfg, &s, err, sizeof err);
    if (rc)
        return rc;
    rc = scc_session_text(s, "unit\n", 5, err, sizeof err);
    if (!rc)
        rc = scc_session_wait(s, "{\"type\":\"line_equals\",\"payload\":{\"line\":1,\"text\":\"unit\"}}",
                              strict ? 10000 : 2000, err, sizeof err);
    if (!rc)
        rc = scc_session_observe(s, 1, &obs);
    if (!rc && strict) {
        CHECK(strstr(obs, "\"protocol_version\":2") != NULL);
        CHECK(strstr(obs, "\"lines\":[\"unit\",\"unit\",\"\",\"\"]") != NULL);
        CHECK(strstr(obs, "\"cells\":") != NULL);
        CHECK(strstr(obs, "\"transcript_delta\":\"unit\\r\\nunit\\r\\n\"") != NULL);
    }
    free(obs);
    if (!rc)
        rc = scc_session_key(s, "Ctrl+D", err, sizeof err);
    scc_exit_status st;
    if (!rc && scc_session_wait_exit(s, 10000, &st) && strict)
        CHECK(st.exited && st.exit_code == 0 && st.signal == 0 && !st.terminated_by_harness);
    if (!rc && strict) {
        size_t n;
        const char *t = scc_session_transcript(s, &n);
        CHECK(n == 12 && memcmp(t, "unit\r\nunit\r\n", 12) == 0);
        CHECK(scc_session_key(s, "a", err, sizeof err) == SCC_E_PROCESS_EXIT);
    }
    scc_session_close(s);
    return rc;
}

static void refusals(void)
{
    scc_session *s = NULL;
    char err[512];
    scc_session_config cfg = { .command = "/bin/cat", .policy_json = "{\"policy_version\":3}" };
    CHECK(scc_session_spawn(&cfg, &s, err, sizeof err) == SCC_E_PROTOCOL_VERSION_MISMATCH && !s);
    cfg.policy_json = "[";
    CHECK(scc_session_spawn(&cfg, &s, err, sizeof err) == SCC_E_PROTOCOL && !s);
    cfg.policy_json = "{\"policy_version\":4,\"sandbox\":\"none\"}";
    CHECK(scc_session_spawn(&cfg, &s, err, sizeof err) == SCC_E_POLICY_DENIED && strstr(err, "sandbox_unsafe_ack"));
    cfg.policy_json = POLICY;
    cfg.rows = 501;
    CHECK(scc_session_spawn(&cfg, &s, err, sizeof err) == SCC_E_CLI_INVALID_ARG);
    cfg.rows = 0;
    cfg.command = "";
    CHECK(scc_session_spawn(&cfg, &s, err, sizeof err) == SCC_E_CLI_INVALID_ARG);
    cfg.command = "/bin/echo";
    CHECK(scc_session_spawn(&cfg, &s, err, sizeof err) == SCC_E_POLICY_DENIED &&
          strstr(err, "allowed_executables"));
    cfg.command = "/bin/cat";
    char *json = NULL;
    CHECK(scc_session_explain(&cfg, &json, err, sizeof err) == SCC_E_OK && json &&
          strstr(json, "\"allowed\":true"));
    free(json);
    char *dflt = scc_session_default_policy("cat");
    CHECK(dflt && strstr(dflt, "\"sandbox\":\"seatbelt\"") && strstr(dflt, "\"network\":\"disabled\""));
    free(dflt);
    CHECK(strcmp(scc_error_code(SCC_E_REPLAY_MISMATCH), "E_REPLAY_MISMATCH") == 0);
    CHECK(strcmp(scc_error_code(SCC_E_OK), "") == 0 && strcmp(scc_error_code(99), "E_INTERNAL") == 0);

    /* bad input to a live session */
    CHECK(scc_session_spawn(&cfg, &s, err, sizeof err) == SCC_E_OK);
    CHECK(scc_session_key(s, "Hyper+Q", err, sizeof err) == SCC_E_PROTOCOL);
    CHECK(scc_session_key(s, NULL, err, sizeof err) == SCC_E_PROTOCOL);
    CHECK(scc_session_resize(s, 0, 10, err, sizeof err) == SCC_E_PROTOCOL);
    CHECK(scc_session_resize(s, 10, 40, err, sizeof err) == SCC_E_OK);
    CHECK(scc_session_wait(s, "{", 100, err, sizeof err) == SCC_E_PROTOCOL);
    CHECK(scc_session_wait(s, NULL, 100, err, sizeof err) == SCC_E_PROTOCOL);
    CHECK(scc_session_wait(s, "{\"type\":\"nope\"}", 100, err, sizeof err) == SCC_E_PROTOCOL);
    CHECK(scc_session_wait(s, "{\"type\":\"screen_matches\",\"payload\":{\"pattern\":\"((\"}}", 100, err,
                           sizeof err) == SCC_E_PROTOCOL);
    CHECK(scc_session_wait(s, "{\"type\":\"screen_contains\",\"payload\":{\"text\":\"x\"}}", 50, err, sizeof err) ==
              SCC_E_TIMEOUT &&
          strstr(err, "does not contain"));
    CHECK(scc_session_terminate(s, 200) == 1);
    scc_exit_status st;
    CHECK(scc_session_wait_exit(s, 1000, &st) == 1 && st.terminated_by_harness && st.signal == 15);
    scc_session_close(s);
    scc_session_close(NULL);
}

int main(void)
{
    refusals();
    CHECK(cat_session(1) == SCC_E_OK);
    /* Every allocation failing in turn: a code, never a crash or a leak. */
    int ok_at = 0;
    for (unsigned long n = 1; n < 2000 && !ok_at; n++) {
        sc_alloc_reset();
        sc_alloc_fail_after = n;
        int rc = cat_session(0);
        unsigned long failed = sc_alloc_failed();
        sc_alloc_fail_after = 0;
        if (rc == SCC_E_OK && failed == 0)
            ok_at = (int)n;
        else if (failed > 0)
            CHECK(rc == SCC_E_INTERNAL || rc == SCC_E_IO || rc == SCC_E_OK || rc == SCC_E_TIMEOUT);
    }
    CHECK(ok_at > 1);
    if (failures) {
        fprintf(stderr, "session_unit: %d check(s) failed\n", failures);
        return 1;
    }
    printf("session_unit: ok (allocation failures 1..%d handled)\n", ok_at - 1);
    return 0;
}
