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

/* ---- Scenario-Format (lower.c, lower_content.c, lower_events.c) ---- */

static const char RULES_HELP[] = "conditions over -D symbols that choose parts of the scenario (docs/rules.md)";

/* The kinds of scalar the front end reads (lower_util.c): lw_get_text
** takes any scalar (a null when optional is "absent"), lw_get_bool true or
** false (null: the default), lw_uint_of a whole number from 0 to 2^53. */
static cJSON *types(const char *const *list, const char *desc)
{
    cJSON *o = typed(NULL, desc);
    cJSON_AddItemToObject(o, "type", str_list(list));
    return o;
}

static cJSON *text(const char *desc)
{
    return types((const char *const[]){ "string", "number", "boolean", NULL }, desc);
}

static cJSON *opt_text(const char *desc)
{
    return types((const char *const[]){ "string", "number", "boolean", "null", NULL }, desc);
}

static cJSON *opt_bool(const char *desc) { return types((const char *const[]){ "boolean", "null", NULL }, desc); }

static cJSON *uint53(const char *desc)
{
    cJSON *o = typed("integer", desc);
    cJSON_AddNumberToObject(o, "minimum", 0);
    cJSON_AddNumberToObject(o, "maximum", 9007199254740992.0);
    return o;
}

static cJSON *meta(void) { return types((const char *const[]){ "object", "null", NULL }, "free-form ACP metadata"); }

static cJSON *nonempty(const char *desc)
{
    cJSON *o = text(desc);
    cJSON_AddNumberToObject(o, "minLength", 1);
    return o;
}

/* Either of two required keys (a step's time, an embedded resource's body). */
static void one_of_required(cJSON *obj, const char *a, const char *b)
{
    cJSON *l = cJSON_AddArrayToObject(obj, "anyOf");
    for (int i = 0; i < 2; i++) {
        cJSON *r = cJSON_CreateObject();
        required(r, (const char *const[]){ i ? b : a, NULL });
        cJSON_AddItemToArray(l, r);
    }
}

/* A closed mapping whose keys are known to the front end under another
** list too (a step's time keys, body keys and extras). */
static cJSON *closed3(const char *const *a, const char *const *b, const char *const *c, const char *desc)
{
    cJSON *o = closed(a, desc);
    cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "properties");
    for (const char *const *l = b; l; l = l == b ? c : NULL)
        for (size_t i = 0; l[i]; i++)
            if (!cJSON_GetObjectItemCaseSensitive(p, l[i]))
                cJSON_AddItemToObject(p, l[i], cJSON_CreateObject());
    return o;
}

/* A timed step: [ms, body] or {relativeTime|timestamp: ms, <body key>: body}
** (parse_step, lower_content.c). */
static cJSON *sf_step(const char *const *body_keys, cJSON *body, const char *desc)
{
    cJSON *pair = typed("array", "[milliseconds, body]");
    cJSON_AddNumberToObject(pair, "minItems", 2);
    cJSON_AddNumberToObject(pair, "maxItems", 2);
    cJSON *items = cJSON_AddArrayToObject(pair, "items");
    cJSON_AddItemToArray(items, uint53("milliseconds"));
    cJSON_AddItemToArray(items, cJSON_Duplicate(body, true));
    cJSON *m = closed3(SF_STEP_TIME_KEYS, body_keys, SF_STEP_EXTRA_KEYS, NULL);
    for (size_t i = 0; SF_STEP_TIME_KEYS[i]; i++)
        prop(m, SF_STEP_TIME_KEYS[i], uint53("milliseconds"));
    for (size_t i = 0; body_keys[i]; i++)
        prop(m, body_keys[i], cJSON_Duplicate(body, true));
    prop(m, "_meta", meta());
    one_of_required(m, SF_STEP_TIME_KEYS[0], SF_STEP_TIME_KEYS[1]);
    cJSON_Delete(body);
    return array_of(any_of2(pair, m, desc), NULL);
}

