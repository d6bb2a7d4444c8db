/* SPDX-License-Identifier: MIT */
/* rt_policy.c - a tui-use Policy checked and planned (rt_policy.h). */
#include "rt_policy.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/diag.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "include/scc/session.h"
#include "runtime/pty/rt_pty_session.h"

extern char **environ;

enum { MAX_LIST = 64 };

static PtyErr plan(const PtyPolicyIn *cfg, PtyPolicy *p, cJSON **tree, char *err, size_t n);


static bool is_root_like(const char *p)
{
    static const char *const roots[] = { "/", "/bin", "/boot", "/dev", "/etc", "/lib", "/proc", "/root",
                                         "/sbin", "/sys", "/usr", "/var", "/home", NULL };
    char rp[PATH_MAX];
    const char *q = realpath(p, rp) ? rp : p;
    for (int i = 0; roots[i]; i++)
        if (strcmp(q, roots[i]) == 0)
            return true;
    const char *home = getenv("HOME");
    char hp[PATH_MAX];
    return home && *home && realpath(home, hp) && strcmp(q, hp) == 0;
}

bool pty_jbool(const cJSON *o, const char *key, bool dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

const char *pty_jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The strings of o[key] (an array) into out, at most MAX_LIST; -1 when a
** member is not a string. */
static int jlist(const cJSON *o, const char *key, const char **out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *e;
    int n = 0;
    if (!a || cJSON_IsNull(a))
        return 0;
    if (!cJSON_IsArray(a))
        return -1;
    cJSON_ArrayForEach(e, a) {
        if (!cJSON_IsString(e) || n >= MAX_LIST)
            return -1;
        out[n++] = e->valuestring;
    }
    return n;
}

/* in with '.' and '..' resolved lexically, then its longest existing
** prefix resolved by realpath (links included), into out: what the
** allowlist checks compare, so neither '..' nor a link steps out of a
** root (the data model: "normalized before allowlist checks").  False
** for a relative or too long path. */
static bool norm_path(const char *in, char *out, size_t n)
{
    char lex[PATH_MAX];
    size_t k = 0;
    if (!in || in[0] != '/')
        return false;
    lex[0] = 0;
    for (const char *s = in; *s;) {
        while (*s == '/')
            s++;
        if (!*s)
            break;
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (k > 0 && lex[k - 1] != '/')
                k--;
            if (k > 0)
                k--;
            lex[k] = 0;
        } else if (!(len == 1 && s[0] == '.')) {
            if (k + 1 + len >= sizeof lex)
                return false;
            lex[k++] = '/';
            memcpy(lex + k, s, len);
            k += len;
            lex[k] = 0;
        }
        s += len;
    }
    char head[PATH_MAX], real[PATH_MAX];
    memcpy(head, lex, k + 1);
    size_t hl = k;
    for (;;) {
        if (realpath(hl ? head : "/", real)) {
            const char *rest = lex + hl;
            int w = snprintf(out, n, "%s%s", strcmp(real, "/") == 0 && *rest ? "" : real, rest);
            return w > 0 && (size_t)w < n;
        }
        if (hl == 0)
            return false;
        char *sl = strrchr(head, '/');
        hl = (size_t)(sl - head);
        *sl = 0;
    }
}

/* Whether the normalized path is one of the roots (each normalized) or
** beneath one. */
static bool beneath_any(const char *path, const char *const *roots, int nroots)
{
    for (int i = 0; i < nroots; i++) {
        char r[PATH_MAX];
        if (!norm_path(roots[i], r, sizeof r))
            continue;
        size_t rl = strlen(r);
        if (strcmp(r, "/") == 0 || (strncmp(path, r, rl) == 0 && (path[rl] == 0 || path[rl] == '/')))
            return true;
    }
    return false;
}

static bool dir_has_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool any = false;
    while (!any && (e = readdir(d)))
        any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return any;
}

