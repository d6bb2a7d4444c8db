/* llm_assert.c - filesystem, JSON-file and git checks of `assert` events
** (llm_assert.h).  The values come from a verified program, so their shapes
** were checked by the compiler; here every shape is still tested before use
** and anything unexpected is a failed check, never a crash. */
#include "llm_assert.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"

extern char **environ;

/* JSON files and git output larger than this fail the check. */
#define ASSERT_FILE_MAX ((size_t)64 << 20)
#define GIT_OUT_MAX ((size_t)1 << 20)

static const char *str_of(const BcProgram *p, const BcVal *v)
{
    return v->tag == BC_V_STR ? p->str[v->n].s : NULL;
}

static void join_path(Buf *b, const char *ws, const char *path)
{
    buf_reset(b);
    if (path[0] != '/' && ws && ws[0]) {
        buf_puts(b, ws);
        if (b->len && b->data[b->len - 1] != '/')
            buf_putc(b, '/');
    }
    buf_puts(b, path);
    buf_putc(b, 0);
}

static void fs_checks(const BcProgram *p, const BcVal *fs, const char *ws, Buf *msgs, LlmAssertResult *res)
{
    static const char *const keys[] = { "exists", "notExists" };
    Buf path;
    buf_init(&path);
    for (int k = 0; k < 2; k++) {
        BcVal list;
        if (!bc_val_get(p, fs, keys[k], &list) || list.tag != BC_V_ARRAY)
            continue;
        const unsigned char *q = list.p;
        for (uint32_t i = 0; i < list.n; i++) {
            BcVal e;
            q = bc_val_decode(p, q, &e);
            const char *s = str_of(p, &e);
            if (!s)
                continue;
            join_path(&path, ws, s);
            struct stat st;
            bool there = !path.oom && stat((const char *)path.data, &st) == 0;
            if (there == (k == 0)) {
                res->passed++;
            } else {
                res->failed++;
                buf_printf(msgs, "fs.%s '%s': %s\n", keys[k], s, k == 0 ? "does not exist" : "exists");
            }
        }
    }
    buf_fini(&path);
}

/* Deep equality of a stored value and a parsed JSON value. */
static bool json_equal(const BcProgram *p, const BcVal *v, const cJSON *j, int depth)
{
    if (depth > BC_MAX_DEPTH + 2)
        return false;
    switch (v->tag) {
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
            const char *ks = str_of(p, &k);
            const cJSON *c = ks ? cJSON_GetObjectItemCaseSensitive(j, ks) : NULL;
            if (!c || !json_equal(p, &e, c, depth + 1))
                return false;
        }
        return true;
    }
    default:
        return false;
    }
}

/* RFC 6901: "" is the whole document; "/a/0/b~1c" walks objects and arrays. */
static const cJSON *json_pointer(const cJSON *root, const char *ptr)
{
    const cJSON *cur = root;
    if (!*ptr)
        return cur;
    if (*ptr != '/')
        return NULL;
    char tok[1024];
    while (*ptr == '/' && cur) {
        ptr++;
        size_t n = 0;
        while (*ptr && *ptr != '/') {
            char c = *ptr++;
            if (c == '~') {
                if (*ptr == '0')
                    c = '~';
                else if (*ptr == '1')
                    c = '/';
                else
                    return NULL;
                ptr++;
            }
            if (n + 1 >= sizeof tok)
                return NULL;
            tok[n++] = c;
        }
        tok[n] = 0;
        if (cJSON_IsArray(cur)) {
            if (n == 0 || n > 9 || (n > 1 && tok[0] == '0'))
                return NULL;
            long idx = 0;
            for (size_t i = 0; i < n; i++) {
                if (tok[i] < '0' || tok[i] > '9')
                    return NULL;
                idx = idx * 10 + (tok[i] - '0');
            }
            cur = idx < cJSON_GetArraySize(cur) ? cJSON_GetArrayItem(cur, (int)idx) : NULL;
        } else if (cJSON_IsObject(cur)) {
            cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
        } else {
            return NULL;
        }
    }
    return cur;
}

