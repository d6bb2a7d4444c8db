/* SPDX-License-Identifier: MIT */
/* schema.c - the JSON Schemas of scc's input files (schema.h).
**
** Every key list, event name, enum and check type below is read from the
** table the front end itself checks against (fe_tables.h, lower.h's
** lower_top_key/lower_event, LW_TOOLS, agentcheck.def): a key added to a
** front end is in its schema with nothing else to write.  What the
** schemas add on their own is the shape a front end tests in code (this
** key is a string, that one is required), written once here per key; the
** schema test (tests/cli/schema_check.py) runs every accepted file and
** every schema-reason rejection of tests/errors against them, so a shape
** that drifts from the front end fails it.
**
** The schemas say what an editor can check while one types; rules a
** schema cannot express (an item with two events, an event in the wrong
** list, a path that must exist) stay scc --check's (docs/editors.md). */
#include "schema.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fe_tables.h"
#include "formats/agentcheck.h"
#include "lower.h"
#include "lower_int.h"

static const char *const NAMES[] = { "scenario", "tui-use", "tui-use-policy", "eliza", "yao", NULL };

const char *scc_schema_name(size_t i)
{
    return i < sizeof NAMES / sizeof NAMES[0] ? NAMES[i] : NULL;
}

/* ---- building blocks (cJSON records its own allocation failures: the
** final print returns NULL, and we report that) ---- */

static cJSON *typed(const char *type, const char *desc)
{
    cJSON *o = cJSON_CreateObject();
    if (type)
        cJSON_AddStringToObject(o, "type", type);
    if (desc)
        cJSON_AddStringToObject(o, "description", desc);
    return o;
}

static cJSON *str_list(const char *const *list)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; list[i]; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(list[i]));
    return a;
}

static cJSON *enum_of(const char *const *list, const char *desc)
{
    cJSON *o = typed("string", desc);
    cJSON_AddItemToObject(o, "enum", str_list(list));
    return o;
}

static cJSON *array_of(cJSON *items, const char *desc)
{
    cJSON *o = typed("array", desc);
    cJSON_AddItemToObject(o, "items", items);
    return o;
}

static cJSON *strings(const char *desc) { return array_of(typed("string", NULL), desc); }

/* {type: object, properties: one {} per key, additionalProperties: false}:
** the keys of a front end's list, to be refined with prop(). */
static cJSON *closed(const char *const *keys, const char *desc)
{
    cJSON *o = typed("object", desc);
    cJSON *p = cJSON_AddObjectToObject(o, "properties");
    for (size_t i = 0; keys[i]; i++)
        cJSON_AddItemToObject(p, keys[i], cJSON_CreateObject());
    cJSON_AddFalseToObject(o, "additionalProperties");
    return o;
}

/* Replaces key's schema in obj's properties (the key must be listed). */
static void prop(cJSON *obj, const char *key, cJSON *schema)
{
    cJSON *p = cJSON_GetObjectItemCaseSensitive(obj, "properties");
    if (cJSON_GetObjectItemCaseSensitive(p, key))
        cJSON_ReplaceItemInObjectCaseSensitive(p, key, schema);
    else
        cJSON_Delete(schema);   /* a key the front end dropped: its shape goes with it */
}

static void required(cJSON *obj, const char *const *keys)
{
    cJSON_AddItemToObject(obj, "required", str_list(keys));
}

static cJSON *any_of2(cJSON *a, cJSON *b, const char *desc)
{
    cJSON *o = typed(NULL, desc);
    cJSON *l = cJSON_AddArrayToObject(o, "anyOf");
    cJSON_AddItemToArray(l, a);
    cJSON_AddItemToArray(l, b);
    return o;
}

static cJSON *ref(const char *to) { cJSON *o = cJSON_CreateObject(); cJSON_AddStringToObject(o, "$ref", to); return o; }

static cJSON *root(const char *title, const char *desc)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "$schema", "http://json-schema.org/draft-07/schema#");
    cJSON_AddStringToObject(o, "title", title);
    cJSON_AddStringToObject(o, "description", desc);
    return o;
}

/* Moves body's members into r (r keeps its $schema, title, description). */
static cJSON *merged(cJSON *r, cJSON *body)
{
    cJSON *it = body->child;
    while (it) {
        cJSON *next = it->next;
        cJSON *m = cJSON_DetachItemViaPointer(body, it);
        if (!cJSON_GetObjectItemCaseSensitive(r, m->string))
            cJSON_AddItemToObject(r, m->string, m);
        else
            cJSON_Delete(m);
        it = next;
    }
    cJSON_Delete(body);
    return r;
}

