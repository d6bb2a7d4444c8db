/* SPDX-License-Identifier: MIT */
/* Lists a pack and counts each scenario's events through the installed API,
** then drives cat through the installed session API (scc/session.h). */
#include <scc/scc.h>
#include <scc/session.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Types into cat, waits for the echo, ends it with Ctrl+D. */
static int session(void)
{
    static const char policy[] = "{\"policy_version\":4,\"sandbox\":\"none\",\"sandbox_unsafe_ack\":true,"
                                 "\"network_unsafe_ack\":true,\"exec\":{\"allowed_executables\":[\"/bin/cat\"]}}";
    scc_session_config cfg = { .command = "/bin/cat", .rows = 5, .cols = 30, .policy_json = policy };
    scc_session *s;
    scc_exit_status st;
    char err[512], *obs = NULL;
    if (scc_session_spawn(&cfg, &s, err, sizeof err) != SCC_E_OK ||
        scc_session_text(s, "consumer\n", 9, err, sizeof err) != SCC_E_OK ||
        scc_session_wait(s, "{\"type\":\"line_equals\",\"payload\":{\"line\":1,\"text\":\"consumer\"}}", 10000, err,
                         sizeof err) != SCC_E_OK ||
        scc_session_key(s, "Ctrl+D", err, sizeof err) != SCC_E_OK) {
        fprintf(stderr, "consumer: session: %s\n", err);
        return 1;
    }
    int exited = scc_session_wait_exit(s, 10000, &st);
    scc_session_observe(s, 0, &obs);
    int ok = exited && st.exit_code == 0 && obs && strstr(obs, "\"lines\":[\"consumer\",\"consumer\"");
    printf("session: %s\n", ok ? "ok" : obs ? obs : "no observation");
    free(obs);
    scc_session_close(s);
    return !ok;
}

int main(int argc, char **argv)
{
    scc_suite *s;
    char err[256];
    if (argc != 2 || scc_open_file(argv[1], &s, err, sizeof err) != SCC_OK) {
        fprintf(stderr, "consumer: %s\n", argc == 2 ? err : "usage: consumer FILE");
        return 1;
    }
    printf("%zu scenarios (scc %s)\n", scc_count(s), scc_version());
    for (size_t i = 0; i < scc_count(s); i++) {
        scc_events *it;
        scc_event ev;
        size_t n = 0;
        if (scc_events_open(s, i, 1.0, &it) != SCC_OK)
            return 1;
        while (scc_events_next(it, &ev))
            n++;
        scc_events_close(it);
        printf("%s: %zu events, %zu files\n", scc_name(s, i), n, scc_file_count(s, i));
    }
    scc_close(s);
    return session();
}
