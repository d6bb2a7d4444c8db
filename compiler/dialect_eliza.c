/* SPDX-License-Identifier: MIT */
/* dialect_eliza.c - ElizaOS scenario YAML -> bytecode (dialect_eliza.h).
**
**   checks     the scenario as ElizaOS's zod schema does (required keys,
**              enums, ranges, evaluator fields), plus what its runner
**              would get wrong silently (-Weliza-compat: documented-only
**              evaluators, evaluators it never runs, mocks that never
**              match, JavaScript where it reads templates)
**   emits      per run step: CASE id type settings, USER_INPUT for the
**              step's (or a conversation's first) input, one EVAL per
**              evaluation (scope step, turn or final); the metadata config
**              holds description, plugins, environment, setup and judgment
**
** Every evaluation becomes a check of the agent-check language
** (formats/agentcheck.h) with ElizaOS's defaults written out:
** string_contains is case-insensitive unless case_sensitive says so (the
** enhanced engine ElizaOS runs by default), regex_match too (its RegExp
** has the `i` flag). */
#include "dialect_eliza.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "formats/bc.h"
#include "agenttest.h"
#include "formats/agentcheck.h"
#include "yaml_value.h"
#include "fe_tables.h"

/* The key and value lists this front end checks, shared with the schema
** generator (fe_tables.h, schema.c). */
const char *const EZ_STEP_KEYS[] = { "name", "lang", "code", "input", "evaluations", "conversation", NULL };
const char *const EZ_TOP_KEYS[] = { "name", "description", "plugins", "environment", "setup", "run", "judgment", NULL };
const char *const EZ_ENVIRONMENT_KEYS[] = { "type", NULL };
const char *const EZ_PLUGIN_KEYS[] = { "name", "version", "config", "enabled", NULL };
const char *const EZ_SETUP_KEYS[] = { "mocks", "virtual_fs", NULL };
const char *const EZ_JUDGMENT_KEYS[] = { "strategy", NULL };
const char *const EZ_STRATEGIES[] = { "all_pass", "any_pass", NULL };
const char *const EZ_MOCK_KEYS[] = { "service", "method", "when", "response", "responseFn", "error", "metadata", NULL };
/* The keys of each evaluation type (the schema generator reads them too). */
const FeTypeKeys EZ_EVAL_KEYS[] = {
    { "string_contains", (const char *const[]){ "type", "description", "value", "case_sensitive", NULL } },
    { "regex_match", (const char *const[]){ "type", "description", "pattern", NULL } },
    { "file_exists", (const char *const[]){ "type", "description", "path", NULL } },
    { "file_contains", (const char *const[]){ "type", "description", "path", "value", NULL } },
    { "command_exit_code_is", (const char *const[]){ "type", "description", "command", "expected_code", NULL } },
    { "trajectory_contains_action", (const char *const[]){ "type", "description", "action", NULL } },
    { "execution_time", (const char *const[]){ "type", "description", "max_duration_ms", "min_duration_ms", "target_duration_ms", NULL } },
    { "llm_judge", (const char *const[]){ "type", "description", "prompt", "expected", "model_type", "temperature", "json_schema", "capabilities", "verdict", NULL } },
    { "conversation_flow", (const char *const[]){ "type", "description", "required_patterns", "flow_quality_threshold", NULL } },
    { "user_satisfaction", (const char *const[]){ "type", "description", "satisfaction_threshold", "indicators", "measurement_method", NULL } },
    { "conversation_length", (const char *const[]){ "type", "description", "min_turns", "max_turns", "optimal_turns", "target_range", NULL } },
    { "context_retention", (const char *const[]){ "type", "description", "test_memory_of", "retention_turns", "memory_accuracy_threshold", NULL } },
    { NULL, NULL },
};

static const char *const *eval_keys(const char *type)
{
    size_t i = 0;
    while (EZ_EVAL_KEYS[i].type && strcmp(EZ_EVAL_KEYS[i].type, type) != 0)
        i++;
    return EZ_EVAL_KEYS[i].keys;
}

enum { MOCK_MAX = 10000 };

typedef struct E {
    At at;
    uint32_t n_checks;
} E;

static uint32_t cs(E *e, const char *s) { return bcb_cstr(e->at.b, s); }

/* ---- evaluations ---- */

static void never_runs(E *e, const YNode *type)
{
    at_warn(&e->at, "eliza-compat", type,
            "ElizaOS's evaluation engine does not run '%s': it reports \"Unknown evaluator type\" and the "
            "evaluation fails; scc keeps it as a check whose verdict comes from the judge tape",
            type->u.s);
}

static void only_documented(E *e, const YNode *type)
{
    at_warn(&e->at, "eliza-compat", type,
            "'%s' is documented by ElizaOS but its schema rejects it: this file does not load in "
            "'elizaos scenario run'",
            type->u.s);
}

