/* SPDX-License-Identifier: MIT */
/* ma_tool.h - the mock agent's tools (docs/mock-agent.md, "Tools"): the
** Scenario-Format's tool calls executed for real in a work folder, with
** deterministic results (listings sorted, paths relative to the folder).
**
**   runCmd     {cmd, cwd?, timeout? (ms), description?}: `sh -c CMD`,
**              stdout and stderr as the result; error when it does not
**              exit 0 (ma_proc.h: its process group is killed at the end)
**   readFile   {path, offset? (lines skipped), limit? (lines), encoding? utf-8}
**   writeFile  {path, content}: missing folders are made
**   editFile   {path, old_string, new_string, replace_all?}: old_string
**              must occur exactly once, or at least once with replace_all
**   grep       {pattern, path?, glob?, output_mode? files_with_matches |
**              content | count, -i?, -n?, head_limit?}: the linear-time
**              regex of formats/term/term_regex.h, line by line
**   glob       {pattern, path?}: `*`, `?`, `[...]` within a name, `**`
**              across folders; files only
**   listDir    {path, recursive?, pattern?}: folders end with '/'
**   find       {path, name?, type? file|dir}
**   sed        {expression, path, inplace?}: `sed -e EXPRESSION [-i] FILE`
**   runCmd     {..., run_in_background: true}: a background shell (ma_shell.h)
**   bashOutput {bash_id, filter?}, killShell {shell_id}: on those shells
**   notebookEdit {notebook_path, new_source?, cell_id?, cell_type?,
**              edit_mode? replace | insert | delete}: the .ipynb's cells
**   webFetch   {url, prompt?}: GET url (http:// only), the body as result
**   task, webSearch, todoWrite, exitPlanMode, slashCommand: scripted
**
** Every path is confined to the work folder by the asserts' policy
** (runtime/scn_assert.h, scn_path_resolve); a path it refuses is an
** error result that says so.  Folders named .git are not searched. */
#ifndef SC_MA_TOOL_H
#define SC_MA_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "ma_proc.h"

struct cJSON;

/* The default timeout of a runCmd without one, as real agents' shells. */
#define MA_RUN_TIMEOUT_MS 120000u

typedef struct MaEnv {
    const char *root;           /* the work folder; NULL or "" = "." */
    unsigned timeout_ms;        /* runCmd's default; 0 = MA_RUN_TIMEOUT_MS */
    struct MaShells *shells;    /* the background shells (ma_shell.h); NULL: none can start */
    /* a scripted tool's result (ma_tool_scripted): the scenario's */
    const char *script;         /* its text; NULL: empty */
    size_t script_len;
    bool script_error;          /* the scenario's status is error */
} MaEnv;

typedef struct MaToolResult {
    Buf text;                   /* what the tool returns */
    bool error;                 /* its status is error */
    bool refused;               /* ... because a path is outside the folder */
    bool cancelled;             /* a signal cancelled the run while it ran */
    char note[160];             /* for the transcript: "exit 1", "3 matches", ... */
} MaToolResult;

void ma_tool_result_init(MaToolResult *r);
void ma_tool_result_fini(MaToolResult *r);

/* The tools it executes, NULL-terminated, in the order above. */
extern const char *const ma_tools[];

/* Whether tool is one whose result is the scenario's (task, webSearch,
** todoWrite, exitPlanMode, slashCommand): its arguments are checked, and
** env->script is returned as its result, env->script_error as its status. */
bool ma_tool_scripted(const char *tool);

/* Whether call (tool, args) can be executed: a known tool, arguments of
** the right types, none it would have to ignore (grep's -C, runCmd's
** run_in_background, ...).  Returns true, or false with why. */
bool ma_tool_check(const char *tool, const struct cJSON *args, char *why, size_t cap);

/* Executes the call in env's folder and fills r (initialised by the
** caller).  A failing tool is r->error with its message in r->text, as
** real agents return it.  Returns 0, or -1 when out of memory. */
int ma_tool_exec(const MaEnv *env, const char *tool, const struct cJSON *args, MaToolResult *r);

/* The confinement of a file to be written: rel below root, by
** scn_path_resolve's policy; the missing folders on the way are made (each
** checked before), and a name that is a symbolic link leading nowhere is
** refused.  full gets the path to open.  Returns NULL, or why it is
** refused (static, or written into err). */
const char *ma_path_for_write(const char *root, const char *rel, Buf *full, char *err, size_t cap);

/* Writes n bytes to the file full (created, or truncated): 0 or an errno. */
int ma_file_write(const char *full, const char *data, size_t n);

#endif