/* ---- Scenario-Format (lower.c) ---- */

static const char RULES_HELP[] = "conditions over -D symbols that choose parts of the scenario (docs/rules.md)";

/* A timeline item (where: LOWER_IN_TIMELINE, _AGENT or _USER): a bare event
** name, or a mapping of one event key (the schema lists the keys that may
** stand; "exactly one" is scc's check) and its companions. */
static cJSON *sf_item(unsigned where, const char *desc)
{
    cJSON *o = typed("object", desc);
    cJSON *p = cJSON_AddObjectToObject(o, "properties");
    const char *help, *also;
    for (size_t i = 0; lower_event(i, &help, &also); i++) {
        if (!(lower_event_where(i) & where))
            continue;
        const char *name = lower_event(i, &help, &also);
        cJSON *ev = typed(NULL, help);
        if (strcmp(name, "agentActions") == 0)
            cJSON_AddStringToObject(ev, "$ref", "#/definitions/agentItems");
        else if (strcmp(name, "userActions") == 0)
            cJSON_AddStringToObject(ev, "$ref", "#/definitions/userItems");
        cJSON_AddItemToObject(p, name, ev);
    }
    if (where & (LOWER_IN_TIMELINE | LOWER_IN_AGENT))
        for (size_t i = 0; i < LW_N_TOOLS; i++)
            if (!cJSON_GetObjectItemCaseSensitive(p, LW_TOOLS[i].name))
                cJSON_AddItemToObject(p, LW_TOOLS[i].name,
                                      typed("object", "an agentToolUse of this tool, its arguments as the value"));
    for (size_t i = 0; LOWER_COMPANIONS[i]; i++)
        cJSON_AddItemToObject(p, LOWER_COMPANIONS[i], typed(NULL, "beside the event key"));
    cJSON_AddItemToObject(p, "rules", typed("array", RULES_HELP));
    cJSON_AddFalseToObject(o, "additionalProperties");
    cJSON_AddNumberToObject(o, "minProperties", 1);
    cJSON *bare = enum_of(LOWER_BARE_EVENTS, "an event without fields, by its name");
    return any_of2(bare, o, NULL);
}

static cJSON *schema_scenario(void)
{
    cJSON *r = root("Scenario-Format scenario", "An agent-testing scenario as scc reads it (docs/scenario.md); "
                                               "generated by scc --print-schema scenario");
    cJSON_AddStringToObject(r, "type", "object");
    cJSON *p = cJSON_AddObjectToObject(r, "properties");
    const char *help;
    for (size_t i = 0; lower_top_key(i, &help); i++) {
        const char *k = lower_top_key(i, &help);
        cJSON *s;
        if (strcmp(k, "timeline") == 0) {
            s = typed("array", help);
            cJSON_AddItemToObject(s, "items", ref("#/definitions/item"));
        } else if (strcmp(k, "name") == 0 || strcmp(k, "terminalRef") == 0 || strcmp(k, "initialPrompt") == 0) {
            s = typed("string", help);
        } else if (strcmp(k, "tags") == 0) {
            s = strings(help);
        } else if (strcmp(k, "clock") == 0) {
            s = enum_of((const char *const[]){ "spec", "reference", NULL }, help);
        } else if (strcmp(k, "compat") == 0 || strcmp(k, "repo") == 0 || strcmp(k, "ah") == 0 ||
                   strcmp(k, "server") == 0 || strcmp(k, "acp") == 0 || strcmp(k, "expect") == 0) {
            s = typed("object", help);
        } else {
            s = typed(NULL, help);
        }
        cJSON_AddItemToObject(p, k, s);
    }
    cJSON_AddItemToObject(p, "rules", typed("array", RULES_HELP));
    cJSON_AddItemToObject(r, "required", str_list((const char *const[]){ "name", NULL }));
    cJSON *d = cJSON_AddObjectToObject(r, "definitions");
    cJSON_AddItemToObject(d, "item", sf_item(LOWER_IN_TIMELINE, "a timeline event"));
    cJSON_AddItemToObject(d, "agentItems", array_of(sf_item(LOWER_IN_AGENT, "an agent event"), NULL));
    cJSON_AddItemToObject(d, "userItems", array_of(sf_item(LOWER_IN_USER, "a user event"), NULL));
    return r;
}

/* ---- tui-use (dialect_tuiuse.c) ---- */

static cJSON *nullable(const char *type, const char *desc)
{
    cJSON *o = typed(NULL, desc);
    cJSON *t = cJSON_AddArrayToObject(o, "type");
    cJSON_AddItemToArray(t, cJSON_CreateString(type));
    cJSON_AddItemToArray(t, cJSON_CreateString("null"));
    return o;
}

