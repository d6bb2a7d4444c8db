/* SPDX-License-Identifier: MIT */
/* scn_assert.c - the Scenario-Format `assert` (scn_assert.h): the path
** policy, the file-system, JSON-file and git checks, and text.contains
** through the target's callback.  The values come from a verified program
** whose shapes the compiler checked; every shape is still tested before
** use, and anything unexpected is a failed check, never a crash. */
#include "scn_assert.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "runtime/rt_proc.h"

/* JSON files and git output larger than this fail the check. */
#define ASSERT_FILE_MAX ((size_t)64 << 20)
#define GIT_OUT_MAX ((size_t)1 << 20)
enum { GIT_TIMEOUT_MS = 10000 };

static const char *str_of(const BcProgram *p, const BcVal *v, size_t *len)
{
    if (v->tag != BC_V_STR)
        return NULL;
    if (len)
        *len = p->str[v->n].len;
    return p->str[v->n].s;
}

/* ---- the path policy ---- */

static bool has_dotdot(const char *p)
{
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return true;
        s += n + (e != NULL);
    }
    return false;
}

static bool is_below(const char *path, const char *root)
{
    size_t rl = strlen(root);
    if (rl == 1 && root[0] == '/')
        return true;
    return strncmp(path, root, rl) == 0 && (path[rl] == 0 || path[rl] == '/');
}

const char *scn_path_resolve(const char *root, const char *rel, Buf *full)
{
    if (!rel[0] || rel[0] == '/' || has_dotdot(rel))
        return "refused: paths are relative, without '..', and stay inside the workspace";
    const char *r = root && root[0] ? root : ".";
    buf_reset(full);
    buf_puts(full, r);
    if (full->len && full->data[full->len - 1] != '/')
        buf_putc(full, '/');
    buf_puts(full, rel);
    buf_putc(full, 0);
    if (full->oom)
        return "out of memory";
    char *real = realpath((const char *)full->data, NULL);
    if (!real)
        return NULL;
    char *real_root = realpath(r, NULL);
    bool out = !real_root || !is_below(real, real_root);
    free(real);
    free(real_root);
    return out ? "refused: it leads out of the workspace through a symbolic link" : NULL;
}

static void refuse(ScnAssertResult *res, Buf *msgs, const char *check, const char *path, const char *why)
{
    res->failed++;
    res->refused++;
    buf_printf(msgs, "%s '%s': %s\n", check, path, why);
}

/* ---- fs ---- */

static void fs_checks(const BcProgram *p, const BcVal *fs, const char *root, Buf *msgs, ScnAssertResult *res)
{
    static const char *const keys[] = { "exists", "notExists" };
    Buf full;
    buf_init(&full);
    for (int k = 0; k < 2; k++) {
        BcVal list;
        if (!bc_val_get(p, fs, keys[k], &list) || list.tag != BC_V_ARRAY)
            continue;
        const unsigned char *q = list.p;
        for (uint32_t i = 0; i < list.n; i++) {
            BcVal e;
            q = bc_val_decode(p, q, &e);
            const char *s = str_of(p, &e, NULL);
            if (!s)
                continue;
            const char *why = scn_path_resolve(root, s, &full);
            if (why) {
                refuse(res, msgs, k == 0 ? "fs.exists" : "fs.notExists", s, why);
                continue;
            }
            struct stat st;
            bool there = stat((const char *)full.data, &st) == 0;
            if (there == (k == 0)) {
                res->passed++;
            } else {
                res->failed++;
                buf_printf(msgs, "fs.%s '%s': %s\n", keys[k], s, k == 0 ? "does not exist" : "exists");
            }
        }
    }
    buf_fini(&full);
}