/* Content blocks (lw_check_block): the keys each type adds to type,
** annotations and _meta. */
static cJSON *sf_block_type(cJSON *all, const char *type, const char *type2, const char *const *keys,
                            const char *const *req)
{
    cJSON *cond = cJSON_CreateObject(), *cp = cJSON_AddObjectToObject(cond, "properties");
    cJSON *tp = cJSON_AddObjectToObject(cp, "type");
    cJSON *e = cJSON_AddArrayToObject(tp, "enum");
    cJSON_AddItemToArray(e, cJSON_CreateString(type));
    if (type2)
        cJSON_AddItemToArray(e, cJSON_CreateString(type2));
    cJSON *then = closed3(SF_BLOCK_KEYS, keys, NULL, NULL);
    if (req)
        required(then, req);
    cJSON *rule = cJSON_CreateObject();
    cJSON_AddItemToObject(rule, "if", cond);
    cJSON_AddItemToObject(rule, "then", then);
    cJSON_AddItemToArray(all, rule);
    return then;
}

static cJSON *sf_plan_entries(void)
{
    cJSON *e = closed(SF_PLAN_ENTRY_KEYS, "a plan entry");
    prop(e, "content", nonempty("what the step is"));
    prop(e, "priority", enum_of(SF_PLAN_PRIORITIES, NULL));
    prop(e, "status", enum_of(SF_PLAN_STATUSES, NULL));
    prop(e, "_meta", meta());
    required(e, (const char *const[]){ "content", "priority", "status", NULL });
    return array_of(e, "the plan's entries");
}

static cJSON *sf_block(void)
{
    cJSON *o = typed("object", "a content block (ACP ContentBlock)");
    cJSON *p = cJSON_AddObjectToObject(o, "properties");
    cJSON *types_ = cJSON_CreateArray();
    for (size_t i = 0; SF_CONTENT_TYPES[i]; i++)
        cJSON_AddItemToArray(types_, cJSON_CreateString(SF_CONTENT_TYPES[i]));
    cJSON_AddItemToArray(types_, cJSON_CreateString("resourceLink"));   /* the reference's spelling, warned */
    cJSON *t = typed("string", "the block's type");
    cJSON_AddItemToObject(t, "enum", types_);
    cJSON_AddItemToObject(p, "type", t);
    cJSON *ann = closed(SF_ANNOTATION_KEYS, "MCP annotations");
    prop(ann, "audience", array_of(enum_of(SF_ROLES, NULL), NULL));
    cJSON *pr = typed("number", NULL);
    cJSON_AddNumberToObject(pr, "minimum", 0);
    cJSON_AddNumberToObject(pr, "maximum", 1);
    prop(ann, "priority", pr);
    cJSON_AddItemToObject(p, "annotations", any_of2(cJSON_Duplicate(ann, true), array_of(ann, NULL), NULL));
    cJSON_AddItemToObject(p, "_meta", meta());
    required(o, (const char *const[]){ "type", NULL });
    cJSON *all = cJSON_AddArrayToObject(o, "allOf");
    cJSON *b = sf_block_type(all, "text", NULL, SF_TEXT_BLOCK_KEYS, (const char *const[]){ "text", NULL });
    prop(b, "text", nonempty(NULL));
    b = sf_block_type(all, "image", "audio", SF_MEDIA_BLOCK_KEYS, NULL);
    prop(b, "path", typed("string", "a file beside the scenario"));
    prop(b, "data", typed("string", "base64"));
    prop(b, "mimeType", typed("string", NULL));
    one_of_required(b, "path", "data");
    b = sf_block_type(all, "resource", NULL, SF_RESOURCE_BLOCK_KEYS, (const char *const[]){ "resource", NULL });
    cJSON *r = closed(SF_EMBEDDED_KEYS, "an embedded resource");
    prop(r, "uri", nonempty(NULL));
    prop(r, "text", opt_text(NULL));
    prop(r, "_meta", meta());
    required(r, (const char *const[]){ "uri", NULL });
    one_of_required(r, "text", "blob");
    prop(b, "resource", r);
    b = sf_block_type(all, "resource_link", "resourceLink", SF_LINK_BLOCK_KEYS,
                      (const char *const[]){ "uri", "name", NULL });
    prop(b, "uri", nonempty(NULL));
    prop(b, "name", nonempty(NULL));
    b = sf_block_type(all, "diff", NULL, SF_DIFF_BLOCK_KEYS, (const char *const[]){ "path", NULL });
    prop(b, "path", text("an absolute path"));
    one_of_required(b, "newText", "new_text");
    b = sf_block_type(all, "plan", NULL, SF_PLAN_BLOCK_KEYS, (const char *const[]){ "entries", NULL });
    prop(b, "entries", sf_plan_entries());
    return o;
}

