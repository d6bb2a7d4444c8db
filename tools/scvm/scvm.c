/* scvm.c - the command line: one command table, one option table, one
** parser, for run, verify, info, dis, ls, extract and serve.
**
** Every command works on suites (formats/suite.h): a .scb is a suite of
** one, a pack a suite of its entries.  Data goes to stdout, diagnostics to
** stderr ("scvm: FILE: ..."), and the exit status is one of SC_STATUSES
** (common/status.h; docs/exit-status.md and --help).  Everything is loaded
** and verified before anything runs, and -o output is built in memory and
** written atomically, so a rejected or failed run never leaves a partial
** file. */
#include "scvm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "formats/bc.h"
#include "runtime/run/run_junit.h"
#include "cli.h"

#ifndef SCC_VERSION
#define SCC_VERSION "unknown"
#endif

const char scvm_usage[] =
    "usage: scvm run [options] [selection] FILE.scb|FILE.scp [-- CMD ARGS...]\n"
    "       scvm verify [--json] FILE...\n"
    "       scvm info [--json] [--scenario NAME] FILE\n"
    "       scvm dis [--no-lines] [selection] FILE\n"
    "       scvm ls [--json] [--files] [selection] FILE\n"
    "       scvm extract [selection] -C DIR FILE.scp\n"
    "       scvm serve llm [serve options] FILE...\n"
    "       scvm serve acp [acp options] FILE...\n"
    "       scvm serve harness [harness options] FILE...\n"
    "       scvm serve rest [rest options] FILE...\n"
    "       scvm serve llm+rest+harness [options] FILE...\n"
    "       scvm agent [--cwd DIR] [--checkpoint-cmd CMD] [options] [selection] FILE\n"
    "       scvm report --merge -o OUT.xml JUNIT.xml...\n"
    "       scvm report --merge -o OUT_DIR REPORT_DIR...\n"
    "       scvm report [-o OUT.html] FILE.scb|FILE.scp [--scenario NAME]\n"
    "       scvm tape check|ls|key|add ...\n"
    "       scvm driver --stdio --json [policy options] -- CMD ARGS...\n"
    "       scvm exec [--json] [policy options] -- CMD ARGS...\n"
    "       scvm replay [--json] [--strict | --normalize F...] [--require-events] [--require-checksums] DIR\n"
    "       scvm replay-report [--json] DIR\n"
    "       scvm --help | --version\n";

