/* SPDX-License-Identifier: MIT */
/* agent_profile.c - agent profiles: loading, validation, templates, the
** tool vocabulary both ways, detection (agent_profile.h). */
#include "agent_profile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/vformat.h"

struct AgentProfile {
    cJSON *j;
    char *origin;
    const char *name;
    AgentApi api;
    bool interactive;       /* declares: interactive.declares when it has them */
};

/* ---- shipped profiles (agent_profiles_data.c, generated) ---- */

#define AGENT_BUILTINS(X)                        \
    X("claude-code", agent_profile_claude_code)  \
    X("codex", agent_profile_codex)              \
    X("gemini-cli", agent_profile_gemini_cli)    \
    X("qwen-code", agent_profile_qwen_code)      \
    X("opencode", agent_profile_opencode)

#define X(name, sym)                      \
    extern const unsigned char sym[];     \
    extern const size_t sym##_len;
AGENT_BUILTINS(X)
#undef X

const char *const agent_profile_builtins[] = {
#define X(name, sym) name,
    AGENT_BUILTINS(X)
#undef X
    NULL
};

const char *agent_profile_builtin(const char *name, size_t *len)
{
#define X(nm, sym)                  \
    if (strcmp(name, nm) == 0) {    \
        *len = sym##_len;           \
        return (const char *)sym;   \
    }
    AGENT_BUILTINS(X)
#undef X
    return NULL;
}

/* ---- parsing and validation ---- */

static void errf(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t cap, const char *fmt, ...)
{
    SC_VFORMAT(err, cap, fmt);
}

static const char *const API_NAMES[] = { "anthropic", "openai-chat", "openai-responses", "gemini" };

const char *agent_api_name(AgentApi a)
{
    return (unsigned)a < 4 ? API_NAMES[a] : "?";
}

/* Line and column of byte off in s. */
static void line_col(const char *s, size_t off, unsigned *line, unsigned *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

static bool is_str_array(const cJSON *a)
{
    if (!cJSON_IsArray(a))
        return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, a) if (!cJSON_IsString(e)) return false;
    return true;
}

static bool is_str_object(const cJSON *o)
{
    if (!cJSON_IsObject(o))
        return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, o) if (!cJSON_IsString(e)) return false;
    return true;
}

static const char *const TOP_KEYS[] = { "name", "description", "package", "testedVersion", "api", "command",
                                        "headless", "interactive", "env", "files", "tools", "declares", "model",
                                        "errorPattern", "notes", NULL };

static bool known(const char *k, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(*list, k) == 0)
            return true;
    return false;
}

/* s is not empty and has only ASCII letters, digits and the extra characters. */
static bool word_of(const char *s, const char *extra)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr(extra, *s)))
            return false;
    return true;
}

/* The strings of v (keys too) parse as templates; what fails says where. */
static bool templates_parse(const cJSON *v, const char *where, const char *origin, char *err, size_t cap)
{
    const cJSON *e;
    if (cJSON_IsString(v) || (v && v->string)) {
        const char *strs[2] = { cJSON_IsString(v) ? v->valuestring : NULL, v->string };
        for (int k = 0; k < 2; k++) {
            if (!strs[k])
                continue;
            Buf b;
            buf_init(&b);
            char why[256];
            cJSON *none = cJSON_CreateObject();
            bool ok = agent_expand_str(strs[k], none, NULL, &b, why, sizeof why) || strncmp(why, "needs '", 7) == 0;
            cJSON_Delete(none);
            buf_fini(&b);
            if (!ok) {
                errf(err, cap, "%s: %s: %s", origin, where, why);
                return false;
            }
        }
    }
    cJSON_ArrayForEach(e, v) if (!templates_parse(e, where, origin, err, cap)) return false;
    return true;
}

