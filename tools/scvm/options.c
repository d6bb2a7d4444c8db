/* SPDX-License-Identifier: MIT */
/* options.c - scvm's commands, run's targets and every option, as one
** table (common/cliopt.h).  The parser (scvm.c), --help, docs/scvm.md's
** option lists, the man page and the shell completions are made from it:
** an option is added here, once.
**
** A row: spellings, kind, where the value goes in Opts, the value's name,
** the commands that take it (CMD_*), the run targets it applies to (T_*;
** 0: every one), the range or choices, the help section and the help. */
#include "scvm.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "cli.h"

#ifndef SCC_VERSION
#define SCC_VERSION "unknown"
#endif

enum { SEL = CMD_RUN | CMD_DIS | CMD_LS | CMD_EXTRACT | CMD_MOCKAGENT };
enum { PTYS = T_PTY | T_AGENT | T_AUT };   /* the PTY options: the programs scvm runs in a terminal */
enum { MS_MAX = 86400000 };
enum { HTTP = S_LLM | S_HARNESS | S_REST };   /* the HTTP servers: --listen and the HTTP limits */
enum { O_SHARD = 1, O_DEFINE, O_LISTEN, O_REST_LISTEN, O_HARNESS_LISTEN, O_TYPE_DELAY, O_CASE_TIMEOUT };

#define F(x) (unsigned short)offsetof(Opts, x)
#define LIST(x) (unsigned short)offsetof(Opts, x), (unsigned short)offsetof(Opts, n_##x)