static cJSON *sf_llm(void)
{
    cJSON *el = closed3(SF_LLM_ELEMENTS, (const char *const[]){ "_meta", "meta", NULL }, NULL,
                        "an element: think, assistant or error");
    prop(el, "think", sf_step(SF_STEP_BODY_KEYS, text(NULL), "the model's reasoning, in timed steps"));
    prop(el, "assistant", sf_step(SF_STEP_BODY_KEYS, any_of2(text(NULL), ref("#/definitions/block"), NULL),
                                  "the model's answer, in timed steps: text or a content block"));
    cJSON *e = closed(SF_LLM_ERROR_KEYS, "the model's API answers with an error");
    prop(e, "errorType", text(NULL));
    prop(e, "message", text(NULL));
    cJSON *st = typed("integer", "the HTTP status");
    cJSON_AddNumberToObject(st, "minimum", 100);
    cJSON_AddNumberToObject(st, "maximum", 599);
    prop(e, "statusCode", st);
    prop(e, "retryAfterSeconds", uint53(NULL));
    required(e, (const char *const[]){ "errorType", "message", NULL });
    prop(el, "error", e);
    prop(el, "_meta", meta());
    prop(el, "meta", meta());
    cJSON_AddNumberToObject(el, "minProperties", 1);
    return array_of(el, NULL);
}

/* The fields a tool use has beside its arguments (lower_tool_body). */
static void sf_tool_side(cJSON *o)
{
    prop(o, "progress", sf_step(SF_PROGRESS_BODY_KEYS, text(NULL), "progress messages, in timed steps"));
    /* other words are warned about (lw_check_enum's warning), not refused */
    prop(o, "status", any_of2(enum_of(SF_TOOL_STATUSES, NULL), text(NULL), "the tool's outcome"));
    cJSON *ex = closed(SF_EXEC_KEYS, "the tool's execution, streamed");
    prop(ex, "startTimeMs", uint53(NULL));
    cJSON *ev = closed(SF_EXEC_EVENT_KEYS, NULL);
    prop(ev, "type", enum_of(SF_EXEC_TYPES, NULL));
    prop(ev, "timeMs", uint53("from the start of the execution"));
    prop(ev, "content", opt_text(NULL));
    prop(ev, "exitCode", typed("integer", NULL));
    required(ev, (const char *const[]){ "type", "timeMs", NULL });
    prop(ex, "events", array_of(ev, NULL));
    prop(o, "toolExecution", ex);
    prop(o, "toolCallId", opt_text(NULL));
    prop(o, "_meta", meta());
    prop(o, "meta", meta());
}

static cJSON *sf_tool_use(void)
{
    cJSON *o = closed(SF_TOOL_USE_KEYS, NULL);
    const char *names[LW_N_TOOLS + 1];
    for (size_t i = 0; i < LW_N_TOOLS; i++)
        names[i] = LW_TOOLS[i].name;
    names[LW_N_TOOLS] = NULL;
    /* any name; the mock agent's tools are offered */
    prop(o, "toolName", any_of2(enum_of(names, "a tool the mock agent runs"), text(NULL), "the tool's name"));
    prop(o, "args", types((const char *const[]){ "object", "null", NULL }, "the tool's arguments"));
    sf_tool_side(o);
    required(o, (const char *const[]){ "toolName", NULL });
    return o;
}