static bool validate(AgentProfile *p, const char *origin, char *err, size_t cap)
{
    const cJSON *j = p->j, *e;
    cJSON_ArrayForEach(e, j) {
        if (!known(e->string, TOP_KEYS)) {
            errf(err, cap, "%s: unknown field '%s' (fields: name, api, command, headless, interactive, env, "
                 "files, tools, declares, errorPattern, ...)", origin, e->string);
            return false;
        }
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
    if (!cJSON_IsString(name) || strlen(name->valuestring) >= 64 || !word_of(name->valuestring, "._-")) {
        errf(err, cap, "%s: 'name' must be 1-63 characters of [A-Za-z0-9._-]", origin);
        return false;
    }
    p->name = name->valuestring;
    const cJSON *api = cJSON_GetObjectItemCaseSensitive(j, "api");
    int ai = -1;
    for (int i = 0; i < 4 && cJSON_IsString(api); i++)
        if (strcmp(api->valuestring, API_NAMES[i]) == 0)
            ai = i;
    if (ai < 0) {
        errf(err, cap, "%s: 'api' must be one of anthropic, openai-chat, openai-responses, gemini", origin);
        return false;
    }
    p->api = (AgentApi)ai;
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(j, "command");
    if (!cJSON_IsString(cmd) || !cmd->valuestring[0]) {
        errf(err, cap, "%s: 'command' must be a non-empty string (the agent's program)", origin);
        return false;
    }
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "headless");
    if (h && !is_str_array(h)) {
        errf(err, cap, "%s: 'headless' must be an array of strings (the arguments; {prompt} is the prompt)", origin);
        return false;
    }
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(j, "interactive");
    if (in) {
        static const char *const IN_KEYS[] = { "args", "ready", "busy", "quit", "typeDelayMs", "declares", NULL };
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(in, "args"), *r = cJSON_GetObjectItemCaseSensitive(in, "ready"),
                    *q = cJSON_GetObjectItemCaseSensitive(in, "quit"),
                    *d = cJSON_GetObjectItemCaseSensitive(in, "typeDelayMs");
        bool ok = cJSON_IsObject(in) && (!a || is_str_array(a)) && (!r || cJSON_IsString(r)) &&
                  (!q || is_str_array(q)) && (!d || (cJSON_IsNumber(d) && d->valuedouble >= 0 && d->valuedouble <= 10000)) &&
                  (!cJSON_GetObjectItemCaseSensitive(in, "declares") ||
                   is_str_array(cJSON_GetObjectItemCaseSensitive(in, "declares"))) &&
                  (!cJSON_GetObjectItemCaseSensitive(in, "busy") ||
                   is_str_array(cJSON_GetObjectItemCaseSensitive(in, "busy")));
        cJSON_ArrayForEach(e, in) ok = ok && known(e->string, IN_KEYS);
        if (!ok) {
            errf(err, cap, "%s: 'interactive' must be {args: [strings], ready: string, busy: [strings], "
                 "quit: [key names], typeDelayMs: 0..10000, declares: [tool names]}", origin);
            return false;
        }
    }
    if (!h && !in) {
        errf(err, cap, "%s: a profile needs 'headless' or 'interactive' (or both)", origin);
        return false;
    }
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(j, "env");
    if (env && !is_str_object(env)) {
        errf(err, cap, "%s: 'env' must map names to strings", origin);
        return false;
    }
    cJSON_ArrayForEach(e, env) {
        const char *k = e->string;
        if (!word_of(k, "_") || (k[0] >= '0' && k[0] <= '9') || strlen(k) >= 200) {
            errf(err, cap, "%s: env: '%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", origin, e->string);
            return false;
        }
    }
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(j, "files");
    if (files && !cJSON_IsObject(files)) {
        errf(err, cap, "%s: 'files' must map paths ({home}/..., {workspace}/...) to contents", origin);
        return false;
    }
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(j, "tools");
    if (tools && !cJSON_IsObject(tools)) {
        errf(err, cap, "%s: 'tools' must map scenario tools to {tool, args}", origin);
        return false;
    }
    cJSON_ArrayForEach(e, tools) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "tool"), *a = cJSON_GetObjectItemCaseSensitive(e, "args");
        bool ok = cJSON_IsObject(e) && cJSON_IsString(t) && t->valuestring[0] && (!a || cJSON_IsObject(a));
        const cJSON *k;
        cJSON_ArrayForEach(k, e) ok = ok && (strcmp(k->string, "tool") == 0 || strcmp(k->string, "args") == 0);
        if (!ok) {
            errf(err, cap, "%s: tools.%s must be {\"tool\": the agent's tool name, \"args\": {template}}", origin,
                 e->string);
            return false;
        }
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "declares");
    if (d && !is_str_array(d)) {
        errf(err, cap, "%s: 'declares' must be an array of tool names", origin);
        return false;
    }
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(j, "errorPattern");
    if (ep && !cJSON_IsString(ep)) {
        errf(err, cap, "%s: 'errorPattern' must be a string (a regex)", origin);
        return false;
    }
    /* Every template must parse (a placeholder well formed, its filters
    ** known): checked now, so a broken profile is refused when loaded, not
    ** in the middle of a run. */
    static const char *const TEMPLATED[] = { "command", "headless", "env", "files", "tools", NULL };
    for (int i = 0; TEMPLATED[i]; i++)
        if (!templates_parse(cJSON_GetObjectItemCaseSensitive(j, TEMPLATED[i]), TEMPLATED[i], origin, err, cap))
            return false;
    return templates_parse(cJSON_GetObjectItemCaseSensitive(in, "args"), "interactive.args", origin, err, cap);
}