/* fs.contains (scc's extension): [{path, text}], the file holds text. */
static void fs_contains(const BcProgram *p, const BcVal *fs, const char *root, Buf *msgs, ScnAssertResult *res)
{
    BcVal list;
    if (!bc_val_get(p, fs, "contains", &list) || list.tag != BC_V_ARRAY)
        return;
    Buf full;
    buf_init(&full);
    const unsigned char *q = list.p;
    for (uint32_t i = 0; i < list.n; i++) {
        BcVal e, pv, tv;
        q = bc_val_decode(p, q, &e);
        if (!bc_val_get(p, &e, "path", &pv) || !bc_val_get(p, &e, "text", &tv))
            continue;
        size_t tl;
        const char *path = str_of(p, &pv, NULL), *text = str_of(p, &tv, &tl);
        if (!path || !text)
            continue;
        const char *why = scn_path_resolve(root, path, &full);
        if (why) {
            refuse(res, msgs, "fs.contains", path, why);
            continue;
        }
        char *data = NULL;
        size_t n = 0;
        int err = file_read_all((const char *)full.data, 64u << 20, &data, &n);
        bool found = false;
        for (size_t k = 0; !err && k + tl <= n && !found; k++)
            found = memcmp(data + k, text, tl) == 0;
        if (found) {
            res->passed++;
        } else {
            res->failed++;
            if (err)
                buf_printf(msgs, "fs.contains '%s': cannot read: %s\n", path, strerror(err));
            else
                buf_printf(msgs, "fs.contains '%s': does not contain '%.200s'\n", path, text);
        }
        sc_free(data);
    }
    buf_fini(&full);
}

/* ---- json ---- */

/* Deep equality of a stored value and a parsed JSON value; numbers are
** equal when their values are (1 equals 1.0). */
static bool json_equal(const BcProgram *p, const BcVal *v, const cJSON *j, int depth)
{
    if (depth > BC_MAX_DEPTH + 2)
        return false;
    switch ((enum BcValTag)v->tag) {
    case BC_V_NULL:
        return cJSON_IsNull(j);
    case BC_V_FALSE:
        return cJSON_IsFalse(j);
    case BC_V_TRUE:
        return cJSON_IsTrue(j);
    case BC_V_INT:
        return cJSON_IsNumber(j) && j->valuedouble == (double)v->i;
    case BC_V_FLOAT:
        return cJSON_IsNumber(j) && j->valuedouble == v->f;
    case BC_V_STR:
        return cJSON_IsString(j) && j->valuestring && strlen(j->valuestring) == p->str[v->n].len &&
               memcmp(j->valuestring, p->str[v->n].s, p->str[v->n].len) == 0;
    case BC_V_ARRAY: {
        if (!cJSON_IsArray(j) || (uint32_t)cJSON_GetArraySize(j) != v->n)
            return false;
        const unsigned char *q = v->p;
        const cJSON *c = j->child;
        for (uint32_t i = 0; i < v->n; i++, c = c->next) {
            BcVal e;
            q = bc_val_decode(p, q, &e);
            if (!json_equal(p, &e, c, depth + 1))
                return false;
        }
        return true;
    }
    case BC_V_MAP: {
        if (!cJSON_IsObject(j) || (uint32_t)cJSON_GetArraySize(j) != v->n)
            return false;
        const unsigned char *q = v->p;
        for (uint32_t i = 0; i < v->n; i++) {
            BcVal k, e;
            q = bc_val_decode(p, q, &k);
            q = bc_val_decode(p, q, &e);
            const char *ks = str_of(p, &k, NULL);
            const cJSON *c = ks ? cJSON_GetObjectItemCaseSensitive(j, ks) : NULL;
            if (!c || !json_equal(p, &e, c, depth + 1))
                return false;
        }
        return true;
    }
    }
    return false;
}

/* An RFC 6901 array index: "0" or digits without a leading zero (section
** 4: "/01" is not an index); "-" names the element after the last, which
** does not exist.  Returns -1 for anything else. */
static long array_index(const char *tok, size_t n)
{
    if (n == 0 || n > 9 || (n > 1 && tok[0] == '0'))
        return -1;
    long idx = 0;
    for (size_t i = 0; i < n; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return -1;
        idx = idx * 10 + (tok[i] - '0');
    }
    return idx;
}

