/* SPDX-License-Identifier: MIT */
/* scn_assert_unit.c - the Scenario-Format `assert` (runtime/scn_assert.c)
** on its own: the path policy, links, JSON pointers, JSON equality, git,
** and text.contains through the callback.  One case per divergence the two
** former copies had (llm_assert.c and rt_pty_ws.c), each with the verdict
** both targets now give.
**
** Usage: scn_assert_unit WORKDIR (made fresh; a git repository is made in
** it when git is installed, else the git cases are skipped). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/sc_alloc.h"
#include "formats/bc_write.h"
#include "runtime/scn_assert.h"
#include "runtime/scn_edit.h"
#include "tests/bc_plain_meta.h"
#include "tests/check.h"

static char root[4096];

/* A JSON document as a stored value (the way scc stores the YAML). */
static void emit(BcBuilder *b, const cJSON *j)
{
    if (cJSON_IsNull(j)) {
        bcb_val_null(b);
    } else if (cJSON_IsBool(j)) {
        bcb_val_bool(b, cJSON_IsTrue(j));
    } else if (cJSON_IsNumber(j)) {
        /* integral numbers are stored as scc stores YAML integers */
        if (j->valuedouble == (double)(int64_t)j->valuedouble)
            bcb_val_int(b, (int64_t)j->valuedouble);
        else
            bcb_val_float(b, j->valuedouble);
    } else if (cJSON_IsString(j)) {
        bcb_val_str(b, bcb_cstr(b, j->valuestring));
    } else if (cJSON_IsArray(j)) {
        bcb_val_array(b, (uint32_t)cJSON_GetArraySize(j));
        for (const cJSON *c = j->child; c; c = c->next)
            emit(b, c);
    } else {
        bcb_val_map(b, (uint32_t)cJSON_GetArraySize(j));
        for (const cJSON *c = j->child; c; c = c->next) {
            bcb_val_key(b, bcb_cstr(b, c->string));
            emit(b, c);
        }
    }
}

/* A program with one ASSERT op whose value is the JSON text. */
static BcProgram *program(const char *json)
{
    cJSON *j = cJSON_Parse(json);
    CHECK(j != NULL);
    BcBuilder *b = bcb_new();
    bc_plain_meta(b, "unit", "unit.yaml");
    bcb_val_begin(b);
    emit(b, j);
    CHECK(bcb_op(b, OP_ASSERT, 0, 1, 1, bcb_val_end(b)));
    cJSON_Delete(j);
    unsigned char *bytes = NULL;
    size_t len = 0;
    CHECK(bcb_finish(b, NULL, &bytes, &len));
    bcb_free(b);
    BcProgram *p = NULL;
    BcError err;
    CHECK(bc_load(bytes, len, NULL, &p, &err) == BC_ERR_OK);
    sc_free(bytes);
    return p;
}

static int screen_calls;

/* The screen holds "hello"; "boom" makes the target fail. */
static int screen(void *user, const char *text, size_t len, Buf *why)
{
    (void)user;
    screen_calls++;
    if (len == 4 && memcmp(text, "boom", 4) == 0)
        return -1;
    if (len == 5 && memcmp(text, "hello", 5) == 0)
        return 1;
    buf_puts(why, "not on the screen");
    return 0;
}

/* Evaluates json in the root; checks the counts and that msgs contains
** want_msg (NULL: msgs is empty). */
static void expect(const char *json, unsigned passed, unsigned failed, unsigned refused, const char *want_msg,
                   int line)
{
    BcProgram *p = program(json);
    if (!p)
        return;
    BcVal v = bc_val(p, p->insn[0].a[0]);
    ScnAssertEnv env = { .root = root, .text = screen };
    ScnAssertResult r = { 0, 0, 0, 0 };
    Buf msgs;
    buf_init(&msgs);
    CHECK(scn_assert_eval(p, &v, &env, &msgs, &r));
    buf_putc(&msgs, 0);
    const char *m = (const char *)msgs.data;
    if (r.passed != passed || r.failed != failed || r.refused != refused || r.skipped ||
        (want_msg ? !strstr(m, want_msg) : msgs.len != 1)) {
        fprintf(stderr, "%s:%d: %s: passed %u failed %u refused %u, expected %u %u %u; messages:\n%s\n",
                __FILE__, line, json, r.passed, r.failed, r.refused, passed, failed, refused, m);
        failures++;
    }
    buf_fini(&msgs);
    bc_free(p);
}
#define EXPECT(json, passed, failed, refused, msg) expect(json, passed, failed, refused, msg, __LINE__)