/* One evaluation -> one EVAL of the given scope. */
static void lower_eval(E *e, const YNode *ev, const char *scope)
{
    At *t = &e->at;
    if (!at_is_map(ev)) {
        at_err(t, ev, "an evaluation must be a mapping with a 'type', not %s", ykind_name(ev));
        return;
    }
    const YNode *type = at_str(t, ev, "type", true, "an evaluation");
    if (!type)
        return;
    const char *ty = type->u.s;
    size_t errors = t->d->errors;
    AtCheck c;
    const char *W = ty;
    if (strcmp(ty, "string_contains") == 0) {
        const char *const *k = eval_keys("string_contains");
        at_check_keys(t, ev, "string_contains", k);
        const YNode *v = at_str(t, ev, "value", true, W);
        const YNode *sens = at_bool(t, ev, "case_sensitive", W);
        at_check_init(&c, "contains", scope);
        at_put_node(&c, "value", v);
        at_put_bool(&c, "case_sensitive", sens && ybool(sens));
    } else if (strcmp(ty, "regex_match") == 0) {
        const char *const *k = eval_keys("regex_match");
        at_check_keys(t, ev, "regex_match", k);
        const YNode *p = at_str(t, ev, "pattern", true, W);
        if (p)
            at_pattern_ok(t, p, false);
        at_check_init(&c, "regex", scope);
        at_put_node(&c, "pattern", p);
        at_put_bool(&c, "case_sensitive", false);
    } else if (strcmp(ty, "file_exists") == 0) {
        const char *const *k = eval_keys("file_exists");
        at_check_keys(t, ev, "file_exists", k);
        const YNode *p = at_str(t, ev, "path", true, W);
        if (p && p->u.s[0] == '/')
            at_warn(t, "eliza-compat", p, "ElizaOS looks 'path' up among the files of the step's folder by "
                                         "relative name: an absolute path never matches");
        at_check_init(&c, "file_exists", scope);
        at_put_node(&c, "path", p);
    } else if (strcmp(ty, "file_contains") == 0) {
        const char *const *k = eval_keys("file_contains");
        at_check_keys(t, ev, "file_contains", k);
        only_documented(e, type);
        at_check_init(&c, "file_contains", scope);
        at_put_node(&c, "path", at_str(t, ev, "path", true, W));
        at_put_node(&c, "value", at_str(t, ev, "value", true, W));
    } else if (strcmp(ty, "command_exit_code_is") == 0) {
        const char *const *k = eval_keys("command_exit_code_is");
        at_check_keys(t, ev, "command_exit_code_is", k);
        only_documented(e, type);
        at_check_init(&c, "command_exit_code_is", scope);
        at_put_node(&c, "command", at_str(t, ev, "command", true, W));
        at_put_node(&c, "expected_code", at_int(t, ev, "expected_code", true, 0, 255, W));
    } else if (strcmp(ty, "trajectory_contains_action") == 0) {
        const char *const *k = eval_keys("trajectory_contains_action");
        at_check_keys(t, ev, "trajectory_contains_action", k);
        at_check_init(&c, "trajectory_contains_action", scope);
        at_put_node(&c, "action", at_str(t, ev, "action", true, W));
    } else if (strcmp(ty, "execution_time") == 0) {
        const char *const *k = eval_keys("execution_time");
        at_check_keys(t, ev, "execution_time", k);
        const YNode *mx = at_int(t, ev, "max_duration_ms", true, 0, INT32_MAX, W);
        const YNode *mn = at_int(t, ev, "min_duration_ms", false, 0, INT32_MAX, W);
        const YNode *tg = at_int(t, ev, "target_duration_ms", false, 0, INT32_MAX, W);
        if (mx && mn && yint(mn) > yint(mx))
            at_err(t, mn, "'min_duration_ms' %lld is above 'max_duration_ms' %lld: no run can pass",
                   (long long)yint(mn), (long long)yint(mx));
        at_check_init(&c, "execution_time", scope);
        at_put_node(&c, "max_duration_ms", mx);
        at_put_node(&c, "min_duration_ms", mn);
        at_put_node(&c, "target_duration_ms", tg);
    } else if (strcmp(ty, "llm_judge") == 0) {
        const char *const *k = eval_keys("llm_judge");
        at_check_keys(t, ev, "llm_judge", k);
        const YNode *ex = at_str(t, ev, "expected", true, W);
        if (ex && strcmp(ex->u.s, "yes") != 0 && strcmp(ex->u.s, "no") != 0 && !strchr(ex->u.s, '+'))
            at_warn(t, "eliza-compat", ex,
                    "ElizaOS's judge compares only 'yes', 'no' and 'x+' (confidence at least x); for '%s' it "
                    "uses the verdict's overall_success",
                    ex->u.s);
        at_check_init(&c, "llm_judge", scope);
        at_put_node(&c, "prompt", at_str(t, ev, "prompt", true, W));
        at_put_node(&c, "expected", ex);
        at_put_node(&c, "model_type", at_str(t, ev, "model_type", false, W));
        at_put_node(&c, "temperature", at_num(t, ev, "temperature", 0, 2, W));
        at_put_node(&c, "json_schema", at_map(t, ev, "json_schema", false, W));
        at_put_node(&c, "capabilities", at_strs(t, ev, "capabilities", false, 1, W));
        /* an scc extension (ElizaOS strips unknown keys): the verdict written
        ** in, instead of a tape's: "yes", "no", or {overall_success, confidence} */
        const YNode *vd = ymap_get(ev, "verdict");
        if (vd && !at_is_map(vd) && !(at_is_str(vd) && (!strcmp(vd->u.s, "yes") || !strcmp(vd->u.s, "no"))))
            at_err(t, vd, "an inline 'verdict' is \"yes\", \"no\" or {overall_success, confidence}, not %s",
                   ykind_name(vd));
        else
            at_put_node(&c, "verdict", vd);
    } else if (strcmp(ty, "conversation_length") == 0) {
        const char *const *k = eval_keys("conversation_length");
        at_check_keys(t, ev, "conversation_length", k);
        at_check_init(&c, "conversation_length", scope);
        at_put_node(&c, "min_turns", at_int(t, ev, "min_turns", false, 1, INT32_MAX, W));
        at_put_node(&c, "max_turns", at_int(t, ev, "max_turns", false, 1, INT32_MAX, W));
        at_put_node(&c, "optimal_turns", at_int(t, ev, "optimal_turns", false, 1, INT32_MAX, W));
        const YNode *tr = ymap_get(ev, "target_range");
        if (tr && (!at_is_seq(tr) || tr->n != 2 || !at_is_int(&tr->u.items[0]) || !at_is_int(&tr->u.items[1]) ||
                   yint(&tr->u.items[0]) >= yint(&tr->u.items[1]))) {
            at_err(t, tr, "'target_range' in conversation_length must be [min, max] integers with min < max");
            tr = NULL;
        }
        at_put_node(&c, "target_range", tr);
    } else if (strcmp(ty, "conversation_flow") == 0) {
        const char *const *k = eval_keys("conversation_flow");
        static const char *const pats[] = { "question_then_answer", "problem_then_solution", "clarification_cycle",
                                            "empathy_then_solution", "escalation_pattern", NULL };
        at_check_keys(t, ev, "conversation_flow", k);
        never_runs(e, type);
        const YNode *rp = at_strs(t, ev, "required_patterns", true, 0, W);
        for (uint32_t i = 0; rp && i < rp->n; i++)
            at_enum(t, &rp->u.items[i], "a required pattern", pats);
        at_check_init(&c, "conversation_flow", scope);
        at_put_node(&c, "required_patterns", rp);
        at_put_node(&c, "flow_quality_threshold", at_num(t, ev, "flow_quality_threshold", 0, 1, W));
    } else if (strcmp(ty, "user_satisfaction") == 0) {
        const char *const *k = eval_keys("user_satisfaction");
        static const char *const methods[] = { "sentiment_analysis", "keyword_analysis", "llm_judge", NULL };
        at_check_keys(t, ev, "user_satisfaction", k);
        never_runs(e, type);
        const YNode *mm = at_str(t, ev, "measurement_method", false, W);
        if (mm)
            at_enum(t, mm, "'measurement_method'", methods);
        const YNode *ind = at_map(t, ev, "indicators", false, W);
        if (ind) {
            static const char *const ik[] = { "positive", "negative", NULL };
            at_check_keys(t, ind, "indicators", ik);
            at_strs(t, ind, "positive", false, 0, "indicators");
            at_strs(t, ind, "negative", false, 0, "indicators");
        }
        at_check_init(&c, "user_satisfaction", scope);
        at_put_node(&c, "satisfaction_threshold", at_num(t, ev, "satisfaction_threshold", 0, 1, W));
        at_put_node(&c, "indicators", ind);
        at_put_node(&c, "measurement_method", mm);
    } else if (strcmp(ty, "context_retention") == 0) {
        const char *const *k = eval_keys("context_retention");
        at_check_keys(t, ev, "context_retention", k);
        never_runs(e, type);
        at_check_init(&c, "context_retention", scope);
        at_put_node(&c, "test_memory_of", at_strs(t, ev, "test_memory_of", true, 0, W));
        at_put_node(&c, "retention_turns", at_int(t, ev, "retention_turns", false, 1, INT32_MAX, W));
        at_put_node(&c, "memory_accuracy_threshold", at_num(t, ev, "memory_accuracy_threshold", 0, 1, W));
    } else {
        at_unknown_type(t, type, ty, AC_ELIZA, "evaluation type", "ElizaOS's schema");
        return;
    }
    const YNode *desc = at_str(t, ev, "description", false, W);
    at_put_node(&c, "description", desc);
    if (t->d->errors == errors) {
        at_emit_eval(t, &c, ev);
        e->n_checks++;
    }
}