static cJSON *tu_policy(void)
{
    cJSON *o = closed(TU_POLICY_KEYS, "a ptybox policy (docs/tui-use.md)");
    cJSON *v = typed("integer", "the policy format's version");
    cJSON_AddNumberToObject(v, "const", TU_POLICY_VERSION);
    prop(o, "policy_version", v);
    prop(o, "sandbox", enum_of(TU_SANDBOXES, "the sandbox"));
    prop(o, "network", enum_of(TU_NETWORKS, "network access"));
    prop(o, "sandbox_unsafe_ack", typed("boolean", NULL));
    prop(o, "network_unsafe_ack", typed("boolean", NULL));
    prop(o, "fs_write_unsafe_ack", typed("boolean", NULL));
    prop(o, "fs_strict_write", typed("boolean", NULL));
    cJSON *fs = closed(TU_POLICY_FS_KEYS, "file system access");
    prop(fs, "allowed_read", strings(NULL));
    prop(fs, "allowed_write", strings(NULL));
    prop(fs, "working_dir", nullable("string", "an absolute path"));
    prop(o, "fs", fs);
    cJSON *ex = closed(TU_POLICY_EXEC_KEYS, "what may run");
    prop(ex, "allowed_executables", strings(NULL));
    prop(ex, "allow_shell", typed("boolean", NULL));
    prop(o, "exec", ex);
    cJSON *env = closed(TU_POLICY_ENV_KEYS, "the environment");
    prop(env, "inherit", typed("boolean", NULL));
    cJSON *set = typed("object", NULL);
    cJSON_AddItemToObject(set, "additionalProperties", typed("string", NULL));
    prop(env, "set", set);
    prop(o, "env", env);
    cJSON *bu = closed(TU_POLICY_BUDGET_KEYS, "limits");
    for (size_t i = 0; TU_POLICY_BUDGET_KEYS[i]; i++) {
        cJSON *n = typed("integer", NULL);
        cJSON_AddNumberToObject(n, "minimum", 0);
        prop(bu, TU_POLICY_BUDGET_KEYS[i], n);
    }
    prop(o, "budgets", bu);
    cJSON *ar = closed(TU_POLICY_ARTIFACT_KEYS, "artifacts");
    prop(ar, "enabled", typed("boolean", NULL));
    prop(ar, "overwrite", typed("boolean", NULL));
    prop(ar, "dir", nullable("string", "an absolute path"));
    prop(o, "artifacts", ar);
    cJSON *re = closed(TU_POLICY_REPLAY_KEYS, "replay");
    prop(re, "strict", typed("boolean", NULL));
    prop(re, "normalization_rules", nullable("array", NULL));
    prop(o, "replay", re);
    required(o, (const char *const[]){ "policy_version", NULL });
    return o;
}

static cJSON *schema_tuiuse(void)
{
    cJSON *r = root("tui-use scenario", "A tui-use (ptybox) scenario as scc reads it (docs/tui-use.md); "
                                       "generated by scc --print-schema tui-use");
    cJSON *o = closed(TU_TOP_KEYS, NULL);
    cJSON *v = typed("integer", "the scenario format's version");
    cJSON_AddNumberToObject(v, "const", TU_SCENARIO_VERSION);
    prop(o, "scenario_version", v);
    cJSON *m = closed(TU_META_KEYS, "the scenario's name and description");
    prop(m, "name", typed("string", NULL));
    prop(m, "description", nullable("string", NULL));
    required(m, (const char *const[]){ "name", NULL });
    prop(o, "metadata", m);
    cJSON *run = closed(TU_RUN_KEYS, "the program under test");
    prop(run, "command", typed("string", "an absolute path"));
    prop(run, "args", strings(NULL));
    prop(run, "cwd", nullable("string", "an absolute path"));
    cJSON *size = closed(TU_SIZE_KEYS, "the terminal's size");
    prop(size, "rows", typed("integer", NULL));
    prop(size, "cols", typed("integer", NULL));
    required(size, TU_SIZE_KEYS);
    prop(run, "initial_size", size);
    cJSON *pref = typed("object", "a policy file, by its path");
    cJSON *pp = cJSON_AddObjectToObject(pref, "properties");
    cJSON_AddItemToObject(pp, "path", typed("string", NULL));
    required(pref, (const char *const[]){ "path", NULL });
    cJSON_AddFalseToObject(pref, "additionalProperties");
    cJSON *pol = any_of2(pref, ref("#/definitions/policy"), "the policy: inline, or {path}");
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(pol, "anyOf"),
                         typed("string", "a policy path (the pre-rename schema; warned about)"));
    prop(run, "policy", pol);
    required(run, (const char *const[]){ "command", "args", "initial_size", "policy", NULL });
    prop(o, "run", run);
    cJSON *step = closed(TU_STEP_KEYS, "a step: an action and what to assert after it");
    prop(step, "id", typed("string", NULL));
    prop(step, "name", typed("string", NULL));
    cJSON *act = closed(TU_ACTION_KEYS, "what the step does");
    prop(act, "type", enum_of(TU_ACTION_TYPES, "the action's type"));
    required(act, (const char *const[]){ "type", NULL });
    prop(step, "action", act);
    prop(step, "assert", typed("array", "checks on the screen after the action"));
    prop(step, "timeout_ms", typed("integer", NULL));
    prop(step, "retries", typed("integer", NULL));
    required(step, (const char *const[]){ "id", "name", "action", "timeout_ms", "retries", NULL });
    prop(o, "steps", array_of(step, "the steps, in order"));
    required(o, TU_TOP_KEYS);
    cJSON *d = cJSON_AddObjectToObject(r, "definitions");
    cJSON_AddItemToObject(d, "policy", tu_policy());
    return merged(r, o);
}

