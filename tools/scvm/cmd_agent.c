/* SPDX-License-Identifier: MIT */
/* cmd_agent.c - `scvm run -t agent --agent NAME FILE`: one scenario
** against a real coding agent, with one verdict (docs/real-agents.md);
** and `scvm agents`, the shipped profiles.
**
** The orchestration (the mock LLM server on its thread, the agent in a
** PTY, the verdict) is runtime/agent/agent_run.h; this file turns the
** command line into its options and plays the timeline on its target. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/agent/agent_run.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/run/run_pool.h"
#include "vm/vm.h"
#include "cli.h"
#include "scvm.h"

int scvm_agent_play(const Opts *o, const Suite *suite, uint32_t idx, const char *path, const char *dir,
                    const char *goldens, const char *artifacts, FILE *out, AgentOutcome *res)
{
    memset(res, 0, sizeof *res);
    if (!o->agent)
        return cli_usage(scvm_usage, "%s", "-t agent needs --agent NAME (claude-code, codex, gemini-cli, qwen-code, "
                                           "opencode) or a profile file");
    char cast[8192];
    AgentRunOpts ao = {
        .agent = o->agent, .agent_bin = o->agent_bin, .command = o->command, .interactive = o->interactive,
        .strict_tools = o->strict_tools, .speed = o->speed, .turn_timeout_ms = o->turn_timeout_ms,
        .type_delay_ms = o->type_delay_ms, .type_delay_set = o->type_delay_set, .path = path,
        .scenario_dir = dir, .goldens = goldens, .artifacts = artifacts,
        .cast = scvm_cast_of(o, artifacts, cast, sizeof cast), .cancel_key = o->cancel_key,
        .update_goldens = o->update_goldens, .raw_goldens = o->raw_goldens, .cells = o->cells, .keep_ws = o->keep_ws,
        .ci = o->ci || scvm_ci_env(), .dm_exit = o->dm_exit, .events = out, .diag = stderr,
    };
    AgentRun *ar;
    int st = agent_run_start(&ao, suite, idx, &ar);
    if (!st) {
        RtTarget *t = agent_run_target(ar);
        VmOpts vo = { .speed = o->speed };
        st = vm_run(suite_entry(suite, idx)->prog, t, rt_pty_clock(t), &vo);
    }
    return agent_run_finish(ar, st, res);
}

int scvm_run_agent(const Opts *o, const char *path, const Suite *suite, uint32_t idx)
{
    char dir[4096], goldens[8192];
    FILE *out;
    int st = scvm_one_session(o, path, suite_entry(suite, idx)->prog, dir, sizeof dir, goldens, sizeof goldens, &out);
    if (st)
        return st;
    AgentOutcome r;
    uint64_t t0 = run_now_ms();
    st = scvm_agent_play(o, suite, idx, path, dir, goldens, o->artifacts, out, &r);
    if (o->junit && r.agent[0]) {
        char props[512];
        snprintf(props, sizeof props, "<property name=\"agent\" value=\"%s\"/>", r.agent);
        int je = scvm_junit_one(o, suite, idx, st, run_now_ms() - t0, &r.goldens, r.why[0] ? r.why : NULL, props);
        if (je && !st)
            st = je;
    }
    if (out != stdout && fclose(out) != 0 && !st)
        st = SC_IO;
    return st;
}

/* ---- scvm agents ---- */

