/* SPDX-License-Identifier: MIT */
/* t_aut.c - drives runtime/aut from the command line for tests/aut/aut_test.py:
**
**   t_aut http|acp|pty|pty-profile TIMEOUT_MS TARGET... ';;' INPUT...
**
** TARGET is the URL (http), the command (acp, pty), or an agent profile's
** file (pty-profile: a TUI launched from it, as --via pty --agent FILE).  Each turn's reply is
** one JSON line: {"turn", "error", "why", "text", "actions", "stop",
** "screen"}; a failed open is {"open": "failed", "why"} and exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/aut/aut.h"

static void str(Buf *b, const char *s)
{
    if (s)
        buf_json_str(b, s, strlen(s));
    else
        buf_puts(b, "null");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fputs("usage: t_aut http|acp|pty|pty-profile TIMEOUT_MS TARGET... ';;' INPUT...\n", stderr);
        return 2;
    }
    AutConfig c = { .cancel_fd = -1, .timeout_ms = (unsigned)atoi(argv[2]), .quiet_ms = 300 };
    c.kind = !strcmp(argv[1], "http") ? AUT_HTTP : !strcmp(argv[1], "acp") ? AUT_ACP : AUT_PTY;
    int sep = 3;
    while (sep < argc && strcmp(argv[sep], ";;") != 0)
        sep++;
    argv[sep < argc ? sep : argc - 1] = sep < argc ? NULL : argv[argc - 1];
    char err[512] = "";
    AgentProfile *prof = NULL;
    if (c.kind == AUT_HTTP) {
        c.url = argv[3];
    } else if (!strcmp(argv[1], "pty-profile")) {
        prof = agent_profile_load(argv[3], err, sizeof err);
        if (!prof) {
            fprintf(stderr, "t_aut: %s\n", err);
            return 1;
        }
        c.profile = prof;
        c.model_url = "http://127.0.0.1:9/v1";
    } else {
        c.argv = argv + 3;
    }
    Aut *a = aut_open(&c, err, sizeof err);
    Buf b;
    buf_init(&b);
    if (!a) {
        buf_puts(&b, "{\"open\":\"failed\",\"why\":");
        str(&b, err);
        buf_puts(&b, "}\n");
        fwrite(b.data, 1, b.len, stdout);
        buf_fini(&b);
        return 1;
    }
    for (int i = sep + 1; i < argc; i++) {
        AutReply r;
        err[0] = 0;
        AutErr e = aut_turn(a, argv[i], &r, err, sizeof err);
        buf_reset(&b);
        buf_printf(&b, "{\"turn\":%d,\"error\":", i - sep);
        str(&b, e ? aut_err_name(e) : NULL);
        buf_puts(&b, ",\"why\":");
        str(&b, e ? err : NULL);
        buf_puts(&b, ",\"text\":");
        str(&b, r.text);
        buf_puts(&b, ",\"actions\":[");
        for (size_t k = 0; k < r.n_actions; k++) {
            buf_puts(&b, k ? ",{\"name\":" : "{\"name\":");
            str(&b, r.actions[k].name);
            buf_puts(&b, ",\"input\":");
            str(&b, r.actions[k].input);
            buf_putc(&b, '}');
        }
        buf_puts(&b, "],\"stop\":");
        str(&b, r.stop);
        buf_puts(&b, ",\"screen\":");
        str(&b, r.screen);
        buf_puts(&b, "}\n");
        fwrite(b.data, 1, b.len, stdout);
        fflush(stdout);
        aut_reply_fini(&r);
    }
    buf_fini(&b);
    aut_close(a);
    agent_profile_free(prof);
    return 0;
}