AgentProfile *agent_profile_parse(const char *json, size_t len, const char *origin, char *err, size_t cap)
{
    AgentProfile *p = sc_calloc(1, sizeof *p);
    if (!p) {
        errf(err, cap, "out of memory");
        return NULL;
    }
    p->origin = sc_strdup(origin);
    const char *end = NULL;
    p->j = cJSON_ParseWithLengthOpts(json, len, &end, false);
    if (!p->j || !p->origin) {
        if (p->origin && end) {
            unsigned l, c;
            line_col(json, (size_t)(end - json), &l, &c);
            errf(err, cap, "%s:%u:%u: not valid JSON", origin, l, c);
        } else {
            errf(err, cap, "%s: not valid JSON", origin);
        }
        agent_profile_free(p);
        return NULL;
    }
    if (!cJSON_IsObject(p->j)) {
        errf(err, cap, "%s: a profile is a JSON object", origin);
        agent_profile_free(p);
        return NULL;
    }
    if (!validate(p, origin, err, cap)) {
        agent_profile_free(p);
        return NULL;
    }
    return p;
}

void agent_profile_free(AgentProfile *p)
{
    if (!p)
        return;
    cJSON_Delete(p->j);
    sc_free(p->origin);
    sc_free(p);
}

static AgentProfile *load_file(const char *path, char *err, size_t cap)
{
    char *data = NULL;
    size_t len = 0;
    int e = file_read_all(path, 1u << 20, &data, &len);
    if (e) {
        errf(err, cap, "%s: %s", path, e == EFBIG ? "larger than 1 MiB" : strerror(e));
        return NULL;
    }
    AgentProfile *p = agent_profile_parse(data, len, path, err, cap);
    sc_free(data);
    return p;
}

AgentProfile *agent_profile_load(const char *name, char *err, size_t cap)
{
    size_t n = strlen(name);
    if (strchr(name, '/') || (n > 5 && strcmp(name + n - 5, ".json") == 0))
        return load_file(name, err, cap);
    if (!word_of(name, "._-")) {
        errf(err, cap, "'%s' is not a profile name ([A-Za-z0-9._-]) nor a path", name);
        return NULL;
    }
    char path[4096];
    const char *sp = getenv("SCVM_AGENT_PATH");
    while (sp && *sp) {
        const char *colon = strchr(sp, ':');
        size_t dl = colon ? (size_t)(colon - sp) : strlen(sp);
        if (dl) {
            snprintf(path, sizeof path, "%.*s/%s.json", (int)dl, sp, name);
            if (access(path, R_OK) == 0)
                return load_file(path, err, cap);
        }
        sp = colon ? colon + 1 : NULL;
    }
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(path, sizeof path, "%s/scvm/agents/%s.json", xdg, name);
    else if (home && home[0] == '/')
        snprintf(path, sizeof path, "%s/.config/scvm/agents/%s.json", home, name);
    else
        path[0] = 0;
    if (path[0] && access(path, R_OK) == 0)
        return load_file(path, err, cap);
    size_t len;
    const char *b = agent_profile_builtin(name, &len);
    if (b) {
        char origin[128];
        snprintf(origin, sizeof origin, "built-in profile '%s'", name);
        return agent_profile_parse(b, len, origin, err, cap);
    }
    Buf names;
    buf_init(&names);
    for (size_t i = 0; agent_profile_builtins[i]; i++)
        buf_printf(&names, "%s%s", i ? ", " : "", agent_profile_builtins[i]);
    buf_putc(&names, 0);
    errf(err, cap, "no agent profile '%s' (shipped: %s; or a path to a profile file)", name,
         names.data ? (const char *)names.data : "");
    buf_fini(&names);
    return NULL;
}