static const char help_text[] =
    "Loads and verifies compiled scenarios (.scb) and packs (.scp) and plays them.\n"
    "A .scb is a suite of one scenario; a pack a suite of many.\n"
    "\n"
    "commands:\n"
    "  run FILE       play the scenarios; the sim target prints one JSON event\n"
    "                 per line (docs/events.md); a pack or a selection adds a\n"
    "                 {\"kind\":\"scenario\"} line before each and a summary\n"
    "  verify FILE... load and verify only; prints 'FILE: ok' for each good file\n"
    "  info FILE      header and metadata (of one scenario with --scenario)\n"
    "  dis FILE       disassembly listing, with source lines when present\n"
    "  ls FILE        list the scenarios\n"
    "  extract FILE   write a pack's scenarios and their files into -C DIR\n"
    "  serve llm FILE...  serve the scenarios as mock OpenAI/Anthropic/Gemini APIs\n"
    "                 (docs/serve-llm.md)\n"
    "  serve acp FILE...  play the scenarios as an ACP agent on stdin/stdout for the\n"
    "                 client under test (docs/serve-acp.md)\n"
    "  serve harness FILE...  the harness event server a terminal UI watches:\n"
    "                 GET /events (SSE), POST /prompt, POST /cancel\n"
    "                 (docs/serve-harness.md)\n"
    "  serve rest FILE...  the Agent Harbor REST API's tasks and sessions, their\n"
    "                 events as Server-Sent Events (docs/serve-rest.md)\n"
    "  report --merge -o OUT FILE...  the JUnit reports (or --report folders) of a\n"
    "                 suite's shards as the one report a single run writes (docs/ci.md)\n"
    "  report FILE    the compiled schedule as an HTML page (as scc -l --html)\n"
    "  tape           tapes of recorded replies: check TAPE..., ls [--json] TAPE,\n"
    "                 key KIND REQUEST, add TAPE KIND REQUEST REPLY (docs/tape.md)\n"
    "  agents         the agent profiles: list, show NAME (its JSON), map NAME TOOL\n"
    "                 ARGS (a scenario call as the agent's), unmap NAME TOOL ARGS\n"
    "                 (an agent's call as the scenario's) (docs/real-agents.md)\n"
    "  driver --stdio --json -- CMD  drive CMD in a terminal: one JSON request per\n"
    "                 line on stdin (key, text, resize, wait, observe, terminate),\n"
    "                 one JSON response per line on stdout (docs/driver.md)\n"
    "  exec --json -- CMD  run CMD once in a terminal under the policy; print the\n"
    "                 RunResult (docs/driver.md)\n"
    "  replay DIR     play a recorded PTY run (its --artifacts DIR) again and compare\n"
    "                 the artifacts after normalization; exit 11 and the first\n"
    "                 difference when they differ (docs/driver.md, Replay)\n"
    "  replay-report DIR  the latest replay's summary, without playing\n"
    "  agent FILE     the mock agent: prints the scenario's responses and executes\n"
    "                 its tool calls and edits for real in a work folder, checking\n"
    "                 each result; exit 1 when one differs (docs/mock-agent.md)\n"
    "\n"
    "selection (run, dis, ls, extract; info takes --scenario; serve: --scenario,\n"
    "--tag and -D choose the scenarios served):\n"
    "  --scenario NAME    the scenario NAME, or its variants (repeatable; each must exist)\n"
    "  --tag TAG          scenarios with any of the tags (repeatable)\n"
    "  --prompt TEXT      the one whose initial prompt is nearest to TEXT\n"
    "  --shard I/N|auto   every Nth of the selection, starting at the Ith; auto: from\n"
    "                     the CI system's variables (docs/scvm.md, Selection)\n"
    "  --timings FILE     with --shard: balance the shards by the durations a JUnit\n"
    "                     report of an earlier run records (docs/ci.md)\n"
    "  -D NAME[=VALUE]    the variant compiled with these defines (scc --variant);\n"
    "                     also AH_SCENARIO_DEFINES=\"K=V,FLAG\" (-D wins per key)\n"
    "run options:\n"
    "  -o, --output FILE  write to FILE (atomically: nothing on failure); '-' = stdout\n"
    "  -t, --target NAME  target to drive: sim (the default); pty: a real program in\n"
    "                     a pseudo-terminal (docs/pty.md; one .scb); after FILE,\n"
    "                     '-- CMD ARGS...' names the program; agent: a real coding\n"
    "                     agent against the scripted model (docs/real-agents.md)\n"
    "  --speed X          multiply every scheduled time by X: < 1 faster, > 1 slower;\n"
    "                     at_ms = round(t * X); X below 0.01 counts as 0.01\n"
    "  --realtime         wait for each op's time on the monotonic clock (default:\n"
    "                     virtual time, instant)\n"
    "  --count            count events instead of printing them: 'N events'\n"
    "  --json             with --count: print the counts as JSON\n"
    "  -j, --jobs N       play N scenarios at once (0 = one per CPU); output order\n"
    "                     does not depend on N\n"
    "  --junit FILE       write a JUnit XML report\n"
    "  --report DIR       write the HTML report: DIR/index.html, a page per run,\n"
    "                     report.json (docs/report.md)\n"
    "  --fail-fast        start nothing after the first failure\n"
    "  --no-progress, --quiet  no progress line on a terminal\n"
    "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md):\n"
    "  --agent-url URL    the agent's OpenAI-compatible API (--via http, the default)\n"
    "  --via acp|pty      the agent is the command after --: ACP on stdio, or a PTY\n"
    "  --agent NAME|FILE --model-url URL  (--via pty) a real agent's TUI from its\n"
    "                     profile, talking to the model at URL (e.g. scvm serve llm)\n"
    "  --agent-model M    the request's model (http); the agent's {model} (--agent)\n"
    "  --tape FILE        judge and validator replies (docs/tape.md)\n"
    "  --judge-url URL [--judge-model M]  a live OpenAI-compatible judge decides\n"
    "                     llm_judge, validators and simulated users (no tape)\n"
    "  --record --judge-url URL  ask the judge only for a reply the tape lacks\n"
    "                     and write it into the tape\n"
    "  --allow-skipped    a case skipped for want of a verdict (-t aut), or\n"
    "                     assertions the simulation does not evaluate (-t sim),\n"
    "                     do not fail the run (default: skipped is not passed, exit 1)\n"
    "  --workspace DIR    where file and command checks look (default: .)\n"
    "  --results FILE     Yao's JSON Lines result records (start, result..., summary)\n"
    "  --run-json FILE    the run as one JSON object (status, counts, every case)\n"
    "  --dry-run          list the cases and their checks; reach no agent\n"
    "  -j, --parallel N   play N cases (Yao) or scenarios (ElizaOS) at once; --shard\n"
    "                     splits a suite's cases\n"
    "  --turn-timeout MS  a turn's budget (default 60000)\n"
    "pty options (docs/pty.md):\n"
    "  --artifacts DIR    write run.json, transcript.log, events.jsonl, snapshots/,\n"
    "                     screenshots and checksums.json into DIR\n"
    "  --goldens DIR      compare screenshots with DIR/LABEL.golden (default: the FILE's\n"
    "                     folder/goldens/SCENARIO/PROFILE/screenshots); diff on mismatch;\n"
    "                     a missing golden is written (\"new golden written\")\n"
    "  --update-goldens   write the goldens instead of comparing\n"
    "  --ci               a missing golden fails the run instead (also in a CI job:\n"
    "                     CI, JENKINS_URL, GITLAB_CI, GITHUB_ACTIONS, ... set)\n"
    "  --no-normalize-goldens  keep the workspace path and the host name in goldens\n"
    "                     (by default both become <workspace> and <host> placeholders)\n"
    "  --cast FILE        record the session as asciicast v2\n"
    "  --cells            snapshots carry cells with their style\n"
    "  --cancel-key KEY   the key userCancelSession presses (default Ctrl+C)\n"
    "  --type-delay MS    type text one character at a time, MS apart\n"
    "  --keep-workspace   leave the repo.init workspace behind\n"
    "  --data-model-exit  exit with the tui-use data model's status (0-12)\n"
    "  --explain-policy   print what the policy enforces and how (the sandbox), or why\n"
    "                     it is refused, and run nothing (--json: one JSON object)\n"
    "agent options (-t agent; the pty options apply too):\n"
    "  --agent NAME|FILE  the agent's profile: claude-code, codex, gemini-cli,\n"
    "                     qwen-code, opencode, or a profile file (serve llm: also\n"
    "                     'auto', detected from the tools the agent declares)\n"
    "  --agent-bin PATH   the agent's program instead of the profile's command\n"
    "  --interactive      drive the agent's TUI (default: its headless mode)\n"
    "  --turn-timeout MS  how long the run waits for the agent at each step\n"
    "                     (default 180000)\n"
    "  --strict-tools     the agent's declared tools must be its profile's\n"
    "serve options (docs/serve-llm.md):\n"
    "  --listen ADDR:PORT where to listen (default 127.0.0.1:8089; PORT 0 = any free\n"
    "                     port; the address is printed on stdout)\n"
    "  --speed X          multiply every scripted time by X (default 1; 0 = at once)\n"
    "  --workspace DIR    resolve assert paths in DIR (default: the current directory)\n"
    "  --strict-tools     reject a request whose tool definitions lack a tool the\n"
    "                     scenario is about to call (400; counts as a failure)\n"
    "  --loop             a session that has received every response starts over\n"
    "  --quiet            no per-request log lines (the summary is still printed)\n"
    "  --max-body BYTES   largest request body (default 16777216; 413 above)\n"
    "  --max-connections N  simultaneous connections (default 4096, within the file\n"
    "                     limit); when full, the longest-idle keep-alive one is closed,\n"
    "                     else 503\n"
    "  --header-timeout MS  a request head must arrive within MS of its first byte\n"
    "                     (default 10000; 408 after)\n"
    "  --idle-timeout MS  close a connection with nothing in flight after MS (default\n"
    "                     15000)\n"
    "  --timeout MS       close a stalled request body or answer after MS (default 60000)\n"
    "acp options (docs/serve-acp.md; also --speed, --quiet):\n"
    "  --client-timeout MS  a client call unanswered after MS is a failed check\n"
    "                     (default 30000)\n"
    "  --tool-timeout MS  a runCmd in the client's terminal without args.timeout is\n"
    "                     killed after MS (default 600000)\n"
    "harness options (docs/serve-harness.md; also --listen (default\n"
    "127.0.0.1:8080), --speed, --quiet and the HTTP limits):\n"
    "  --heartbeat MS     a ': heartbeat' comment to every subscriber every MS\n"
    "                     (default 30000)\n"
    "  --wall-clock       timestamps in Unix seconds now (default: the scenario's\n"
    "                     clock, the same on every run)\n"
    "rest options (docs/serve-rest.md; also --listen (default 127.0.0.1:38180),\n"
    "--speed, --quiet, --wall-clock and the HTTP limits):\n"
    "  --keepalive MS     a ': keep-alive' comment to every subscriber every MS\n"
    "                     (default 15000)\n"
    "several HTTP servers in one process (serve llm+rest, rest+harness, ...):\n"
    "  --listen ADDR:PORT the llm server's (default 127.0.0.1:8089)\n"
    "  --rest-listen ADDR:PORT  the rest server's (default 127.0.0.1:38180)\n"
    "  --harness-listen ADDR:PORT  the harness server's (default 127.0.0.1:8080)\n"
    "mock agent options (agent; also --speed, --agent, --json and the selection):\n"
    "  --cwd DIR          the work folder the tools run in (default: the current one)\n"
    "  --checkpoint-cmd CMD  run 'sh -c CMD' in it after each tool call and edit; a\n"
    "                     failing one is a failed check\n"
    "  --timeout MS       a runCmd's timeout when it gives none (default 120000)\n"
    "  --color WHEN       auto (the default: on a terminal, without NO_COLOR), always,\n"
    "                     never\n"
    "  --stdin-prompts    each userInputs waits for its prompt as a line on stdin and\n"
    "                     checks it is the scripted text\n"
    "driver and exec options, the policy ones for run -t pty too (docs/driver.md;\n"
    "driver and exec exit with the tui-use data\n"
    "model's statuses 0-12, docs/exit-status.md):\n"
    "  --policy FILE      a tui-use Policy (policy_version 4) instead of the secure\n"
    "                     default (sandbox on, no network, only CMD executable);\n"
    "                     run -t pty: its fields replace the scenario's policy's\n"
    "  --no-sandbox --ack-unsafe-sandbox  run without the sandbox\n"
    "  --enable-network --ack-unsafe-network  allow the network\n"
    "  --ack-unsafe-write acknowledge the policy's fs.allowed_write\n"
    "  --explain-policy   print what the policy enforces; start nothing\n"
    "  --rows N, --cols N the terminal's size (default 24x80)\n"
    "  --cwd DIR          the program's working folder\n"
    "  --cells            observations carry each cell's character and style\n"
    "  --artifacts DIR    write the session's artifacts (run.json, events.jsonl,\n"
    "                     snapshots, transcript.log, checksums.json, ...) to DIR\n"
    "replay options (docs/driver.md, Replay):\n"
    "  --strict           no normalization: compare exactly\n"
    "  --normalize F      apply filter F (snapshot_id, run_id, run_timestamps,\n"
    "                     step_timestamps, observation_timestamp, session_id,\n"
    "                     events), all or none; repeatable (default: the\n"
    "                     recording's normalization.json)\n"
    "  --require-events   fail when the recording has no events.jsonl\n"
    "  --require-checksums  fail when the recording has no checksums.json\n"
    "other options:\n"
    "  --json             (verify, info, ls) JSON output, one object per line;\n"
    "                     (run -t pty) the RunResult instead of the events\n"
    "  --files            (ls) list each scenario's embedded files\n"
    "  -C, --directory DIR  (extract) where to write\n"
    "  --no-lines         (dis) leave out source line:col\n"
    "  -h, --help         this text\n"
    "  -V, --version      version\n"
    "\n"
    "exit status (docs/exit-status.md):\n";