/* The artifacts section and fs_strict_write (rt_policy.h,
** pty_policy_writes): the data model's "artifacts writes must stay within
** filesystem write allowlists" and "when fs_strict_write is enabled, any
** write access (artifacts or sandbox profile writes) requires
** fs_write_unsafe_ack". */
static PtyErr writes_check(const cJSON *pol, bool sandbox_on, const PtyWrites *w, char *dir, size_t dn, bool *no_writes,
                           char *err, size_t n)
{
    dir[0] = 0;
    *no_writes = false;
    const cJSON *fs = cJSON_GetObjectItemCaseSensitive(pol, "fs");
    const char *wr[MAX_LIST];
    int nw = jlist(fs, "allowed_write", wr);
    if (nw < 0)
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "a policy path list must hold at most %d strings", MAX_LIST);
    const cJSON *ar = cJSON_GetObjectItemCaseSensitive(pol, "artifacts");
    if (ar && !cJSON_IsNull(ar) && !cJSON_IsObject(ar))
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "artifacts must be an object");
    bool enabled = pty_jbool(ar, "enabled", false);
    const char *adir = pty_jstr(ar, "dir");
    char nadir[PATH_MAX] = "";
    if (enabled) {
        if (!adir || !adir[0])
            return diag_errf(err, n, PTY_E_POLICY_DENIED, "artifacts.enabled needs artifacts.dir");
        if (adir[0] != '/')
            return diag_errf(err, n, PTY_E_POLICY_DENIED, "artifacts.dir: '%.200s' is not an absolute path", adir);
        if (!norm_path(adir, nadir, sizeof nadir) || !beneath_any(nadir, wr, nw))
            return diag_errf(err, n, PTY_E_POLICY_DENIED,
                        "artifacts.dir '%.200s' is not inside fs.allowed_write (after resolving '..' and links)", adir);
    }
    const char *cli = w ? w->artifacts : NULL;
    if (pty_jbool(pol, "fs_strict_write", false) && !pty_jbool(pol, "fs_write_unsafe_ack", false)) {
        const char *why = sandbox_on ? "the sandbox's temporary folder (the program's TMPDIR)"
                          : enabled  ? "artifacts.enabled"
                          : cli      ? "--artifacts"
                          : w && w->cast ? "--cast"
                                         : NULL;
        *no_writes = why != NULL;
        if (why)
            return diag_errf(err, n, PTY_E_POLICY_DENIED,
                        "fs_strict_write: %s is a write, and fs_write_unsafe_ack is not true", why);
    }
    if (w && w->resolve) {
        if (cli) {
            snprintf(dir, dn, "%s", cli);
        } else if (enabled) {
            if (!pty_jbool(ar, "overwrite", false) && dir_has_entries(nadir))
                return diag_errf(err, n, PTY_E_POLICY_DENIED,
                            "artifacts.dir '%.200s' holds files and artifacts.overwrite is not true", adir);
            snprintf(dir, dn, "%s", nadir);
        }
    }
    return PTY_E_OK;
}

PtyErr pty_policy_writes(const char *policy_json, const PtyWrites *writes, char *dir, size_t dn, char *err, size_t n)
{
    dir[0] = 0;
    cJSON *pol = cJSON_Parse(policy_json ? policy_json : "");
    if (!cJSON_IsObject(pol)) {
        cJSON_Delete(pol);
        return diag_errf(err, n, PTY_E_PROTOCOL, "the policy is not a JSON object");
    }
    const char *sb = pty_jstr(pol, "sandbox");
    bool no_writes;
    PtyErr rc = writes_check(pol, !(sb && strcmp(sb, "none") == 0), writes, dir, dn, &no_writes, err, n);
    cJSON_Delete(pol);
    return rc;
}