const char *agent_profile_name(const AgentProfile *p) { return p->name; }
const char *agent_profile_origin(const AgentProfile *p) { return p->origin; }
AgentApi agent_profile_api(const AgentProfile *p) { return p->api; }
const cJSON *agent_profile_json(const AgentProfile *p) { return p->j; }

const cJSON *agent_profile_get(const AgentProfile *p, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(p->j, key);
}

const cJSON *agent_profile_declares(const AgentProfile *p)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(agent_profile_get(p, "interactive"), "declares");
    return p->interactive && d ? d : agent_profile_get(p, "declares");
}

void agent_profile_set_interactive(AgentProfile *p, bool on)
{
    p->interactive = on;
}

const char *agent_profile_error_pattern(const AgentProfile *p)
{
    const cJSON *e = agent_profile_get(p, "errorPattern");
    return cJSON_IsString(e) ? e->valuestring : NULL;
}

/* ---- templates ---- */

typedef struct Ph {
    char name[64], or_name[64];
    bool optional;
    /* filters in order: 'a' abs, 'r' rel, 'l' lines (arg), 't' tail (n) */
    char f[8];
    char farg[8][16];
    int nf;
} Ph;

/* Parses the placeholder text s[0..n) (between the braces). */
static bool ph_parse(const char *s, size_t n, Ph *ph, char *err, size_t cap)
{
    memset(ph, 0, sizeof *ph);
    size_t i = 0;
    while (i < n && s[i] != '|' && s[i] != '?')
        i++;
    if (i == 0 || i >= sizeof ph->name) {
        errf(err, cap, "template placeholder '{%.*s}' has no variable name", (int)n, s);
        return false;
    }
    memcpy(ph->name, s, i);
    if (i < n && s[i] == '?') {
        ph->optional = true;
        i++;
    }
    while (i < n) {
        if (s[i] != '|' || ph->nf == 8) {
            errf(err, cap, "template placeholder '{%.*s}': expected '|filter'", (int)n, s);
            return false;
        }
        size_t j = ++i;
        while (j < n && s[j] != '|')
            j++;
        const char *f = s + i;
        size_t fl = j - i;
        const char *colon = memchr(f, ':', fl);
        size_t nl = colon ? (size_t)(colon - f) : fl;
        const char *arg = colon ? colon + 1 : "";
        size_t al = colon ? fl - nl - 1 : 0;
        char code = 0;
        if (nl == 3 && memcmp(f, "abs", 3) == 0 && !colon)
            code = 'a';
        else if (nl == 3 && memcmp(f, "rel", 3) == 0 && !colon)
            code = 'r';
        else if (nl == 2 && memcmp(f, "sh", 2) == 0 && !colon)
            code = 's';
        else if (nl == 5 && memcmp(f, "lines", 5) == 0 && colon)
            code = 'l';
        else if (nl == 4 && memcmp(f, "tail", 4) == 0 && colon && al && strspn(arg, "0123456789") >= al)
            code = 't';
        else if (nl == 2 && memcmp(f, "or", 2) == 0 && colon && al && al < sizeof ph->or_name)
            code = 'o';
        if (!code || al >= sizeof ph->farg[0]) {
            errf(err, cap, "template placeholder '{%.*s}': unknown filter '%.*s' (abs, rel, sh, lines:P, tail:N, or:NAME)",
                 (int)n, s, (int)fl, f);
            return false;
        }
        if (code == 'o') {
            memcpy(ph->or_name, arg, al);
        } else {
            ph->f[ph->nf] = code;
            memcpy(ph->farg[ph->nf], arg, al);
            ph->nf++;
        }
        i = j;
    }
    return true;
}

static void put_scalar(Buf *b, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        buf_puts(b, v->valuestring);
    } else if (cJSON_IsBool(v)) {
        buf_puts(b, cJSON_IsTrue(v) ? "true" : "false");
    } else {
        char *s = cJSON_PrintUnformatted(v);
        if (s) {
            buf_puts(b, s);
            cJSON_free(s);
        } else {
            b->oom = true;
        }
    }
}