static cJSON *sf_tool_shorthand(const ToolDef *t)
{
    cJSON *o = closed(SF_TOOL_SIDE_KEYS, "an agentToolUse of this tool, its arguments as the fields");
    cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "properties");
    for (size_t r = 0; r < 3 && t->required[r]; r++)
        cJSON_AddItemToObject(p, t->required[r], cJSON_CreateObject());
    for (size_t r = 0; r < 10 && t->optional[r]; r++)
        cJSON_AddItemToObject(p, t->optional[r], cJSON_CreateObject());
    sf_tool_side(o);
    cJSON *req = cJSON_AddArrayToObject(o, "required");
    for (size_t r = 0; r < 3 && t->required[r]; r++)
        cJSON_AddItemToArray(req, cJSON_CreateString(t->required[r]));
    return o;
}

static cJSON *sf_expected_response(const char *desc)
{
    cJSON *o = closed(SF_EXPECTED_RESPONSE_KEYS, desc);
    prop(o, "sessionId", nonempty(NULL));
    prop(o, "stopReason", nonempty(NULL));
    prop(o, "_meta", meta());
    return o;
}

static cJSON *sf_input(void)
{
    return any_of2(text(NULL), array_of(ref("#/definitions/block"), NULL),
                   "the prompt: text, or a list of content blocks");
}

static cJSON *sf_flag(const char *desc)
{
    cJSON *empty = typed("object", NULL);
    cJSON_AddNumberToObject(empty, "maxProperties", 0);
    return any_of2(types((const char *const[]){ "boolean", "null", NULL }, NULL), empty, desc);
}

static cJSON *sf_assert(void)
{
    cJSON *o = closed(SF_ASSERT_KEYS, NULL);
    cJSON *fs = closed(SF_ASSERT_FS_KEYS, "checks on the workspace's files");
    prop(fs, "exists", strings("paths that must exist"));
    prop(fs, "notExists", strings("paths that must not exist"));
    cJSON *fc = closed(SF_ASSERT_FS_CONTAINS_KEYS, NULL);
    prop(fc, "path", text(NULL));
    prop(fc, "text", text(NULL));
    required(fc, SF_ASSERT_FS_CONTAINS_KEYS);
    prop(fs, "contains", array_of(fc, "files that must contain a text"));
    prop(o, "fs", fs);
    cJSON *t = closed(SF_ASSERT_TEXT_KEYS, "checks on the screen's text");
    prop(t, "contains", any_of2(text(NULL), strings(NULL), NULL));
    prop(o, "text", t);
    cJSON *j = closed(SF_ASSERT_JSON_KEYS, "checks on a JSON file");
    cJSON *jf = closed(SF_ASSERT_JSON_FILE_KEYS, NULL);
    prop(jf, "path", text(NULL));
    cJSON *ptr = text("a JSON pointer: empty or starting with '/'");
    cJSON_AddStringToObject(ptr, "pattern", "^(/.*)?$");
    prop(jf, "pointer", ptr);
    required(jf, SF_ASSERT_JSON_FILE_KEYS);
    prop(j, "file", jf);
    prop(o, "json", j);
    cJSON *g = closed(SF_ASSERT_GIT_KEYS, "checks on the repository");
    cJSON *gc = closed(SF_ASSERT_GIT_COMMIT_KEYS, NULL);
    prop(gc, "messageContains", text(NULL));
    required(gc, SF_ASSERT_GIT_COMMIT_KEYS);
    prop(g, "commit", gc);
    prop(o, "git", g);
    return o;
}

static cJSON *sf_permission(void)
{
    cJSON *o = closed(SF_PERMISSION_KEYS, NULL);
    prop(o, "sessionId", opt_text(NULL));
    prop(o, "toolCall", typed("object", "the tool call the permission is for"));
    cJSON *opt = closed(SF_PERMISSION_OPTION_KEYS, NULL);
    prop(opt, "id", text(NULL));
    prop(opt, "label", opt_text(NULL));
    prop(opt, "kind", enum_of(SF_PERMISSION_KINDS, NULL));
    required(opt, (const char *const[]){ "id", "kind", NULL });
    prop(o, "options", array_of(opt, "the choices offered"));
    cJSON *d = closed(SF_DECISION_KEYS, "the client's answer");
    prop(d, "outcome", enum_of(SF_DECISION_OUTCOMES, NULL));
    prop(d, "optionId", opt_text(NULL));
    required(d, (const char *const[]){ "outcome", NULL });
    /* an option is named when one was selected */
    cJSON *sel = cJSON_CreateObject(), *sp = cJSON_AddObjectToObject(sel, "properties");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(sp, "outcome"), "const", "selected");
    required(sel, (const char *const[]){ "outcome", NULL });
    cJSON *named = cJSON_CreateObject();
    required(named, (const char *const[]){ "optionId", NULL });
    cJSON *rule = cJSON_CreateObject();
    cJSON_AddItemToObject(rule, "if", sel);
    cJSON_AddItemToObject(rule, "then", named);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "allOf"), rule);
    prop(o, "decision", d);
    prop(o, "granted", opt_bool("the legacy yes/no answer"));
    prop(o, "_meta", meta());
    one_of_required(o, "decision", "granted");
    return o;
}