/* ---- the option table ---- */

enum {
    O_OUTPUT, O_TARGET, O_SPEED, O_REALTIME, O_COUNT, O_JSON, O_JOBS, O_JUNIT, O_REPORT, O_FAIL_FAST, O_NO_PROGRESS,
    O_SCENARIO, O_TAG, O_PROMPT, O_SHARD, O_DEFINE, O_FILES, O_DIR, O_NO_LINES,
    O_ARTIFACTS, O_GOLDENS, O_UPDATE_GOLDENS, O_CI, O_RAW_GOLDENS, O_CAST, O_CELLS, O_CANCEL_KEY, O_TYPE_DELAY, O_KEEP_WS, O_DM_EXIT, O_EXPLAIN,
    O_LISTEN, O_WORKSPACE, O_STRICT_TOOLS, O_LOOP, O_QUIET, O_MAX_BODY, O_MAX_CONNS, O_TIMEOUT, O_HEAD_TIMEOUT,
    O_IDLE_TIMEOUT, O_AGENT, O_AGENT_BIN, O_INTERACTIVE, O_TURN_TIMEOUT, O_CLIENT_TIMEOUT, O_TOOL_TIMEOUT,
    O_HEARTBEAT, O_WALL_CLOCK, O_KEEPALIVE, O_REST_LISTEN, O_HARNESS_LISTEN, O_TIMINGS, O_MERGE,
    O_CWD, O_CHECKPOINT_CMD, O_COLOR, O_STDIN_PROMPTS,
    O_STDIO, O_POLICY, O_NO_SANDBOX, O_ACK_SANDBOX, O_ENABLE_NETWORK, O_ACK_NETWORK, O_ACK_WRITE, O_ROWS, O_COLS,
    O_STRICT, O_NORMALIZE, O_REQ_EVENTS, O_REQ_CHECKSUMS,
    O_VIA, O_AGENT_URL, O_MODEL_URL, O_AGENT_MODEL, O_TAPE, O_RECORD, O_ALLOW_SKIPPED, O_JUDGE_URL, O_JUDGE_MODEL, O_RESULTS, O_DRY_RUN, O_RUN_JSON,
};

enum { SEL = CMD_RUN | CMD_DIS | CMD_LS | CMD_EXTRACT | CMD_MOCKAGENT };

/* Which command takes which option.  `suite`: the option is about
** suites (selection, several scenarios), so a .scb run with it prints the
** scenario header lines and the summary as a pack run does. */
static const struct {
    const char *s, *l;
    int id;
    bool value, suite;
    unsigned cmds;
    bool pty;              /* needs --target pty */
} OPTS[] = {
    { "-o", "--output", O_OUTPUT, true, false, CMD_RUN | CMD_REPORT, false },
    { NULL, "--merge", O_MERGE, false, false, CMD_REPORT, false },
    { "-t", "--target", O_TARGET, true, false, CMD_RUN, false },
    { NULL, "--speed", O_SPEED, true, false, CMD_RUN | CMD_SERVE | CMD_MOCKAGENT, false },
    { NULL, "--realtime", O_REALTIME, false, false, CMD_RUN, false },
    { NULL, "--count", O_COUNT, false, false, CMD_RUN, false },
    { NULL, "--json", O_JSON, false, false,
      CMD_RUN | CMD_VERIFY | CMD_INFO | CMD_LS | CMD_AGENTS | CMD_MOCKAGENT | CMD_DATA_MODEL | CMD_TAPE, false },
    { "-j", "--jobs", O_JOBS, true, true, CMD_RUN, false },
    { NULL, "--parallel", O_JOBS, true, true, CMD_RUN, false },
    { NULL, "--junit", O_JUNIT, true, true, CMD_RUN, false },
    { NULL, "--report", O_REPORT, true, true, CMD_RUN, false },
    { NULL, "--fail-fast", O_FAIL_FAST, false, true, CMD_RUN, false },
    { NULL, "--no-progress", O_NO_PROGRESS, false, true, CMD_RUN, false },
    { NULL, "--scenario", O_SCENARIO, true, true, SEL | CMD_INFO | CMD_SERVE | CMD_REPORT, false },
    { NULL, "--tag", O_TAG, true, true, SEL | CMD_SERVE, false },
    { NULL, "--prompt", O_PROMPT, true, true, SEL, false },
    { NULL, "--shard", O_SHARD, true, true, SEL, false },
    { NULL, "--timings", O_TIMINGS, true, true, SEL, false },
    { "-D", "--define", O_DEFINE, true, false, SEL | CMD_SERVE, false },
    { NULL, "--files", O_FILES, false, false, CMD_LS, false },
    { "-C", "--directory", O_DIR, true, false, CMD_EXTRACT, false },
    { NULL, "--no-lines", O_NO_LINES, false, false, CMD_DIS, false },
    { NULL, "--artifacts", O_ARTIFACTS, true, false, CMD_RUN | CMD_SESSION | CMD_REPLAY | CMD_REPLAY_REPORT, true },
    { NULL, "--strict", O_STRICT, false, false, CMD_REPLAY, false },
    { NULL, "--normalize", O_NORMALIZE, true, false, CMD_REPLAY, false },
    { NULL, "--require-events", O_REQ_EVENTS, false, false, CMD_REPLAY, false },
    { NULL, "--require-checksums", O_REQ_CHECKSUMS, false, false, CMD_REPLAY, false },
    { NULL, "--goldens", O_GOLDENS, true, false, CMD_RUN, true },
    { NULL, "--update-goldens", O_UPDATE_GOLDENS, false, false, CMD_RUN, true },
    { NULL, "--ci", O_CI, false, false, CMD_RUN, true },
    { NULL, "--no-normalize-goldens", O_RAW_GOLDENS, false, false, CMD_RUN, true },
    { NULL, "--cast", O_CAST, true, false, CMD_RUN, true },
    { NULL, "--cells", O_CELLS, false, false, CMD_RUN | CMD_SESSION, true },
    { NULL, "--cancel-key", O_CANCEL_KEY, true, false, CMD_RUN, true },
    { NULL, "--type-delay", O_TYPE_DELAY, true, false, CMD_RUN, true },
    { NULL, "--keep-workspace", O_KEEP_WS, false, false, CMD_RUN, true },
    { NULL, "--data-model-exit", O_DM_EXIT, false, false, CMD_RUN, true },
    { NULL, "--explain-policy", O_EXPLAIN, false, false, CMD_RUN | CMD_SESSION, true },
    { NULL, "--stdio", O_STDIO, false, false, CMD_DRIVER, false },
    { NULL, "--policy", O_POLICY, true, false, CMD_RUN | CMD_SESSION, true },
    { NULL, "--no-sandbox", O_NO_SANDBOX, false, false, CMD_RUN | CMD_SESSION, true },
    { NULL, "--ack-unsafe-sandbox", O_ACK_SANDBOX, false, false, CMD_RUN | CMD_SESSION, true },
    { NULL, "--enable-network", O_ENABLE_NETWORK, false, false, CMD_RUN | CMD_SESSION, true },
    { NULL, "--ack-unsafe-network", O_ACK_NETWORK, false, false, CMD_RUN | CMD_SESSION, true },
    { NULL, "--ack-unsafe-write", O_ACK_WRITE, false, false, CMD_RUN | CMD_SESSION, true },
    { NULL, "--rows", O_ROWS, true, false, CMD_SESSION, false },
    { NULL, "--cols", O_COLS, true, false, CMD_SESSION, false },
    { NULL, "--listen", O_LISTEN, true, false, CMD_SERVE, false },
    { NULL, "--workspace", O_WORKSPACE, true, false, CMD_SERVE | CMD_AGENTS | CMD_RUN, false },
    { NULL, "--via", O_VIA, true, false, CMD_RUN, false },
    { NULL, "--agent-url", O_AGENT_URL, true, false, CMD_RUN, false },
    { NULL, "--model-url", O_MODEL_URL, true, false, CMD_RUN, false },
    { NULL, "--agent-model", O_AGENT_MODEL, true, false, CMD_RUN, false },
    { NULL, "--tape", O_TAPE, true, false, CMD_RUN, false },
    { NULL, "--record", O_RECORD, false, false, CMD_RUN, false },
    { NULL, "--allow-skipped", O_ALLOW_SKIPPED, false, false, CMD_RUN, false },
    { NULL, "--results", O_RESULTS, true, false, CMD_RUN, false },
    { NULL, "--run-json", O_RUN_JSON, true, false, CMD_RUN, false },
    { NULL, "--dry-run", O_DRY_RUN, false, false, CMD_RUN, false },
    { NULL, "--judge-url", O_JUDGE_URL, true, false, CMD_RUN, false },
    { NULL, "--judge-model", O_JUDGE_MODEL, true, false, CMD_RUN, false },
    { NULL, "--strict-tools", O_STRICT_TOOLS, false, false, CMD_SERVE | CMD_RUN, false },
    { NULL, "--agent", O_AGENT, true, false, CMD_SERVE | CMD_RUN | CMD_MOCKAGENT, false },
    { NULL, "--agent-bin", O_AGENT_BIN, true, false, CMD_RUN, false },
    { NULL, "--interactive", O_INTERACTIVE, false, false, CMD_RUN, false },
    { NULL, "--turn-timeout", O_TURN_TIMEOUT, true, false, CMD_RUN, false },
    { NULL, "--loop", O_LOOP, false, false, CMD_SERVE, false },
    { NULL, "--quiet", O_QUIET, false, false, CMD_SERVE | CMD_RUN, false },
    { NULL, "--max-body", O_MAX_BODY, true, false, CMD_SERVE, false },
    { NULL, "--max-connections", O_MAX_CONNS, true, false, CMD_SERVE, false },
    { NULL, "--timeout", O_TIMEOUT, true, false, CMD_SERVE | CMD_MOCKAGENT, false },
    { NULL, "--header-timeout", O_HEAD_TIMEOUT, true, false, CMD_SERVE, false },
    { NULL, "--idle-timeout", O_IDLE_TIMEOUT, true, false, CMD_SERVE, false },
    { NULL, "--client-timeout", O_CLIENT_TIMEOUT, true, false, CMD_SERVE, false },
    { NULL, "--tool-timeout", O_TOOL_TIMEOUT, true, false, CMD_SERVE, false },
    { NULL, "--heartbeat", O_HEARTBEAT, true, false, CMD_SERVE, false },
    { NULL, "--wall-clock", O_WALL_CLOCK, false, false, CMD_SERVE, false },
    { NULL, "--keepalive", O_KEEPALIVE, true, false, CMD_SERVE, false },
    { NULL, "--rest-listen", O_REST_LISTEN, true, false, CMD_SERVE, false },
    { NULL, "--harness-listen", O_HARNESS_LISTEN, true, false, CMD_SERVE, false },
    { NULL, "--scenario-speed", O_SPEED, true, false, CMD_SERVE, false },
    { NULL, "--scenario-define", O_DEFINE, true, false, CMD_SERVE, false },
    { NULL, "--cwd", O_CWD, true, false, CMD_MOCKAGENT | CMD_SESSION, false },
    { NULL, "--checkpoint-cmd", O_CHECKPOINT_CMD, true, false, CMD_MOCKAGENT, false },
    { NULL, "--color", O_COLOR, true, false, CMD_MOCKAGENT, false },
    { NULL, "--stdin-prompts", O_STDIN_PROMPTS, false, false, CMD_MOCKAGENT, false },
};

