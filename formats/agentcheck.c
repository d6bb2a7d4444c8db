/* SPDX-License-Identifier: MIT */
/* agentcheck.c - the agent-check language of EVAL (agentcheck.h).
**
** The check types are agentcheck.def; here each has its fields.  The front
** ends (compiler/dialect_eliza.c, compiler/dialect_yao.c) list a dialect's
** types with ac_dialect_names(), the verifier checks programs with
** ac_verify(), the judge (runtime/judge/) switches over ac_type_of(). */
#include "agentcheck.h"

#include <stdio.h>
#include <string.h>

#define F(name, kind) { name, kind, false }
#define R(name, kind) { name, kind, true }
#define END_ { NULL, 0, false }

/* Types named after the dialect that has them; where both have one
** (contains, regex) the fields make every difference explicit. */
static const AcField CONTAINS[] = { R("value", 's'), R("case_sensitive", 'b'), END_ };
static const AcField EQUALS[] = { R("value", 'v'), END_ };
static const AcField REGEX[] = { R("pattern", 'p'), R("case_sensitive", 'b'), END_ };
static const AcField JSON_PATH[] = { R("path", 's'), R("value", 'v'), END_ };
static const AcField VALUE_TYPE[] = { R("value", 's'), F("path", 's'), END_ };
static const AcField TOOL_CALLED[] = { R("value", 'v'), END_ };
static const AcField TOOL_RESULT[] = { R("value", 'm'), END_ };
static const AcField SCRIPT[] = { R("script", 's'), F("value", 'v'), F("options", 'm'), END_ };
static const AcField AGENT[] = { R("use", 's'), F("value", 'v'), F("options", 'm'), F("verdict", 'm'), END_ };
static const AcField LLM_JUDGE[] = { R("prompt", 's'), R("expected", 's'), F("capabilities", 'a'),
                                     F("model_type", 's'), F("temperature", 'n'), F("json_schema", 'm'),
                                     F("verdict", 'v'), END_ };
static const AcField FILE_EXISTS[] = { R("path", 's'), END_ };
static const AcField FILE_CONTAINS[] = { R("path", 's'), R("value", 's'), END_ };
static const AcField EXIT_CODE[] = { R("command", 's'), R("expected_code", 'i'), END_ };
static const AcField ACTION[] = { R("action", 's'), END_ };
static const AcField EXEC_TIME[] = { R("max_duration_ms", 'i'), F("min_duration_ms", 'i'),
                                     F("target_duration_ms", 'i'), END_ };
static const AcField CONV_LENGTH[] = { F("min_turns", 'i'), F("max_turns", 'i'), F("optimal_turns", 'i'),
                                       F("target_range", 'v'), END_ };
static const AcField CONV_FLOW[] = { R("required_patterns", 'a'), F("flow_quality_threshold", 'n'), END_ };
static const AcField SATISFACTION[] = { F("satisfaction_threshold", 'n'), F("indicators", 'm'),
                                        F("measurement_method", 's'), END_ };
static const AcField RETENTION[] = { R("test_memory_of", 'a'), F("retention_turns", 'i'),
                                     F("memory_accuracy_threshold", 'n'), END_ };

static const struct {
    const char *name;
    const AcField *fields;
    const char *dialect[2];    /* AcDialect: the ElizaOS, the Yao type name */
} TYPES[] = {
#define AC(id, name, fields, eliza, yao) { name, fields, { eliza, yao } },
#include "agentcheck.def"
#undef AC
};
enum { N_TYPES = sizeof TYPES / sizeof TYPES[0] };
_Static_assert((size_t)N_TYPES == (size_t)AC__UNKNOWN, "TYPES is agentcheck.def's rows");

static const AcField COMMON[] = { R("type", 's'), R("scope", 's'), F("negate", 'b'), F("message", 's'),
                                  F("description", 's'), F("id", 's'), F("after", 'a'), F("required", 'b'),
                                  END_ };

static const char *const SCOPES[] = { "step", "turn", "final", "case", "checkpoint", NULL };

const char *ac_type_name(size_t i)
{
    return i < N_TYPES ? TYPES[i].name : NULL;
}

AcType ac_type_of(const char *name)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (strcmp(TYPES[i].name, name) == 0)
            return (AcType)i;
    return AC__UNKNOWN;
}

AcType ac_dialect_type(AcDialect d, const char *name)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (TYPES[i].dialect[d] && strcmp(TYPES[i].dialect[d], name) == 0)
            return (AcType)i;
    return AC__UNKNOWN;
}

size_t ac_dialect_names(AcDialect d, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < N_TYPES && n + 1 < cap; i++)
        if (TYPES[i].dialect[d])
            out[n++] = TYPES[i].dialect[d];
    if (cap)
        out[n] = NULL;
    return n;
}

const AcField *ac_fields(const char *type)
{
    AcType t = ac_type_of(type);
    return t == AC__UNKNOWN ? NULL : TYPES[t].fields;
}