static int agents_map(const Opts *o, bool unmap)
{
    if (o->n_ops != 4)
        return cli_usage(scvm_usage, "agents %s: expected NAME TOOL ARGS (ARGS: a JSON object)",
                         unmap ? "unmap" : "map");
    char err[1024];
    AgentProfile *p = agent_profile_load(o->ops[1], err, sizeof err);
    if (!p) {
        fprintf(stderr, "scvm: %s\n", err);
        return SC_USAGE;
    }
    cJSON *args = cJSON_Parse(o->ops[3]);
    if (!cJSON_IsObject(args)) {
        fprintf(stderr, "scvm: agents %s: ARGS is not a JSON object: %s\n", unmap ? "unmap" : "map", o->ops[3]);
        cJSON_Delete(args);
        agent_profile_free(p);
        return SC_USAGE;
    }
    char cwd[4096];
    const char *ws = o->workspace ? o->workspace : getcwd(cwd, sizeof cwd);
    Buf name, out;
    buf_init(&name);
    buf_init(&out);
    int r = unmap ? agent_unmap_call(p, o->ops[2], args, ws, &name, &out)
                  : agent_map_call(p, o->ops[2], args, ws, &name, &out, err, sizeof err);
    int st = 0;
    if (r < 0) {
        fprintf(stderr, "scvm: %s\n", unmap ? "out of memory" : err);
        st = unmap ? SC_RUNTIME : SC_USAGE;
    } else if (r == 0) {
        fprintf(stderr, "scvm: agent profile '%s' %s '%s'; it is sent as written\n", agent_profile_name(p),
                unmap ? "maps no scenario tool to" : "does not map", o->ops[2]);
        st = SC_FAILED;
    } else {
        Buf q;
        JsonW w;
        jw_new_obj(&w, &q);
        jw_kstr(&w, "tool", (const char *)name.data, name.len);
        jw_kraw(&w, "args", (const char *)out.data, out.len);
        jw_end(&w);
        jw_nl(&w);
        fwrite(q.data, 1, q.len, stdout);
        buf_fini(&q);
    }
    buf_fini(&name);
    buf_fini(&out);
    cJSON_Delete(args);
    agent_profile_free(p);
    return st;
}

int scvm_agents(const Opts *o)
{
    const char *sub = o->n_ops ? o->ops[0] : "list";
    char err[1024];
    if (strcmp(sub, "list") == 0) {
        if (o->n_ops > 1)
            return cli_usage(scvm_usage, "%s", "agents list takes no operand");
        for (size_t i = 0; agent_profile_builtins[i]; i++) {
            AgentProfile *p = agent_profile_load(agent_profile_builtins[i], err, sizeof err);
            if (!p) {
                fprintf(stderr, "scvm: %s\n", err);
                return SC_USAGE;
            }
            const cJSON *pk = agent_profile_get(p, "package"), *v = agent_profile_get(p, "testedVersion"),
                        *d = agent_profile_get(p, "description");
            const char *pks = cJSON_IsString(pk) ? pk->valuestring : "", *vs = cJSON_IsString(v) ? v->valuestring : "";
            if (o->json) {
                Buf b;
                JsonW w;
                jw_new_obj(&w, &b);
                jw_kcstr(&w, "name", agent_profile_name(p));
                jw_kcstr(&w, "api", agent_api_name(agent_profile_api(p)));
                jw_kcstr(&w, "package", pks);
                jw_kcstr(&w, "testedVersion", vs);
                jw_kcstr(&w, "origin", agent_profile_origin(p));
                jw_kbool(&w, "headless", agent_profile_get(p, "headless") != NULL);
                jw_kbool(&w, "interactive", agent_profile_get(p, "interactive") != NULL);
                jw_end(&w);
                printf("%.*s\n", (int)b.len, (const char *)b.data);
                buf_fini(&b);
            } else {
                bool shipped = strncmp(agent_profile_origin(p), "built-in", 8) == 0;
                printf("%-12s %-17s %s@%s  %s%s%s%s\n", agent_profile_name(p), agent_api_name(agent_profile_api(p)),
                       pks, vs, cJSON_IsString(d) ? d->valuestring : "", shipped ? "" : "  (from ",
                       shipped ? "" : agent_profile_origin(p), shipped ? "" : ")");
            }
            agent_profile_free(p);
        }
        return 0;
    }
    if (strcmp(sub, "show") == 0) {
        if (o->n_ops != 2)
            return cli_usage(scvm_usage, "%s", "agents show NAME|FILE");
        AgentProfile *p = agent_profile_load(o->ops[1], err, sizeof err);
        if (!p) {
            fprintf(stderr, "scvm: %s\n", err);
            return SC_USAGE;
        }
        size_t len;
        const char *b = strncmp(agent_profile_origin(p), "built-in", 8) == 0 ? agent_profile_builtin(o->ops[1], &len)
                                                                             : NULL;
        if (b) {
            fwrite(b, 1, len, stdout);      /* the shipped file, as it is */
        } else {
            char *s = cJSON_Print(agent_profile_json(p));
            if (s)
                printf("%s\n", s);
            cJSON_free(s);
        }
        agent_profile_free(p);
        return 0;
    }
    if (strcmp(sub, "map") == 0 || strcmp(sub, "unmap") == 0)
        return agents_map(o, sub[0] == 'u');
    return cli_usage(scvm_usage, "agents: unknown subcommand '%s' (list, show, map, unmap)", sub);
}