static const CoOpt ROWS[] = {
    /* selection */
    { "--scenario", NULL, CO_LIST, CO_SUITE, 0, LIST(names), "NAME", SEL | CMD_INFO | CMD_SERVE | CMD_REPORT, 0, 0, 0,
      NULL, 0, "selection", "the scenario NAME, or its variants (repeatable; each must exist)" },
    { "--tag", NULL, CO_LIST, CO_SUITE, 0, LIST(tags), "TAG", SEL | CMD_SERVE, 0, 0, 0, NULL, 0, "selection",
      "scenarios with any of the tags (repeatable)" },
    { "--prompt", NULL, CO_STR, CO_SUITE, 0, F(prompt), 0, "TEXT", SEL, 0, 0, 0, NULL, 0, "selection",
      "the one whose initial prompt is nearest to TEXT" },
    { "--shard", NULL, CO_CALL, CO_SUITE, 0, 0, 0, "I/N|auto", SEL, 0, 0, 0, NULL, O_SHARD, "selection",
      "every Nth of the selection, starting at the Ith; auto: from\n"
      "the CI system's variables (docs/scvm.md, Selection)" },
    { "--timings", NULL, CO_STR, CO_SUITE | CO_NONEMPTY, CV_FILE, F(timings), 0, "FILE", SEL, 0, 0, 0, NULL, 0,
      "selection", "with --shard: balance the shards by the durations a JUnit\n"
                   "report of an earlier run records (docs/ci.md)" },
    { "--define", "-D", CO_CALL, CO_ATTACH, 0, 0, 0, "NAME[=VALUE]", SEL | CMD_SERVE, 0, 0, 0, NULL, O_DEFINE,
      "selection", "the variant compiled with these defines (scc --variant);\n"
                   "also AH_SCENARIO_DEFINES=\"K=V,FLAG\" (-D wins per key)" },
    { "--scenario-define", NULL, CO_CALL, 0, 0, 0, 0, "NAME[=VALUE]", CMD_SERVE, 0, 0, 0, NULL, O_DEFINE,
      "selection", "as -D (the harness's spelling)" },

    /* run */
    { "--output", "-o", CO_STR, CO_NONEMPTY | CO_ATTACH, CV_FILE, F(output), 0, "FILE", CMD_RUN | CMD_REPORT | CMD_TRACE,
      0, 0, 0,
      NULL, 0, "run options", "write to FILE (atomically: nothing on failure); '-' = stdout" },
    { "--target", "-t", CO_CHOICE, CO_ATTACH, 0, F(target), 0, "NAME", CMD_RUN, 0, 0, 0, "sim|pty|agent|aut", 0,
      "run options", "target to drive: sim (the default); pty: a real program in\n"
                     "a pseudo-terminal (docs/pty.md; one .scb); after FILE,\n"
                     "'-- CMD ARGS...' names the program; agent: a real coding\n"
                     "agent against the scripted model (docs/real-agents.md);\n"
                     "aut: an ElizaOS or Yao suite against the agent (docs/aut.md)" },
    { "--speed", NULL, CO_SPEED, 0, 0, F(speed), 0, "X", CMD_RUN, 0, 0, 0, NULL, 0, "run options",
      "multiply every scheduled time by X: < 1 faster, > 1 slower;\n"
      "at_ms = round(t * X); X below 0.01 counts as 0.01" },
    { "--realtime", NULL, CO_FLAG, 0, 0, F(realtime), 0, NULL, CMD_RUN, 0, 0, 0, NULL, 0, "run options",
      "wait for each op's time on the monotonic clock (default:\nvirtual time, instant)" },
    { "--count", NULL, CO_FLAG, 0, 0, F(count), 0, NULL, CMD_RUN, 0, 0, 0, NULL, 0, "run options",
      "count events instead of printing them: 'N events'" },
    { "--json", NULL, CO_FLAG, 0, 0, F(json), 0, NULL, CMD_RUN, 0, 0, 0, NULL, 0, "run options",
      "with --count: print the counts as JSON; -t pty: the RunResult\ninstead of the events" },
    { "--jobs", "-j", CO_UINT, CO_SUITE | CO_ATTACH, 0, F(jobs), 0, "N", CMD_RUN, 0, 0, MAX_JOBS, NULL, 0,
      "run options", "play N scenarios at once (0 = one per CPU); output order\n"
                     "does not depend on N (-t aut: cases, --parallel N)" },
    { "--parallel", NULL, CO_UINT, CO_SUITE | CO_HIDDEN, 0, F(jobs), 0, "N", CMD_RUN, 0, 0, MAX_JOBS, NULL, 0,
      "run options", "as -j (Yao's spelling)" },
    { "--junit", NULL, CO_STR, CO_SUITE | CO_NONEMPTY, CV_FILE, F(junit), 0, "FILE", CMD_RUN, 0, 0, 0, NULL, 0,
      "run options", "write a JUnit XML report" },
    { "--source-dir", NULL, CO_STR, CO_NONEMPTY, CV_DIR, F(source_dir), 0, "DIR", CMD_RUN, 0, 0, 0, NULL, 0,
      "run options", "the folder of the scenarios' sources: JUnit's file is their path\nfrom its repository's root; "
                     "goldens and a .scb's repo.dir\nand patches are found there (docs/scvm.md)" },
    { "--report", NULL, CO_STR, CO_SUITE | CO_NONEMPTY, CV_DIR, F(report), 0, "DIR", CMD_RUN, 0, 0, 0, NULL, 0,
      "run options", "write the HTML report: DIR/index.html, a page per run,\nreport.json (docs/report.md)" },
    { "--fail-fast", NULL, CO_FLAG, CO_SUITE, 0, F(fail_fast), 0, NULL, CMD_RUN, 0, 0, 0, NULL, 0, "run options",
      "start nothing after the first failure" },
    { "--no-progress", NULL, CO_FLAG, CO_SUITE, 0, F(no_progress), 0, NULL, CMD_RUN, 0, 0, 0, NULL, 0, "run options",
      "no progress line on a terminal" },
    { "--quiet", NULL, CO_FLAG, 0, 0, F(quiet), 0, NULL, CMD_RUN, 0, 0, 0, NULL, 0, "run options",
      "no progress line on a terminal, and no 'scvm: report: ...' line" },
    { "--allow-skipped", NULL, CO_FLAG, 0, 0, F(allow_skipped), 0, NULL, CMD_RUN, T_SIM | T_AUT, 0, 0, NULL, 0,
      "run options", "a case skipped for want of a verdict (-t aut), or\n"
                     "assertions the simulation does not evaluate (-t sim),\n"
                     "do not fail the run (default: skipped is not passed, exit 1)" },

    /* -t aut */
    { "--agent-url", NULL, CO_STR, CO_NONEMPTY, 0, F(agent_url), 0, "URL", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "the agent's OpenAI-compatible API (--via http, the default)" },
    { "--via", NULL, CO_CHOICE, 0, 0, F(via), 0, "HOW", CMD_RUN, T_AUT, 0, 0, "http|acp|pty", 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "http (--agent-url), or the agent is the command after --:\nacp on stdio, or its TUI in a PTY" },
    { "--model-url", NULL, CO_STR, CO_NONEMPTY, 0, F(model_url), 0, "URL", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "(--via pty --agent NAME|FILE) the model the real agent's TUI\ntalks to (e.g. scvm serve llm)" },
    { "--agent-model", NULL, CO_STR, 0, 0, F(agent_model), 0, "M", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "the request's model (http); the agent's {model} (--agent)" },
    { "--tape", NULL, CO_STR, CO_NONEMPTY, CV_FILE, F(tape), 0, "FILE", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "judge and validator replies (docs/tape.md)" },
    { "--judge-url", NULL, CO_STR, CO_NONEMPTY, 0, F(judge_url), 0, "URL", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "a live OpenAI-compatible judge decides llm_judge, validators\n"
      "and simulated users (no tape); with --record: asked only for\n"
      "a reply the tape lacks, written into the tape" },
    { "--judge-model", NULL, CO_STR, 0, 0, F(judge_model), 0, "M", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)", "the live judge's model" },
    { "--record", NULL, CO_FLAG, 0, 0, F(record), 0, NULL, CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "fill the tape: --record --judge-url URL --tape FILE" },
    { "--workspace", NULL, CO_STR, CO_NONEMPTY, CV_DIR, F(workspace), 0, "DIR", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "where file and command checks look (default: .)" },
    { "--results", NULL, CO_STR, CO_NONEMPTY, CV_FILE, F(results), 0, "FILE", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "Yao's JSON Lines result records (start, result..., summary)" },
    { "--run-json", NULL, CO_STR, CO_NONEMPTY, CV_FILE, F(run_json), 0, "FILE", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "the run as one JSON object (status, counts, every case)" },
    { "--dry-run", NULL, CO_FLAG, 0, 0, F(dry_run), 0, NULL, CMD_RUN, T_AUT, 0, 0, NULL, 0,
      "aut target (-t aut: an ElizaOS or Yao suite against the agent; docs/aut.md)",
      "list the cases and their checks; reach no agent" },

    /* -t aut under ElizaOS's names (elizaos scenario run; docs/eliza.md, "ElizaOS's command line") */
#define ELIZA "aut target under ElizaOS's names (docs/eliza.md, \"ElizaOS's command line\")"
    { "--live", "-l", CO_FLAG, 0, 0, F(live), 0, NULL, CMD_RUN, T_AUT, 0, 0, NULL, 0, ELIZA,
      "a live judge and simulated user: --judge-url, or else\n"
      "OPENAI_BASE_URL (and OPENAI_LARGE_MODEL for --judge-model)" },
    { "--env-file", NULL, CO_STR, CO_NONEMPTY, CV_FILE, F(env_file), 0, "FILE", CMD_RUN, T_AUT, 0, 0, NULL, 0, ELIZA,
      "load FILE's variables (dotenv: KEY=VALUE, export, quotes,\n"
      "comments; a variable already set is kept) for the agent\n"
      "and the judge" },
    { "--logs", NULL, CO_STR, CO_NONEMPTY, CV_DIR, F(logs), 0, "DIR", CMD_RUN | CMD_SCENARIO, T_AUT, 0, 0, NULL, 0,
      ELIZA, "write ElizaOS's _logs_ files into DIR (run-DATE-NNN-TIME.json\n"
             "and each step's -execution.json, -evaluation.json; UTC,\n"
             "SOURCE_DATE_EPOCH freezes the clock); scvm scenario: ./_logs_" },
    { "--filter", NULL, CO_STR, 0, 0, F(filter), 0, "PATTERN", CMD_RUN | CMD_SCENARIO, T_AUT, 0, 0, NULL, 0, ELIZA,
      "(matrix) the combinations whose parameters, as compact JSON,\n"
      "contain PATTERN (letters compared without case)" },
    /* for help and completion only: scvm.c's main makes it -j N before any parsing */
    { "--parallel", NULL, CO_STR, CO_NONEMPTY, 0, 0, 0, "N", CMD_SCENARIO, T_AUT, 0, 0, NULL, 0, ELIZA,
      "(scenario matrix) play N scenarios at once: -j N" },

    /* -t aut under Yao's names (yao agent test; docs/yao.md, "Yao's command line") */
#define YAO "aut target under Yao's names (docs/yao.md, \"Yao's command line\")"
    { "--input", "-i", CO_STR, CO_NONEMPTY | CO_ATTACH, 0, F(inline_input), 0, "MESSAGE|FILE", CMD_RUN, T_AUT, 0, 0,
      NULL, 0, YAO, "MESSAGE: one case of that input, no FILE besides; FILE: the\n"
                    "suite (as the operand); agents:ID and scripts:ID generators\n"
                    "cannot run here (a usage error says why)" },
    { "--connector", "-c", CO_STR, CO_NONEMPTY | CO_ATTACH, 0, F(connector), 0, "ID", CMD_RUN, T_AUT, 0, 0, NULL, 0,
      YAO, "the target agent's connector: every request's options.connector" },
    { "--verbose", "-v", CO_FLAG, 0, 0, F(verbose), 0, NULL, CMD_RUN, T_AUT | T_PTY, 0, 0, NULL, 0, YAO,
      "each case's turn tree on the console; -t pty: a line per step\n"
      "on stderr as it ends (ptybox's --verbose)" },
    { "--timeout", NULL, CO_CALL, 0, 0, 0, 0, "DURATION", CMD_RUN, T_AUT, 0, 0, NULL, O_CASE_TIMEOUT, YAO,
      "a case's time (Go duration: 30s, 2m30s; or MS) where it sets\nnone of its own (Yao's default is 5m)" },
    { "--simulator", NULL, CO_STR, CO_NONEMPTY, 0, F(simulator), 0, "ID", CMD_RUN, T_AUT, 0, 0, NULL, 0, YAO,
      "the simulator agent of a dynamic case whose simulator has no 'use'" },
    { "--skip-interactive", NULL, CO_FLAG, 0, 0, F(skip_interactive), 0, NULL, CMD_RUN, T_AUT, 0, 0, NULL, 0, YAO,
      "skip the cases that ask for a human (interactive.enabled)" },
    { "--on-missing-input", NULL, CO_CHOICE, 0, 0, F(on_missing_input), 0, "WHAT", CMD_RUN, T_AUT, 0, 0, "skip|fail", 0,
      YAO, "a case that ends with the agent awaiting input and no input\nleft for it: skip it or fail it (default: judge it as it is)" },
#undef YAO

    /* -t agent (and the agent of -t aut --via pty) */
    { "--agent", NULL, CO_STR, CO_NONEMPTY, CV_LISTED, F(agent), 0, "NAME|FILE", CMD_RUN, T_AGENT | T_AUT, 0, 0, NULL, 0,
      "agent options (-t agent, and -t aut --via pty; the pty options apply too)",
      "the agent's profile: claude-code, codex, gemini-cli,\nqwen-code, opencode, or a profile file" },
    { "--agent-bin", NULL, CO_STR, CO_NONEMPTY, CV_FILE, F(agent_bin), 0, "PATH", CMD_RUN, T_AGENT | T_AUT, 0, 0, NULL,
      0, "agent options (-t agent, and -t aut --via pty; the pty options apply too)",
      "the agent's program instead of the profile's command" },
    { "--interactive", NULL, CO_FLAG, 0, 0, F(interactive), 0, NULL, CMD_RUN, T_AGENT | T_AUT, 0, 0, NULL, 0,
      "agent options (-t agent, and -t aut --via pty; the pty options apply too)",
      "drive the agent's TUI (default: its headless mode); -t aut:\n"
      "when the agent awaits input and the case has none left, read\n"
      "the next message from stdin (Yao's human input; an empty line ends)" },
    { "--turn-timeout", NULL, CO_UINT, 0, 0, F(turn_timeout_ms), 0, "MS", CMD_RUN, T_AGENT | T_AUT, 1, MS_MAX, NULL, 0,
      "agent options (-t agent, and -t aut --via pty; the pty options apply too)",
      "how long the run waits for the agent at each step\n(default 180000; -t aut: a turn's budget, 60000)" },
    { "--strict-tools", NULL, CO_FLAG, 0, 0, F(strict_tools), 0, NULL, CMD_RUN, T_AGENT, 0, 0, NULL, 0,
      "agent options (-t agent, and -t aut --via pty; the pty options apply too)",
      "the agent's declared tools must be its profile's" },

    /* the PTY targets; the policy options for driver and exec too */
    { "--artifacts", NULL, CO_STR, CO_MARK, CV_DIR, F(artifacts), 0, "DIR", CMD_RUN | CMD_SESSION, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "write run.json, transcript.log, events.jsonl, snapshots/,\n"
                                   "screenshots and checksums.json into DIR" },
    { "--goldens", NULL, CO_STR, CO_MARK, CV_DIR, F(goldens), 0, "DIR", CMD_RUN, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)",
      "compare screenshots with DIR/LABEL.golden (default: the FILE's\n"
      "folder/goldens/SCENARIO/PROFILE/screenshots); diff on mismatch;\n"
      "a missing golden is written (\"new golden written\")" },
    { "--update-goldens", NULL, CO_FLAG, CO_MARK, 0, F(update_goldens), 0, NULL, CMD_RUN, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "write the goldens instead of comparing" },
    { "--ci", NULL, CO_FLAG, CO_MARK, 0, F(ci), 0, NULL, CMD_RUN, PTYS, 0, 0, NULL, 0, "pty options (docs/pty.md)",
      "a missing golden fails the run instead (also in a CI job:\n"
      "CI, JENKINS_URL, GITLAB_CI, GITHUB_ACTIONS, ... set)" },
    { "--no-normalize-goldens", NULL, CO_FLAG, CO_MARK, 0, F(raw_goldens), 0, NULL, CMD_RUN, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "keep the workspace path and the host name in goldens\n"
                                   "(by default both become <workspace> and <host> placeholders)" },
    { "--cast", NULL, CO_STR, CO_MARK, CV_FILE, F(cast), 0, "FILE", CMD_RUN, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "record the session as asciicast v2" },
    { "--cells", NULL, CO_FLAG, CO_MARK, 0, F(cells), 0, NULL, CMD_RUN | CMD_SESSION, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "snapshots and observations carry cells with their style" },
    { "--color-names", NULL, CO_CHOICE, CO_MARK, 0, F(color_names), 0, "NAMES", CMD_RUN | CMD_SESSION, PTYS, 0, 0,
      "data-model|ptybox", 0, "pty options (docs/pty.md)",
      "the cells' indexed colours: data-model (the default) writes\n"
      "ansi_16/ansi_256, ptybox writes ansi16/ansi256 (docs/tui-use.md)" },
    { "--cancel-key", NULL, CO_STR, CO_MARK, 0, F(cancel_key), 0, "KEY", CMD_RUN, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "the key userCancelSession presses (default Ctrl+C)" },
    { "--type-delay", NULL, CO_CALL, CO_MARK, 0, 0, 0, "MS", CMD_RUN, PTYS, 0, 0, NULL, O_TYPE_DELAY,
      "pty options (docs/pty.md)", "type text one character at a time, MS apart (0-60000)" },
    { "--keep-workspace", NULL, CO_FLAG, CO_MARK, 0, F(keep_ws), 0, NULL, CMD_RUN, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "leave the repo.init workspace behind" },
    { "--data-model-exit", NULL, CO_FLAG, CO_MARK, 0, F(dm_exit), 0, NULL, CMD_RUN, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "exit with the tui-use data model's status (0-12)" },
    { "--explain-policy", NULL, CO_FLAG, CO_MARK, 0, F(explain), 0, NULL, CMD_RUN | CMD_SESSION, PTYS, 0, 0, NULL, 0,
      "pty options (docs/pty.md)", "print what the policy enforces and how (the sandbox), or why\n"
                                   "it is refused, and run nothing (--json: one JSON object)" },
    { "--policy", NULL, CO_STR, CO_MARK | CO_NONEMPTY, CV_FILE, F(policy_file), 0, "FILE", CMD_RUN | CMD_SESSION, PTYS,
      0, 0, NULL, 0, "policy options (run -t pty, driver, exec; docs/driver.md)",
      "a tui-use Policy (policy_version 4) instead of the secure\n"
      "default (sandbox on, no network, only CMD executable);\n"
      "run -t pty: its fields replace the scenario's policy's" },
    { "--no-sandbox", NULL, CO_FLAG, CO_MARK, 0, F(no_sandbox), 0, NULL, CMD_RUN | CMD_SESSION, PTYS, 0, 0, NULL, 0,
      "policy options (run -t pty, driver, exec; docs/driver.md)", "run without the sandbox (with --ack-unsafe-sandbox)" },
    { "--ack-unsafe-sandbox", NULL, CO_FLAG, CO_MARK, 0, F(ack_sandbox), 0, NULL, CMD_RUN | CMD_SESSION, PTYS, 0, 0,
      NULL, 0, "policy options (run -t pty, driver, exec; docs/driver.md)", "acknowledge --no-sandbox" },
    { "--enable-network", NULL, CO_FLAG, CO_MARK, 0, F(enable_network), 0, NULL, CMD_RUN | CMD_SESSION, PTYS, 0, 0, NULL,
      0, "policy options (run -t pty, driver, exec; docs/driver.md)", "allow the network (with --ack-unsafe-network)" },
    { "--ack-unsafe-network", NULL, CO_FLAG, CO_MARK, 0, F(ack_network), 0, NULL, CMD_RUN | CMD_SESSION, PTYS, 0, 0,
      NULL, 0, "policy options (run -t pty, driver, exec; docs/driver.md)", "acknowledge --enable-network" },
    { "--ack-unsafe-write", NULL, CO_FLAG, CO_MARK, 0, F(ack_write), 0, NULL, CMD_RUN | CMD_SESSION, PTYS, 0, 0, NULL, 0,
      "policy options (run -t pty, driver, exec; docs/driver.md)", "acknowledge the policy's fs.allowed_write" },

    /* driver and exec */
    { "--stdio", NULL, CO_FLAG, 0, 0, F(stdio), 0, NULL, CMD_DRIVER, 0, 0, 0, NULL, 0, "session options",
      "requests on stdin, responses on stdout (the only transport)" },
    { "--rows", NULL, CO_UINT, 0, 0, F(rows), 0, "N", CMD_SESSION, 0, 1, 500, NULL, 0, "session options",
      "the terminal's rows (default 24)" },
    { "--cols", NULL, CO_UINT, 0, 0, F(cols), 0, "N", CMD_SESSION, 0, 1, 500, NULL, 0, "session options",
      "the terminal's columns (default 80)" },
    { "--cwd", NULL, CO_STR, CO_NONEMPTY, CV_DIR, F(cwd), 0, "DIR", CMD_SESSION, 0, 0, 0, NULL, 0, "session options",
      "the program's working folder" },

    /* replay */
    { "--strict", NULL, CO_FLAG, 0, 0, F(strict), 0, NULL, CMD_REPLAY, 0, 0, 0, NULL, 0,
      "replay options (docs/driver.md, Replay)", "no normalization: compare exactly" },
    { "--normalize", NULL, CO_LIST, CO_NONEMPTY, 0, LIST(normalize), "F", CMD_REPLAY, 0, 0, 0, NULL, 0,
      "replay options (docs/driver.md, Replay)",
      "apply filter F (snapshot_id, run_id, run_timestamps,\n"
      "step_timestamps, observation_timestamp, session_id,\n"
      "events), all or none; repeatable (default: the\nrecording's normalization.json)" },
    { "--require-events", NULL, CO_FLAG, 0, 0, F(require_events), 0, NULL, CMD_REPLAY, 0, 0, 0, NULL, 0,
      "replay options (docs/driver.md, Replay)", "fail when the recording has no events.jsonl" },
    { "--require-checksums", NULL, CO_FLAG, 0, 0, F(require_checksums), 0, NULL, CMD_REPLAY, 0, 0, 0, NULL, 0,
      "replay options (docs/driver.md, Replay)", "fail when the recording has no checksums.json" },
    { "--artifacts", NULL, CO_STR, 0, CV_DIR, F(artifacts), 0, "DIR", CMD_REPLAY | CMD_REPLAY_REPORT | CMD_TRACE, 0, 0, 0,
      NULL, 0,
      "replay options (docs/driver.md, Replay)", "the recording (as the DIR operand)" },

    /* serve */
    { "--listen", NULL, CO_CALL, 0, 0, 0, 0, "ADDR:PORT", CMD_SERVE, HTTP, 0, 0, NULL, O_LISTEN,
      "serve options (docs/serve-llm.md)",
      "where to listen (default 127.0.0.1:8089, harness 8080, rest\n"
      "38180; PORT 0 = any free port; the address is printed on stdout)" },
    { "--speed", NULL, CO_SPEED, 0, 0, F(speed), 0, "X", CMD_SERVE | CMD_MOCKAGENT, 0, 0, 0, NULL, 0,
      "serve options (docs/serve-llm.md)", "multiply every scripted time by X (default 1; 0 = at once)" },
    { "--scenario-speed", NULL, CO_SPEED, 0, 0, F(speed), 0, "X", CMD_SERVE, 0, 0, 0, NULL, 0,
      "serve options (docs/serve-llm.md)", "as --speed (the harness's spelling)" },
    { "--workspace", NULL, CO_STR, CO_NONEMPTY, CV_DIR, F(workspace), 0, "DIR", CMD_SERVE | CMD_AGENTS, S_LLM, 0, 0, NULL, 0,
      "serve options (docs/serve-llm.md)", "resolve assert paths in DIR (default: the current directory)" },
    { "--agent", NULL, CO_STR, CO_NONEMPTY, CV_LISTED, F(agent), 0, "NAME|FILE", CMD_SERVE | CMD_MOCKAGENT, S_LLM, 0, 0, NULL,
      0, "serve options (docs/serve-llm.md)",
      "the agent profile whose tool vocabulary to speak (serve llm:\n"
      "also 'auto', detected from the tools the agent declares)" },
    { "--strict-tools", NULL, CO_FLAG, 0, 0, F(strict_tools), 0, NULL, CMD_SERVE, S_LLM, 0, 0, NULL, 0,
      "serve options (docs/serve-llm.md)", "reject a request whose tool definitions lack a tool the\n"
                                           "scenario is about to call (400; counts as a failure)" },
    { "--loop", NULL, CO_FLAG, 0, 0, F(loop), 0, NULL, CMD_SERVE, S_LLM, 0, 0, NULL, 0, "serve options (docs/serve-llm.md)",
      "a session that has received every response starts over" },
    { "--quiet", NULL, CO_FLAG, 0, 0, F(quiet), 0, NULL, CMD_SERVE, 0, 0, 0, NULL, 0, "serve options (docs/serve-llm.md)",
      "no per-request log lines (the summary is still printed)" },
    { "--log-format", NULL, CO_CHOICE, 0, 0, F(log_format), 0, "FORMAT", CMD_SERVE, S_LLM, 0, 0, "text|json", 0,
      "serve options (docs/serve-llm.md)", "text (the default), or json: a JSON object per line, one\nper request "
                                           "(peer, method, target, status, answer)" },
    { "--max-body", NULL, CO_SIZE, 0, 0, F(max_body), 0, "BYTES", CMD_SERVE, HTTP, 1, 4294967296ULL, NULL, 0,
      "serve options (docs/serve-llm.md)", "largest request body (default 16777216; 413 above)" },
    { "--max-connections", NULL, CO_UINT, 0, 0, F(max_conns), 0, "N", CMD_SERVE, HTTP, 1, 65536, NULL, 0,
      "serve options (docs/serve-llm.md)", "simultaneous connections (default 4096, within the file\n"
                                           "limit); when full, the longest-idle keep-alive one is closed,\nelse 503" },
    { "--header-timeout", NULL, CO_UINT, 0, 0, F(head_timeout_ms), 0, "MS", CMD_SERVE, HTTP, 1, MS_MAX, NULL, 0,
      "serve options (docs/serve-llm.md)", "a request head must arrive within MS of its first byte\n"
                                           "(default 10000; 408 after)" },
    { "--idle-timeout", NULL, CO_UINT, 0, 0, F(idle_timeout_ms), 0, "MS", CMD_SERVE, HTTP, 1, MS_MAX, NULL, 0,
      "serve options (docs/serve-llm.md)", "close a connection with nothing in flight after MS (default\n15000)" },
    { "--timeout", NULL, CO_UINT, 0, 0, F(timeout_ms), 0, "MS", CMD_SERVE, HTTP, 1, MS_MAX, NULL, 0,
      "serve options (docs/serve-llm.md)", "close a stalled request body or answer after MS (default 60000)" },
    { "--client-timeout", NULL, CO_UINT, 0, 0, F(client_timeout_ms), 0, "MS", CMD_SERVE, S_ACP, 1, MS_MAX, NULL, 0,
      "acp options (docs/serve-acp.md; also --speed, --quiet)",
      "a client call unanswered after MS is a failed check\n(default 30000)" },
    { "--tool-timeout", NULL, CO_UINT, 0, 0, F(tool_timeout_ms), 0, "MS", CMD_SERVE, S_ACP, 1, MS_MAX, NULL, 0,
      "acp options (docs/serve-acp.md; also --speed, --quiet)",
      "a runCmd in the client's terminal without args.timeout is\nkilled after MS (default 600000)" },
    { "--passthrough", NULL, CO_STR, CO_NONEMPTY, 0, F(passthrough), 0, "PROGRAM", CMD_SERVE, S_ACP, 0, 0, NULL, 0,
      "acp options (docs/serve-acp.md; also --speed, --quiet)",
      "passthrough: a runCmd's terminal runs PROGRAM\nshow-sandbox-execution CMD --id TOOLCALLID (Agent Harbor: ah)" },
    { "--heartbeat", NULL, CO_UINT, 0, 0, F(heartbeat_ms), 0, "MS", CMD_SERVE, S_HARNESS, 1, MS_MAX, NULL, 0,
      "harness and rest options (docs/serve-harness.md, docs/serve-rest.md)",
      "harness: a ': heartbeat' comment to every subscriber every MS\n(default 30000)" },
    { "--keepalive", NULL, CO_UINT, 0, 0, F(keepalive_ms), 0, "MS", CMD_SERVE, S_REST, 1, MS_MAX, NULL, 0,
      "harness and rest options (docs/serve-harness.md, docs/serve-rest.md)",
      "rest: a ': keep-alive' comment to every subscriber every MS\n(default 15000)" },
    { "--wall-clock", NULL, CO_FLAG, 0, 0, F(wall_clock), 0, NULL, CMD_SERVE, S_HARNESS | S_REST, 0, 0, NULL, 0,
      "harness and rest options (docs/serve-harness.md, docs/serve-rest.md)",
      "timestamps in Unix seconds now (default: the scenario's\nclock, the same on every run)" },
    { "--rest-listen", NULL, CO_CALL, 0, 0, 0, 0, "ADDR:PORT", CMD_SERVE, 0, 0, 0, NULL, O_REST_LISTEN,
      "several HTTP servers in one process (serve llm+rest, rest+harness, ...)",
      "the rest server's (default 127.0.0.1:38180); --listen is the llm's" },
    { "--harness-listen", NULL, CO_CALL, 0, 0, 0, 0, "ADDR:PORT", CMD_SERVE, 0, 0, 0, NULL, O_HARNESS_LISTEN,
      "several HTTP servers in one process (serve llm+rest, rest+harness, ...)",
      "the harness server's (default 127.0.0.1:8080)" },

    /* the mock agent */
    { "--cwd", NULL, CO_STR, CO_NONEMPTY, CV_DIR, F(cwd), 0, "DIR", CMD_MOCKAGENT, 0, 0, 0, NULL, 0,
      "mock agent options (docs/mock-agent.md)", "the work folder the tools run in (default: the current one)" },
    { "--checkpoint-cmd", NULL, CO_STR, CO_NONEMPTY, CV_CMD, F(checkpoint_cmd), 0, "CMD", CMD_MOCKAGENT, 0, 0, 0, NULL,
      0, "mock agent options (docs/mock-agent.md)",
      "run 'sh -c CMD' in it after each tool call and edit; a\nfailing one is a failed check" },
    { "--timeout", NULL, CO_UINT, 0, 0, F(timeout_ms), 0, "MS", CMD_MOCKAGENT, 0, 1, MS_MAX, NULL, 0,
      "mock agent options (docs/mock-agent.md)", "a runCmd's timeout when it gives none (default 120000)" },
    { "--color", NULL, CO_CHOICE, 0, 0, F(color), 0, "WHEN", CMD_MOCKAGENT, 0, 0, 0, "auto|always|never", 0,
      "mock agent options (docs/mock-agent.md)",
      "auto (the default: on a terminal; NO_COLOR, TERM=dumb,\nFORCE_COLOR and CLICOLOR_FORCE heeded as by scc), always,\nnever" },
    { "--stdin-prompts", NULL, CO_FLAG, 0, 0, F(stdin_prompts), 0, NULL, CMD_MOCKAGENT, 0, 0, 0, NULL, 0,
      "mock agent options (docs/mock-agent.md)",
      "each userInputs waits for its prompt as a line on stdin and\nchecks it is the scripted text" },

    /* the others */
    { "--json", NULL, CO_FLAG, 0, 0, F(json), 0, NULL,
      CMD_VERIFY | CMD_INFO | CMD_LS | CMD_AGENTS | CMD_MOCKAGENT | CMD_DATA_MODEL | CMD_TAPE | CMD_PROTOCOL_HELP, 0, 0,
      0, NULL, 0,
      "output", "JSON output, one object per line" },
    { "--files", NULL, CO_FLAG, 0, 0, F(files), 0, NULL, CMD_LS, 0, 0, 0, NULL, 0, "output",
      "list each scenario's embedded files" },
    { "--directory", "-C", CO_STR, CO_NONEMPTY | CO_ATTACH, CV_DIR, F(dir), 0, "DIR", CMD_EXTRACT, 0, 0, 0, NULL, 0,
      "output", "where to write" },
    { "--no-lines", NULL, CO_FLAG, 0, 0, F(no_lines), 0, NULL, CMD_DIS, 0, 0, 0, NULL, 0, "output",
      "leave out source line:col" },
    { "--merge", NULL, CO_FLAG, 0, 0, F(merge), 0, NULL, CMD_REPORT, 0, 0, 0, NULL, 0, "output",
      "merge the shards' JUnit reports or --report folders into the\none a single run writes (docs/ci.md)" },
};
#undef F
#undef LIST