/* The value of each event (lower_*.c), by its name: NULL for none known. */
static cJSON *sf_event_body(const char *name, const char *help)
{
    cJSON *o = NULL;
    if (strcmp(name, "llmResponse") == 0) {
        o = sf_llm();
    } else if (strcmp(name, "agentToolUse") == 0) {
        o = sf_tool_use();
    } else if (strcmp(name, "agentEdits") == 0) {
        o = closed(SF_EDITS_KEYS, NULL);
        prop(o, "path", text(NULL));
        prop(o, "linesAdded", uint53(NULL));
        prop(o, "linesRemoved", uint53(NULL));
        prop(o, "_meta", meta());
        required(o, (const char *const[]){ "path", NULL });
    } else if (strcmp(name, "agentActions") == 0) {
        o = ref("#/definitions/agentItems");
    } else if (strcmp(name, "userActions") == 0) {
        o = ref("#/definitions/userItems");
    } else if (strcmp(name, "agentPlan") == 0) {
        o = closed(SF_AGENT_PLAN_KEYS, NULL);
        prop(o, "entries", sf_plan_entries());
        prop(o, "planUpdate", opt_bool(NULL));
        prop(o, "_meta", meta());
        required(o, (const char *const[]){ "entries", NULL });
    } else if (strcmp(name, "setMode") == 0 || strcmp(name, "setModel") == 0) {
        const char *const *keys = strcmp(name, "setModel") == 0 ? SF_SET_MODEL_KEYS : SF_SET_MODE_KEYS;
        o = closed(keys, NULL);
        prop(o, keys[0], text(NULL));
        prop(o, "_meta", meta());
        required(o, (const char *const[]){ keys[0], NULL });
    } else if (strcmp(name, "userInputs") == 0) {
        cJSON *pair = typed("array", "[milliseconds, input]");
        cJSON_AddNumberToObject(pair, "minItems", 2);
        cJSON_AddNumberToObject(pair, "maxItems", 2);
        cJSON *items = cJSON_AddArrayToObject(pair, "items");
        cJSON_AddItemToArray(items, uint53("milliseconds"));
        cJSON_AddItemToArray(items, sf_input());
        cJSON *e = closed(SF_INPUT_ENTRY_KEYS, NULL);
        prop(e, "relativeTime", uint53("milliseconds"));
        prop(e, "input", sf_input());
        prop(e, "_meta", meta());
        prop(e, "expectedResponse", sf_expected_response("what the agent's answer to the prompt must hold"));
        prop(e, "target", enum_of(SF_TARGETS, "where the user types"));
        required(e, (const char *const[]){ "relativeTime", "input", NULL });
        o = array_of(any_of2(pair, e, NULL), NULL);
    } else if (strcmp(name, "userEdits") == 0) {
        o = closed(SF_USER_EDITS_KEYS, NULL);
        prop(o, "patch", text("a patch file beside the scenario"));
        required(o, SF_USER_EDITS_KEYS);
    } else if (strcmp(name, "userCommand") == 0) {
        cJSON *m = closed(SF_USER_COMMAND_KEYS, NULL);
        prop(m, "cmd", opt_text("a shell command"));
        prop(m, "cwd", opt_text(NULL));
        prop(m, "program", opt_text("a program, run with args and no shell"));
        prop(m, "args", strings(NULL));
        prop(m, "expect", typed("object", NULL));
        prop(m, "_meta", meta());
        /* cmd, or program and args: one form */
        one_of_required(m, "cmd", "args");
        cJSON *both = cJSON_CreateObject(), *bl = cJSON_AddArrayToObject(both, "anyOf");
        for (int i = 0; i < 2; i++) {
            cJSON *r = cJSON_CreateObject();
            required(r, (const char *const[]){ "cmd", i ? "program" : "args", NULL });
            cJSON_AddItemToArray(bl, r);
        }
        cJSON_AddItemToObject(m, "not", both);
        o = any_of2(text("a shell command"), m, NULL);
    } else if (strcmp(name, "userCancelSession") == 0 || strcmp(name, "complete") == 0 ||
               strcmp(name, "merge") == 0) {
        o = sf_flag(NULL);
    } else if (strcmp(name, "baseTimeDelta") == 0 || strcmp(name, "advanceMs") == 0) {
        o = uint53("milliseconds");
    } else if (strcmp(name, "screenshot") == 0 || strcmp(name, "status") == 0) {
        o = nonempty(NULL);
    } else if (strcmp(name, "log") == 0) {
        cJSON *m = closed(SF_LOG_KEYS, NULL);
        prop(m, "message", text(NULL));
        prop(m, "_meta", meta());
        required(m, (const char *const[]){ "message", NULL });
        o = any_of2(text(NULL), m, NULL);
    } else if (strcmp(name, "assert") == 0) {
        o = sf_assert();
    } else if (strcmp(name, "sessionStart") == 0) {
        cJSON *m = closed(SF_SESSION_START_KEYS, NULL);
        prop(m, "sessionId", nonempty(NULL));
        prop(m, "expectedPromptResponse", sf_expected_response(NULL));
        prop(m, "_meta", meta());
        o = any_of2(typed("null", NULL), m, NULL);
    } else if (strcmp(name, "initialize") == 0) {
        cJSON *m = closed(SF_INITIALIZE_KEYS, NULL);
        prop(m, "clientCapabilities", typed("object", NULL));
        prop(m, "clientInfo", typed("object", NULL));
        prop(m, "_meta", meta());
        o = any_of2(typed("null", NULL), m, NULL);
    } else if (strcmp(name, "agentFileReads") == 0) {
        o = closed(SF_FILE_READS_KEYS, NULL);
        cJSON *f = closed(SF_FILE_READ_KEYS, NULL);
        prop(f, "path", text("an absolute path"));
        required(f, (const char *const[]){ "path", NULL });
        prop(o, "files", array_of(f, NULL));
        prop(o, "_meta", meta());
        required(o, (const char *const[]){ "files", NULL });
    } else if (strcmp(name, "agentPermissionRequest") == 0) {
        o = sf_permission();
    }
    if (!o)
        return typed(NULL, help);
    if (!cJSON_GetObjectItemCaseSensitive(o, "description"))
        cJSON_AddStringToObject(o, "description", help);
    return o;
}

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
        cJSON_AddItemToObject(p, name, sf_event_body(name, help));
    }
    if (where & (LOWER_IN_TIMELINE | LOWER_IN_AGENT))
        for (size_t i = 0; i < LW_N_TOOLS; i++)
            if (!cJSON_GetObjectItemCaseSensitive(p, LW_TOOLS[i].name))
                cJSON_AddItemToObject(p, LW_TOOLS[i].name, sf_tool_shorthand(&LW_TOOLS[i]));
    for (size_t i = 0; LOWER_COMPANIONS[i]; i++) {
        const char *c = LOWER_COMPANIONS[i];
        cJSON *s = strcmp(c, "_meta") == 0 || strcmp(c, "meta") == 0 ? meta()
                 : strcmp(c, "target") == 0 ? enum_of(SF_TARGETS, "where the user acts")
                 : strcmp(c, "expectedResponse") == 0 ? typed("object", "what the answer to the event must hold")
                                                      : typed(NULL, "beside the event key");
        cJSON_AddItemToObject(p, c, s);
    }
    cJSON_AddItemToObject(p, "rules", typed("array", RULES_HELP));
    cJSON_AddFalseToObject(o, "additionalProperties");
    cJSON_AddNumberToObject(o, "minProperties", 1);
    cJSON *bare = enum_of(LOWER_BARE_EVENTS, "an event without fields, by its name");
    return any_of2(bare, o, NULL);
}

