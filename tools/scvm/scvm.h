/* SPDX-License-Identifier: MIT */
/* scvm.h - what scvm's commands share: the parsed command line (one option
** parser for every command, scvm.c) and opening suites (formats/suite.h)
** with scvm's diagnostics. */
#ifndef SC_SCVM_H
#define SC_SCVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/cliopt.h"
#include "formats/bc.h"
#include "formats/suite.h"
#include "runtime/agent/agent_run.h"
#include "runtime/pty/rt_policy.h"
#include "runtime/pty/rt_pty.h"

/* The commands, as bits: the option table says which take which option. */
enum {
    CMD_RUN = 1 << 0, CMD_VERIFY = 1 << 1, CMD_INFO = 1 << 2, CMD_DIS = 1 << 3,
    CMD_LS = 1 << 4, CMD_EXTRACT = 1 << 5, CMD_SERVE = 1 << 6, CMD_AGENTS = 1 << 7,
    CMD_MOCKAGENT = 1 << 8, CMD_REPORT = 1 << 9, CMD_DRIVER = 1 << 10, CMD_EXEC = 1 << 11,
    CMD_REPLAY = 1 << 12, CMD_REPLAY_REPORT = 1 << 13, CMD_TAPE = 1 << 14,
    /* ptybox's utility commands (cmd_ptybox.c) */
    CMD_COMPLETIONS = 1 << 15, CMD_PROTOCOL_HELP = 1 << 16, CMD_TRACE = 1 << 17,
    /* ElizaOS's spelling of run -t aut (scvm.c's main; for help and completion) */
    CMD_SCENARIO = 1 << 18,
};
/* Sessions on the session API; the data model's commands, which exit with
** its statuses (0-12). */
enum { CMD_SESSION = CMD_DRIVER | CMD_EXEC, CMD_DATA_MODEL = CMD_SESSION | CMD_REPLAY | CMD_REPLAY_REPORT };
enum { MAX_JOBS = 256 };
/* run's targets and serve's servers, as bits: the option table says which
** option applies to which. */
enum { T_SIM = 1 << 0, T_PTY = 1 << 1, T_AGENT = 1 << 2, T_AUT = 1 << 3 };
enum { S_LLM = 1 << 4, S_ACP = 1 << 5, S_HARNESS = 1 << 6, S_REST = 1 << 7 };

typedef struct Opts {
    unsigned cmd;                /* one CMD_* */
    const char **ops;            /* operands, in order */
    size_t n_ops;
    bool selecting;              /* a selection or suite-run option was given */
    /* run */
    const char *output, *target, *junit;
    const char *report;          /* --report DIR */
    const char *via, *agent_url, *model_url, *agent_model, *tape;   /* -t aut */
    const char *judge_url, *judge_model, *results, *run_json;
    bool record, dry_run, allow_skipped;
    /* -t aut under ElizaOS's names (docs/eliza.md, "ElizaOS's command line") */
    const char *env_file;
    const char *logs;           /* --logs DIR: ElizaOS's _logs_ files (eliza_logs.h) */
    const char *filter;         /* --filter PATTERN: ElizaOS's matrix filter */
    bool live;
    /* -t aut under Yao's names (docs/yao.md, "Yao's command line") */
    const char *connector, *simulator, *inline_input, *on_missing_input;
    bool verbose, skip_interactive;
    unsigned case_timeout_ms;
    double speed;
    bool realtime, count, fail_fast, no_progress;
    unsigned jobs;
    /* output */
    bool json, files, no_lines;
    const char *dir;             /* extract -C */
    /* selection */
    const char **names, **tags;
    size_t n_names, n_tags;
    const char *prompt;
    unsigned shard_i, shard_n;   /* 1-based; shard_n 0 = no sharding */
    const char *timings;         /* --timings: a JUnit report to balance the shards by */
    bool merge;                  /* report --merge */
    const char **defines;        /* -D NAME[=VALUE]: choose the variants */
    size_t n_defines;
    /* the pty target */
    const char *artifacts, *goldens, *cast, *cancel_key;
    bool update_goldens, cells, keep_ws, dm_exit, ci, explain;
    const char *color_names;     /* --color-names: data-model (NULL) or ptybox */
    bool raw_goldens;            /* --no-normalize-goldens */
    unsigned type_delay_ms;
    bool type_delay_set;
    /* the agent target */
    const char *agent, *agent_bin;
    const char *source_dir;      /* --source-dir: where the scenarios' sources are */
    bool interactive;
    unsigned turn_timeout_ms;
    /* the mock agent (scvm agent) */
    const char *cwd, *checkpoint_cmd, *color;
    bool stdin_prompts;
    char **command;              /* after FILE and "--": the program, or NULL */
    /* driver, exec (docs/driver.md) */
    const char *policy_file;
    bool stdio, no_sandbox, ack_sandbox, enable_network, ack_network, ack_write;
    unsigned rows, cols;
    /* replay */
    bool strict, require_events, require_checksums;
    const char **normalize;
    size_t n_normalize;
    /* serve */
    const char *server;          /* "llm", "acp", "harness" or "rest" */
    char host[128], port[16];
    const char *workspace;
    bool strict_tools, loop, quiet;
    const char *log_format;      /* serve llm --log-format: "text" (NULL) or "json" */
    size_t max_body;
    unsigned max_conns, timeout_ms, head_timeout_ms, idle_timeout_ms;
    unsigned client_timeout_ms, tool_timeout_ms;   /* serve acp */
    const char *passthrough;                        /* serve acp --passthrough PROGRAM */
    unsigned heartbeat_ms;       /* serve harness */
    unsigned keepalive_ms;       /* serve rest */
    bool wall_clock;
    bool listen_set;             /* --listen was given */
    char rest_host[128], rest_port[16];       /* serve A+B: --rest-listen */
    char harness_host[128], harness_port[16]; /* --harness-listen */
    bool rest_set, harness_set;
} Opts;