static const CoName COMMANDS[] = {
    { "run", CMD_RUN, "run [options] [selection] FILE.scb|FILE.scp [-- CMD ARGS...]",
      "play the scenarios; the sim target prints one JSON event\n"
      "per line (docs/events.md); a pack or a selection adds a\n"
      "{\"kind\":\"scenario\"} line before each and a summary",
      "needs --target %s" },
    { "verify", CMD_VERIFY, "verify [--json] FILE...", "load and verify only; prints 'FILE: ok' for each good file",
      NULL },
    { "info", CMD_INFO, "info [--json] [--scenario NAME] FILE",
      "header and metadata (of one scenario with --scenario)", NULL },
    { "dis", CMD_DIS, "dis [--no-lines] [selection] FILE", "disassembly listing, with source lines when present",
      NULL },
    { "ls", CMD_LS, "ls [--json] [--files] [selection] FILE", "list the scenarios", NULL },
    { "extract", CMD_EXTRACT, "extract [selection] -C DIR FILE.scp",
      "write a pack's scenarios and their files into -C DIR", NULL },
    { "serve", CMD_SERVE,
      "serve llm [serve options] FILE...\n"
      "serve acp [acp options] FILE...\n"
      "serve harness [harness options] FILE...\n"
      "serve rest [rest options] FILE...\n"
      "serve llm+rest+harness [options] FILE...",
      "serve the scenarios: llm, mock OpenAI/Anthropic/Gemini APIs\n"
      "(docs/serve-llm.md); acp, an ACP agent on stdin/stdout for the\n"
      "client under test (docs/serve-acp.md); harness, the event server\n"
      "a terminal UI watches (docs/serve-harness.md); rest, the Agent\n"
      "Harbor REST API, sessions as SSE (docs/serve-rest.md)",
      "is an option of serve %s" },
    { "agent", CMD_MOCKAGENT, "agent [--cwd DIR] [--checkpoint-cmd CMD] [options] [selection] FILE",
      "the mock agent: prints the scenario's responses and executes\n"
      "its tool calls and edits for real in a work folder, checking\n"
      "each result; exit 1 when one differs (docs/mock-agent.md)",
      NULL },
    { "agents", CMD_AGENTS, "agents [--json] [list | show NAME | map NAME TOOL ARGS | unmap NAME TOOL ARGS]",
      "the agent profiles: list, show NAME (its JSON), map NAME TOOL\n"
      "ARGS (a scenario call as the agent's), unmap NAME TOOL ARGS\n"
      "(an agent's call as the scenario's) (docs/real-agents.md)",
      NULL },
    { "report", CMD_REPORT,
      "report --merge -o OUT.xml JUNIT.xml...\n"
      "report --merge -o OUT_DIR REPORT_DIR...\n"
      "report [-o OUT.html] FILE.scb|FILE.scp [--scenario NAME]",
      "--merge: the JUnit reports (or --report folders) of a suite's\n"
      "shards as the one report a single run writes (docs/ci.md);\n"
      "else the compiled schedule as an HTML page (as scc -l --html)",
      NULL },
    { "tape", CMD_TAPE, "tape check|ls|key|add ...",
      "tapes of recorded replies: check TAPE..., ls [--json] TAPE,\n"
      "key KIND REQUEST, add TAPE KIND REQUEST REPLY (docs/tape.md)",
      NULL },
    { "driver", CMD_DRIVER, "driver --stdio --json [policy options] -- CMD ARGS...",
      "drive CMD in a terminal: one JSON request per line on stdin\n"
      "(key, text, resize, wait, observe, terminate), one JSON\n"
      "response per line on stdout; exits with the tui-use data\n"
      "model's statuses 0-12 (docs/driver.md)",
      NULL },
    { "exec", CMD_EXEC, "exec [--json] [policy options] -- CMD ARGS...",
      "run CMD once in a terminal under the policy; print the\nRunResult (docs/driver.md)", NULL },
    { "replay", CMD_REPLAY,
      "replay [--json] [--strict | --normalize F...] [--require-events] [--require-checksums] DIR",
      "play a recorded PTY run (its --artifacts DIR) again and compare\n"
      "the artifacts after normalization; exit 11 and the first\n"
      "difference when they differ (docs/driver.md, Replay)",
      NULL },
    { "replay-report", CMD_REPLAY_REPORT, "replay-report [--json] DIR",
      "the latest replay's summary, without playing", NULL },
    { "trace", CMD_TRACE, "trace [--artifacts] DIR [-o FILE]",
      "a run's artifacts (run -t pty, driver, exec --artifacts) as one\n"
      "self-contained HTML page: the run, its steps and every snapshot\n"
      "drawn (default FILE: trace.html; ptybox's trace)", NULL },
    { "protocol-help", CMD_PROTOCOL_HELP, "protocol-help [--json]",
      "the driver protocol for a program or a model: versions,\n"
      "commands, actions, conditions, schemas, error codes", NULL },
    { "completions", CMD_COMPLETIONS, "completions bash|zsh|fish",
      "the shell's completion script (as --generate=SHELL)", NULL },
    { "scenario", CMD_SCENARIO,
      "scenario run FILE [--live] [--env-file F] [--logs DIR] [run -t aut options]\n"
      "scenario matrix CONFIG [--dry-run] [--parallel N] [--filter PATTERN] [options]",
      "ElizaOS's spellings: run -t aut on a scenario or a matrix;\n"
      "--parallel N is -j N, the _logs_ files go to ./_logs_ unless\n"
      "--logs DIR says (docs/eliza.md, \"ElizaOS's command line\")",
      "needs --target %s" },
};