static const struct {
    const char *name;
    unsigned cmd;
    int (*fn)(const Opts *);
} CMDS[] = {
    { "run", CMD_RUN, scvm_run },
    { "verify", CMD_VERIFY, scvm_verify },
    { "info", CMD_INFO, scvm_info },
    { "dis", CMD_DIS, scvm_dis },
    { "ls", CMD_LS, scvm_ls },
    { "extract", CMD_EXTRACT, scvm_extract },
    { "serve", CMD_SERVE, scvm_serve },
    { "report", CMD_REPORT, scvm_report },
    { "agents", CMD_AGENTS, scvm_agents },
    { "agent", CMD_MOCKAGENT, scvm_mockagent },
    { "tape", CMD_TAPE, scvm_tape },
    { "driver", CMD_DRIVER, scvm_driver },
    { "exec", CMD_EXEC, scvm_exec },
    { "replay", CMD_REPLAY, scvm_replay },
    { "replay-report", CMD_REPLAY_REPORT, scvm_replay_report },
};

/* "ADDR:PORT", "[V6]:PORT", ":PORT" or "PORT". */
static bool parse_listen(const char *s, char *host, size_t cap, char *port, size_t pcap)
{
    const char *colon;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':' || (size_t)(close - s - 1) >= cap)
            return false;
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = 0;
        colon = close + 1;
    } else if ((colon = strrchr(s, ':')) != NULL) {
        size_t hl = (size_t)(colon - s);
        if (hl >= cap)
            return false;
        memcpy(host, s, hl);
        host[hl] = 0;
        if (!hl)
            snprintf(host, cap, "127.0.0.1");
    } else {
        snprintf(host, cap, "127.0.0.1");
        colon = s - 1;
    }
    unsigned long long p;
    if (!cli_parse_u64(colon + 1, 65535, &p))
        return false;
    snprintf(port, pcap, "%llu", p);
    return true;
}

