/* SPDX-License-Identifier: MIT */
/* ma_unit.c - the mock agent's tools (runtime/mockagent/ma_tool.c) on their
** own, in a fresh work folder: runCmd's output, exit status, timeout and
** process-group kill; readFile's offset and limit; writeFile's folders;
** editFile's error cases; grep, glob, listDir and find sorted; sed; the
** path policy's refusals; the argument checks.
**
** Usage: ma_unit WORKDIR (made fresh). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "runtime/mockagent/ma_shell.h"
#include "runtime/mockagent/ma_tool.h"
#include "tests/check.h"

static char root[4096];

/* One call: tool with args (JSON text) in the work folder.  The result's
** text is NUL-terminated in r. */
static void call(const char *tool, const char *json, MaToolResult *r)
{
    cJSON *args = cJSON_Parse(json);
    if (!args) {
        fprintf(stderr, "bad test JSON: %s\n", json);
        exit(2);
    }
    MaEnv env = { .root = root, .timeout_ms = 5000 };
    ma_tool_result_init(r);
    CHECK(ma_tool_exec(&env, tool, args, r) == 0);
    buf_putc(&r->text, 0);
    r->text.len--;
    cJSON_Delete(args);
}

/* The result text equals want and its status is err. */
static bool is(MaToolResult *r, const char *want, bool err)
{
    bool ok = r->error == err && strcmp((const char *)r->text.data, want) == 0;
    if (!ok)
        fprintf(stderr, "  got %s: [%s]\n  want %s: [%s]\n", r->error ? "error" : "ok", (const char *)r->text.data,
                err ? "error" : "ok", want);
    ma_tool_result_fini(r);
    return ok;
}

/* The result has needle in it, and status err. */
static bool has(MaToolResult *r, const char *needle, bool err)
{
    bool ok = r->error == err && strstr((const char *)r->text.data, needle) != NULL;
    if (!ok)
        fprintf(stderr, "  got %s: [%s]\n  want %s with: [%s]\n", r->error ? "error" : "ok",
                (const char *)r->text.data, err ? "error" : "ok", needle);
    ma_tool_result_fini(r);
    return ok;
}

static void put(const char *rel, const char *text)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    file_mkparents(p);
    CHECK(file_write_atomic(p, text, strlen(text)) == 0);
}

/* Whether a live process (not a zombie) has arg among its arguments. */
static bool running_with(const char *arg)
{
    DIR *d = opendir("/proc");
    bool found = false;
    struct dirent *e;
    while (d && !found && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], *cl = NULL, *st = NULL;
        size_t n = 0, sn = 0;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        if (file_read_all(path, 65536, &cl, &n) == 0) {
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            bool zombie = file_read_all(path, 4096, &st, &sn) == 0 && strstr(st, ") Z ") != NULL;
            for (size_t i = 0; i < n && !zombie && !found; i += strlen(cl + i) + 1)
                found = strcmp(cl + i, arg) == 0;
        }
        sc_free(cl);
        sc_free(st);
    }
    if (d)
        closedir(d);
    return found;
}

static char *slurp(const char *rel)
{
    char p[8192], *d = NULL;
    size_t n;
    snprintf(p, sizeof p, "%s/%s", root, rel);
    return file_read_all(p, 1 << 20, &d, &n) == 0 ? d : NULL;
}