/* The commands, the targets and every option (options.c): the parser,
** --help, the man page, the completions and docs/scvm.md's lists read it. */
extern const CoTable scvm_table;
/* The usage lines printed after a usage error, made from scvm_table by
** scvm_usage_init(): every command's (cmd 0), or cmd's and where its help is. */
extern char scvm_usage[];
void scvm_usage_init(unsigned cmd);

/* Adds path to s; on failure prints "scvm: FILE: ..." (unless quiet) and
** returns the status, with *err filled. */
/* Loads a .env file into the environment as dotenv does (a variable
** already set is kept): 0, or a status after printing why. */
int scvm_env_file(const char *path, unsigned *n_set);

int scvm_add(Suite *s, const char *path, bool quiet, SuiteErr *err);
/* path is a scenario source (.yaml, .yml, .json, .jsonl) or a folder. */
bool scvm_is_source(const char *path);
/* Compiles the source path (or every scenario below the folder path) in
** memory, with o's defines, and adds the programs to s (srcload.c): 0, or
** a status (printed; SC_FAILED when a scenario has errors). */
int scvm_add_source(Suite *s, const Opts *o, const char *path, bool quiet, SuiteErr *err);
/* A new suite of the one FILE operand (SC_USAGE unless there is exactly
** one) and, when sel is non-NULL, its selection.  Returns 0 or a status
** (printed; nothing to free). */
int scvm_open(const Opts *o, const char *what, Suite **s, uint32_t **sel, size_t *n);

/* Writes entry e as `scvm extract` does: DIR/<source's folder>/<stem>.scb
** and its embedded files beside it; *folder gets that folder.  Returns 0
** or a status (printed). */
int scvm_write_entry(const PackEntry *e, const char *dir, char *folder, size_t cap);

/* -D and AH_SCENARIO_DEFINES (docs/rules.md, "Variants"): allowed[i] for
** each entry of s that the defines choose.  Returns 0 or SC_USAGE
** (printed: no variant matches, or -D on a fixture without variants). */
int scvm_variants(const Opts *o, const Suite *s, bool *allowed);

/* Shared by the run targets (outcome.c): CI mode from the environment (CI,
** else a CI system's own variable: scvm_ci_vars, NULL-terminated); the
** default goldens folder of prog beside base; the folder of a path. */
extern const char *const scvm_ci_vars[];
bool scvm_ci_env(void);
/* --color-names ptybox: indexed colours as ansi16/ansi256 */
static inline bool scvm_ptybox_colors(const Opts *o)
{
    return o->color_names && o->color_names[0] == 'p';
}

void scvm_goldens_of(const BcProgram *prog, const char *base, char *out, size_t cap);
void scvm_folder_of(const char *path, char *out, size_t cap);
/* A scenario's source path as JUnit's file: with --source-dir DIR, DIR/source
** from the root of the git work tree DIR is in (found by its .git, no
** process), else DIR/source; without it, source as the file records it.
** Returns out or source. */
const char *scvm_source_path(const Opts *o, const char *source, char *out, size_t cap);

/* One scenario's session on the PTY or agent target: its folder (dir),
** its goldens folder (--goldens, else the default beside it), the event
** output (-o, else stdout) and the run's signals caught.  Returns 0 or a
** status (printed); *out is then stdout or a file for the caller to close. */
int scvm_one_session(const Opts *o, const char *path, const BcProgram *prog, char *dir, size_t dcap, char *goldens,
                     size_t gcap, FILE **out);

/* --junit for one scenario played on the PTY or agent target: its status,
** wall time (ms; the scheduled time becomes a property), screenshots,
** error message and more <property> elements. */
int scvm_junit_one(const Opts *o, const Suite *s, uint32_t idx, int status, uint64_t wall_ms,
                   const RtPtyGoldens *g, const char *why, const char *props);

/* -t agent (cmd_agent.c; docs/real-agents.md): entry idx of suite against
** a real agent; the single-scenario command. */
int scvm_run_agent(const Opts *o, const char *path, const Suite *suite, uint32_t idx);