/* --shard auto: the shard from the CI system's own variables, the first
** pair set of: SCVM_SHARD_INDEX/SCVM_SHARD_TOTAL (0-based; what a GitHub
** Actions matrix passes explicitly), GitLab CI_NODE_INDEX/CI_NODE_TOTAL
** (1-based), CircleCI CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL, Buildkite
** BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT, a Kubernetes
** Indexed Job's JOB_COMPLETION_INDEX with SCVM_SHARD_TOTAL (all 0-based).
** Returns 0 or SC_USAGE (printed, naming what was read). */
static int shard_auto(Opts *o)
{
    static const struct {
        const char *index, *total, *system;
        unsigned base;
    } CI[] = {
        { "SCVM_SHARD_INDEX", "SCVM_SHARD_TOTAL", "SCVM_SHARD_INDEX/SCVM_SHARD_TOTAL", 0 },
        { "CI_NODE_INDEX", "CI_NODE_TOTAL", "GitLab", 1 },
        { "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", "CircleCI", 0 },
        { "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "Buildkite", 0 },
        { "JOB_COMPLETION_INDEX", "SCVM_SHARD_TOTAL", "a Kubernetes Indexed Job", 0 },
    };
    for (size_t k = 0; k < sizeof CI / sizeof CI[0]; k++) {
        const char *iv = getenv(CI[k].index), *tv = getenv(CI[k].total);
        if (!iv || !*iv)
            continue;
        unsigned i, n;
        if (!tv || !*tv)
            return cli_usage(scvm_usage, "--shard auto: %s is set but %s is not (%s)", CI[k].index, CI[k].total,
                             CI[k].system);
        if (!cli_parse_uint(iv, 1000000, &i) || !cli_parse_uint(tv, 1000000, &n) || n < 1 || i < CI[k].base ||
            i - CI[k].base >= n)
            return cli_usage(scvm_usage, "--shard auto: %s=%s and %s=%s are not a shard (%s: index %s, 0 < total)",
                             CI[k].index, iv, CI[k].total, tv, CI[k].system, CI[k].base ? "1..total" : "0..total-1");
        o->shard_i = i - CI[k].base + 1;
        o->shard_n = n;
        return 0;
    }
    return cli_usage(scvm_usage, "%s", "--shard auto: no CI shard variables are set (SCVM_SHARD_INDEX/_TOTAL, GitLab "
                                       "CI_NODE_INDEX/_TOTAL, CircleCI CIRCLE_NODE_INDEX/_TOTAL, Buildkite "
                                       "BUILDKITE_PARALLEL_JOB/_COUNT, JOB_COMPLETION_INDEX with SCVM_SHARD_TOTAL)");
}

/* Sets option id from its value v.  Returns 0 or SC_USAGE (printed). */
static int set_opt(Opts *o, int id, const char *a, const char *v)
{
    unsigned long long n;
    switch (id) {
    case O_OUTPUT:
        if (!*v)
            return cli_usage(scvm_usage, "%s: empty output file name", "-o");
        o->output = v;
        break;
    case O_TARGET:
        if (strcmp(v, "sim") != 0 && strcmp(v, "pty") != 0 && strcmp(v, "agent") != 0 && strcmp(v, "aut") != 0)
            return cli_usage(scvm_usage, "unknown target '%s' (known: sim, pty, agent, aut)", v);
        o->target = v;
        break;
    case O_SPEED:
        if (!cli_parse_speed(v, &o->speed))
            return cli_usage(scvm_usage, "invalid speed '%s' (expected a finite number >= 0)", v);
        break;
    case O_REALTIME: o->realtime = true; break;
    case O_COUNT: o->count = true; break;
    case O_JSON: o->json = true; break;
    case O_JOBS:
        if (!cli_parse_uint(v, MAX_JOBS, &o->jobs))
            return cli_usage(scvm_usage, "invalid job count '%s' (0 = one per CPU, at most %d)", v, MAX_JOBS);
        break;
    case O_JUNIT:
        if (!*v)
            return cli_usage(scvm_usage, "%s: empty file name", "--junit");
        o->junit = v;
        break;
    case O_REPORT:
        if (!*v)
            return cli_usage(scvm_usage, "%s: empty folder name", "--report");
        o->report = v;
        break;
    case O_FAIL_FAST: o->fail_fast = true; break;
    case O_NO_PROGRESS: o->no_progress = true; break;
    case O_SCENARIO: o->names[o->n_names++] = v; break;
    case O_TAG: o->tags[o->n_tags++] = v; break;
    case O_PROMPT: o->prompt = v; break;
    case O_MERGE: o->merge = true; break;
    case O_TIMINGS:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--timings needs a JUnit XML file");
        o->timings = v;
        break;
    case O_DEFINE:
        if (!*v || *v == '=')
            return cli_usage(scvm_usage, "bad -D '%s' (expected NAME[=VALUE])", v);
        o->defines[o->n_defines++] = v;
        break;
    case O_SHARD: {
        if (strcmp(v, "auto") == 0)
            return shard_auto(o);
        const char *slash = strchr(v, '/');
        char num[32];
        if (!slash || (size_t)(slash - v) >= sizeof num)
            return cli_usage(scvm_usage, "invalid shard '%s' (expected I/N, 1 <= I <= N)", v);
        memcpy(num, v, (size_t)(slash - v));
        num[slash - v] = 0;
        if (!cli_parse_uint(num, 1000000, &o->shard_i) || !cli_parse_uint(slash + 1, 1000000, &o->shard_n) ||
            o->shard_i < 1 || o->shard_i > o->shard_n)
            return cli_usage(scvm_usage, "invalid shard '%s' (expected I/N, 1 <= I <= N)", v);
        break;
    }
    case O_FILES: o->files = true; break;
    case O_DIR: o->dir = v; break;
    case O_NO_LINES: o->no_lines = true; break;
    case O_ARTIFACTS: o->artifacts = v; break;
    case O_GOLDENS: o->goldens = v; break;
    case O_UPDATE_GOLDENS: o->update_goldens = true; break;
    case O_CI: o->ci = true; break;
    case O_RAW_GOLDENS: o->raw_goldens = true; break;
    case O_CAST: o->cast = v; break;
    case O_CELLS: o->cells = true; break;
    case O_CANCEL_KEY: o->cancel_key = v; break;
    case O_TYPE_DELAY:
        if (!cli_parse_u64(v, 60000, &n))
            return cli_usage(scvm_usage, "invalid --type-delay '%s' (milliseconds, 0-60000)", v);
        o->type_delay_ms = (unsigned)n;
        o->type_delay_set = true;
        break;
    case O_AGENT:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--agent needs a profile name or file");
        o->agent = v;
        break;
    case O_AGENT_BIN:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--agent-bin needs a program");
        o->agent_bin = v;
        break;
    case O_INTERACTIVE: o->interactive = true; break;
    case O_TURN_TIMEOUT:
        if (!cli_parse_u64(v, 86400000ULL, &n) || n == 0)
            return cli_usage(scvm_usage, "invalid --turn-timeout '%s' (1 .. 86400000 ms)", v);
        o->turn_timeout_ms = (unsigned)n;
        break;
    case O_KEEP_WS: o->keep_ws = true; break;
    case O_DM_EXIT: o->dm_exit = true; break;
    case O_EXPLAIN: o->explain = true; break;
    case O_LISTEN:
        if (!parse_listen(v, o->host, sizeof o->host, o->port, sizeof o->port))
            return cli_usage(scvm_usage, "invalid --listen '%s' (expected ADDR:PORT)", v);
        o->listen_set = true;
        break;
    case O_WORKSPACE:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--workspace needs a directory");
        o->workspace = v;
        break;
    case O_VIA:
        if (strcmp(v, "http") != 0 && strcmp(v, "acp") != 0 && strcmp(v, "pty") != 0)
            return cli_usage(scvm_usage, "unknown --via '%s' (http, acp, pty)", v);
        o->via = v;
        break;
    case O_AGENT_URL:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--agent-url needs a URL");
        o->agent_url = v;
        break;
    case O_MODEL_URL:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--model-url needs a URL");
        o->model_url = v;
        break;
    case O_AGENT_MODEL: o->agent_model = v; break;
    case O_TAPE:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--tape needs a file");
        o->tape = v;
        break;
    case O_RECORD: o->record = true; break;
    case O_ALLOW_SKIPPED: o->allow_skipped = true; break;
    case O_DRY_RUN: o->dry_run = true; break;
    case O_RUN_JSON:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--run-json needs a file");
        o->run_json = v;
        break;
    case O_RESULTS:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--results needs a file");
        o->results = v;
        break;
    case O_JUDGE_URL:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--judge-url needs a URL");
        o->judge_url = v;
        break;
    case O_JUDGE_MODEL: o->judge_model = v; break;
    case O_STRICT_TOOLS: o->strict_tools = true; break;
    case O_LOOP: o->loop = true; break;
    case O_QUIET: o->quiet = true; break;
    case O_MAX_BODY:
        if (!cli_parse_u64(v, (unsigned long long)1 << 32, &n) || n == 0)
            return cli_usage(scvm_usage, "invalid --max-body '%s' (1 .. 4294967296 bytes)", v);
        o->max_body = (size_t)n;
        break;
    case O_MAX_CONNS:
        if (!cli_parse_u64(v, 65536, &n) || n == 0)
            return cli_usage(scvm_usage, "invalid --max-connections '%s' (1 .. 65536)", v);
        o->max_conns = (unsigned)n;
        break;
    case O_HEARTBEAT:
        if (!cli_parse_u64(v, 86400000ULL, &n) || n == 0)
            return cli_usage(scvm_usage, "invalid --heartbeat '%s' (1 .. 86400000 ms)", v);
        o->heartbeat_ms = (unsigned)n;
        break;
    case O_WALL_CLOCK: o->wall_clock = true; break;
    case O_REST_LISTEN:
    case O_HARNESS_LISTEN: {
        bool r = id == O_REST_LISTEN;
        if (!parse_listen(v, r ? o->rest_host : o->harness_host, sizeof o->rest_host, r ? o->rest_port : o->harness_port,
                          sizeof o->rest_port))
            return cli_usage(scvm_usage, "invalid %s '%s' (expected ADDR:PORT)", a, v);
        *(r ? &o->rest_set : &o->harness_set) = true;
        break;
    }
    case O_KEEPALIVE:
        if (!cli_parse_u64(v, 86400000ULL, &n) || n == 0)
            return cli_usage(scvm_usage, "invalid --keepalive '%s' (1 .. 86400000 ms)", v);
        o->keepalive_ms = (unsigned)n;
        break;
    case O_CLIENT_TIMEOUT:
    case O_TOOL_TIMEOUT:
        if (!cli_parse_u64(v, 86400000ULL, &n) || n == 0)
            return cli_usage(scvm_usage, "invalid %s '%s' (1 .. 86400000 ms)", a, v);
        *(id == O_CLIENT_TIMEOUT ? &o->client_timeout_ms : &o->tool_timeout_ms) = (unsigned)n;
        break;
    case O_TIMEOUT:
    case O_HEAD_TIMEOUT:
    case O_IDLE_TIMEOUT:
        if (!cli_parse_u64(v, 86400000ULL, &n) || n == 0)
            return cli_usage(scvm_usage, "invalid %s '%s' (1 .. 86400000 ms)", a, v);
        *(id == O_TIMEOUT ? &o->timeout_ms : id == O_HEAD_TIMEOUT ? &o->head_timeout_ms : &o->idle_timeout_ms) =
            (unsigned)n;
        break;
    case O_CWD:
    case O_CHECKPOINT_CMD:
        if (!*v)
            return cli_usage(scvm_usage, "%s needs %s", a, id == O_CWD ? "a folder" : "a command");
        *(id == O_CWD ? &o->cwd : &o->checkpoint_cmd) = v;
        break;
    case O_COLOR:
        if (strcmp(v, "auto") != 0 && strcmp(v, "always") != 0 && strcmp(v, "never") != 0)
            return cli_usage(scvm_usage, "invalid --color '%s' (auto, always or never)", v);
        o->color = v;
        break;
    case O_STDIN_PROMPTS: o->stdin_prompts = true; break;
    case O_STDIO: o->stdio = true; break;
    case O_POLICY:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--policy needs a policy file");
        o->policy_file = v;
        break;
    case O_NO_SANDBOX: o->no_sandbox = true; break;
    case O_ACK_SANDBOX: o->ack_sandbox = true; break;
    case O_ENABLE_NETWORK: o->enable_network = true; break;
    case O_ACK_NETWORK: o->ack_network = true; break;
    case O_ACK_WRITE: o->ack_write = true; break;
    case O_STRICT: o->strict = true; break;
    case O_NORMALIZE:
        if (!*v)
            return cli_usage(scvm_usage, "%s", "--normalize needs a filter, all or none");
        o->normalize[o->n_normalize++] = v;
        break;
    case O_REQ_EVENTS: o->require_events = true; break;
    case O_REQ_CHECKSUMS: o->require_checksums = true; break;
    case O_ROWS:
    case O_COLS:
        if (!cli_parse_uint(v, 500, id == O_ROWS ? &o->rows : &o->cols) || !*(id == O_ROWS ? &o->rows : &o->cols))
            return cli_usage(scvm_usage, "invalid %s '%s' (1-500)", a, v);
        break;
    default:
        return cli_usage(scvm_usage, "unknown option '%s'", a);
    }
    return 0;
}

/* Parses argv[first..] for command cmd: options may come before or after
** the operands, "--" ends them ("run FILE -- CMD ARGS": the rest is the
** program of the pty target).  Returns 0 or a status (printed). */
static int parse(int argc, char **argv, int first, unsigned cmd, Opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->speed = 1.0;
    o->target = "sim";
    o->jobs = 1;
    snprintf(o->host, sizeof o->host, "127.0.0.1");
    snprintf(o->port, sizeof o->port, "8089");
    snprintf(o->rest_host, sizeof o->rest_host, "127.0.0.1");
    snprintf(o->rest_port, sizeof o->rest_port, "38180");
    snprintf(o->harness_host, sizeof o->harness_host, "127.0.0.1");
    snprintf(o->harness_port, sizeof o->harness_port, "8080");
    o->names = sc_calloc((size_t)argc, sizeof *o->names);
    o->tags = sc_calloc((size_t)argc, sizeof *o->tags);
    o->defines = sc_calloc((size_t)argc, sizeof *o->defines);
    o->ops = sc_calloc((size_t)argc, sizeof *o->ops);
    o->normalize = sc_calloc((size_t)argc, sizeof *o->normalize);
    if (!o->names || !o->tags || !o->ops || !o->defines || !o->normalize) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    bool opts = true, pty_opt = false;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!opts || a[0] != '-' || a[1] == 0) {
            o->ops[o->n_ops++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            if (cmd == CMD_RUN && o->n_ops == 1 && i + 1 < argc) {
                o->command = argv + i + 1;
                pty_opt = true;
                break;
            }
            if ((cmd & CMD_SESSION) && i + 1 < argc) {
                o->command = argv + i + 1;
                break;
            }
            opts = false;
            continue;
        }
        int r = 0;
        size_t k = 0;
        for (; k < sizeof OPTS / sizeof OPTS[0]; k++) {
            if (!(OPTS[k].cmds & cmd))
                continue;
            if (OPTS[k].value)
                r = cli_opt_value(argc, argv, &i, OPTS[k].s, OPTS[k].l, &v, scvm_usage);
            else
                r = (OPTS[k].s && strcmp(a, OPTS[k].s) == 0) || strcmp(a, OPTS[k].l) == 0;
            if (r)
                break;
        }
        if (r < 0)
            return SC_USAGE;
        if (!r)
            return cli_usage(scvm_usage, "unknown option '%s'", a);
        int st = set_opt(o, OPTS[k].id, a, v);
        if (st)
            return st;
        o->selecting |= OPTS[k].suite;
        pty_opt |= OPTS[k].pty;
    }
    if (o->timings && !o->shard_n)
        return cli_usage(scvm_usage, "%s", "--timings balances shards: it needs --shard");
    bool agent = strcmp(o->target, "agent") == 0, aut = strcmp(o->target, "aut") == 0;
    if (cmd == CMD_RUN && aut) {
        if (!o->via)
            o->via = o->agent_url ? "http" : o->agent ? "pty" : o->command ? "acp" : NULL;
        if (!o->via && !o->dry_run)
            return cli_usage(scvm_usage, "%s", "-t aut: where is the agent? (--agent-url URL, --via acp|pty -- CMD, "
                                               "or --agent NAME --model-url URL)");
        if ((o->agent || o->agent_bin || o->model_url) && (!o->via || strcmp(o->via, "pty") != 0 || !o->agent ||
                                                           !o->model_url || o->agent_url))
            return cli_usage(scvm_usage, "%s", "-t aut: a real agent's TUI is played --via pty --agent NAME|FILE "
                                               "--model-url URL (the model it talks to) [--agent-bin PATH]");
        if (o->via && !o->agent &&
            (strcmp(o->via, "http") == 0 ? !o->agent_url || o->command : !o->command || o->agent_url))
            return cli_usage(scvm_usage, "%s", "-t aut: --via http takes --agent-url; --via acp and pty take -- CMD");
        if (pty_opt && !o->command)
            return cli_usage(scvm_usage, "%s", "the pty options need --target pty");
        if (o->report || o->artifacts || o->cast)
            return cli_usage(scvm_usage, "%s", "-t aut reports with --results, --run-json and --junit "
                                               "(--report, --artifacts and --cast are the PTY targets')");
        if (o->timings)
            return cli_usage(scvm_usage, "%s", "-t aut shards a suite's cases in turn: --timings balances scenario runs");
        if (o->record && !(o->judge_url && o->tape))
            return cli_usage(scvm_usage, "%s", "recording a tape takes all three: --record --judge-url URL --tape FILE");
        if (o->judge_url && o->tape && !o->record)
            return cli_usage(scvm_usage, "%s", "a live judge (--judge-url without --record) decides every verdict "
                                               "itself: --tape is for replaying, --record --tape FILE to fill one");
        if (o->judge_model && !o->judge_url)
            return cli_usage(scvm_usage, "%s", "--judge-model names the live judge's model: it needs --judge-url");
    } else if (cmd == CMD_RUN && (o->via || o->agent_url || o->model_url || o->agent_model || o->tape || o->record || o->judge_url ||
                                  o->judge_model || o->results || o->dry_run || o->run_json)) {
        return cli_usage(scvm_usage, "%s", "--via, --agent-url, --agent-model, --tape, --record, --judge-url, --results, "
                                           "--run-json and --dry-run need --target aut");
    } else if (cmd == CMD_RUN && o->allow_skipped && strcmp(o->target, "sim") != 0) {
        return cli_usage(scvm_usage, "%s", "--allow-skipped is for what a run does not judge: the simulation "
                                           "(-t sim) and -t aut; -t pty and -t agent evaluate every check");
    } else if (cmd == CMD_RUN && o->workspace) {
        return cli_usage(scvm_usage, "%s", "--workspace (scvm run) needs --target aut");
    }
    if (cmd == CMD_RUN && pty_opt && strcmp(o->target, "pty") != 0 && !agent && !aut)
        return cli_usage(scvm_usage, "%s", "'-- CMD' and the pty options need --target pty");
    if (cmd == CMD_RUN && !agent && ((o->agent && !aut) || (o->agent_bin && !aut) || o->interactive ||
                                     (o->turn_timeout_ms && !aut) ||
                                     o->strict_tools))
        return cli_usage(scvm_usage, "%s", "the agent options need --target agent");
    if (o->jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (unsigned)n;
    }
    return 0;
}