static void lower_evals(E *e, const YNode *list, const char *key, const char *scope)
{
    if (!list)
        return;
    if (!at_is_seq(list)) {
        at_err(&e->at, list, "'%s' must be a list of evaluations, not %s", key, ykind_name(list));
        return;
    }
    for (uint32_t i = 0; i < list->n; i++)
        lower_eval(e, &list->u.items[i], scope);
}

/* ---- conversations ---- */

static const char *const TERM_TYPES[] = { "max_turns_reached", "user_expresses_satisfaction",
                                          "agent_provides_solution", "conversation_stuck", "escalation_needed",
                                          "goal_achieved", "custom_condition", NULL };

/* ElizaOS's default keywords per termination type (ConversationManager),
** written into the settings so the target needs no table of its own. */
static const char *const *default_keywords(const char *type)
{
    static const char *const sat[] = { "thank you", "thanks", "perfect", "great", "that works", "solved", "fixed",
                                       "resolved", NULL };
    static const char *const sol[] = { "solution", "try this", "follow these steps", "here's how", "you can",
                                       "to fix this", NULL };
    static const char *const esc[] = { "escalate", "supervisor", "manager", "specialist", "human agent",
                                       "transfer", NULL };
    static const char *const goal[] = { "done", "complete", "finished", "accomplished", "achieved", NULL };
    static const char *const none[] = { NULL };
    if (strcmp(type, "user_expresses_satisfaction") == 0)
        return sat;
    if (strcmp(type, "agent_provides_solution") == 0)
        return sol;
    if (strcmp(type, "escalation_needed") == 0)
        return esc;
    if (strcmp(type, "goal_achieved") == 0)
        return goal;
    return none;
}