static cJSON *schema_tuiuse_policy(void)
{
    cJSON *r = root("tui-use policy", "A ptybox policy file as scc reads it (docs/tui-use.md); "
                                     "generated by scc --print-schema tui-use-policy");
    return merged(r, tu_policy());
}

/* ---- ElizaOS and Yao (their check types: agentcheck.def) ---- */

static cJSON *check_types(AcDialect d, const char *desc)
{
    const char *names[AC__UNKNOWN + 1];
    ac_dialect_names(d, names, sizeof names / sizeof names[0]);
    return enum_of(names, desc);
}

static cJSON *schema_eliza(void)
{
    cJSON *r = root("ElizaOS scenario", "An ElizaOS scenario as scc reads it (docs/eliza.md); "
                                       "generated by scc --print-schema eliza");
    cJSON *o = closed(EZ_TOP_KEYS, NULL);
    prop(o, "name", typed("string", NULL));
    prop(o, "description", typed("string", NULL));
    cJSON *env = closed(EZ_ENVIRONMENT_KEYS, "where the scenario runs");
    prop(env, "type", enum_of((const char *const[]){ "local", NULL }, "ElizaOS's schema accepts only local"));
    required(env, EZ_ENVIRONMENT_KEYS);
    prop(o, "environment", env);
    cJSON *pl = closed(EZ_PLUGIN_KEYS, NULL);
    prop(pl, "name", typed("string", NULL));
    prop(pl, "version", typed("string", NULL));
    prop(pl, "enabled", typed("boolean", NULL));
    prop(pl, "config", typed("object", NULL));
    required(pl, (const char *const[]){ "name", NULL });
    prop(o, "plugins", array_of(any_of2(typed("string", "a plugin's name"), pl, NULL), "the plugins to load"));
    cJSON *setup = closed(EZ_SETUP_KEYS, "mocks and files before the run");
    cJSON *vfs = typed("object", "file path: content");
    cJSON_AddItemToObject(vfs, "additionalProperties", typed("string", NULL));
    prop(setup, "virtual_fs", vfs);
    cJSON *mock = closed(EZ_MOCK_KEYS, "a mocked service call and its answer");
    prop(mock, "service", typed("string", NULL));
    prop(mock, "method", typed("string", NULL));
    required(mock, (const char *const[]){ "method", "response", NULL });
    cJSON *mocks = nullable("array", NULL);
    cJSON_AddItemToObject(mocks, "items", mock);
    prop(setup, "mocks", mocks);
    prop(o, "setup", setup);
    cJSON *ev = typed("object", "an evaluation");
    cJSON *evp = cJSON_AddObjectToObject(ev, "properties");
    cJSON_AddItemToObject(evp, "type", check_types(AC_ELIZA, "the evaluation's type (docs/eliza.md)"));
    required(ev, (const char *const[]){ "type", NULL });
    /* each type's keys (EZ_EVAL_KEYS): if type is T, only T's keys */
    cJSON *per = cJSON_AddArrayToObject(ev, "allOf");
    for (size_t i = 0; EZ_EVAL_KEYS[i].type; i++) {
        cJSON *rule = cJSON_CreateObject();
        cJSON *is = cJSON_AddObjectToObject(cJSON_AddObjectToObject(rule, "if"), "properties");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(is, "type"), "const", EZ_EVAL_KEYS[i].type);
        cJSON_AddItemToObject(rule, "then", closed(EZ_EVAL_KEYS[i].keys, NULL));
        cJSON_AddItemToArray(per, rule);
    }
    cJSON *step = closed(EZ_STEP_KEYS, "a run step");
    prop(step, "name", typed("string", NULL));
    prop(step, "evaluations", array_of(ev, "checks of the step"));
    prop(step, "conversation", typed("object", "a multi-turn conversation"));
    required(step, (const char *const[]){ "evaluations", NULL });
    prop(o, "run", array_of(step, "the steps"));
    cJSON *j = closed(EZ_JUDGMENT_KEYS, "how the evaluations decide");
    prop(j, "strategy", enum_of(EZ_STRATEGIES, NULL));
    required(j, EZ_JUDGMENT_KEYS);
    prop(o, "judgment", j);
    required(o, (const char *const[]){ "name", "description", "environment", "judgment", NULL });
    /* A matrix (eliza_matrix.c) is the other shape: chosen, as scc chooses
    ** it, by its base_scenario and matrix keys. */
    cJSON *mx = closed(EZ_MATRIX_KEYS, "a matrix: the base scenario run once per combination of values");
    prop(mx, "name", typed("string", NULL));
    prop(mx, "description", typed("string", NULL));
    prop(mx, "base_scenario", typed("string", "the scenario file the matrix varies"));
    cJSON *runs = typed("integer", NULL);
    cJSON_AddNumberToObject(runs, "minimum", 1);
    prop(mx, "runs_per_combination", runs);
    cJSON *entry = closed(EZ_MATRIX_ENTRY_KEYS, "a parameter path and its values");
    prop(entry, "parameter", typed("string", "keys joined by '.', list indexes as [N], e.g. run[0].input"));
    prop(entry, "values", typed("array", NULL));
    required(entry, EZ_MATRIX_ENTRY_KEYS);
    cJSON *entries = array_of(entry, NULL);
    cJSON_AddNumberToObject(entries, "minItems", 1);
    prop(mx, "matrix", entries);
    required(mx, (const char *const[]){ "name", "base_scenario", "matrix", NULL });
    cJSON *cond = typed(NULL, NULL);
    required(cond, (const char *const[]){ "base_scenario", "matrix", NULL });
    cJSON_AddItemToObject(r, "if", cond);
    cJSON_AddItemToObject(r, "then", mx);
    cJSON_AddItemToObject(r, "else", o);
    return r;
}