/* The driver's secure default (the data model's "Driver mode defaults"):
** the sandbox on, network off, nothing to read or write beyond the
** system baseline, only the command executable. */
char *scc_session_default_policy(const char *command)
{
    char exe[PATH_MAX], rexe[PATH_MAX];
    cJSON *p = cJSON_CreateObject(), *fs, *ex, *env, *arr;
    if (!p)
        return NULL;
    cJSON_AddNumberToObject(p, "policy_version", 4);
    cJSON_AddStringToObject(p, "sandbox", "seatbelt");
    cJSON_AddBoolToObject(p, "sandbox_unsafe_ack", false);
    cJSON_AddStringToObject(p, "network", "disabled");
    cJSON_AddBoolToObject(p, "network_unsafe_ack", false);
    fs = cJSON_AddObjectToObject(p, "fs");
    if (fs) {
        cJSON_AddArrayToObject(fs, "allowed_read");
        cJSON_AddArrayToObject(fs, "allowed_write");
    }
    cJSON_AddBoolToObject(p, "fs_write_unsafe_ack", false);
    ex = cJSON_AddObjectToObject(p, "exec");
    if (ex && (arr = cJSON_AddArrayToObject(ex, "allowed_executables")) && pty_find_exe(command, exe, sizeof exe) &&
        realpath(exe, rexe))
        cJSON_AddItemToArray(arr, cJSON_CreateString(rexe));
    if (ex)
        cJSON_AddBoolToObject(ex, "allow_shell", false);
    env = cJSON_AddObjectToObject(p, "env");
    if (env && (arr = cJSON_AddArrayToObject(env, "allowlist"))) {
        static const char *const names[] = { "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", NULL };
        for (int i = 0; names[i]; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(names[i]));
    }
    if (env) {
        cJSON_AddObjectToObject(env, "set");
        cJSON_AddBoolToObject(env, "inherit", true);
    }
    char *s = cJSON_PrintUnformatted(p);
    cJSON_Delete(p);
    return s;
}

static void strs_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        sc_free(v[i]);
    sc_free(v);
}

void pty_policy_fini(PtyPolicy *p)
{
    free(p->json);
    strs_free(p->argv);
    strs_free(p->envp);
    sandbox_free(p->sbx);
    if (p->sbx_tmp[0])
        file_remove_tree(p->sbx_tmp);
    memset(p, 0, sizeof *p);
}

/* Sets NAME=value in envp (replacing an earlier NAME). */
static bool env_set(PtyPolicy *p, const char *name, size_t nl, const char *val)
{
    size_t i;
    for (i = 0; i < p->n_env; i++)
        if (strncmp(p->envp[i], name, nl) == 0 && p->envp[i][nl] == '=')
            break;
    char *e = sc_malloc(nl + strlen(val) + 2);
    if (!e)
        return false;
    memcpy(e, name, nl);
    e[nl] = '=';
    strcpy(e + nl + 1, val);
    if (i < p->n_env) {
        sc_free(p->envp[i]);
        p->envp[i] = e;
        return true;
    }
    char **nv = sc_realloc(p->envp, (p->n_env + 2) * sizeof *nv);
    if (!nv) {
        sc_free(e);
        return false;
    }
    p->envp = nv;
    p->envp[p->n_env++] = e;
    p->envp[p->n_env] = NULL;
    return true;
}

static bool env_has(const PtyPolicy *p, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < p->n_env; i++)
        if (strncmp(p->envp[i], name, nl) == 0 && p->envp[i][nl] == '=')
            return true;
    return false;
}

static uint64_t budget(const cJSON *pol, const char *key, uint64_t dflt)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(pol, "budgets");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(b, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble < 1e15 ? (uint64_t)v->valuedouble : dflt;
}

/* obj[key], added as an empty object when absent; NULL when it is not an
** object or memory runs out. */
static cJSON *sub_obj(cJSON *obj, const char *key)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!o)
        o = cJSON_AddObjectToObject(obj, key);
    return cJSON_IsObject(o) ? o : NULL;
}

static void dflt_bool(cJSON *o, const char *key, bool v)
{
    if (o && !cJSON_HasObjectItem(o, key))
        cJSON_AddBoolToObject(o, key, v);
}

static void dflt_num(cJSON *o, const char *key, double v)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!o)
        return;
    if (!it)
        cJSON_AddNumberToObject(o, key, v);
    else if (!cJSON_IsNumber(it) || it->valuedouble != v)
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateNumber(v));
}