/* Checks a conversation and emits its settings (inside a value being
** built): max_turns, timeouts with ElizaOS's defaults, the user simulator
** as written, termination conditions with their keywords resolved. */
static bool check_conversation(E *e, const YNode *cv)
{
    At *t = &e->at;
    static const char *const k[] = { "max_turns", "timeout_per_turn_ms", "total_timeout_ms", "user_simulator",
                                     "termination_conditions", "turn_evaluations", "final_evaluations",
                                     "debug_options", NULL };
    const char *W = "a conversation";
    size_t errors = t->d->errors;
    at_check_keys(t, cv, W, k);
    at_int(t, cv, "max_turns", true, 2, 20, W);
    at_int(t, cv, "timeout_per_turn_ms", false, 1000, INT32_MAX, W);
    at_int(t, cv, "total_timeout_ms", false, 10000, INT32_MAX, W);
    const YNode *us = at_map(t, cv, "user_simulator", true, W);
    if (us) {
        static const char *const uk[] = { "model_type", "temperature", "max_tokens", "persona", "objective", "style",
                                          "constraints", "emotional_state", "knowledge_level", "script", NULL };
        static const char *const levels[] = { "beginner", "intermediate", "expert", NULL };
        const char *U = "user_simulator";
        at_check_keys(t, us, U, uk);
        at_str(t, us, "persona", true, U);
        at_str(t, us, "objective", true, U);
        at_str(t, us, "model_type", false, U);
        at_num(t, us, "temperature", 0, 2, U);
        at_int(t, us, "max_tokens", false, 50, 500, U);
        at_str(t, us, "style", false, U);
        at_strs(t, us, "constraints", false, 0, U);
        at_str(t, us, "emotional_state", false, U);
        /* an scc extension: the user's messages after the first, written in */
        at_strs(t, us, "script", false, 1, U);
        const YNode *kl = at_str(t, us, "knowledge_level", false, U);
        if (kl)
            at_enum(t, kl, "'knowledge_level'", levels);
    }
    const YNode *tc = ymap_get(cv, "termination_conditions");
    if (tc && !at_is_seq(tc)) {
        at_err(t, tc, "'termination_conditions' must be a list, not %s", ykind_name(tc));
    } else {
        for (uint32_t i = 0; tc && i < tc->n; i++) {
            const YNode *c = &tc->u.items[i];
            static const char *const ck[] = { "type", "description", "keywords", "llm_judge", NULL };
            const char *C = "a termination condition";
            if (!at_is_map(c)) {
                at_err(t, c, "a termination condition must be a mapping, not %s", ykind_name(c));
                continue;
            }
            at_check_keys(t, c, C, ck);
            const YNode *ty = at_str(t, c, "type", true, C);
            if (ty && !at_enum(t, ty, "'type' of a termination condition", TERM_TYPES))
                ty = NULL;
            at_str(t, c, "description", false, C);
            at_strs(t, c, "keywords", false, 0, C);
            const YNode *j = at_map(t, c, "llm_judge", false, C);
            if (j) {
                static const char *const jk[] = { "prompt", "threshold", NULL };
                at_check_keys(t, j, "llm_judge", jk);
                at_str(t, j, "prompt", true, "llm_judge");
                if (at_num(t, j, "threshold", 0, 1, "llm_judge"))
                    at_warn(t, "eliza-compat", ymap_get(j, "threshold"),
                            "ElizaOS parses 'threshold' and never uses it: the judge's reply holding \"yes\" decides");
            }
            if (ty && strcmp(ty->u.s, "custom_condition") == 0 && !j)
                at_warn(t, "eliza-compat", ty, "a custom_condition without 'llm_judge' never fires in ElizaOS");
            if (ty && strcmp(ty->u.s, "max_turns_reached") == 0)
                at_warn(t, "eliza-compat", ty, "ElizaOS does not handle 'max_turns_reached': the conversation "
                                              "ends at max_turns anyway");
        }
    }
    const YNode *dbg = at_map(t, cv, "debug_options", false, W);
    if (dbg) {
        static const char *const dk[] = { "log_user_simulation", "log_turn_decisions", "export_full_transcript",
                                          NULL };
        at_check_keys(t, dbg, "debug_options", dk);
        for (size_t i = 0; dk[i]; i++)
            at_bool(t, dbg, dk[i], "debug_options");
    }
    return t->d->errors == errors;
}

static void emit_int_or(BcBuilder *b, const YNode *map, const char *key, int64_t def)
{
    const YNode *v = ymap_get(map, key);
    bcb_val_int(b, v && at_is_int(v) ? yint(v) : def);
}