static cJSON *schema_yao(void)
{
    cJSON *r = root("Yao agent-test case", "One case (one line of a .jsonl file) of Yao's agent tests as scc "
                                          "reads it (docs/yao.md); generated by scc --print-schema yao");
    cJSON *o = closed(YAO_CASE_KEYS, NULL);
    prop(o, "id", typed("string", "the case's identifier"));
    cJSON *as = closed(YAO_ASSERT_KEYS, "an assertion");
    prop(as, "type", check_types(AC_YAO, "the assertion's type (docs/yao.md)"));
    prop(as, "negate", typed("boolean", NULL));
    prop(as, "message", typed("string", NULL));
    cJSON *one = any_of2(check_types(AC_YAO, "an assertion type alone"), as, NULL);
    cJSON *d = cJSON_AddObjectToObject(r, "definitions");
    cJSON_AddItemToObject(d, "assertion", one);
    cJSON *many = any_of2(ref("#/definitions/assertion"), array_of(ref("#/definitions/assertion"), NULL),
                          "an assertion or a list of them");
    prop(o, "assert", many);
    prop(o, "assertions", cJSON_Duplicate(many, true));
    prop(o, "checkpoints", typed("array", NULL));
    prop(o, "max_turns", typed("integer", NULL));
    required(o, (const char *const[]){ "id", NULL });
    return merged(r, o);
}

int scc_write_schema(FILE *f, const char *name)
{
    cJSON *s;
    if (strcmp(name, "scenario") == 0)
        s = schema_scenario();
    else if (strcmp(name, "tui-use") == 0)
        s = schema_tuiuse();
    else if (strcmp(name, "tui-use-policy") == 0)
        s = schema_tuiuse_policy();
    else if (strcmp(name, "eliza") == 0)
        s = schema_eliza();
    else if (strcmp(name, "yao") == 0)
        s = schema_yao();
    else
        return 1;
    char *text = s ? cJSON_Print(s) : NULL;
    cJSON_Delete(s);
    if (!text)
        return -1;
    int rc = fputs(text, f) >= 0 && fputc('\n', f) != EOF && fflush(f) == 0 ? 0 : -1;
    cJSON_free(text);
    return rc;
}
