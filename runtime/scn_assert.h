/* SPDX-License-Identifier: MIT */
/* scn_assert.h - the Scenario-Format `assert`, evaluated one way for every
** target (the PTY target before its next op, the mock LLM server before
** its next response).
**
**   text.contains[]        the target's screen (a callback); a target
**                          without a terminal counts them as skipped
**   fs.exists[], notExists[]   paths in the workspace
**   json.file {path, pointer, equals}   RFC 6901 pointer, deep equality
**                          (1 equals 1.0)
**   git.commit.messageContains   the last commit of the workspace's
**                          repository (`git -C ROOT log -1 --format=%B`,
**                          at most 10 s and 1 MiB)
**
** The one path policy (docs/scenario.md, "assert"): a path is relative to
** the workspace root, has no '..' component, and what it names must not
** lie outside the root through a symbolic link; any other path is a
** failed check that is also counted as refused.  A path is judged by what
** it names: symbolic links are followed, so a dangling link does not
** exist (as `test -e` and Rust's Path::exists say).
**
** Checks run in the order text, fs, json, git: waiting for the screen
** first gives the program the time to write what the other checks read. */
#ifndef SC_SCN_ASSERT_H
#define SC_SCN_ASSERT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "formats/bc.h"

typedef struct ScnAssertResult {
    unsigned passed, failed, skipped;
    unsigned refused;       /* of the failed: paths the policy refuses */
} ScnAssertResult;

/* Waits for text on the target's screen.  Returns 1 when it is there, 0
** when it is not (appends the reason to why), -1 when the target failed
** while waiting (the evaluation stops). */
typedef int ScnTextFn(void *user, const char *text, size_t len, Buf *why);

typedef struct ScnAssertEnv {
    const char *root;       /* the workspace; NULL or "" = the current directory */
    ScnTextFn *text;        /* NULL: no terminal, text.contains is skipped */
    void *user;             /* for text */
    bool text_only;         /* only text.contains (the rest is evaluated elsewhere) */
} ScnAssertEnv;

/* The path policy, for every path a scenario names in the workspace:
** resolves rel below root (NULL or "" = the current directory) into full
** (NUL-terminated).  Returns NULL, or why the path is refused (a static
** string).  A path that does not resolve (absent, a dangling link) cannot
** lead anywhere and is not refused. */
const char *scn_path_resolve(const char *root, const char *rel, Buf *full);

/* Evaluates the assert value v of program p, adding to *res (the caller
** zeroes it).  Appends one line per failed or skipped check to msgs
** ("fs.exists 'out.txt': does not exist\n").  Returns false only when the
** text callback returned -1; an unreadable file or a missing git is a
** failed check, never an error. */
bool scn_assert_eval(const BcProgram *p, const BcVal *v, const ScnAssertEnv *env, Buf *msgs,
                     ScnAssertResult *res);

/* Lists the checks of the assert value v without evaluating them (a
** target that evaluates nothing reports them): fn once per check, in the
** order scn_assert_eval runs them, with its name ("fs.exists", ...) and
** its subject (the path or text; NULL when it has none, len 0).  Returns
** how many.  In sc_runtime (scn_assert_list.c): it needs no workspace. */
typedef void ScnAssertEachFn(void *user, const char *check, const char *subject, size_t len);
unsigned scn_assert_each(const BcProgram *p, const BcVal *v, ScnAssertEachFn *fn, void *user);

#endif