static void emit_conversation(E *e, const YNode *cv)
{
    BcBuilder *b = e->at.b;
    const YNode *tc = ymap_get(cv, "termination_conditions");
    bcb_val_map(b, 5);
    bcb_val_key(b, cs(e, "max_turns"));
    emit_int_or(b, cv, "max_turns", 2);
    bcb_val_key(b, cs(e, "timeout_per_turn_ms"));
    emit_int_or(b, cv, "timeout_per_turn_ms", 30000);
    bcb_val_key(b, cs(e, "total_timeout_ms"));
    emit_int_or(b, cv, "total_timeout_ms", 300000);
    bcb_val_key(b, cs(e, "user_simulator"));
    yaml_value_emit(b, ymap_get(cv, "user_simulator"));
    bcb_val_key(b, cs(e, "termination_conditions"));
    uint32_t n = at_is_seq(tc) ? tc->n : 0;
    bcb_val_array(b, n);
    for (uint32_t i = 0; i < n; i++) {
        const YNode *c = &tc->u.items[i];
        const YNode *ty = ymap_get(c, "type"), *kw = ymap_get(c, "keywords"), *j = ymap_get(c, "llm_judge");
        bcb_val_map(b, 2 + (j != NULL));
        bcb_val_key(b, cs(e, "type"));
        yaml_value_emit(b, ty);
        bcb_val_key(b, cs(e, "keywords"));
        if (kw) {
            yaml_value_emit(b, kw);
        } else {
            const char *const *d = default_keywords(ty->u.s);
            uint32_t m = 0;
            while (d[m])
                m++;
            bcb_val_array(b, m);
            for (uint32_t k = 0; k < m; k++)
                bcb_val_str(b, cs(e, d[k]));
        }
        if (j) {
            bcb_val_key(b, cs(e, "llm_judge"));
            yaml_value_emit(b, j);
        }
    }
}

/* ---- steps ---- */

static void lower_step(E *e, const YNode *st, uint32_t index)
{
    At *t = &e->at;
    const char *const *k = EZ_STEP_KEYS;
    const char *W = "a run step";
    if (!at_is_map(st)) {
        at_err(t, st, "a run step must be a mapping, not %s", ykind_name(st));
        return;
    }
    at_check_keys(t, st, W, k);
    const YNode *name = at_str(t, st, "name", false, W);
    const YNode *lang = at_str(t, st, "lang", false, W);
    const YNode *code = at_str(t, st, "code", false, W);
    const YNode *input = at_str(t, st, "input", false, W);
    const YNode *evals = at_req(t, st, "evaluations", W);
    const YNode *conv = at_map(t, st, "conversation", false, W);
    if (evals && !at_is_seq(evals)) {
        at_err(t, evals, "'evaluations' must be a list (it may be empty), not %s", ykind_name(evals));
        evals = NULL;
    }
    const char *type = conv ? "conversation" : input ? "input" : code ? "code" : NULL;
    if (!type && !ymap_get(st, "conversation")) {
        at_err(t, st, "a run step needs 'input', 'code' or 'conversation' (ElizaOS: \"Step must have either "
                      "input or code\")");
        return;
    }
    if (!type)
        return;
    if (code && strcmp(type, "code") != 0)
        at_warn(t, "eliza-compat", code, "'code' is ignored: ElizaOS runs a step's %s when it has one",
                conv ? "conversation" : "input");
    if (lang && !code)
        at_warn(t, "unknown-key", lang, "'lang' without 'code' is ignored");
    if (conv && !check_conversation(e, conv))
        return;

    char idbuf[32];
    const char *id = idbuf;
    size_t id_len;
    if (name) {
        id = name->u.s;
        id_len = name->n;
    } else {
        id_len = (size_t)snprintf(idbuf, sizeof idbuf, "step-%u", index + 1);
    }
    /* the turn-1 input of a conversation: ElizaOS's default when absent */
    const char *first = input ? input->u.s : "Hello, I need help.";
    size_t first_len = input ? input->n : strlen(first);
    BcBuilder *b = t->b;
    bcb_val_begin(b);
    if (strcmp(type, "code") == 0) {
        bcb_val_map(b, 2);
        bcb_val_key(b, cs(e, "lang"));
        /* no lang: ElizaOS runs `bash -c` */
        bcb_val_str(b, lang ? bcb_str(b, lang->u.s, lang->n) : cs(e, "bash"));
        bcb_val_key(b, cs(e, "code"));
        bcb_val_str(b, bcb_str(b, code->u.s, code->n));
    } else if (strcmp(type, "input") == 0) {
        bcb_val_map(b, 1);
        bcb_val_key(b, cs(e, "input"));
        bcb_val_str(b, bcb_str(b, input->u.s, input->n));
    } else {
        bcb_val_map(b, 2);
        bcb_val_key(b, cs(e, "input"));
        bcb_val_str(b, bcb_str(b, first, first_len));
        bcb_val_key(b, cs(e, "conversation"));
        emit_conversation(e, conv);
    }
    uint32_t settings = bcb_val_end(b);
    at_emit_case(t, id, id_len, type, settings, st);
    uint32_t null = bcb_null(b);
    if (strcmp(type, "code") != 0)
        at_emit_input(t, first, first_len, null, null, input ? input : conv);
    if (conv) {
        lower_evals(e, ymap_get(conv, "turn_evaluations"), "turn_evaluations", "turn");
        lower_evals(e, ymap_get(conv, "final_evaluations"), "final_evaluations", "final");
    }
    lower_evals(e, evals, "evaluations", "step");
}