/* RFC 6901: "" is the whole document; "/a/0/b~1c" walks objects and
** arrays; "~0" is '~', "~1" is '/', any other '~' makes the pointer
** invalid.  NULL when the pointer is invalid or names nothing. */
static const cJSON *json_pointer(const cJSON *root, const char *ptr, Buf *tok)
{
    const cJSON *cur = root;
    if (*ptr && *ptr != '/')
        return NULL;
    while (*ptr == '/' && cur) {
        ptr++;
        buf_reset(tok);
        while (*ptr && *ptr != '/') {
            char c = *ptr++;
            if (c == '~') {
                if (*ptr != '0' && *ptr != '1')
                    return NULL;
                c = *ptr++ == '0' ? '~' : '/';
            }
            buf_putc(tok, c);
        }
        size_t n = tok->len;
        buf_putc(tok, 0);
        if (tok->oom)
            return NULL;
        const char *t = (const char *)tok->data;
        if (cJSON_IsArray(cur)) {
            long idx = array_index(t, n);
            cur = idx >= 0 && idx < cJSON_GetArraySize(cur) ? cJSON_GetArrayItem(cur, (int)idx) : NULL;
        } else if (cJSON_IsObject(cur) && strlen(t) == n) {
            cur = cJSON_GetObjectItemCaseSensitive(cur, t);
        } else {
            cur = NULL;
        }
    }
    return cur;
}

static void json_mismatch(const BcProgram *p, const BcVal *eq, const cJSON *at, const char *path,
                          const char *ptr, Buf *msgs)
{
    char *got = cJSON_PrintUnformatted(at);
    Buf want;
    buf_init(&want);
    bc_val_json_at(p, eq, &want);
    buf_printf(msgs, "json.file '%s' at '%s': expected %.*s, found %.200s\n", path, ptr,
               (int)(want.len > 200 ? 200 : want.len), want.data ? (const char *)want.data : "",
               got ? got : "?");
    buf_fini(&want);
    cJSON_free(got);
}

static void json_check(const BcProgram *p, const BcVal *json, const char *root, Buf *msgs, ScnAssertResult *res)
{
    BcVal f, pv, ptrv, eq;
    if (!bc_val_get(p, json, "file", &f) || f.tag != BC_V_MAP)
        return;
    const char *path = bc_val_get(p, &f, "path", &pv) ? str_of(p, &pv, NULL) : NULL;
    const char *ptr = bc_val_get(p, &f, "pointer", &ptrv) ? str_of(p, &ptrv, NULL) : "";
    if (!path || !ptr || !bc_val_get(p, &f, "equals", &eq)) {
        res->failed++;
        buf_puts(msgs, "json.file: needs path, pointer and equals\n");
        return;
    }
    Buf full;
    buf_init(&full);
    const char *why = scn_path_resolve(root, path, &full);
    if (why) {
        buf_fini(&full);
        refuse(res, msgs, "json.file", path, why);
        return;
    }
    char *data = NULL;
    size_t len = 0;
    int e = file_read_all((const char *)full.data, ASSERT_FILE_MAX, &data, &len);
    buf_fini(&full);
    if (e) {
        res->failed++;
        buf_printf(msgs, "json.file '%s': cannot read: %s\n", path, strerror(e));
        return;
    }
    cJSON *doc = cJSON_ParseWithLength(data, len);
    sc_free(data);
    if (!doc) {
        res->failed++;
        buf_printf(msgs, "json.file '%s': not valid JSON\n", path);
        return;
    }
    Buf tok;
    buf_init(&tok);
    const cJSON *at = json_pointer(doc, ptr, &tok);
    buf_fini(&tok);
    if (!at) {
        res->failed++;
        buf_printf(msgs, "json.file '%s': pointer '%s' does not resolve\n", path, ptr);
    } else if (!json_equal(p, &eq, at, 0)) {
        res->failed++;
        json_mismatch(p, &eq, at, path, ptr, msgs);
    } else {
        res->passed++;
    }
    cJSON_Delete(doc);
}

/* ---- git ---- */