/* Applies ph's filters to the text v into out. */
static void ph_filter(const Ph *ph, const cJSON *v, const char *ws, Buf *out)
{
    Buf cur, nxt;
    buf_init(&cur);
    buf_init(&nxt);
    put_scalar(&cur, v);
    buf_putc(&cur, 0);
    for (int k = 0; k < ph->nf; k++) {
        const char *s = (const char *)cur.data;
        size_t n = cur.len - 1;
        buf_reset(&nxt);
        switch (ph->f[k]) {
        case 'a':
            if (s[0] == '/' || !ws || !ws[0]) {
                buf_put(&nxt, s, n);
            } else {
                buf_puts(&nxt, ws);
                if (strcmp(s, ".") != 0) {
                    buf_putc(&nxt, '/');
                    buf_put(&nxt, s[0] == '.' && s[1] == '/' ? s + 2 : s, s[0] == '.' && s[1] == '/' ? n - 2 : n);
                }
            }
            break;
        case 'r': {
            size_t wl = ws ? strlen(ws) : 0;
            if (wl && strncmp(s, ws, wl) == 0 && (s[wl] == '/' || s[wl] == 0))
                buf_puts(&nxt, s[wl] ? s + wl + 1 : ".");
            else
                buf_put(&nxt, s, n);
            break;
        }
        case 's':       /* one shell word: '...' with ' as '\'' */
            buf_putc(&nxt, '\'');
            for (size_t i = 0; i < n; i++) {
                if (s[i] == '\'')
                    buf_puts(&nxt, "'\\''");
                else
                    buf_putc(&nxt, s[i]);
            }
            buf_putc(&nxt, '\'');
            break;
        case 'l':
            for (size_t i = 0; i < n;) {
                const char *nl = memchr(s + i, '\n', n - i);
                size_t ll = nl ? (size_t)(nl - (s + i)) : n - i;
                buf_puts(&nxt, ph->farg[k]);
                buf_put(&nxt, s + i, ll);
                i += ll;
                if (nl) {
                    i++;
                    if (i < n)
                        buf_putc(&nxt, '\n');
                }
            }
            break;
        case 't': {
            size_t want = (size_t)strtoul(ph->farg[k], NULL, 10);
            size_t from = n > want ? n - want : 0;
            while (from > 0 && ((unsigned char)s[from] & 0xC0) == 0x80)
                from--;
            buf_put(&nxt, s + from, n - from);
            break;
        }
        }
        buf_putc(&nxt, 0);
        Buf tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    if (cur.len)
        buf_put(out, cur.data, cur.len - 1);
    out->oom |= cur.oom;
    buf_fini(&cur);
    buf_fini(&nxt);
}

static const cJSON *ph_value(const Ph *ph, const cJSON *vars)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(vars, ph->name);
    if ((!v || cJSON_IsNull(v)) && ph->or_name[0])
        v = cJSON_GetObjectItemCaseSensitive(vars, ph->or_name);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

/* One placeholder that is the whole string: "{...}" with no other brace. */
static bool whole_placeholder(const char *t, size_t *inner)
{
    size_t n = strlen(t);
    if (n < 3 || t[0] != '{' || t[1] == '{' || t[n - 1] != '}')
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (t[i] == '{' || t[i] == '}')
            return false;
    *inner = n - 2;
    return true;
}

bool agent_expand_str(const char *t, const cJSON *vars, const char *ws, Buf *out, char *err, size_t cap)
{
    for (const char *p = t; *p;) {
        if (p[0] == '{' && p[1] == '{') {
            buf_putc(out, '{');
            p += 2;
        } else if (p[0] == '}' && p[1] == '}') {
            buf_putc(out, '}');
            p += 2;
        } else if (p[0] == '}') {
            errf(err, cap, "template '%s': a lone '}' (write '}}')", t);
            return false;
        } else if (p[0] == '{') {
            const char *e = strchr(p, '}');
            if (!e) {
                errf(err, cap, "template '%s': '{' without '}' (write '{{' for a brace)", t);
                return false;
            }
            Ph ph;
            if (!ph_parse(p + 1, (size_t)(e - p - 1), &ph, err, cap))
                return false;
            const cJSON *v = ph_value(&ph, vars);
            if (!v && !ph.optional) {
                errf(err, cap, "needs '%s'", ph.name);
                return false;
            }
            if (v)
                ph_filter(&ph, v, ws, out);
            p = e + 1;
        } else {
            const char *q = p;
            while (*q && *q != '{' && *q != '}')
                q++;
            buf_put(out, p, (size_t)(q - p));
            p = q;
        }
    }
    return !out->oom || (errf(err, cap, "out of memory"), false);
}

cJSON *agent_expand(const cJSON *t, const cJSON *vars, const char *ws, bool *omitted, char *err, size_t cap)
{
    *omitted = false;
    if (cJSON_IsString(t)) {
        size_t inner;
        if (whole_placeholder(t->valuestring, &inner)) {
            Ph ph;
            if (!ph_parse(t->valuestring + 1, inner, &ph, err, cap))
                return NULL;
            const cJSON *v = ph_value(&ph, vars);
            if (!v) {
                if (ph.optional) {
                    *omitted = true;
                    return NULL;
                }
                errf(err, cap, "needs '%s'", ph.name);
                return NULL;
            }
            if (!ph.nf)
                return cJSON_Duplicate(v, true);
            Buf b;
            buf_init(&b);
            ph_filter(&ph, v, ws, &b);
            buf_putc(&b, 0);
            cJSON *r = b.oom ? NULL : cJSON_CreateString((const char *)b.data);
            buf_fini(&b);
            return r;
        }
        Buf b;
        buf_init(&b);
        cJSON *r = NULL;
        if (agent_expand_str(t->valuestring, vars, ws, &b, err, cap)) {
            buf_putc(&b, 0);
            r = cJSON_CreateString((const char *)b.data);
        }
        buf_fini(&b);
        return r;
    }
    if (cJSON_IsArray(t) || cJSON_IsObject(t)) {
        cJSON *r = cJSON_IsArray(t) ? cJSON_CreateArray() : cJSON_CreateObject();
        const cJSON *e;
        cJSON_ArrayForEach(e, t) {
            bool om;
            cJSON *v = agent_expand(e, vars, ws, &om, err, cap);
            if (om)
                continue;
            if (!v) {
                cJSON_Delete(r);
                return NULL;
            }
            if (cJSON_IsArray(t)) {
                cJSON_AddItemToArray(r, v);
            } else {
                Buf k;
                buf_init(&k);
                bool ok = agent_expand_str(e->string, vars, ws, &k, err, cap);
                buf_putc(&k, 0);
                if (!ok || k.oom) {
                    buf_fini(&k);
                    cJSON_Delete(v);
                    cJSON_Delete(r);
                    return NULL;
                }
                cJSON_AddItemToObject(r, (const char *)k.data, v);
                buf_fini(&k);
            }
        }
        return r;
    }
    return cJSON_Duplicate(t, true);
}

/* ---- tools ---- */

/* The Scenario-Format's tool names (scenario-format.md, "Tool-specific
** events"), and glob. */
static const char *const VOCAB[] = { "runCmd", "grep", "glob", "readFile", "listDir", "find", "sed", "editFile",
                                     "writeFile", "task", "webFetch", "webSearch", "todoWrite", "notebookEdit",
                                     "exitPlanMode", "bashOutput", "killShell", "slashCommand", NULL };

bool agent_is_scenario_tool(const char *name)
{
    return known(name, VOCAB);
}

static const cJSON *tool_entry(const AgentProfile *p, const char *tool)
{
    return cJSON_GetObjectItemCaseSensitive(agent_profile_get(p, "tools"), tool);
}

int agent_map_call(const AgentProfile *p, const char *tool, const cJSON *args, const char *ws, Buf *name,
                   Buf *args_out, char *err, size_t cap)
{
    const cJSON *e = tool_entry(p, tool);
    if (!e)
        return 0;
    const cJSON *tn = cJSON_GetObjectItemCaseSensitive(e, "tool"), *ta = cJSON_GetObjectItemCaseSensitive(e, "args");
    cJSON *vars = cJSON_IsObject(args) ? cJSON_Duplicate(args, true) : cJSON_CreateObject();
    if (vars && ws && !cJSON_GetObjectItemCaseSensitive(vars, "workspace"))
        cJSON_AddStringToObject(vars, "workspace", ws);
    bool om;
    char why[256];
    cJSON *out = ta ? agent_expand(ta, vars, ws, &om, why, sizeof why) : cJSON_CreateObject();
    cJSON_Delete(vars);
    if (!out) {
        errf(err, cap, "profile '%s' maps %s to %s, which %s", p->name, tool, tn->valuestring, why);
        return -1;
    }
    char *s = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    if (!s) {
        errf(err, cap, "out of memory");
        return -1;
    }
    buf_puts(name, tn->valuestring);
    buf_puts(args_out, s);
    cJSON_free(s);
    return 1;
}

const char *agent_scenario_tool(const AgentProfile *p, const char *agent_tool)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, agent_profile_get(p, "tools")) {
        const cJSON *tn = cJSON_GetObjectItemCaseSensitive(e, "tool");
        if (cJSON_IsString(tn) && strcmp(tn->valuestring, agent_tool) == 0)
            return e->string;
    }
    return NULL;
}