/* ---- setup ---- */

typedef struct Mock {
    const YNode *n;
    int specificity;
    uint32_t order;
} Mock;

static int mock_cmp(const void *a, const void *b)
{
    const Mock *x = a, *y = b;
    if (x->specificity != y->specificity)
        return y->specificity - x->specificity;
    return x->order < y->order ? -1 : x->order > y->order;
}

static bool looks_like_js(const char *s)
{
    return strstr(s, "&&") || strstr(s, "||") || strstr(s, "=>") || strstr(s, "return ") ||
           strstr(s, ".includes(") || strstr(s, "new Date");
}

/* Checks one mock; returns its specificity (ElizaOS's MockEngine order:
** args 10, input 8, context 6, matcher 4, partialArgs 2), or -1. */
static int check_mock(E *e, const YNode *m)
{
    At *t = &e->at;
    const char *const *k = EZ_MOCK_KEYS;
    const char *W = "a mock";
    if (!at_is_map(m)) {
        at_err(t, m, "a mock must be a mapping, not %s", ykind_name(m));
        return -1;
    }
    size_t errors = t->d->errors;
    at_check_keys(t, m, W, k);
    const YNode *svc = at_str(t, m, "service", false, W);
    const YNode *meth = at_str(t, m, "method", true, W);
    if (!svc && meth)
        at_warn(t, "eliza-compat", m, "a mock without 'service' is registered as 'undefined.%s' by ElizaOS and "
                                      "never matches a call", meth->u.s);
    if (!ymap_get(m, "response")) {
        at_err(t, m, "a mock needs 'response' (ElizaOS's schema requires the key; write 'response: null' when "
                     "'error' or 'responseFn' answers)");
    }
    const YNode *fn = at_str(t, m, "responseFn", false, W);
    if (fn && looks_like_js(fn->u.s))
        at_warn(t, "eliza-compat", fn, "'responseFn' is a template in ElizaOS (${args[0]}, ${input.x}), not "
                                       "JavaScript: this one is not evaluated as written");
    int spec = 0;
    const YNode *when = at_map(t, m, "when", false, W);
    if (when) {
        static const char *const wk[] = { "args", "input", "context", "matcher", "partialArgs", NULL };
        at_check_keys(t, when, "when", wk);
        const YNode *args = ymap_get(when, "args"), *pa = ymap_get(when, "partialArgs");
        if (args && !at_is_seq(args))
            at_err(t, args, "'args' in when must be a list (the whole argument list), not %s", ykind_name(args));
        if (pa && !at_is_seq(pa))
            at_err(t, pa, "'partialArgs' in when must be a list, not %s", ykind_name(pa));
        at_map(t, when, "input", false, "when");
        const YNode *ctx = at_map(t, when, "context", false, "when");
        if (ctx)
            at_warn(t, "eliza-compat", ctx, "ElizaOS matches 'context' against {timestamp, argsCount, "
                                            "hasObjectArgs}, whose timestamp is the wall clock");
        const YNode *mt = at_str(t, when, "matcher", false, "when");
        if (mt && looks_like_js(mt->u.s))
            at_warn(t, "eliza-compat", mt, "'matcher' is a template compared with one operator in ElizaOS, not "
                                           "JavaScript: this one is not evaluated as written");
        spec = (args ? 10 : 0) + (ymap_get(when, "input") ? 8 : 0) + (ctx ? 6 : 0) + (mt ? 4 : 0) + (pa ? 2 : 0);
    }
    const YNode *er = at_map(t, m, "error", false, W);
    if (er) {
        static const char *const ek[] = { "code", "message", "status", NULL };
        at_check_keys(t, er, "error", ek);
        at_str(t, er, "code", true, "a mock's error");
        at_str(t, er, "message", true, "a mock's error");
        at_int(t, er, "status", false, 100, 599, "a mock's error");
    }
    const YNode *md = at_map(t, m, "metadata", false, W);
    if (md) {
        static const char *const mk[] = { "delay", "probability", NULL };
        at_check_keys(t, md, "metadata", mk);
        at_int(t, md, "delay", false, 0, 3600000, "a mock's metadata");
        if (at_num(t, md, "probability", 0, 1, "a mock's metadata"))
            at_warn(t, "eliza-compat", ymap_get(md, "probability"),
                    "in ElizaOS 'probability' is the chance that the mock FAILS (\"Random mock failure\"), not "
                    "of success; scc draws it from the run's seed");
    }
    return t->d->errors == errors ? spec : -1;
}