static void opts_fini(Opts *o)
{
    sc_free((void *)o->names);
    sc_free((void *)o->tags);
    sc_free((void *)o->defines);
    sc_free((void *)o->ops);
    sc_free((void *)o->normalize);
}

/* ---- opening suites ---- */

int scvm_add(Suite *s, const char *path, bool quiet, SuiteErr *err)
{
    int st = suite_add_file(s, path, err);
    if (st && !quiet) {
        const char *shown = cli_display_name(path);
        if (st == SC_IO)
            fprintf(stderr, "scvm: %s: cannot read: %s\n", shown, err->msg);
        else if (st == SC_RUNTIME)
            fprintf(stderr, "scvm: %s: out of memory\n", shown);
        else if (st == SC_USAGE)
            fprintf(stderr, "scvm: %s: %s\n", shown, err->msg);
        else
            fprintf(stderr, "scvm: %s: rejected: %s [%s]\n", shown, err->msg, err->code);
    }
    return st;
}

/* ---- variants: -D and AH_SCENARIO_DEFINES at playback (docs/rules.md) ---- */

/* One define, typed as scc types them: true/false (any case), a decimal
** integer, else the string as written. */
typedef struct Def {
    char name[128];
    int tag;                 /* BC_V_TRUE, BC_V_FALSE, BC_V_INT, BC_V_STR */
    long long i;
    const char *s;           /* points into the argument */
    size_t s_len;
} Def;