static void write_file(const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", root, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_paths(void)
{
    char path[4200], link[4200];
    EXPECT("{\"fs\": {\"exists\": [\"here.txt\", \"sub\", \"sub/\", \"./here.txt\"], \"notExists\": [\"gone\"]}}", 5,
           0, 0, NULL);
    EXPECT("{\"fs\": {\"exists\": [\"gone\"], \"notExists\": [\"here.txt\"]}}", 0, 2, 0,
           "fs.exists 'gone': does not exist\nfs.notExists 'here.txt': exists\n");
    /* fs.contains (scc's extension): the file holds the text */
    write_file("text.txt", "hello world\nsecond line\n");
    EXPECT("{\"fs\": {\"contains\": [{\"path\": \"text.txt\", \"text\": \"world\\nsecond\"}]}}", 1, 0, 0, NULL);
    EXPECT("{\"fs\": {\"contains\": [{\"path\": \"text.txt\", \"text\": \"wrold\"}, {\"path\": \"gone\", "
           "\"text\": \"x\"}]}}", 0, 2, 0,
           "fs.contains 'text.txt': does not contain 'wrold'\nfs.contains 'gone': cannot read: No such file or directory\n");
    EXPECT("{\"fs\": {\"contains\": [{\"path\": \"../text.txt\", \"text\": \"x\"}]}}", 0, 1, 1, "fs.contains '../text.txt'");
    /* Absolute and '..' paths are refused, even when they name a file
    ** inside the root (the LLM server took them). */
    snprintf(path, sizeof path, "{\"fs\": {\"exists\": [\"%s/here.txt\"]}}", root);
    EXPECT(path, 0, 1, 1, "fs.exists '/");
    EXPECT("{\"fs\": {\"exists\": [\"../outside.txt\"]}}", 0, 1, 1, "refused: paths are relative");
    EXPECT("{\"fs\": {\"notExists\": [\"sub/../gone\"]}}", 0, 1, 1, "fs.notExists 'sub/../gone': refused");
    EXPECT("{\"fs\": {\"exists\": [\"\"]}}", 0, 1, 1, "refused");
    /* '..' inside a name is no '..' component. */
    write_file("a..b", "x");
    EXPECT("{\"fs\": {\"exists\": [\"a..b\", \"..a\"]}}", 1, 1, 0, "fs.exists '..a': does not exist");
    /* A dangling link does not exist: links are followed (the PTY target
    ** used lstat and said it existed). */
    snprintf(link, sizeof link, "%s/dangling", root);
    CHECK(symlink("no-such-target", link) == 0);
    EXPECT("{\"fs\": {\"exists\": [\"dangling\"]}}", 0, 1, 0, "fs.exists 'dangling': does not exist");
    EXPECT("{\"fs\": {\"notExists\": [\"dangling\"]}}", 1, 0, 0, NULL);
    /* A link inside the root is followed; one that leads out is refused. */
    snprintf(link, sizeof link, "%s/in-link", root);
    CHECK(symlink("here.txt", link) == 0);
    snprintf(link, sizeof link, "%s/out-link", root);
    snprintf(path, sizeof path, "%s/../outside.txt", root);
    CHECK(symlink(path, link) == 0);
    EXPECT("{\"fs\": {\"exists\": [\"in-link\"]}}", 1, 0, 0, NULL);
    EXPECT("{\"fs\": {\"exists\": [\"out-link\"]}}", 0, 1, 1, "leads out of the workspace");
    EXPECT("{\"json\": {\"file\": {\"path\": \"out-link\", \"pointer\": \"\", \"equals\": 1}}}", 0, 1, 1,
           "json.file 'out-link': refused");
}

static void test_policy(void)
{
    Buf full;
    buf_init(&full);
    CHECK(scn_path_resolve(root, "here.txt", &full) == NULL);
    CHECK(strcmp((const char *)full.data + strlen(root), "/here.txt") == 0);
    CHECK(scn_path_resolve(NULL, "x", &full) == NULL && strcmp((const char *)full.data, "./x") == 0);
    CHECK(scn_path_resolve("", "x", &full) == NULL && strcmp((const char *)full.data, "./x") == 0);
    CHECK(scn_path_resolve("/", "x", &full) == NULL && strcmp((const char *)full.data, "/x") == 0);
    CHECK(scn_path_resolve(root, "/etc/passwd", &full) != NULL);
    CHECK(scn_path_resolve(root, "..", &full) != NULL);
    CHECK(scn_path_resolve(root, "a/..", &full) != NULL);
    CHECK(scn_path_resolve(root, "not-yet/there", &full) == NULL);   /* nothing to follow */
    buf_fini(&full);
}

static void test_json(void)
{
    write_file("d.json", "{\"a\": [10, 11, {\"b\": 1.0}], \"~2\": \"t\", \"x/y\": true, \"~\": null, \"\": 5}");
    write_file("bad.json", "{\"a\": ");
    const char *pass[] = {
        "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/a/1\", \"equals\": 11}}}",
        "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/a/2/b\", \"equals\": 1}}}",
        "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/a/2\", \"equals\": {\"b\": 1}}}}",
        "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/~02\", \"equals\": \"t\"}}}",
        "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/x~1y\", \"equals\": true}}}",
        "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/~0\", \"equals\": null}}}",
        "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/\", \"equals\": 5}}}",
        "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/a\", \"equals\": [10, 11, {\"b\": 1}]}}}",
    };
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
        EXPECT(pass[i], 1, 0, 0, NULL);
    /* RFC 6901 section 4: an array index has no leading zero; the PTY
    ** target's strtol took "01", "+1" and " 1". */
    const char *unresolved[] = { "/a/01", "/a/+1", "/a/ 1", "/a/-", "/a/3", "/a/-1", "/a/1x", "/a/",
                                 "/~2",  /* no RFC 6901 escape (the PTY target read it literally) */
                                 "/a/1/b", "a" };
    for (size_t i = 0; i < sizeof unresolved / sizeof unresolved[0]; i++) {
        char j[256];
        snprintf(j, sizeof j, "{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"%s\", \"equals\": 11}}}",
                 unresolved[i]);
        EXPECT(j, 0, 1, 0, "does not resolve");
    }
    EXPECT("{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/a/1\", \"equals\": 12}}}", 0, 1, 0,
           "json.file 'd.json' at '/a/1': expected 12, found 11");
    EXPECT("{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"/a/2\", \"equals\": {\"b\": 1, \"c\": 2}}}}", 0,
           1, 0, "expected");
    EXPECT("{\"json\": {\"file\": {\"path\": \"bad.json\", \"pointer\": \"\", \"equals\": 1}}}", 0, 1, 0,
           "json.file 'bad.json': not valid JSON");
    EXPECT("{\"json\": {\"file\": {\"path\": \"none.json\", \"pointer\": \"\", \"equals\": 1}}}", 0, 1, 0,
           "json.file 'none.json': cannot read");
    EXPECT("{\"json\": {\"file\": {\"path\": \"d.json\", \"pointer\": \"\"}}}", 0, 1, 0,
           "json.file: needs path, pointer and equals");
}

static void test_text(void)
{
    EXPECT("{\"text\": {\"contains\": [\"hello\", \"bye\"]}}", 1, 1, 0, "text.contains: not on the screen\n");
    /* No terminal: skipped, and counted. */
    BcProgram *p = program("{\"text\": {\"contains\": [\"hello\", \"bye\"]}, \"fs\": {\"exists\": [\"here.txt\"]}}");
    if (p) {
        BcVal v = bc_val(p, p->insn[0].a[0]);
        ScnAssertEnv env = { .root = root };
        ScnAssertResult r = { 0, 0, 0, 0 };
        Buf msgs;
        buf_init(&msgs);
        CHECK(scn_assert_eval(p, &v, &env, &msgs, &r));
        CHECK(r.passed == 1 && r.failed == 0 && r.skipped == 2);
        buf_putc(&msgs, 0);
        CHECK(strstr((const char *)msgs.data, "text.contains: skipped (2 checks"));
        buf_fini(&msgs);
        bc_free(p);
    }
    /* A target that failures while waiting stops the evaluation: the fs
    ** check after it is not made, and nothing half-written is left. */
    p = program("{\"text\": {\"contains\": [\"boom\"]}, \"fs\": {\"exists\": [\"gone\"]}}");
    if (p) {
        BcVal v = bc_val(p, p->insn[0].a[0]);
        ScnAssertEnv env = { .root = root, .text = screen };
        ScnAssertResult r = { 0, 0, 0, 0 };
        Buf msgs;
        buf_init(&msgs);
        CHECK(!scn_assert_eval(p, &v, &env, &msgs, &r));
        CHECK(r.passed == 0 && r.failed == 0 && msgs.len == 0);
        buf_fini(&msgs);
        bc_free(p);
    }
}

static bool have_git(void)
{
    return system("git --version >/dev/null 2>&1") == 0;
}

static void test_git(void)
{
    /* No repository: a failed check (the PTY target refused git.commit
    ** without repo.init; now both look in the root). */
    EXPECT("{\"git\": {\"commit\": {\"messageContains\": \"seed\"}}}", 0, 1, 0, "git.commit: cannot read");
    if (!have_git()) {
        printf("scn_assert_unit: git is not installed: the repository cases are skipped\n");
        return;
    }
    char cmd[8500];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && git init -q && git add here.txt && git -c user.name=t -c user.email=t@x "
             "-c commit.gpgsign=false commit -q -m 'the seed commit' >/dev/null 2>&1",
             root);
    CHECK(system(cmd) == 0);
    EXPECT("{\"git\": {\"commit\": {\"messageContains\": \"seed comm\"}}}", 1, 0, 0, NULL);
    EXPECT("{\"git\": {\"commit\": {\"messageContains\": \"\"}}}", 1, 0, 0, NULL);
    EXPECT("{\"git\": {\"commit\": {\"messageContains\": \"other\"}}}", 0, 1, 0,
           "git.commit: the last commit message does not contain 'other'");
    /* git's stderr is not the message (GIT_TRACE writes its trace there):
    ** the one runner gives this check stdout alone. */
    setenv("GIT_TRACE", "1", 1);
    EXPECT("{\"git\": {\"commit\": {\"messageContains\": \"trace: \"}}}", 0, 1, 0,
           "git.commit: the last commit message does not contain 'trace: '");
    EXPECT("{\"git\": {\"commit\": {\"messageContains\": \"seed comm\"}}}", 1, 0, 0, NULL);
    unsetenv("GIT_TRACE");
}