/* setup.mocks, ordered as ElizaOS tries them, each with its key,
** specificity and source line (for the target's messages). */
static void emit_mocks(E *e, const YNode *mocks)
{
    BcBuilder *b = e->at.b;
    uint32_t n = at_is_seq(mocks) ? mocks->n : 0;
    Mock *v = n ? sc_calloc(n, sizeof *v) : NULL;
    if (n && !v) {
        at_err(&e->at, mocks, "out of memory");
        bcb_val_array(b, 0);
        return;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        int s = check_mock(e, &mocks->u.items[i]);
        if (s >= 0)
            v[k++] = (Mock){ &mocks->u.items[i], s, i };
    }
    if (k > 1)
        qsort(v, k, sizeof *v, mock_cmp);
    bcb_val_array(b, k);
    for (uint32_t i = 0; i < k; i++) {
        const YNode *m = v[i].n;
        const YNode *svc = ymap_get(m, "service"), *meth = ymap_get(m, "method");
        char key[512];
        snprintf(key, sizeof key, "%s.%s", svc ? svc->u.s : "undefined", meth->u.s);
        static const char *const known[] = { "service", "method", "when", "response", "responseFn", "error",
                                             "metadata", NULL };
        uint32_t n_known = 0;
        for (uint32_t j = 0; j < m->n; j++)
            for (size_t q = 0; known[q]; q++)
                n_known += strcmp(m->u.pairs[j].key.u.s, known[q]) == 0;
        bcb_val_map(b, n_known + 3);
        bcb_val_key(b, cs(e, "key"));
        bcb_val_str(b, cs(e, key));
        bcb_val_key(b, cs(e, "specificity"));
        bcb_val_int(b, v[i].specificity);
        bcb_val_key(b, cs(e, "line"));
        bcb_val_int(b, m->line + e->at.line_offset);
        for (uint32_t j = 0; j < m->n; j++) {
            for (size_t q = 0; known[q]; q++) {
                if (strcmp(m->u.pairs[j].key.u.s, known[q]) == 0) {
                    bcb_val_key(b, bcb_str(b, m->u.pairs[j].key.u.s, m->u.pairs[j].key.n));
                    yaml_value_emit(b, &m->u.pairs[j].val);
                }
            }
        }
    }
    sc_free(v);
}

/* ---- the scenario ---- */

bool eliza_detect(const YDoc *doc)
{
    const YNode *r = doc->root;
    if (at_is_map(r) && !ymap_get(r, "timeline") && ymap_get(r, "base_scenario") && ymap_get(r, "matrix"))
        return true;   /* a matrix (eliza_matrix.h) */
    return at_is_map(r) && !ymap_get(r, "timeline") && !ymap_get(r, "steps") && ymap_get(r, "run") &&
           (ymap_get(r, "judgment") || ymap_get(r, "environment") || at_is_seq(ymap_get(r, "run")));
}

bool eliza_lower(const YDoc *doc, const char *source_name, BcBuilder *b, Diags *diags)
{
    return eliza_lower_pick(doc, source_name, NULL, b, diags);
}

