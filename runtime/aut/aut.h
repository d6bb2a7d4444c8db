/* SPDX-License-Identifier: MIT */
/* aut.h - an agent under test: something a test sends input to and judges
** by what comes back (ElizaOS and Yao suites, issue 18; docs/aut.md).
**
** Three ways to reach it, one interface:
**   AUT_HTTP  an OpenAI-compatible endpoint: each turn is a POST of the
**             conversation so far to URL/chat/completions; the answer's
**             message content is the reply, its tool_calls the actions;
**   AUT_ACP   an ACP agent over stdio (JSON-RPC lines): initialize and
**             session/new once, a session/prompt per turn; the
**             agent_message_chunk updates are the reply, tool_call updates
**             the actions; the agent's own requests (permission, files,
**             terminals) are refused, as a client without those
**             capabilities does;
**   AUT_PTY   a program in a pseudo-terminal: the input typed and Enter
**             pressed; the reply is what it printed until it went quiet,
**             as text (escape sequences removed, the echo of the input
**             left out), and the screen afterwards.
** Every wait is bounded by the turn's timeout and by cancel_fd; the
** agent's processes are ended (process group, then SIGKILL) by aut_close. */
#ifndef SC_AUT_H
#define SC_AUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum AutKind { AUT_HTTP, AUT_ACP, AUT_PTY } AutKind;

typedef struct AutConfig {
    AutKind kind;
    const char *url;            /* AUT_HTTP: the API's base, e.g. http://127.0.0.1:8000/v1 */
    const char *model;          /* AUT_HTTP: the request's "model" (NULL: "agent-under-test"); with profile:
                                ** the agent's {model} (NULL: the profile's, else "scvm-mock") */
    const char *api_key;        /* AUT_HTTP: sent as "Authorization: Bearer" (NULL: none) */
    const char *session;        /* AUT_HTTP: sent as "X-Scenario-Session" (a conversation's name, so a
                                ** mock such as scvm serve llm keeps cases apart; NULL: none) */
    char *const *argv;          /* AUT_ACP, AUT_PTY: the command, argv[0] on PATH (with profile: more arguments) */
    const char *cwd;            /* AUT_ACP, AUT_PTY: its folder (NULL: ours); ACP's session cwd */
    unsigned timeout_ms;        /* a turn's budget (0: 60000) */
    unsigned quiet_ms;          /* AUT_PTY: a reply has ended after this long without output (0: 500) */
    int rows, cols;             /* AUT_PTY: the terminal (0: 24x80) */
    int cancel_fd;              /* readable: give up the turn (-1: none) */
    const char *log;            /* AUT_ACP: the agent's stderr goes here (NULL: /dev/null) */
    /* AUT_PTY with a real agent's profile (runtime/agent/agent_launch.h):
    ** the agent's TUI (its command and interactive args, then argv as more
    ** arguments), its env, its files in a fresh HOME removed by aut_close;
    ** its ready text awaited before the first turn and at the end of each
    ** reply, the input typed typeDelayMs a character, its quit keys pressed
    ** at close.  The reply is then the screen's new rows (a TUI redraws). */
    const struct AgentProfile *profile;
    const char *model_url;      /* with profile: the model the agent talks to (its base URL setting; read
                                ** by aut_open only) */
    const char *bin;            /* with profile: the program instead of the profile's command (NULL: its own) */
} AutConfig;

typedef struct AutAction {
    char *name;                 /* the tool (HTTP: function name; ACP: the tool call's title) */
    char *input;                /* its arguments as JSON text ("{}" when none) */
} AutAction;

typedef struct AutReply {
    char *text;                 /* the agent's answer */
    AutAction *actions;
    size_t n_actions;
    char *screen;               /* AUT_PTY: the screen's text after the turn; else NULL */
    char *stop;                 /* why the turn ended: HTTP finish_reason, ACP stopReason, PTY "quiet"/"exited" */
    uint64_t ms;                /* how long the turn took */
} AutReply;

typedef enum AutErr {
    AUT_OK = 0,
    AUT_E_START,                /* could not start or reach the agent */
    AUT_E_TIMEOUT,              /* no (complete) answer within the turn's budget */
    AUT_E_PROTOCOL,             /* an answer that is not what the protocol says */
    AUT_E_EXITED,               /* the agent's process ended */
    AUT_E_CANCELLED,            /* cancel_fd became readable */
} AutErr;

typedef struct Aut Aut;

/* Starts (ACP, PTY) or checks (HTTP: the URL parses) the agent.  NULL with
** a reason in err when it cannot.  The strings of c must outlive the Aut,
** but for session, which is copied. */
Aut *aut_open(const AutConfig *c, char *err, size_t errlen);

/* An ACP agent already connected on the stream socket fd (an agent that
** listens on a socket; the ACP fuzz target): the handshake done, fd left
** open by aut_close (it is the caller's).  NULL with a reason in err. */
Aut *aut_open_acp_fd(const AutConfig *c, int fd, char *err, size_t errlen);

/* One turn: input to the agent, its reply in *r (aut_reply_fini after,
** also on failure).  Returns AUT_OK or the error, with a reason in err. */
AutErr aut_turn(Aut *a, const char *input, AutReply *r, char *err, size_t errlen);

void aut_reply_fini(AutReply *r);

/* The next turns' budget (a case's own timeout running out). */
void aut_set_timeout(Aut *a, unsigned ms);

/* HTTP: adds a message (role user or assistant) to the conversation before
** the next turn, for an input given as a conversation.  False on the other
** transports, which cannot be told a history. */
bool aut_seed(Aut *a, const char *role, const char *content);

/* HTTP: what the next turn's request carries besides its text (a Yao
** case's; docs/yao.md, "What reaches the agent"): options_json, an object
** (context.Options: connector, skip, metadata, ...), goes in the request
** body as "options" and its "metadata" as "metadata"; parts_json, a list
** of content parts (attachments), makes the user message's content a list:
** the text part, then these.  Either NULL.  Used by the next aut_turn
** only.  False on the other transports, which have no place for them. */
bool aut_next(Aut *a, const char *options_json, const char *parts_json);

/* Ends the agent (its whole process group) and frees.  NULL is fine. */
void aut_close(Aut *a);

/* The stable name of an error ("E_AUT_TIMEOUT" ...). */
const char *aut_err_name(AutErr e);

#endif