/* The agentEdits rule (runtime/scn_edit.c): the last rm lines go, the add
** generated lines come, the last newline follows the old text. */
static void edit_case(const char *old, uint64_t add, uint64_t rm, const char *want)
{
    Buf out;
    buf_init(&out);
    char why[256] = "";
    int r = scn_edit_apply("f.txt", old, old ? strlen(old) : 0, add, rm, &out, why, sizeof why);
    if (!want) {
        CHECK(r == -1 && strstr(why, "removes") != NULL);
    } else {
        CHECK(r == 0 && !out.oom && out.len == strlen(want) && memcmp(out.data, want, out.len) == 0);
        if (r == 0 && (out.len != strlen(want) || memcmp(out.data, want, out.len) != 0))
            fprintf(stderr, "  edit(%s, +%llu, -%llu) gave [%s], want [%s]\n", old ? old : "NULL",
                    (unsigned long long)add, (unsigned long long)rm, (const char *)out.data, want);
        CHECK(scn_edit_count_lines(want, strlen(want)) ==
              (old ? scn_edit_count_lines(old, strlen(old)) : 0) - (int64_t)rm + (int64_t)add);
    }
    buf_fini(&out);
}

static void test_edit(void)
{
    edit_case(NULL, 1, 0, "scvm agentEdits f.txt +1/1\n");
    edit_case("", 2, 0, "scvm agentEdits f.txt +1/2\nscvm agentEdits f.txt +2/2\n");
    edit_case("a\nb\n", 1, 0, "a\nb\nscvm agentEdits f.txt +1/1\n");
    edit_case("a\nb", 1, 0, "a\nb\nscvm agentEdits f.txt +1/1");
    edit_case("a\nb\n", 1, 1, "a\nscvm agentEdits f.txt +1/1\n");
    edit_case("a\nb", 0, 1, "a");
    edit_case("a\nb\n", 0, 1, "a\n");
    edit_case("a\nb\n", 0, 2, "");
    edit_case("a\nb\n", 1, 2, "scvm agentEdits f.txt +1/1\n");
    edit_case("a\nb\n", 0, 0, "a\nb\n");
    edit_case("a\n", 0, 2, NULL);
    edit_case(NULL, 0, 1, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: scn_assert_unit WORKDIR\n");
        return 2;
    }
    /* git must not find the repository the work folder is in. */
    setenv("GIT_CEILING_DIRECTORIES", argv[1], 1);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/root/sub'", argv[1], argv[1]);
    if (system(cmd) != 0 || !realpath(argv[1], root)) {
        fprintf(stderr, "scn_assert_unit: cannot make %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    strcat(root, "/root");
    write_file("here.txt", "here\n");
    write_file("../outside.txt", "outside\n");
    test_policy();
    test_paths();
    test_json();
    test_text();
    test_git();
    test_edit();
    if (failures) {
        fprintf(stderr, "scn_assert_unit: %d failures\n", failures);
        return 1;
    }
    printf("scn_assert_unit: ok\n");
    return 0;
}