bool eliza_lower_pick(const YDoc *doc, const char *source_name, const ElizaPick *pick, BcBuilder *b, Diags *diags)
{
    E e = { .at = { .b = b, .d = diags, .file = doc->file, .dialect = "ElizaOS", .compat = "eliza-compat" } };
    At *t = &e.at;
    size_t errors_before = diags->errors;
    const YNode *root = doc->root;
    if (!at_is_map(root)) {
        diag_error(diags, doc->file, root ? root->line : 0, root ? root->col : 0,
                   "an ElizaOS scenario must be a mapping with name, description, environment, run and judgment");
        return false;
    }
    const char *const *top = EZ_TOP_KEYS;
    const char *W = "an ElizaOS scenario";
    at_check_keys(t, root, "the scenario", top);
    const YNode *name = at_str(t, root, "name", true, W);
    if (name && !bc_text_ok(name->u.s, name->n))   /* shown and matched: the verifier refuses control bytes */
        at_err(t, name, "the scenario's name has a control character");
    const YNode *desc = at_str(t, root, "description", true, W);

    const YNode *env = at_map(t, root, "environment", true, W);
    if (env) {
        const char *const *ek = EZ_ENVIRONMENT_KEYS;
        at_check_keys(t, env, "environment", ek);
        const YNode *ty = at_str(t, env, "type", true, "environment");
        if (ty && strcmp(ty->u.s, "local") != 0) {
            at_err(t, ty, "environment type '%s' is not supported: ElizaOS's schema accepts only 'local'", ty->u.s);
            if (strcmp(ty->u.s, "e2b") == 0)
                at_note(t, ty, "ElizaOS removed the e2b environment (commit 9214408bc); use 'local'");
        }
    }
    const YNode *plugins = ymap_get(root, "plugins");
    if (plugins && !at_is_seq(plugins)) {
        at_err(t, plugins, "'plugins' must be a list, not %s", ykind_name(plugins));
        plugins = NULL;
    }
    for (uint32_t i = 0; plugins && i < plugins->n; i++) {
        const YNode *p = &plugins->u.items[i];
        if (at_is_str(p))
            continue;
        if (!at_is_map(p)) {
            at_err(t, p, "a plugin must be a name or {name, version, config, enabled}, not %s", ykind_name(p));
            continue;
        }
        const char *const *pk = EZ_PLUGIN_KEYS;
        at_check_keys(t, p, "a plugin", pk);
        at_str(t, p, "name", true, "a plugin");
        at_str(t, p, "version", false, "a plugin");
        at_map(t, p, "config", false, "a plugin");
        at_bool(t, p, "enabled", "a plugin");
    }
    const YNode *setup = at_map(t, root, "setup", false, W);
    const YNode *mocks = NULL, *vfs = NULL;
    if (setup) {
        const char *const *sk = EZ_SETUP_KEYS;
        at_check_keys(t, setup, "setup", sk);
        mocks = ymap_get(setup, "mocks");
        if (mocks && !at_is_seq(mocks) && !at_is_null(mocks)) {
            at_err(t, mocks, "'mocks' in setup must be a list, not %s", ykind_name(mocks));
            mocks = NULL;
        }
        vfs = at_map(t, setup, "virtual_fs", false, "setup");
        for (uint32_t i = 0; vfs && i < vfs->n; i++) {
            const YNode *k = &vfs->u.pairs[i].key, *v = &vfs->u.pairs[i].val;
            if (k->n == 0 || strlen(k->u.s) != k->n)
                at_err(t, k, "a virtual_fs path must be a non-empty string without NUL");
            if (!at_is_str(v))
                at_err(t, v, "virtual_fs['%s'] must be the file's content as a string, not %s", k->u.s, ykind_name(v));
        }
    }
    const YNode *judg = at_map(t, root, "judgment", true, W);
    const YNode *strat = NULL;
    if (judg) {
        const char *const *jk = EZ_JUDGMENT_KEYS;
        const char *const *strategies = EZ_STRATEGIES;
        at_check_keys(t, judg, "judgment", jk);
        strat = at_str(t, judg, "strategy", true, "judgment");
        if (strat && !at_enum(t, strat, "'strategy' in judgment", strategies))
            strat = NULL;
    }

    /* the metadata's config first: the mocks are checked while emitted */
    bcb_val_begin(b);
    bcb_val_map(b, pick ? 7 : 6);
    bcb_val_key(b, cs(&e, "dialect"));
    bcb_val_str(b, cs(&e, "eliza"));
    bcb_val_key(b, cs(&e, "description"));
    yaml_value_emit(b, desc);
    bcb_val_key(b, cs(&e, "plugins"));
    if (plugins)
        yaml_value_emit(b, plugins);
    else
        bcb_val_array(b, 0);
    bcb_val_key(b, cs(&e, "environment"));
    yaml_value_emit(b, env);
    bcb_val_key(b, cs(&e, "setup"));
    bcb_val_map(b, 2);
    bcb_val_key(b, cs(&e, "mocks"));
    emit_mocks(&e, mocks);
    bcb_val_key(b, cs(&e, "virtual_fs"));
    if (vfs)
        yaml_value_emit(b, vfs);
    else
        bcb_val_map(b, 0);
    bcb_val_key(b, cs(&e, "judgment"));
    yaml_value_emit(b, judg);
    if (pick) {
        /* which scenario of which matrix, and the values it was given */
        bcb_val_key(b, cs(&e, "matrix"));
        bcb_val_map(b, 5);
        bcb_val_key(b, cs(&e, "name"));
        yaml_value_emit(b, pick->matrix_name);
        bcb_val_key(b, cs(&e, "scenario"));
        if (name)
            yaml_value_emit(b, name);
        else
            bcb_val_str(b, cs(&e, ""));
        bcb_val_key(b, cs(&e, "combination"));
        bcb_val_int(b, pick->combination);
        bcb_val_key(b, cs(&e, "run"));
        bcb_val_int(b, pick->run);
        bcb_val_key(b, cs(&e, "parameters"));
        bcb_val_map(b, pick->params->n);
        for (uint32_t i = 0; i < pick->params->n; i++) {
            const YNode *pm = &pick->params->u.items[i];
            const YNode *path = ymap_get(pm, "parameter"), *vals = ymap_get(pm, "values");
            bcb_val_key(b, bcb_str(b, path->u.s, path->n));
            yaml_value_emit(b, &vals->u.items[pick->value[i]]);
        }
    }
    uint32_t config = bcb_val_end(b);

    const YNode *run = at_req(t, root, "run", W);
    if (run && !at_is_seq(run)) {
        at_err(t, run, "'run' must be a list of steps, not %s", ykind_name(run));
        run = NULL;
    }
    for (uint32_t i = 0; run && i < run->n; i++)
        lower_step(&e, &run->u.items[i], i);
    if (run && diags->errors == errors_before && e.n_checks == 0) {
        if (strat && strcmp(strat->u.s, "any_pass") == 0)
            at_warn(t, "empty-scenario", run, "no step has an evaluation: 'any_pass' of none always fails");
        else
            at_warn(t, "empty-scenario", run, "no step has an evaluation: ElizaOS passes this scenario "
                                              "('all_pass' of none) without testing anything");
    }

    BcMeta m = { 0 };
    m.name = pick ? cs(&e, pick->name) : name ? bcb_str(b, name->u.s, name->n) : cs(&e, "");
    m.source = cs(&e, source_name ? source_name : "");
    m.prompt = bcb_null(b);
    m.tags = bcb_empty_array(b);
    m.defines = bcb_empty_map(b);
    m.config = config;
    bcb_set_meta(b, &m);
    return diags->errors == errors_before && !diags_failed(diags);
}