/* One scenario against the agent: events to out, its files beside dir,
** screenshots compared in goldens, artifacts (or NULL); the run's status.
** Signals must be caught (rt_cancel_install) by the caller. */
int scvm_agent_play(const Opts *o, const Suite *suite, uint32_t idx, const char *path, const char *dir,
                    const char *goldens, const char *artifacts, FILE *out, AgentOutcome *res);
/* scvm agents list|show|map|unmap (cmd_agent.c). */
int scvm_agents(const Opts *o);
/* scvm agent: the mock agent (cmd_mockagent.c; docs/mock-agent.md). */
int scvm_mockagent(const Opts *o);

/* scvm run --report DIR (cmd_report.c; docs/report.md). */
typedef struct ScvmRunReport {
    int status;
    bool skipped;
    bool unjudged;                  /* ran, its assertions not evaluated (sim) */
    const char *why;                /* or NULL */
    uint64_t duration_ms;           /* scheduled, at the run's speed */
    const char *events, *diag;      /* the run's event lines and diagnostics */
    size_t events_len, diag_len;
    const char *artifacts;          /* its artifacts folder, or NULL */
} ScvmRunReport;
/* The folder of a scenario's artifacts: --artifacts DIR/<scenario>, else
** --report DIR/<scenario>; NULL when neither is given. */
const char *scvm_artifacts_of(const Opts *o, const char *scenario, char *out, size_t n);
/* The recording to write: --cast, else with --report <artifacts>/session.cast. */
const char *scvm_cast_of(const Opts *o, const char *artifacts, char *out, size_t n);
/* Makes the report folder (nothing without --report); 0 or SC_IO (printed). */
int scvm_report_open(const Opts *o);
/* Entry idx's run: its page written, its report.json record in record. */
int scvm_report_run(const Opts *o, const Suite *s, uint32_t idx, const ScvmRunReport *rr, Buf *record);
/* report.json and index.html from the selection's records, in order. */
int scvm_report_close(const Opts *o, const Buf *records, size_t n);

/* The progress line (progress.c): whether to draw one for n scenarios
** (a terminal, not the events' terminal, TERM not dumb, no --no-progress
** or --quiet); a suite's bar after scenario done of n; its erasure. */
bool scvm_progress_on(const Opts *o, size_t n);
void scvm_progress(size_t done, size_t n, const char *name);
void scvm_progress_clear(void);
/* A single session's line, redrawn from a thread with the elapsed and the
** scheduled time; NULL when off.  Diagnostics written while it runs go to
** scvm_live_diag (stderr when l is NULL), which clears the line first. */
typedef struct ScvmLive ScvmLive;
ScvmLive *scvm_live_start(const Opts *o, const char *name, uint64_t total_ms);
FILE *scvm_live_diag(ScvmLive *l);
void scvm_live_stop(ScvmLive *l);

/* scvm tape check|ls|key|add (cmd_tape.c; docs/tape.md). */
int scvm_tape(const Opts *o);

/* -t aut (cmd_aut.c; docs/aut.md): the cases of the selection against the
** agent under test. */
int scvm_run_aut(const Opts *o, const Suite *s, const uint32_t *sel, size_t n);
/* Yao's -i "message": a compiled suite of one case, named "inline", that
** sends it and checks nothing, written to a fresh file under TMPDIR whose
** path goes in path (the caller removes it).  0 or an exit status. */
int scvm_aut_inline(const char *message, char *path, size_t n);

int scvm_run(const Opts *o);
int scvm_verify(const Opts *o);
int scvm_info(const Opts *o);
int scvm_dis(const Opts *o);
int scvm_ls(const Opts *o);
int scvm_extract(const Opts *o);
int scvm_serve(const Opts *o);
/* cmd_driver.c: driver --stdio --json, exec --json (docs/driver.md) */
/* The acknowledgement flags given (--no-sandbox, --ack-unsafe-*, ...). */
void scvm_policy_flags(const Opts *o, PtyPolicyFlags *f);
/* A data-model error (tui-use's E_* codes): with --json the one JSON line
** {"protocol_version","status":"error","error":{code,message}} on stdout;
** always a diagnostic "scvm CMD: CODE: msg" on stderr.  Returns code.
** For scvm driver, exec and replay. */
/* ptybox's commands (cmd_ptybox.c; docs/tui-use.md, "ptybox's commands") */
int scvm_completions(const Opts *o);
int scvm_protocol_help(const Opts *o);
int scvm_trace(const Opts *o);
int scvm_report_error(const Opts *o, const char *cmd, int code, const char *msg);
int scvm_driver(const Opts *o);
int scvm_exec(const Opts *o);
/* cmd_replay.c: replay DIR, replay-report DIR (docs/driver.md, "Replay") */
int scvm_replay(const Opts *o);
int scvm_replay_report(const Opts *o);
int scvm_report(const Opts *o);

#endif