int agent_unmap_call(const AgentProfile *p, const char *agent_tool, const cJSON *agent_args, const char *ws,
                     Buf *name, Buf *args_out)
{
    const char *st = agent_scenario_tool(p, agent_tool);
    if (!st)
        return 0;
    const cJSON *ta = cJSON_GetObjectItemCaseSensitive(tool_entry(p, st), "args");
    cJSON *out = cJSON_CreateObject();
    const cJSON *m;
    cJSON_ArrayForEach(m, ta) {
        size_t inner;
        Ph ph;
        char e[8];
        if (!cJSON_IsString(m) || !whole_placeholder(m->valuestring, &inner) ||
            !ph_parse(m->valuestring + 1, inner, &ph, e, sizeof e) || ph.nf > 1 || (ph.nf == 1 && ph.f[0] != 'a'))
            continue;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(agent_args, m->string);
        if (!v || cJSON_GetObjectItemCaseSensitive(out, ph.name))
            continue;
        if (ph.nf == 1 && cJSON_IsString(v)) {
            Ph rel = ph;
            rel.f[0] = 'r';
            Buf b;
            buf_init(&b);
            ph_filter(&rel, v, ws, &b);
            buf_putc(&b, 0);
            if (!b.oom)
                cJSON_AddStringToObject(out, ph.name, (const char *)b.data);
            buf_fini(&b);
        } else {
            cJSON_AddItemToObject(out, ph.name, cJSON_Duplicate(v, true));
        }
    }
    char *s = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    if (!s)
        return -1;
    buf_puts(name, st);
    buf_puts(args_out, s);
    cJSON_free(s);
    return 1;
}