/* p->json becomes the effective policy, every field of the data model's
** Policy present (issue 33): what the policy left out gets the value the
** run uses, and the budgets are the ones enforced.  A consumer of
** run.json or policy.json then reads the policy without knowing our
** defaults. */
static PtyErr complete(cJSON *pol, PtyPolicy *p, char *err, size_t n)
{
    dflt_bool(pol, "sandbox_unsafe_ack", false);
    dflt_bool(pol, "network_unsafe_ack", false);
    dflt_bool(pol, "fs_write_unsafe_ack", false);
    dflt_bool(pol, "fs_strict_write", false);
    if (!cJSON_HasObjectItem(pol, "sandbox"))
        cJSON_AddStringToObject(pol, "sandbox", "seatbelt");
    if (!cJSON_HasObjectItem(pol, "network"))
        cJSON_AddStringToObject(pol, "network", "disabled");
    cJSON *fs = sub_obj(pol, "fs"), *ex = sub_obj(pol, "exec"), *env = sub_obj(pol, "env");
    if (fs && !cJSON_HasObjectItem(fs, "allowed_read"))
        cJSON_AddArrayToObject(fs, "allowed_read");
    if (fs && !cJSON_HasObjectItem(fs, "allowed_write"))
        cJSON_AddArrayToObject(fs, "allowed_write");
    if (fs && !cJSON_HasObjectItem(fs, "working_dir"))
        cJSON_AddNullToObject(fs, "working_dir");
    if (ex && !cJSON_HasObjectItem(ex, "allowed_executables"))
        cJSON_AddArrayToObject(ex, "allowed_executables");
    dflt_bool(ex, "allow_shell", false);
    if (env && !cJSON_HasObjectItem(env, "allowlist"))
        cJSON_AddArrayToObject(env, "allowlist");
    if (env && !cJSON_HasObjectItem(env, "set"))
        cJSON_AddObjectToObject(env, "set");
    dflt_bool(env, "inherit", false);
    cJSON *b = sub_obj(pol, "budgets");
    dflt_num(b, "max_runtime_ms", (double)p->max_runtime_ms);
    dflt_num(b, "max_steps", (double)p->max_steps);
    dflt_num(b, "max_output_bytes", (double)p->max_output_bytes);
    dflt_num(b, "max_snapshot_bytes", (double)p->max_snapshot_bytes);
    dflt_num(b, "max_wait_ms", (double)p->max_wait_ms);
    cJSON *a = sub_obj(pol, "artifacts");
    dflt_bool(a, "enabled", false);
    if (a && !cJSON_HasObjectItem(a, "dir"))
        cJSON_AddNullToObject(a, "dir");
    dflt_bool(a, "overwrite", false);
    dflt_bool(sub_obj(pol, "replay"), "strict", false);
    char *s = cJSON_PrintUnformatted(pol);
    if (!s)
        return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    free(p->json);
    p->json = s;
    return PTY_E_OK;
}

/* Checks cfg's policy as the PTY target does and prepares argv, the
** environment and the sandbox. */
PtyErr pty_policy_plan(const PtyPolicyIn *cfg, PtyPolicy *p, char *err, size_t n)
{
    memset(p, 0, sizeof *p);
    cJSON *tree = NULL;
    PtyErr rc = plan(cfg, p, &tree, err, n);
    cJSON_Delete(tree);
    return rc;
}