static bool def_parse(const char *a, size_t n, Def *d)
{
    while (n && (*a == ' ' || *a == '\t'))
        a++, n--;
    while (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
        n--;
    const char *eq = memchr(a, '=', n);
    size_t kn = eq ? (size_t)(eq - a) : n;
    while (kn && (a[kn - 1] == ' ' || a[kn - 1] == '\t'))
        kn--;
    if (!kn || kn >= sizeof d->name)
        return false;
    memcpy(d->name, a, kn);
    d->name[kn] = 0;
    if (!eq) {
        d->tag = BC_V_TRUE;
        return true;
    }
    const char *v = eq + 1;
    size_t vn = n - (size_t)(v - a);
    while (vn && (*v == ' ' || *v == '\t'))
        v++, vn--;
    if (vn == 4 && strncasecmp(v, "true", 4) == 0) {
        d->tag = BC_V_TRUE;
    } else if (vn == 5 && strncasecmp(v, "false", 5) == 0) {
        d->tag = BC_V_FALSE;
    } else {
        char num[32], *end;
        d->tag = BC_V_STR;
        d->s = v;
        d->s_len = vn;
        if (vn && vn < sizeof num && strspn(v, "+-0123456789") == vn) {
            memcpy(num, v, vn);
            num[vn] = 0;
            errno = 0;
            d->i = strtoll(num, &end, 10);
            if (!*end && !errno)
                d->tag = BC_V_INT;
        }
    }
    return true;
}

/* Adds d to the set (a later one replaces an earlier one of its name). */
static void def_put(Def *set, size_t *n, const Def *d)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(set[i].name, d->name) == 0) {
            set[i] = *d;
            return;
        }
    set[(*n)++] = *d;
}

/* True when entry e was compiled with exactly the defines in set. */
static bool defines_equal(const PackEntry *e, const Def *set, size_t n)
{
    const BcProgram *p = e->prog;
    BcVal m = bc_val(p, p->meta.defines);
    if (m.tag != BC_V_MAP || m.n != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        BcVal v;
        if (!bc_val_get(p, &m, set[i].name, &v))
            return false;
        if (set[i].tag == BC_V_INT ? v.tag != BC_V_INT || v.i != set[i].i
            : set[i].tag == BC_V_STR ? v.tag != BC_V_STR || p->str[v.n].len != set[i].s_len ||
                                           memcmp(p->str[v.n].s, set[i].s, set[i].s_len) != 0
                                     : v.tag != set[i].tag)
            return false;
    }
    return true;
}

/* The variant an entry is ("variant:NAME" among its tags, the name ending
** "@NAME"), or NULL; *base_len the length of the scenario's own name. */
static const char *variant_of(const PackEntry *e, size_t *base_len)
{
    size_t nl = strlen(e->name);
    *base_len = nl;
    for (uint32_t t = 0; t < e->n_tags; t++) {
        const char *v = e->tags[t];
        if (strncmp(v, "variant:", 8) != 0)
            continue;
        size_t vl = strlen(v + 8);
        if (nl > vl + 1 && e->name[nl - vl - 1] == '@' && strcmp(e->name + nl - vl, v + 8) == 0) {
            *base_len = nl - vl - 1;
            return v + 8;
        }
    }
    return NULL;
}

static void defines_text(const PackEntry *e, char *out, size_t cap)
{
    Buf b;
    buf_init(&b);
    bc_val_json(e->prog, e->prog->meta.defines, &b);
    snprintf(out, cap, "%.*s", b.oom ? 0 : (int)b.len, b.data ? (const char *)b.data : "");
    buf_fini(&b);
}

/* --timings FILE: each entry's duration from a JUnit XML report (the
** time attribute of its <testcase>, matched by name, as scvm and most
** runners write it); entries it does not name get the mean of those it
** does (1 when it names none); junit_times (runtime/run/run_junit.h)
** reads it.  Returns 0 or a status (printed). */
typedef struct Timings {
    const Suite *s;
    double *w, sum;
    bool *known;
    unsigned n_known;
} Timings;

static void timing_of(void *ctx, const char *name, double secs)
{
    Timings *t = ctx;
    int32_t i = suite_find(t->s, name);
    if (i >= 0 && !t->known[i]) {
        t->known[i] = true;
        t->w[i] = secs;
        t->sum += secs;
        t->n_known++;
    }
}