static void json_check(const BcProgram *p, const BcVal *json, const char *ws, Buf *msgs, LlmAssertResult *res)
{
    BcVal f, pv, ptrv, eq;
    if (!bc_val_get(p, json, "file", &f) || f.tag != BC_V_MAP)
        return;
    const char *path = bc_val_get(p, &f, "path", &pv) ? str_of(p, &pv) : NULL;
    const char *ptr = bc_val_get(p, &f, "pointer", &ptrv) ? str_of(p, &ptrv) : "";
    if (!path || !ptr || !bc_val_get(p, &f, "equals", &eq)) {
        res->failed++;
        buf_puts(msgs, "json.file: needs path, pointer and equals\n");
        return;
    }
    Buf full;
    buf_init(&full);
    join_path(&full, ws, path);
    char *data = NULL;
    size_t len = 0;
    int e = full.oom ? ENOMEM : file_read_all((const char *)full.data, ASSERT_FILE_MAX, &data, &len);
    buf_fini(&full);
    if (e) {
        res->failed++;
        buf_printf(msgs, "json.file '%s': cannot read: %s\n", path, strerror(e));
        return;
    }
    cJSON *root = cJSON_ParseWithLength(data, len);
    sc_free(data);
    if (!root) {
        res->failed++;
        buf_printf(msgs, "json.file '%s': not valid JSON\n", path);
        return;
    }
    const cJSON *at = json_pointer(root, ptr);
    if (!at) {
        res->failed++;
        buf_printf(msgs, "json.file '%s': pointer '%s' does not resolve\n", path, ptr);
    } else if (!json_equal(p, &eq, at, 0)) {
        res->failed++;
        char *got = cJSON_PrintUnformatted(at);
        Buf want;
        buf_init(&want);
        bc_val_json_at(p, &eq, &want);
        buf_printf(msgs, "json.file '%s' at '%s': expected %.*s, found %.200s\n", path, ptr,
                   (int)(want.len > 200 ? 200 : want.len), want.data ? (const char *)want.data : "",
                   got ? got : "?");
        buf_fini(&want);
        cJSON_free(got);
    } else {
        res->passed++;
    }
    cJSON_Delete(root);
}

/* Runs git -C ws log -1 --format=%B; returns 0 and the output, or an errno. */
static int git_last_message(const char *ws, Buf *out)
{
    int fds[2];
    if (pipe(fds) != 0)
        return errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    char *argv[] = { "git", "-C", (char *)(ws && ws[0] ? ws : "."), "log", "-1", "--format=%B", NULL };
    pid_t pid;
    int e = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (e) {
        close(fds[0]);
        return e;
    }
    /* bounded: at most GIT_OUT_MAX bytes and 10 s */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char buf[4096];
    for (;;) {
        struct pollfd pf = { fds[0], POLLIN, 0 };
        int r = poll(&pf, 1, 1000);
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (t1.tv_sec - t0.tv_sec > 10) {
            kill(pid, SIGKILL);
            e = ETIMEDOUT;
            break;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (out->len + (size_t)n > GIT_OUT_MAX) {
            kill(pid, SIGKILL);
            e = EFBIG;
            break;
        }
        buf_put(out, buf, (size_t)n);
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!e && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        e = ENOENT;
    return e;
}

static void git_check(const BcProgram *p, const BcVal *git, const char *ws, Buf *msgs, LlmAssertResult *res)
{
    BcVal c, mc;
    if (!bc_val_get(p, git, "commit", &c) || c.tag != BC_V_MAP || !bc_val_get(p, &c, "messageContains", &mc))
        return;
    const char *want = str_of(p, &mc);
    if (!want)
        return;
    Buf out;
    buf_init(&out);
    int e = git_last_message(ws, &out);
    buf_putc(&out, 0);
    if (e) {
        res->failed++;
        buf_printf(msgs, "git.commit: cannot read the last commit (%s)\n",
                   e == ENOENT ? "no repository or no commit" : strerror(e));
    } else if (out.oom || !strstr((const char *)out.data, want)) {
        res->failed++;
        buf_printf(msgs, "git.commit: the last commit message does not contain '%s'\n", want);
    } else {
        res->passed++;
    }
    buf_fini(&out);
}

void llm_assert_eval(const BcProgram *prog, uint32_t i, const char *workspace, Buf *msgs,
                     LlmAssertResult *res)
{
    const BcInsn *in = &prog->insn[i];
    BcVal v = bc_val(prog, in->a[0]), sub;
    if (v.tag != BC_V_MAP)
        return;
    if (bc_val_get(prog, &v, "fs", &sub) && sub.tag == BC_V_MAP)
        fs_checks(prog, &sub, workspace, msgs, res);
    if (bc_val_get(prog, &v, "json", &sub) && sub.tag == BC_V_MAP)
        json_check(prog, &sub, workspace, msgs, res);
    if (bc_val_get(prog, &v, "git", &sub) && sub.tag == BC_V_MAP)
        git_check(prog, &sub, workspace, msgs, res);
    if (bc_val_get(prog, &v, "text", &sub) && sub.tag == BC_V_MAP) {
        BcVal list;
        if (bc_val_get(prog, &sub, "contains", &list) && list.tag == BC_V_ARRAY && list.n) {
            res->skipped += list.n;
            buf_printf(msgs, "text.contains: skipped (%u checks need a terminal; serve llm has none)\n",
                       (unsigned)list.n);
        }
    }
}