static const CoName SCOPES[] = {
    { "sim", T_SIM, NULL, "the simulation: the events as JSON lines", NULL },
    { "pty", T_PTY, NULL, "a real program in a pseudo-terminal", NULL },
    { "agent", T_AGENT, NULL, "a real coding agent against the scripted model", NULL },
    { "aut", T_AUT, NULL, "an ElizaOS or Yao suite against the agent under test", NULL },
    { "llm", S_LLM, NULL, "mock OpenAI/Anthropic/Gemini APIs", NULL },
    { "acp", S_ACP, NULL, "a mock ACP agent on stdio", NULL },
    { "harness", S_HARNESS, NULL, "the harness event server", NULL },
    { "rest", S_REST, NULL, "the Agent Harbor REST API", NULL },
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
            return co_usage(&scvm_table, "--shard auto: %s is set but %s is not (%s)", CI[k].index, CI[k].total,
                            CI[k].system);
        if (!cli_parse_uint(iv, 1000000, &i) || !cli_parse_uint(tv, 1000000, &n) || n < 1 || i < CI[k].base ||
            i - CI[k].base >= n)
            return co_usage(&scvm_table, "--shard auto: %s=%s and %s=%s are not a shard (%s: index %s, 0 < total)",
                            CI[k].index, iv, CI[k].total, tv, CI[k].system, CI[k].base ? "1..total" : "0..total-1");
        o->shard_i = i - CI[k].base + 1;
        o->shard_n = n;
        return 0;
    }
    return co_usage(&scvm_table, "%s", "--shard auto: no CI shard variables are set (SCVM_SHARD_INDEX/_TOTAL, GitLab "
                                       "CI_NODE_INDEX/_TOTAL, CircleCI CIRCLE_NODE_INDEX/_TOTAL, Buildkite "
                                       "BUILDKITE_PARALLEL_JOB/_COUNT, JOB_COMPLETION_INDEX with SCVM_SHARD_TOTAL)");
}