static int read_timings(const char *path, const Suite *s, double *w)
{
    char *x = NULL;
    size_t n = 0;
    int e = file_read_all(path, 256u << 20, &x, &n);
    if (e) {
        fprintf(stderr, "scvm: %s: cannot read: %s\n", path, strerror(e));
        return SC_IO;
    }
    uint32_t count = suite_count(s);
    Timings t = { .s = s, .w = w, .known = sc_calloc(count ? count : 1, sizeof *t.known) };
    if (!t.known) {
        sc_free(x);
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    size_t cases = junit_times(x, timing_of, &t);
    sc_free(x);
    if (!cases) {
        sc_free(t.known);
        fprintf(stderr, "scvm: %s: no <testcase> elements: not a JUnit XML report\n", path);
        return SC_USAGE;
    }
    double mean = t.n_known ? t.sum / t.n_known : 1.0;
    for (uint32_t i = 0; i < count; i++)
        if (!t.known[i])
            w[i] = mean;
    sc_free(t.known);
    return 0;
}

/* allowed[i]: entry i is the variant the defines ask for.  Every
** scenario with variants must have one that matches; with -D, a scenario
** compiled without variants must have been compiled with those defines.
** Returns 0 or SC_USAGE (printed). */
int scvm_variants(const Opts *o, const Suite *s, bool *allowed)
{
    const char *env = getenv("AH_SCENARIO_DEFINES");
    size_t cap = o->n_defines + 1;
    for (const char *c = env; c && *c; c++)
        cap += *c == ',';
    Def *set = sc_calloc(cap, sizeof *set);
    if (!set) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    size_t n = 0;
    for (const char *c = env; c && *c;) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        Def d;
        if (strspn(c, " \t") < len && def_parse(c, len, &d))
            def_put(set, &n, &d);
        c += len + (end != NULL);
    }
    for (size_t i = 0; i < o->n_defines; i++) {
        Def d;
        if (def_parse(o->defines[i], strlen(o->defines[i]), &d))
            def_put(set, &n, &d);
    }
    const char *file = cli_display_name(o->ops[0]);
    int st = 0;
    uint32_t count = suite_count(s);
    bool has_variants = false;
    for (uint32_t i = 0; i < count && !has_variants; i++) {
        size_t bl;
        has_variants = variant_of(suite_entry(s, i), &bl) != NULL;
    }
    for (uint32_t i = 0; i < count && !st; i++) {
        const PackEntry *e = suite_entry(s, i);
        size_t bl;
        const char *var = variant_of(e, &bl);
        allowed[i] = defines_equal(e, set, n);
        if (allowed[i] || var)
            continue;
        if (has_variants) {
            allowed[i] = true;   /* compiled once beside variants: nothing to vary (no rules, tui-use) */
        } else if (o->n_defines) {
            char have[300];
            defines_text(e, have, sizeof have);
            fprintf(stderr, "scvm: %s: %s was compiled with the defines %s: they were resolved at compile time "
                            "and -D cannot change them; compile variants with scc --variant to choose at playback\n",
                    file, e->name, have);
            st = SC_USAGE;
        } else {
            allowed[i] = true;   /* AH_SCENARIO_DEFINES alone: for other tools too */
        }
    }
    /* each scenario with variants: one of them must match */
    for (uint32_t i = 0; i < count && !st; i++) {
        const PackEntry *e = suite_entry(s, i);
        size_t bl;
        if (!variant_of(e, &bl))
            continue;
        bool any = false, first = true;
        for (uint32_t k = 0; k < count && !any; k++) {
            size_t kl;
            const PackEntry *f = suite_entry(s, k);
            if (variant_of(f, &kl) && kl == bl && strncmp(f->name, e->name, bl) == 0) {
                any = allowed[k];
                first = first && k >= i;
            }
        }
        if (any || !first)
            continue;
        fprintf(stderr, "scvm: %s: no variant of %.*s was compiled with these defines; its variants:\n", file,
                (int)bl, e->name);
        for (uint32_t k = 0; k < count; k++) {
            size_t kl;
            const PackEntry *f = suite_entry(s, k);
            const char *v = variant_of(f, &kl);
            if (v && kl == bl && strncmp(f->name, e->name, bl) == 0) {
                char have[300];
                defines_text(f, have, sizeof have);
                fprintf(stderr, "scvm: note:   %s %s\n", v, have);
            }
        }
        st = SC_USAGE;
    }
    sc_free(set);
    return st;
}

int scvm_open(const Opts *o, const char *what, Suite **out, uint32_t **sel, size_t *n)
{
    *out = NULL;
    if (o->n_ops != 1)
        return o->n_ops ? cli_usage(scvm_usage, "%s takes one FILE", what)
                        : cli_usage(scvm_usage, "%s: no input file", what);
    Suite *s = suite_new();
    if (!s) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    SuiteErr e;
    int st = scvm_add(s, o->ops[0], false, &e);
    bool *allowed = NULL;
    if (!st && sel && (o->n_defines || getenv("AH_SCENARIO_DEFINES"))) {
        allowed = sc_calloc(suite_count(s) ? suite_count(s) : 1, sizeof *allowed);
        st = allowed ? scvm_variants(o, s, allowed) : SC_RUNTIME;
        if (!allowed)
            fputs("scvm: out of memory\n", stderr);
        if (st) {
            sc_free(allowed);
            suite_free(s);
            return st;
        }
    }
    double *weights = NULL;
    if (!st && sel && o->timings) {
        weights = sc_calloc(suite_count(s) ? suite_count(s) : 1, sizeof *weights);
        st = weights ? read_timings(o->timings, s, weights) : SC_RUNTIME;
        if (!weights)
            fputs("scvm: out of memory\n", stderr);
    }
    /* -t aut shards its units, a Yao suite's cases (cmd_aut.c) */
    bool aut_cases = o->target && strcmp(o->target, "aut") == 0;
    if (!st && sel) {
        SuiteQuery q = { .names = o->names, .n_names = o->n_names, .tags = o->tags, .n_tags = o->n_tags,
                         .prompt = o->prompt, .shard_i = o->shard_i, .shard_n = aut_cases ? 0 : o->shard_n,
                         .allowed = allowed,
                         .weights = weights };
        st = suite_select(s, &q, sel, n, &e);
        if (st == SC_USAGE) {
            fprintf(stderr, "scvm: %s: %s\n", cli_display_name(o->ops[0]), e.msg);
            for (size_t k = 0; k < o->n_names; k++) {
                const char *near = suite_find(s, o->names[k]) < 0 ? suite_nearest_name(s, o->names[k]) : NULL;
                if (near) {
                    fprintf(stderr, "scvm: note: did you mean '%s'?\n", near);
                    break;
                }
            }
        } else if (st) {
            fputs("scvm: out of memory\n", stderr);
        }
    }
    sc_free(allowed);
    sc_free(weights);
    if (st) {
        suite_free(s);
        return st;
    }
    *out = s;
    return 0;
}

/* ---- main ---- */

static void print_help(void)
{
    fputs(scvm_usage, stdout);
    fputs(help_text, stdout);
#define X(name, num, text) printf("  %d  %s\n", num, text);
    SC_STATUSES(X)
#undef X
    fputs("  128+N  run -t pty|agent|aut, agent, driver, exec: interrupted by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP)\n", stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage(scvm_usage, "%s", "no command (try 'scvm --help')");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_help();
            return fflush(stdout) == 0 ? SC_OK : SC_IO;
        }
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("scvm (scc) %s, bytecode %d.%d\n", SCC_VERSION, BC_VERSION_MAJOR, BC_VERSION_MINOR);
        return fflush(stdout) == 0 ? SC_OK : SC_IO;
    }
    for (size_t k = 0; k < sizeof CMDS / sizeof CMDS[0]; k++) {
        if (strcmp(name, CMDS[k].name) != 0)
            continue;
        int first = 2;
        const char *server = NULL;
        if (CMDS[k].cmd == CMD_SERVE) {
            if (argc < 3)
                return cli_usage(scvm_usage, "%s", "serve: which server? (llm, acp, harness, rest)");
            if (strcmp(argv[2], "acp") != 0) {
                /* one of llm, harness, rest, or several joined by '+' (each once) */
                const char *p = argv[2];
                unsigned seen = 0;
                do {
                    size_t len = strcspn(p, "+");
                    unsigned bit = len == 3 && !memcmp(p, "llm", 3)       ? 1u
                                   : len == 4 && !memcmp(p, "rest", 4)    ? 2u
                                   : len == 7 && !memcmp(p, "harness", 7) ? 4u
                                                                          : 0u;
                    if (!bit || (seen & bit))
                        return cli_usage(scvm_usage, "serve: unknown server '%s' (known: llm, acp, harness, rest, "
                                         "or several of llm, rest and harness joined by '+')", argv[2]);
                    seen |= bit;
                    p += len + (p[len] == '+');
                } while (p[-1] == '+' || *p);
            }
            server = argv[2];
            first = 3;
        }
        Opts o;
        int st = parse(argc, argv, first, CMDS[k].cmd, &o);
        o.server = server;
        /* The data model's commands exit with its statuses: a usage
        ** error is E_CLI_INVALID_ARG (12), not scvm's 2. */
        if (st == SC_USAGE && (CMDS[k].cmd & CMD_DATA_MODEL))
            st = 12;
        if (!st)
            st = CMDS[k].fn(&o);
        opts_fini(&o);
        /* A full disk or closed pipe on stdout is an I/O error, not success. */
        errno = 0;
        if ((fflush(stdout) != 0 || ferror(stdout)) && !st) {
            fprintf(stderr, "scvm: <stdout>: cannot write: %s\n", strerror(errno ? errno : EIO));
            st = SC_IO;
        }
        return st;
    }
    return cli_usage(scvm_usage, "unknown command '%s' (try 'scvm --help')", name);
}