/* ---- detection ---- */

static bool has_name(const cJSON *arr, const char *n)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) if (cJSON_IsString(e) && strcmp(e->valuestring, n) == 0) return true;
    return false;
}

int agent_detect(AgentProfile *const *ps, size_t n, const cJSON *names, double *score)
{
    int best = -1;
    double bs = 0;
    for (size_t i = 0; i < n; i++) {
        const cJSON *d = agent_profile_declares(ps[i]);
        if (!d)
            continue;
        size_t both = 0, uni = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, d) {
            uni++;
            both += has_name(names, e->valuestring);
        }
        cJSON_ArrayForEach(e, names) uni += cJSON_IsString(e) && !has_name(d, e->valuestring);
        double s = uni ? (double)both / (double)uni : 0;
        if (s > bs) {
            bs = s;
            best = (int)i;
        }
    }
    if (score)
        *score = bs;
    return bs >= 0.5 ? best : -1;
}

static void add_name(cJSON *out, const cJSON *n)
{
    if (cJSON_IsString(n) && !has_name(out, n->valuestring))
        cJSON_AddItemToArray(out, cJSON_CreateString(n->valuestring));
}

cJSON *agent_declared_tools(const cJSON *tools)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
        const cJSON *fd = cJSON_GetObjectItemCaseSensitive(t, "functionDeclarations"), *d;
        cJSON_ArrayForEach(d, fd) add_name(out, cJSON_GetObjectItemCaseSensitive(d, "name"));
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(t, "name");
        if (!cJSON_IsString(n))
            n = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "function"), "name");
        add_name(out, n);
    }
    return out;
}