static PtyErr plan(const PtyPolicyIn *cfg, PtyPolicy *p, cJSON **tree, char *err, size_t n)
{
    if (!cfg->command || !*cfg->command)
        return diag_errf(err, n, PTY_E_CLI_INVALID_ARG, "no command");
    if (!pty_find_exe(cfg->command, p->exe, sizeof p->exe))
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "command '%s' not found or not executable", cfg->command);
    *tree = cJSON_Parse(cfg->policy_json ? cfg->policy_json : "");
    if (!cJSON_IsObject(*tree))
        return diag_errf(err, n, PTY_E_PROTOCOL, "the policy is not a JSON object");
    if (!(p->json = cJSON_PrintUnformatted(*tree)))
        return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    const cJSON *pol = *tree, *ver = cJSON_GetObjectItemCaseSensitive(pol, "policy_version");
    if (!cJSON_IsNumber(ver) || ver->valuedouble != 4)
        return diag_errf(err, n, PTY_E_PROTOCOL_VERSION_MISMATCH, "policy_version must be 4");
    const char *sb = pty_jstr(pol, "sandbox"), *net = pty_jstr(pol, "network");
    if (sb && strcmp(sb, "none") != 0 && strcmp(sb, "seatbelt") != 0)
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "sandbox must be 'seatbelt' or 'none', not '%.60s'", sb);
    if (net && strcmp(net, "disabled") != 0 && strcmp(net, "enabled") != 0)
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "network must be 'disabled' or 'enabled', not '%.60s'", net);
    p->none = sb && strcmp(sb, "none") == 0;
    bool ack = pty_jbool(pol, "sandbox_unsafe_ack", false), net_on = net && strcmp(net, "enabled") == 0;
    if (p->none && !ack)
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "sandbox: none needs sandbox_unsafe_ack: true");
    if ((p->none || net_on) && !pty_jbool(pol, "network_unsafe_ack", false))
        return diag_errf(err, n, PTY_E_POLICY_DENIED,
                    p->none ? "without a sandbox the network policy cannot be enforced: network_unsafe_ack must be true"
                            : "network: enabled needs network_unsafe_ack: true");
    const cJSON *fs = cJSON_GetObjectItemCaseSensitive(pol, "fs");
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(pol, "exec");
    const char *rd[MAX_LIST], *wr[MAX_LIST], *exl[MAX_LIST];
    int nr = jlist(fs, "allowed_read", rd), nw = jlist(fs, "allowed_write", wr);
    int ne = jlist(ex, "allowed_executables", exl);
    if (nr < 0 || nw < 0 || ne < 0)
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "a policy path list must hold at most %d strings", MAX_LIST);
    for (int k = 0; k < nr + nw; k++) {
        const char *path = k < nr ? rd[k] : wr[k - nr];
        if (path[0] != '/')
            return diag_errf(err, n, PTY_E_POLICY_DENIED, "fs.%s: '%s' is not an absolute path",
                        k < nr ? "allowed_read" : "allowed_write", path);
        if (is_root_like(path))
            return diag_errf(err, n, PTY_E_POLICY_DENIED, "fs.%s may not contain '%s' (a system root or home)",
                        k < nr ? "allowed_read" : "allowed_write", path);
    }
    if (nw > 0 && !pty_jbool(pol, "fs_write_unsafe_ack", false))
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "fs.allowed_write is not empty: fs_write_unsafe_ack must be true");
    /* fs.working_dir: absolute and inside an allowed root, after '..' and
    ** links are resolved; it is the program's folder when the run gives
    ** none. */
    const cJSON *wd = cJSON_GetObjectItemCaseSensitive(fs, "working_dir");
    if (wd && !cJSON_IsNull(wd)) {
        if (!cJSON_IsString(wd) || wd->valuestring[0] != '/')
            return diag_errf(err, n, PTY_E_POLICY_DENIED, "fs.working_dir must be an absolute path or null");
        if (!norm_path(wd->valuestring, p->working_dir, sizeof p->working_dir) ||
            (!beneath_any(p->working_dir, rd, nr) && !beneath_any(p->working_dir, wr, nw))) {
            p->working_dir[0] = 0;
            return diag_errf(err, n, PTY_E_POLICY_DENIED,
                        "fs.working_dir '%.200s' is not inside fs.allowed_read or fs.allowed_write (after resolving "
                        "'..' and links)", wd->valuestring);
        }
    }
    PtyErr wrc = writes_check(pol, !p->none, cfg->writes, p->artifacts, sizeof p->artifacts, &p->no_writes, err, n);
    if (wrc != PTY_E_OK)
        return wrc;
    bool shell_ok = pty_jbool(ex, "allow_shell", false);

    /* The command, on resolved paths. */
    char rexe[PATH_MAX], ra[PATH_MAX];
    if (!realpath(p->exe, rexe))
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "command '%s': %s", p->exe, strerror(errno));
    bool listed = false;
    for (int i = 0; i < ne && !listed; i++)
        listed = exl[i][0] == '/' && realpath(exl[i], ra) && strcmp(ra, rexe) == 0;
    if (!listed)
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "'%s' is not in exec.allowed_executables", p->exe);
    size_t na = 0;
    while (cfg->args && cfg->args[na])
        na++;
    p->argv = sc_calloc(na + 2, sizeof *p->argv);
    if (!p->argv)
        return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    p->argv[0] = sc_strdup(cfg->command);
    bool dash_c = false;
    for (size_t i = 0; i < na; i++) {
        p->argv[i + 1] = sc_strdup(cfg->args[i]);
        dash_c |= strcmp(cfg->args[i], "-c") == 0;
    }
    for (size_t i = 0; i <= na; i++)
        if (!p->argv[i])
            return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    const char *base = strrchr(rexe, '/') + 1;
    static const char *const shells[] = { "sh", "bash", "dash", "zsh", "fish", "ksh", "csh", "tcsh", NULL };
    bool shell = false;
    for (int i = 0; shells[i]; i++)
        shell |= strcmp(base, shells[i]) == 0;
    if (shell && dash_c && !shell_ok)
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "'%s -c' needs exec.allow_shell: true", base);

    /* The environment: deny by default; inherit only allowlisted names,
    ** then env.set, then the caller's. */
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(pol, "env");
    const char *allow[MAX_LIST];
    int nal = jlist(env, "allowlist", allow);
    /* A policy without env: the runner's usual allowlist, as a scenario
    ** without a policy gets (docs/pty.md, "Policy"). */
    static const char *const dflt_allow[] = { "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL",
                                              "LC_CTYPE", "TMPDIR", "SHELL" };
    if (!env) {
        nal = (int)(sizeof dflt_allow / sizeof dflt_allow[0]);
        memcpy(allow, dflt_allow, sizeof dflt_allow);
    }
    if (nal < 0)
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "env.allowlist must hold at most %d strings", MAX_LIST);
    p->envp = sc_calloc(1, sizeof *p->envp);
    if (!p->envp)
        return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    if (!env || pty_jbool(env, "inherit", false)) {
        for (char **e = environ; *e; e++) {
            const char *eq = strchr(*e, '=');
            for (int i = 0; eq && i < nal; i++)
                if (strlen(allow[i]) == (size_t)(eq - *e) && memcmp(allow[i], *e, (size_t)(eq - *e)) == 0 &&
                    !env_set(p, *e, (size_t)(eq - *e), eq + 1))
                    return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
        }
    }
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(env, "set"), *kv;
    if (set && !cJSON_IsNull(set) && !cJSON_IsObject(set))
        return diag_errf(err, n, PTY_E_POLICY_DENIED, "env.set must be an object of strings");
    cJSON_ArrayForEach(kv, set) {
        if (!cJSON_IsString(kv) || !kv->string[0] || strchr(kv->string, '='))
            return diag_errf(err, n, PTY_E_POLICY_DENIED, "env.set: '%.60s' must be a name with a string value",
                        kv->string);
        if (!env_set(p, kv->string, strlen(kv->string), kv->valuestring))
            return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    }
    for (const char *const *e = cfg->env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && !env_set(p, *e, (size_t)(eq - *e), eq + 1))
            return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    }
    if (!env_has(p, "TERM") && !env_set(p, "TERM", 4, "xterm-256color"))
        return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    if (!env_has(p, "LANG") && !env_set(p, "LANG", 4, "C.UTF-8"))
        return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");

    /* The sandbox (docs/pty.md, "Sandbox"). */
    if (!p->none) {
        static SandboxCaps caps;
        static bool probed;
        if (!probed)
            sandbox_probe(&caps);
        probed = true;
        /* under $TMPDIR, whole (it was cut to 40 bytes: a longer TMPDIR
        ** made a folder that did not exist) */
        int te = file_mkdtemp("scvm-sbx", p->sbx_tmp, sizeof p->sbx_tmp);
        if (te) {
            p->sbx_tmp[0] = 0;
            return diag_errf(err, n, PTY_E_IO, "cannot make the sandbox's temporary folder: %s", strerror(te));
        }
        SandboxPolicy sp = { .read = rd, .n_read = (size_t)nr, .write = wr, .n_write = (size_t)nw,
                             .exec = exl, .n_exec = (size_t)ne, .allow_shell = shell_ok, .network = net_on,
                             .unsafe_ack = ack, .tmpdir = p->sbx_tmp };
        bool unavailable = false;
        char why[512];
        p->sbx = sandbox_plan(&sp, &caps, &unavailable, why, sizeof why);
        if (!p->sbx)
            return diag_errf(err, n, unavailable ? PTY_E_SANDBOX_UNAVAILABLE : PTY_E_POLICY_DENIED, "sandbox: %s", why);
        if (!env_set(p, "TMPDIR", 6, p->sbx_tmp))
            return diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
    }
    p->max_runtime_ms = budget(pol, "max_runtime_ms", 60000);
    p->max_output_bytes = budget(pol, "max_output_bytes", 8u << 20);
    p->max_wait_ms = budget(pol, "max_wait_ms", 10000);
    p->max_steps = budget(pol, "max_steps", 10000);
    p->max_snapshot_bytes = budget(pol, "max_snapshot_bytes", 2u << 20);
    return complete(*tree, p, err, n);
}