bool ac_scope_ok(const char *scope)
{
    for (size_t i = 0; SCOPES[i]; i++)
        if (strcmp(SCOPES[i], scope) == 0)
            return true;
    return false;
}

TermRegex *ac_regex_new(const char *pat, size_t len, bool case_sensitive, char *err, size_t errlen)
{
    if (case_sensitive || (len >= 4 && memcmp(pat, "(?i)", 4) == 0))
        return term_regex_new(pat, len, err, errlen);
    enum { MAX = 1100 };
    char buf[MAX];
    if (len > MAX - 5) {
        snprintf(err, errlen, "pattern longer than %d bytes", MAX - 5);
        return NULL;
    }
    memcpy(buf, "(?i)", 4);
    memcpy(buf + 4, pat, len);
    return term_regex_new(buf, len + 4, err, errlen);
}

static const AcField *find_field(const AcField *f, const char *name)
{
    for (; f && f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

/* One field's value against its kind. */
static bool kind_ok(const BcProgram *p, const BcVal *v, char kind)
{
    switch (kind) {
    case 's':
    case 'p':
        return v->tag == BC_V_STR;
    case 'i':
        return v->tag == BC_V_INT && v->i >= 0;
    case 'n':
        return v->tag == BC_V_INT || v->tag == BC_V_FLOAT;
    case 'b':
        return v->tag == BC_V_TRUE || v->tag == BC_V_FALSE;
    case 'm':
        return v->tag == BC_V_MAP;
    case 'a': {
        if (v->tag != BC_V_ARRAY)
            return false;
        const unsigned char *e = v->p;
        for (uint32_t i = 0; i < v->n; i++) {
            BcVal el;
            e = bc_val_decode(p, e, &el);
            if (el.tag != BC_V_STR)
                return false;
        }
        return true;
    }
    default:
        return true;   /* 'v': any value */
    }
}

static const char *kind_name(char kind)
{
    switch (kind) {
    case 's': return "a string";
    case 'p': return "a pattern string";
    case 'i': return "an integer >= 0";
    case 'n': return "a number";
    case 'b': return "true or false";
    case 'm': return "a map";
    case 'a': return "an array of strings";
    default: return "a value";
    }
}

int ac_verify(const BcProgram *p, const BcVal *v, char *msg, size_t n)
{
    if (v->tag != BC_V_MAP) {
        snprintf(msg, n, "a check must be a map");
        return 0;
    }
    BcVal tv, sv;
    if (!bc_val_get(p, v, "type", &tv) || tv.tag != BC_V_STR) {
        snprintf(msg, n, "a check needs a string 'type'");
        return 0;
    }
    const char *type = p->str[tv.n].s;
    const AcField *fields = ac_fields(type);
    if (!fields) {
        snprintf(msg, n, "unknown check type '%.100s'", type);
        return 0;
    }
    if (!bc_val_get(p, v, "scope", &sv) || sv.tag != BC_V_STR || !ac_scope_ok(p->str[sv.n].s)) {
        snprintf(msg, n, "%s: 'scope' must be step, turn, final, case or checkpoint", type);
        return 0;
    }
    bool checkpoint = strcmp(p->str[sv.n].s, "checkpoint") == 0;
    /* every field known and of its kind */
    const unsigned char *e = v->p;
    for (uint32_t i = 0; i < v->n; i++) {
        BcVal k, val;
        e = bc_val_decode(p, e, &k);
        e = bc_val_decode(p, e, &val);
        const char *key = p->str[k.n].s;
        const AcField *f = find_field(fields, key);
        if (!f)
            f = find_field(COMMON, key);
        if (!f) {
            snprintf(msg, n, "%s: unknown field '%.60s'", type, key);
            return 0;
        }
        if (!kind_ok(p, &val, f->kind)) {
            snprintf(msg, n, "%s: '%s' must be %s", type, f->name, kind_name(f->kind));
            return 0;
        }
    }
    for (const AcField *f = fields; f->name; f++) {
        BcVal val;
        if (f->required && !bc_val_get(p, v, f->name, &val)) {
            snprintf(msg, n, "%s: needs '%s'", type, f->name);
            return 0;
        }
    }
    BcVal idv;
    if (checkpoint && !bc_val_get(p, v, "id", &idv)) {
        snprintf(msg, n, "%s: a checkpoint needs an 'id'", type);
        return 0;
    }
    BcVal pat;
    if (strcmp(type, "regex") == 0 && bc_val_get(p, v, "pattern", &pat)) {
        BcVal cs;
        bool sens = bc_val_get(p, v, "case_sensitive", &cs) && cs.tag == BC_V_TRUE;
        char err[160];
        TermRegex *re = ac_regex_new(p->str[pat.n].s, p->str[pat.n].len, sens, err, sizeof err);
        if (!re) {
            snprintf(msg, n, "regex: invalid pattern: %s", err);
            return strncmp(err, "out of memory", 13) == 0 ? -1 : 0;
        }
        term_regex_free(re);
    }
    return 1;
}