static int scvm_call(void *op, const CoOpt *row, const char *a, const char *v)
{
    Opts *o = op;
    unsigned long long n;
    switch (row->id) {
    case O_SHARD: {
        if (strcmp(v, "auto") == 0)
            return shard_auto(o);
        const char *slash = strchr(v, '/');
        char num[32];
        if (!slash || (size_t)(slash - v) >= sizeof num)
            return co_usage(&scvm_table, "invalid shard '%s' (expected I/N, 1 <= I <= N)", v);
        memcpy(num, v, (size_t)(slash - v));
        num[slash - v] = 0;
        if (!cli_parse_uint(num, 1000000, &o->shard_i) || !cli_parse_uint(slash + 1, 1000000, &o->shard_n) ||
            o->shard_i < 1 || o->shard_i > o->shard_n)
            return co_usage(&scvm_table, "invalid shard '%s' (expected I/N, 1 <= I <= N)", v);
        return 0;
    }
    case O_DEFINE:
        if (!*v || *v == '=')
            return co_usage(&scvm_table, "bad -D '%s' (expected NAME[=VALUE])", v);
        o->defines[o->n_defines++] = v;
        return 0;
    case O_TYPE_DELAY:
        if (!cli_parse_u64(v, 60000, &n))
            return co_usage(&scvm_table, "invalid --type-delay '%s' (milliseconds, 0-60000)", v);
        o->type_delay_ms = (unsigned)n;
        o->type_delay_set = true;
        return 0;
    case O_CASE_TIMEOUT: {
        /* a Go duration (Yao's --timeout 5m), or milliseconds */
        double total = 0;
        const char *q = v;
        bool ok = *q != 0;
        if (ok && cli_parse_u64(v, MS_MAX, &n)) {
            total = (double)n;
        } else {
            while (ok && *q) {
                char *end;
                double x = strtod(q, &end);
                ok = end != q && x >= 0;
                q = end;
                double unit = !strncmp(q, "ms", 2) ? 1 : *q == 'h' ? 3600000 : *q == 'm' ? 60000 : *q == 's' ? 1000 : 0;
                ok = ok && unit > 0;
                q += !strncmp(q, "ms", 2) ? 2 : 1;
                total += x * unit;
            }
        }
        if (!ok || total < 1 || total > MS_MAX)
            return co_usage(&scvm_table, "invalid --timeout '%s' (a Go duration: 30s, 2m30s, 1h; or milliseconds)", v);
        o->case_timeout_ms = (unsigned)total;
        return 0;
    }
    case O_LISTEN:
        if (!parse_listen(v, o->host, sizeof o->host, o->port, sizeof o->port))
            return co_usage(&scvm_table, "invalid --listen '%s' (expected ADDR:PORT)", v);
        o->listen_set = true;
        return 0;
    case O_REST_LISTEN:
    case O_HARNESS_LISTEN: {
        bool r = row->id == O_REST_LISTEN;
        if (!parse_listen(v, r ? o->rest_host : o->harness_host, sizeof o->rest_host, r ? o->rest_port : o->harness_port,
                          sizeof o->rest_port))
            return co_usage(&scvm_table, "invalid %s '%s' (expected ADDR:PORT)", a, v);
        *(r ? &o->rest_set : &o->harness_set) = true;
        return 0;
    }
    }
    return 0;
}