static void set_bool(cJSON *o, const char *key, bool v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddBoolToObject(o, key, v);
}

static void set_str(cJSON *o, const char *key, const char *v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddStringToObject(o, key, v);
}

char *pty_policy_override(const char *base, const char *overlay, const PtyPolicyFlags *f, PtyErr *code,
                          char *err, size_t n)
{
    cJSON *p = cJSON_Parse(base ? base : ""), *o = overlay ? cJSON_Parse(overlay) : NULL, *kv;
    char *out = NULL;
    if (!cJSON_IsObject(p) || (overlay && !cJSON_IsObject(o))) {
        *code = diag_errf(err, n, PTY_E_PROTOCOL, "%s", cJSON_IsObject(p) ? "the --policy file is not a JSON policy object"
                                                                       : "the policy is not a JSON object");
        goto done;
    }
    /* The overlay's fields replace the base's, whole (fs, exec, env,
    ** budgets included): a field is one decision, not merged deeper. */
    cJSON_ArrayForEach(kv, o) {
        cJSON *c = cJSON_Duplicate(kv, true);
        if (!c || !cJSON_ReplaceItemInObjectCaseSensitive(p, kv->string, c)) {
            if (c && !cJSON_AddItemToObject(p, kv->string, c))
                cJSON_Delete(c);
        }
    }
    if (f && f->no_sandbox)
        set_str(p, "sandbox", "none");
    if (f && f->ack_sandbox) {
        set_bool(p, "sandbox_unsafe_ack", true);
        /* Without a sandbox no network policy is enforced: acknowledging
        ** the one acknowledges the other (docs/driver.md). */
        const cJSON *sb = cJSON_GetObjectItemCaseSensitive(p, "sandbox");
        if (cJSON_IsString(sb) && strcmp(sb->valuestring, "none") == 0)
            set_bool(p, "network_unsafe_ack", true);
    }
    if (f && f->enable_network)
        set_str(p, "network", "enabled");
    if (f && f->ack_network)
        set_bool(p, "network_unsafe_ack", true);
    if (f && f->ack_write)
        set_bool(p, "fs_write_unsafe_ack", true);
    out = cJSON_PrintUnformatted(p);
    if (!out)
        *code = diag_errf(err, n, PTY_E_INTERNAL, "out of memory");
done:
    cJSON_Delete(p);
    cJSON_Delete(o);
    return out;
}