/* The top-level sections (check_repo, check_ah, ... in lower.c). */
static cJSON *sf_section(const char *k, const char *help)
{
    cJSON *o = NULL;
    if (strcmp(k, "repo") == 0) {
        o = closed(SF_REPO_KEYS, help);
        prop(o, "init", opt_bool(NULL));
        prop(o, "branch", opt_text(NULL));
        prop(o, "dir", opt_text("relative to the scenario's folder"));
        cJSON *f = closed(SF_REPO_FILE_KEYS, NULL);
        prop(f, "path", text("relative to the repository"));
        cJSON *b64 = closed((const char *const[]){ "base64", NULL }, NULL);
        prop(b64, "base64", typed("string", NULL));
        required(b64, (const char *const[]){ "base64", NULL });
        prop(f, "contents", any_of2(text(NULL), b64, "the file's text, or {base64: ...}"));
        required(f, SF_REPO_FILE_KEYS);
        prop(o, "files", array_of(f, NULL));
    } else if (strcmp(k, "ah") == 0) {
        o = closed(SF_AH_KEYS, help);
        prop(o, "cmd", opt_text(NULL));
        prop(o, "flags", strings(NULL));
        cJSON *env = typed("object", NULL);
        cJSON_AddItemToObject(env, "additionalProperties", text(NULL));
        prop(o, "env", env);
    } else if (strcmp(k, "server") == 0) {
        o = closed(SF_SERVER_KEYS, help);
        prop(o, "mode", enum_of(SF_SERVER_MODES, NULL));
        prop(o, "llmApiStyle", enum_of(SF_API_STYLES, NULL));
        prop(o, "coalesceThinkingWithToolUse", opt_bool(NULL));
    } else if (strcmp(k, "acp") == 0) {
        o = closed(SF_ACP_KEYS, help);
        cJSON *c = closed(SF_ACP_CAP_KEYS, "the agent's capabilities");
        prop(c, "loadSession", opt_bool(NULL));
        cJSON *pc = closed(SF_PROMPT_CAP_KEYS, NULL);
        for (size_t i = 0; SF_PROMPT_CAP_KEYS[i]; i++)
            prop(pc, SF_PROMPT_CAP_KEYS[i], opt_bool(NULL));
        prop(c, "promptCapabilities", pc);
        cJSON *mc = closed(SF_MCP_CAP_KEYS, NULL);
        for (size_t i = 0; SF_MCP_CAP_KEYS[i]; i++)
            prop(mc, SF_MCP_CAP_KEYS[i], opt_bool(NULL));
        prop(c, "mcpCapabilities", mc);
        prop(o, "capabilities", c);
        prop(o, "cwd", opt_text("an absolute path"));
        cJSON *s = closed(SF_MCP_SERVER_KEYS, "an MCP server");
        prop(s, "name", nonempty(NULL));
        prop(s, "command", opt_text(NULL));
        prop(s, "env", types((const char *const[]){ "object", "array", NULL }, NULL));
        required(s, (const char *const[]){ "name", NULL });
        prop(o, "mcpServers", array_of(s, NULL));
        prop(o, "unstable", opt_bool("allow the unstable ACP methods (setModel)"));
    } else if (strcmp(k, "expect") == 0) {
        o = closed(SF_EXPECT_KEYS, help);
        prop(o, "exitCode", typed("integer", NULL));
        cJSON *a = closed(SF_ARTIFACT_KEYS, NULL);
        prop(a, "pattern", text(NULL));
        required(a, (const char *const[]){ "pattern", NULL });
        prop(o, "artifacts", array_of(a, NULL));
    } else if (strcmp(k, "compat") == 0) {
        o = closed(SF_COMPAT_KEYS, help);
        for (size_t i = 0; SF_COMPAT_KEYS[i]; i++)
            prop(o, SF_COMPAT_KEYS[i], opt_bool(NULL));
    }
    return o;
}