static void run_cmd(void)
{
    MaToolResult r;
    call("runCmd", "{\"cmd\":\"echo out; echo err >&2\"}", &r);
    CHECK(is(&r, "out\nerr\n", false));
    call("runCmd", "{\"cmd\":\"echo partial; exit 3\"}", &r);
    CHECK(strcmp(r.note, "exit 3") == 0);
    CHECK(is(&r, "partial\n", true));
    call("runCmd", "{\"cmd\":\"pwd\",\"cwd\":\"sub\"}", &r);     /* cwd below the root */
    CHECK(has(&r, "/sub\n", false));
    call("runCmd", "{\"cmd\":\"pwd\",\"cwd\":\"../\"}", &r);
    CHECK(has(&r, "refused", true));
    /* a timeout kills the whole tree: the background sleeper too (found
    ** by its argument, a marker with our pid: in a PID namespace, $! is
    ** not a pid of ours) */
    struct timespec t0, t1;
    char cmd[200], mark[40];
    snprintf(mark, sizeof mark, "30.%ld", (long)getpid());
    snprintf(cmd, sizeof cmd, "{\"cmd\":\"sleep %s & echo started; sleep 30\",\"timeout\":300}", mark);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    call("runCmd", cmd, &r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(secs < 5);
    CHECK(strstr(r.note, "timed out after 300 ms") != NULL);
    CHECK(has(&r, "started\nrunCmd: timed out after 300 ms, killed\n", true));
    CHECK(!running_with(mark));     /* ma_proc_run returns once the tree is gone */
    /* a background child that keeps the pipe open does not hold the call up */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    call("runCmd", "{\"cmd\":\"sleep 30 & echo quick\"}", &r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(secs < 3);
    CHECK(is(&r, "quick\n", false));
}

static void files(void)
{
    MaToolResult r;
    put("a.txt", "one\ntwo\nthree\nfour");
    call("readFile", "{\"path\":\"a.txt\"}", &r);
    CHECK(is(&r, "one\ntwo\nthree\nfour", false));
    call("readFile", "{\"path\":\"a.txt\",\"offset\":1,\"limit\":2}", &r);
    CHECK(strcmp(r.note, "2 lines") == 0);
    CHECK(is(&r, "two\nthree\n", false));
    call("readFile", "{\"path\":\"a.txt\",\"offset\":3}", &r);
    CHECK(is(&r, "four", false));
    call("readFile", "{\"path\":\"a.txt\",\"offset\":9}", &r);
    CHECK(is(&r, "", false));
    call("readFile", "{\"path\":\"nope.txt\"}", &r);
    CHECK(is(&r, "readFile: 'nope.txt': No such file or directory", true));
    call("readFile", "{\"path\":\"sub\"}", &r);
    CHECK(is(&r, "readFile: 'sub': not a regular file", true));

    call("writeFile", "{\"path\":\"new/deep/b.txt\",\"content\":\"x\\ny\\n\"}", &r);
    CHECK(is(&r, "wrote 4 bytes to new/deep/b.txt\n", false));
    char *b = slurp("new/deep/b.txt");
    CHECK(b && strcmp(b, "x\ny\n") == 0);
    sc_free(b);
    call("writeFile", "{\"path\":\"new\",\"content\":\"\"}", &r);
    CHECK(is(&r, "writeFile: 'new': it is a folder", true));

    put("e.txt", "alpha beta alpha\n");
    call("editFile", "{\"path\":\"e.txt\",\"old_string\":\"gamma\",\"new_string\":\"x\"}", &r);
    CHECK(is(&r, "editFile: 'e.txt': old_string not found in the file", true));
    call("editFile", "{\"path\":\"e.txt\",\"old_string\":\"alpha\",\"new_string\":\"x\"}", &r);
    CHECK(has(&r, "old_string occurs 2 times", true));
    call("editFile", "{\"path\":\"e.txt\",\"old_string\":\"\",\"new_string\":\"x\"}", &r);
    CHECK(has(&r, "old_string is empty", true));
    call("editFile", "{\"path\":\"e.txt\",\"old_string\":\"beta\",\"new_string\":\"beta\"}", &r);
    CHECK(has(&r, "the same", true));
    call("editFile", "{\"path\":\"missing.txt\",\"old_string\":\"a\",\"new_string\":\"b\"}", &r);
    CHECK(has(&r, "No such file", true));
    b = slurp("e.txt");
    CHECK(b && strcmp(b, "alpha beta alpha\n") == 0);   /* the failed edits changed nothing */
    sc_free(b);
    call("editFile", "{\"path\":\"e.txt\",\"old_string\":\"beta\",\"new_string\":\"BETA\"}", &r);
    CHECK(is(&r, "edited e.txt: 1 replacement\n", false));
    call("editFile", "{\"path\":\"e.txt\",\"old_string\":\"alpha\",\"new_string\":\"a\",\"replace_all\":true}", &r);
    CHECK(is(&r, "edited e.txt: 2 replacements\n", false));
    b = slurp("e.txt");
    CHECK(b && strcmp(b, "a BETA a\n") == 0);
    sc_free(b);

    call("sed", "{\"expression\":\"s/BETA/beta/\",\"path\":\"e.txt\"}", &r);
    CHECK(is(&r, "a beta a\n", false));
    call("sed", "{\"expression\":\"s/a/A/g\",\"path\":\"e.txt\",\"inplace\":true}", &r);
    CHECK(is(&r, "", false));
    b = slurp("e.txt");
    CHECK(b && strcmp(b, "A BETA A\n") == 0);
    sc_free(b);
    call("sed", "{\"expression\":\"s/unclosed\",\"path\":\"e.txt\"}", &r);
    CHECK(r.error);
    ma_tool_result_fini(&r);
}

static void searches(void)
{
    MaToolResult r;
    put("s/b.c", "int main;\nreturn 0;\n");
    put("s/a.c", "Main line\nmain again\n");
    put("s/z/deep.h", "main\n");
    put("s/notes.md", "main\n");
    put("s/.git/config", "main\n");     /* never searched */
    call("grep", "{\"pattern\":\"main\",\"path\":\"s\"}", &r);
    CHECK(is(&r, "s/a.c\ns/b.c\ns/notes.md\ns/z/deep.h\n", false));
    call("grep", "{\"pattern\":\"main\",\"path\":\"s\",\"glob\":\"*.c\",\"output_mode\":\"content\",\"-n\":true}", &r);
    CHECK(is(&r, "s/a.c:2:main again\ns/b.c:1:int main;\n", false));
    call("grep", "{\"pattern\":\"main\",\"path\":\"s\",\"glob\":\"*.c\",\"output_mode\":\"count\",\"-i\":true}", &r);
    CHECK(is(&r, "s/a.c:2\ns/b.c:1\n", false));
    call("grep", "{\"pattern\":\"main\",\"path\":\"s\",\"head_limit\":1}", &r);
    CHECK(is(&r, "s/a.c\n", false));
    call("grep", "{\"pattern\":\"nothing here\",\"path\":\"s\"}", &r);
    CHECK(is(&r, "no matches\n", false));
    call("grep", "{\"pattern\":\"(unclosed\",\"path\":\"s\"}", &r);
    CHECK(has(&r, "grep: bad pattern", true));

    call("glob", "{\"pattern\":\"**/*.c\",\"path\":\"s\"}", &r);
    CHECK(is(&r, "s/a.c\ns/b.c\n", false));
    call("glob", "{\"pattern\":\"s/**/*.h\"}", &r);
    CHECK(is(&r, "s/z/deep.h\n", false));
    call("glob", "{\"pattern\":\"*.c\",\"path\":\"s\"}", &r);
    CHECK(is(&r, "s/a.c\ns/b.c\n", false));
    call("glob", "{\"pattern\":\"*.none\"}", &r);
    CHECK(is(&r, "no files found\n", false));

    call("listDir", "{\"path\":\"s\"}", &r);
    CHECK(is(&r, "a.c\nb.c\nnotes.md\nz/\n", false));
    call("listDir", "{\"path\":\"s\",\"recursive\":true,\"pattern\":\"*.h\"}", &r);
    CHECK(is(&r, "z/deep.h\n", false));
    call("find", "{\"path\":\"s\",\"name\":\"*.c\",\"type\":\"file\"}", &r);
    CHECK(is(&r, "s/a.c\ns/b.c\n", false));
    call("find", "{\"path\":\"s\",\"type\":\"dir\"}", &r);
    CHECK(is(&r, "s/z\n", false));
    call("find", "{\"path\":\"./s/\",\"name\":\"a.*\"}", &r);    /* written as people write it */
    CHECK(is(&r, "s/a.c\n", false));
    call("listDir", "{\"path\":\"./\"}", &r);
    CHECK(has(&r, "s/\n", false));
}

static void confinement(void)
{
    MaToolResult r;
    char out[8300];
    snprintf(out, sizeof out, "%s-outside", root);
    mkdir(out, 0777);
    char link[8300];
    snprintf(link, sizeof link, "%s/escape", root);
    CHECK(symlink(out, link) == 0);
    char secret[8400];
    snprintf(secret, sizeof secret, "%s/x", out);
    CHECK(file_write_atomic(secret, "secret\n", 7) == 0);
    const char *cases[][2] = {
        { "readFile", "{\"path\":\"../x\"}" },
        { "readFile", "{\"path\":\"/etc/passwd\"}" },
        { "readFile", "{\"path\":\"escape/x\"}" },
        { "writeFile", "{\"path\":\"escape/new.txt\",\"content\":\"no\"}" },
        { "writeFile", "{\"path\":\"escape/deeper/new.txt\",\"content\":\"no\"}" },
        { "editFile", "{\"path\":\"../e.txt\",\"old_string\":\"a\",\"new_string\":\"b\"}" },
        { "grep", "{\"pattern\":\"x\",\"path\":\"escape\"}" },
        { "glob", "{\"pattern\":\"*\",\"path\":\"..\"}" },
        { "listDir", "{\"path\":\"escape\"}" },
        { "find", "{\"path\":\"/\"}" },
        { "sed", "{\"expression\":\"p\",\"path\":\"../../etc/passwd\"}" },
        { "runCmd", "{\"cmd\":\"true\",\"cwd\":\"escape\"}" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        call(cases[i][0], cases[i][1], &r);
        if (!r.refused || !r.error || !strstr((const char *)r.text.data, "refused"))
            fprintf(stderr, "  not refused: %s %s -> %s\n", cases[i][0], cases[i][1], (const char *)r.text.data);
        CHECK(r.refused && r.error);
        ma_tool_result_fini(&r);
    }
    char p[8400];
    snprintf(p, sizeof p, "%s/new.txt", out);
    CHECK(access(p, F_OK) != 0);                /* nothing was written outside */
    snprintf(p, sizeof p, "%s/deeper", out);
    CHECK(access(p, F_OK) != 0);
    /* a dangling link inside is not written through */
    snprintf(link, sizeof link, "%s/dangling", root);
    snprintf(p, sizeof p, "%s/target.txt", out);
    CHECK(symlink(p, link) == 0);
    call("writeFile", "{\"path\":\"dangling\",\"content\":\"no\"}", &r);
    CHECK(has(&r, "refused", true));
    CHECK(access(p, F_OK) != 0);
}

static void checks(void)
{
    const char *bad[][2] = {
        { "browseTheWeb", "{\"url\":\"http://x\"}" },
        { "webFetch", "{\"prompt\":\"p\"}" },
        { "Bash", "{\"command\":\"ls\"}" },
        { "runCmd", "{}" },
        { "runCmd", "{\"cmd\":1}" },
        { "runCmd", "{\"cmd\":\"ls\",\"run_in_background\":true,\"timeout\":100}" },
        { "notebookEdit", "{\"notebook_path\":\"n.ipynb\",\"new_source\":\"x\",\"edit_mode\":\"move\"}" },
        { "notebookEdit", "{\"notebook_path\":\"n.ipynb\",\"new_source\":\"x\",\"cell_type\":\"raw\"}" },
        { "notebookEdit", "{\"notebook_path\":\"n.ipynb\",\"edit_mode\":\"insert\",\"new_source\":\"x\"}" },
        { "notebookEdit", "{\"notebook_path\":\"n.ipynb\",\"cell_id\":\"a\"}" },
        { "todoWrite", "{\"todos\":[{\"content\":\"a\",\"status\":\"done\"}]}" },
        { "todoWrite", "{\"todos\":\"a\"}" },
        { "webSearch", "{\"query\":\"q\",\"allowed_domains\":\"x.com\"}" },
        { "bashOutput", "{\"shell_id\":\"bash_1\"}" },
        { "task", "{\"description\":\"d\"}" },
        { "runCmd", "{\"cmd\":\"ls\",\"timeout\":-1}" },
        { "readFile", "{\"path\":\"a\",\"encoding\":\"latin-1\"}" },
        { "grep", "{\"pattern\":\"a\",\"-C\":2}" },
        { "grep", "{\"pattern\":\"a\",\"output_mode\":\"lines\"}" },
        { "find", "{\"path\":\".\",\"type\":\"socket\"}" },
        { "glob", "{\"pattern\":\"**/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\"}" },
    };
    char why[400];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *a = cJSON_Parse(bad[i][1]);
        why[0] = 0;
        CHECK(!ma_tool_check(bad[i][0], a, why, sizeof why));
        CHECK(why[0] != 0);
        cJSON_Delete(a);
    }
    cJSON *a = cJSON_Parse("{\"url\":\"u\"}");
    ma_tool_check("browseTheWeb", a, why, sizeof why);
    CHECK(strstr(why, "cannot execute tool 'browseTheWeb'") != NULL);
    cJSON_Delete(a);
    a = cJSON_Parse("{\"cmd\":\"ls\",\"description\":\"list\",\"timeout\":100,\"run_in_background\":false}");
    CHECK(ma_tool_check("runCmd", a, why, sizeof why));
    cJSON_Delete(a);
    for (size_t i = 0; ma_tools[i]; i++)
        CHECK(!ma_tool_check(ma_tools[i], NULL, why, sizeof why));
}

/* The new tools where their scenarios cannot reach: no shells to start
** one in, a notebook that is not one, a server that is not there, and a
** scripted result given directly. */
static void new_tools(void)
{
    MaToolResult r;
    call("runCmd", "{\"cmd\":\"true\",\"run_in_background\":true}", &r);
    CHECK(has(&r, "cannot start a background shell", true));
    call("bashOutput", "{\"bash_id\":\"bash_1\"}", &r);
    CHECK(is(&r, "bashOutput: no background shell 'bash_1'", true));
    call("killShell", "{\"shell_id\":\"bash_1\"}", &r);
    CHECK(is(&r, "killShell: no background shell 'bash_1'", true));
    put("bad.ipynb", "{\"cells\": 3}");
    call("notebookEdit", "{\"notebook_path\":\"bad.ipynb\",\"cell_id\":\"0\",\"new_source\":\"x\"}", &r);
    CHECK(is(&r, "notebookEdit: 'bad.ipynb': not a Jupyter notebook (JSON with a 'cells' array)", true));
    put("bad.ipynb", "{\"cells\": [");
    call("notebookEdit", "{\"notebook_path\":\"bad.ipynb\",\"cell_id\":\"0\",\"new_source\":\"x\"}", &r);
    CHECK(has(&r, "not a Jupyter notebook", true));
    put("one.ipynb", "{\"cells\": [], \"nbformat\": 4, \"nbformat_minor\": 4}");
    call("notebookEdit", "{\"notebook_path\":\"one.ipynb\",\"cell_id\":\"0\",\"new_source\":\"x\"}", &r);
    CHECK(is(&r, "notebookEdit: 'one.ipynb': no cell '0'", true));
    call("notebookEdit", "{\"notebook_path\":\"one.ipynb\",\"new_source\":\"x\"}", &r);
    CHECK(is(&r, "notebookEdit: 'one.ipynb': edit_mode replace needs cell_id", true));
    /* insert without cell_id: first; before nbformat 4.5 cells have no id */
    call("notebookEdit", "{\"notebook_path\":\"one.ipynb\",\"new_source\":\"a\\nb\\n\",\"cell_type\":\"code\","
                         "\"edit_mode\":\"insert\"}", &r);
    CHECK(is(&r, "inserted cell 0 of one.ipynb\n", false));
    char *data = NULL;
    size_t n = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/one.ipynb", root);
    CHECK(file_read_all(path, 1 << 20, &data, &n) == 0);
    cJSON *nb = data ? cJSON_ParseWithLength(data, n) : NULL;
    char *flat = nb ? cJSON_PrintUnformatted(cJSON_GetObjectItem(nb, "cells")) : NULL;
    CHECK(flat && strcmp(flat, "[{\"cell_type\":\"code\",\"metadata\":{},\"source\":[\"a\\n\",\"b\\n\"],"
                               "\"execution_count\":null,\"outputs\":[]}]") == 0);
    cJSON_free(flat);
    cJSON_Delete(nb);
    sc_free(data);
    /* port 1: nothing listens there (a privileged port no test serves) */
    call("webFetch", "{\"url\":\"http://127.0.0.1:1/x\"}", &r);
    CHECK(has(&r, "webFetch: http://127.0.0.1:1/x: ", true));
    call("webFetch", "{\"url\":\"ftp://example.com/\"}", &r);
    CHECK(has(&r, "only http://", true));
    /* scripted: the env's script is the result, its status the status */
    cJSON *args = cJSON_Parse("{\"command\":\"/compact\"}");
    MaEnv env = { .root = root, .script = "compacted", .script_len = 9, .script_error = true };
    ma_tool_result_init(&r);
    CHECK(ma_tool_exec(&env, "slashCommand", args, &r) == 0);
    CHECK(r.error && r.text.len == 9 && memcmp(r.text.data, "compacted", 9) == 0);
    ma_tool_result_fini(&r);
    env.script = NULL;
    env.script_len = 0;
    env.script_error = false;
    ma_tool_result_init(&r);
    CHECK(ma_tool_exec(&env, "slashCommand", args, &r) == 0);
    CHECK(!r.error && r.text.len == 0);
    ma_tool_result_fini(&r);
    cJSON_Delete(args);
    CHECK(ma_tool_scripted("task") && ma_tool_scripted("todoWrite") && !ma_tool_scripted("webFetch"));

    /* a shell that closes its output and runs on: bashOutput waits for
    ** its exit a bounded time (2 s), then says it runs */
    MaShells *sh = ma_shells_new();
    CHECK(sh != NULL);
    MaEnv se = { .root = root, .timeout_ms = 60000, .shells = sh };
    args = cJSON_Parse("{\"cmd\":\"echo bye; exec >&- 2>&-; touch closed-out; exec sleep 6174\","
                       "\"run_in_background\":true}");
    ma_tool_result_init(&r);
    CHECK(ma_tool_exec(&se, "runCmd", args, &r) == 0 && !r.error);
    ma_tool_result_fini(&r);
    cJSON_Delete(args);
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/closed-out", root);
    for (int i = 0; i < 1000 && access(marker, F_OK) != 0; i++)
        nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);   /* the shell's own event: the file it makes */
    args = cJSON_Parse("{\"bash_id\":\"bash_1\"}");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ma_tool_result_init(&r);
    CHECK(ma_tool_exec(&se, "bashOutput", args, &r) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    buf_putc(&r.text, 0);
    CHECK(!r.error && strcmp((const char *)r.text.data, "bye\n[bash_1: running]\n") == 0);
    CHECK(took >= 1.9 && took < 10);
    ma_tool_result_fini(&r);
    cJSON_Delete(args);
    CHECK(running_with("6174"));
    ma_shells_free(sh);     /* the run's end: the shell goes */
    CHECK(!running_with("6174"));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: ma_unit WORKDIR\n", stderr);
        return 2;
    }
    char out[4200];
    snprintf(out, sizeof out, "%s-outside", argv[1]);
    file_remove_tree(argv[1]);
    file_remove_tree(out);
    if (file_mkdirs(argv[1]) != 0 || !realpath(argv[1], root)) {
        perror(argv[1]);
        return 2;
    }
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/sub", root);
    mkdir(sub, 0777);
    run_cmd();
    files();
    searches();
    confinement();
    checks();
    new_tools();
    if (failures) {
        fprintf(stderr, "ma_unit: %d check(s) failed\n", failures);
        return 1;
    }
    puts("ma_unit: all checks passed");
    return 0;
}