char scvm_usage[4096];

/* How the commands' arguments complete in a shell (common/cliopt.h). */
static const CoArgs ARGS[] = {
    /* the commands that take sources too (docs/scvm.md, "Sources, not only compiled files") */
    { CMD_RUN | CMD_INFO | CMD_LS | CMD_MOCKAGENT, NULL, "scb|scp|yaml|yml|json|jsonl" },
    { CMD_SERVE, "llm|acp|harness|rest", "scb|scp|yaml|yml|json|jsonl" },
    { CMD_VERIFY | CMD_DIS | CMD_EXTRACT | CMD_REPORT, NULL, "scb|scp" },
    { CMD_AGENTS, "list|show|map|unmap", "" },
    { CMD_TAPE, "check|ls|key|add", NULL },
    { CMD_REPLAY | CMD_REPLAY_REPORT | CMD_TRACE, NULL, "/" },
    { CMD_COMPLETIONS, "bash|zsh|fish", "" },
};

const CoTable scvm_table = {
    .prog = "scvm",
    .summary = "verify and play compiled agent-testing scenarios",
    .description = "Loads and verifies compiled scenarios (.scb) and packs (.scp) and plays them.\n"
                   "A .scb is a suite of one scenario; a pack a suite of many.\n",
    .cmds = COMMANDS,
    .n_cmds = sizeof COMMANDS / sizeof COMMANDS[0],
    .scopes = SCOPES,
    .n_scopes = sizeof SCOPES / sizeof SCOPES[0],
    .opts = ROWS,
    .n_opts = sizeof ROWS / sizeof ROWS[0],
    .call = scvm_call,
    .on_error = scvm_usage,
    .after_statuses = "  128+N  run -t pty|agent|aut, agent, driver, exec: interrupted by signal N (130 SIGINT, 143 "
                      "SIGTERM, 129 SIGHUP)\n",
    .version = SCC_VERSION,
    .args = ARGS,
    .n_args = sizeof ARGS / sizeof ARGS[0],
    .list_cmd = "agents",
    .list_ext = "json",
};

void scvm_usage_init(unsigned cmd)
{
    FILE *f = fmemopen(scvm_usage, sizeof scvm_usage - 1, "w");
    if (!f)
        return;
    bool first = true;
    const char *name = NULL;
    for (size_t k = 0; k < scvm_table.n_cmds; k++) {
        if (cmd && scvm_table.cmds[k].bit != cmd)
            continue;
        name = scvm_table.cmds[k].name;
        for (const char *p = scvm_table.cmds[k].synopsis; *p; first = false) {
            size_t len = strcspn(p, "\n");
            fprintf(f, "%s scvm %.*s\n", first ? "usage:" : "      ", (int)len, p);
            p += len + (p[len] == '\n');
        }
    }
    if (cmd && name)
        fprintf(f, "Try 'scvm %s --help'.\n", name);
    else
        fputs("       scvm --help | --version\n", f);
    fclose(f);
}