/* `rules` may stand in any mapping and as any list item (rules.c,
** docs/rules.md): every closed mapping below gets the key, a mapping with
** rules may take its required keys from their configs (so they are
** required only without rules), and every list item may be {rules: [...]}. */
static void sf_allow_rules(cJSON *node, int depth)
{
    if (!cJSON_IsObject(node) || depth > 32)
        return;
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "properties")) sf_allow_rules(c, depth + 1);
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "definitions")) sf_allow_rules(c, depth + 1);
    static const char *const lists[] = { "anyOf", "allOf" };
    for (size_t i = 0; i < 2; i++)
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, lists[i])) sf_allow_rules(c, depth + 1);
    sf_allow_rules(cJSON_GetObjectItemCaseSensitive(node, "then"), depth + 1);
    cJSON *items = cJSON_GetObjectItemCaseSensitive(node, "items");
    if (cJSON_IsObject(items)) {
        sf_allow_rules(items, depth + 1);
        cJSON *only = typed("object", "a list item chosen by rules");
        cJSON *p = cJSON_AddObjectToObject(only, "properties");
        cJSON_AddItemToObject(p, "rules", typed("array", RULES_HELP));
        cJSON_AddFalseToObject(only, "additionalProperties");
        required(only, (const char *const[]){ "rules", NULL });
        cJSON_AddItemToObject(node, "items",
                              any_of2(cJSON_DetachItemFromObjectCaseSensitive(node, "items"), only, NULL));
    }
    if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(node, "additionalProperties")))
        return;
    cJSON *p = cJSON_GetObjectItemCaseSensitive(node, "properties");
    if (!cJSON_GetObjectItemCaseSensitive(p, "rules"))
        cJSON_AddItemToObject(p, "rules", typed("array", RULES_HELP));
    cJSON *req = cJSON_DetachItemFromObjectCaseSensitive(node, "required");
    cJSON *any = cJSON_GetObjectItemCaseSensitive(node, "anyOf");
    if (req) {
        cJSON *with = cJSON_CreateObject(), *without = cJSON_CreateObject();
        required(with, (const char *const[]){ "rules", NULL });
        cJSON_AddItemToObject(without, "required", req);
        cJSON_AddItemToObject(node, "if", with);
        cJSON_AddItemToObject(node, "else", without);
    }
    if (any) {      /* one_of_required: either key, or rules */
        cJSON *r = cJSON_CreateObject();
        required(r, (const char *const[]){ "rules", NULL });
        cJSON_AddItemToArray(any, r);
    }
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
        cJSON *s = sf_section(k, help);
        if (!s && strcmp(k, "timeline") == 0) {
            s = typed("array", help);
            cJSON_AddItemToObject(s, "items", ref("#/definitions/item"));
        } else if (!s && (strcmp(k, "name") == 0 || strcmp(k, "terminalRef") == 0 || strcmp(k, "initialPrompt") == 0)) {
            s = typed("string", help);
        } else if (!s && strcmp(k, "tags") == 0) {
            s = strings(help);
        } else if (!s && strcmp(k, "clock") == 0) {
            s = enum_of((const char *const[]){ "spec", "reference", NULL }, help);
        } else if (!s) {
            s = typed(NULL, help);
        }
        cJSON_AddItemToObject(p, k, s);
    }
    cJSON_AddItemToObject(p, "rules", typed("array", RULES_HELP));
    cJSON_AddFalseToObject(r, "additionalProperties");
    cJSON_AddItemToObject(r, "required", str_list((const char *const[]){ "name", NULL }));
    cJSON *d = cJSON_AddObjectToObject(r, "definitions");
    cJSON_AddItemToObject(d, "item", sf_item(LOWER_IN_TIMELINE, "a timeline event"));
    cJSON_AddItemToObject(d, "agentItems", array_of(sf_item(LOWER_IN_AGENT, "an agent event"), NULL));
    cJSON_AddItemToObject(d, "userItems", array_of(sf_item(LOWER_IN_USER, "a user event"), NULL));
    cJSON_AddItemToObject(d, "block", sf_block());
    sf_allow_rules(r, 0);
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