/* Runs `git -C root log -1 --format=%B` (git from PATH; stderr dropped)
** on the one runner (rt_proc.h: killed with everything it started past
** GIT_TIMEOUT_MS or GIT_OUT_MAX bytes); returns 0 and the message in out,
** or an errno (ENOENT: no git, no repository or no commit). */
static int git_last_message(const char *root, Buf *out)
{
    char *argv[] = { "git", "-C", (char *)(root && root[0] ? root : "."), "log", "-1", "--format=%B", NULL };
    RtProcResult r;
    if (rt_proc_run_stdout(argv, NULL, GIT_TIMEOUT_MS, out, GIT_OUT_MAX, &r) != 0)
        return out->oom ? 0 : errno;    /* out->oom: the caller's message */
    if (r.dropped)
        return EFBIG;
    switch (r.end) {
    case RT_PROC_EXITED:
        return r.code == 0 ? 0 : ENOENT;
    case RT_PROC_SIGNALED:
        return ENOENT;
    case RT_PROC_TIMEOUT:
        return ETIMEDOUT;
    case RT_PROC_CANCELLED:
        return EINTR;
    case RT_PROC_FAILED:
        return r.code;
    }
    return ENOENT;
}

static bool contains(const unsigned char *h, size_t hn, const char *n, size_t nn)
{
    for (size_t i = 0; i + nn <= hn; i++)
        if (memcmp(h + i, n, nn) == 0)
            return true;
    return false;
}

static void git_check(const BcProgram *p, const BcVal *git, const char *root, Buf *msgs, ScnAssertResult *res)
{
    BcVal c, mc;
    if (!bc_val_get(p, git, "commit", &c) || c.tag != BC_V_MAP || !bc_val_get(p, &c, "messageContains", &mc))
        return;
    size_t wn;
    const char *want = str_of(p, &mc, &wn);
    if (!want)
        return;
    Buf out;
    buf_init(&out);
    int e = git_last_message(root, &out);
    if (e) {
        res->failed++;
        buf_printf(msgs, "git.commit: cannot read the last commit (%s)\n",
                   e == ENOENT ? "no repository or no commit" : strerror(e));
    } else if (out.oom || !contains(out.data, out.len, want, wn)) {
        res->failed++;
        buf_printf(msgs, "git.commit: the last commit message does not contain '%s'\n", want);
    } else {
        res->passed++;
    }
    buf_fini(&out);
}

/* ---- text ---- */

static bool text_checks(const BcProgram *p, const BcVal *text, const ScnAssertEnv *env, Buf *msgs,
                        ScnAssertResult *res)
{
    BcVal list;
    if (!bc_val_get(p, text, "contains", &list) || list.tag != BC_V_ARRAY || !list.n)
        return true;
    if (!env->text) {
        res->skipped += list.n;
        buf_printf(msgs, "text.contains: skipped (%u checks need a terminal; this target has none)\n",
                   (unsigned)list.n);
        return true;
    }
    const unsigned char *q = list.p;
    for (uint32_t i = 0; i < list.n; i++) {
        BcVal e;
        q = bc_val_decode(p, q, &e);
        size_t n;
        const char *s = str_of(p, &e, &n);
        if (!s)
            continue;
        size_t mark = msgs->len;
        buf_puts(msgs, "text.contains: ");
        int r = env->text(env->user, s, n, msgs);
        if (r < 0) {
            msgs->len = mark;
            return false;
        }
        if (r > 0) {
            msgs->len = mark;
            res->passed++;
        } else {
            buf_putc(msgs, '\n');
            res->failed++;
        }
    }
    return true;
}

bool scn_assert_eval(const BcProgram *p, const BcVal *v, const ScnAssertEnv *env, Buf *msgs,
                     ScnAssertResult *res)
{
    BcVal sub;
    if (v->tag != BC_V_MAP)
        return true;
    if (bc_val_get(p, v, "text", &sub) && sub.tag == BC_V_MAP && !text_checks(p, &sub, env, msgs, res))
        return false;
    if (env->text_only)
        return true;
    if (bc_val_get(p, v, "fs", &sub) && sub.tag == BC_V_MAP) {
        fs_checks(p, &sub, env->root, msgs, res);
        fs_contains(p, &sub, env->root, msgs, res);
    }
    if (bc_val_get(p, v, "json", &sub) && sub.tag == BC_V_MAP)
        json_check(p, &sub, env->root, msgs, res);
    if (bc_val_get(p, v, "git", &sub) && sub.tag == BC_V_MAP)
        git_check(p, &sub, env->root, msgs, res);
    return true;
}
