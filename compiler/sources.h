/* SPDX-License-Identifier: MIT */
/* sources.h - which files below a folder are scenarios: the one rule
** `scc --check DIR`, `scc --pack DIR` and scvm's runners (a folder given
** to `scvm run`, `serve`, `ls`...) follow (docs/check.md, "Which files").
**
** Scenario files end in .yaml, .yml, .json or .jsonl; dot-entries,
** symbolic links to folders and what --exclude or the folder's .sccignore
** names are not walked; a file that is certainly data (a CI workflow, a
** JSON Schema, a Terminal-Config...) is skipped by the caller with a note
** (scc_data_file).  Never prints. */
#ifndef SC_SOURCES_H
#define SC_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct SccPaths {
    char **v;
    size_t n, cap;
} SccPaths;

bool scc_paths_add(SccPaths *l, const char *p);     /* a copy of p; false when out of memory */
void scc_paths_fini(SccPaths *l);

/* name ends in .yaml, .yml, .json or .jsonl */
bool scc_source_ext(const char *name);

/* Is rel (a path below a folder input) excluded by a pattern?  As in
** .gitignore: a pattern with a '/' (a leading one included) matches the
** path from the folder (fnmatch, FNM_PATHNAME), one without matches the
** name at any depth; a trailing '/' matches only folders. */
bool scc_excluded(const char *rel, bool is_dir, const char *const *pat, size_t n);

/* Adds the scenario files below dir to out, in sorted order.  0, or an
** errno (the folder named in bad: cannot be opened; ENOMEM). */
int scc_walk_sources(SccPaths *out, const char *dir, const char *const *pat, size_t n_pat, char *bad, size_t cap);

/* dir/.sccignore's patterns (a glob per line; blank and '#' lines skipped)
** appended to *pat (their text in *keep, for the caller to free).  0 (also
** when there is none), or an errno. */
int scc_read_ignore(const char *dir, const char ***pat, size_t *n, char **keep);

/* What a file found below a folder input is when it is certainly data, not
** a scenario (a static description: "a JSON Schema"), NULL when it may be
** a scenario.  name_line, name_col: where its top-level "name" key is (1:1
** if none).  max: the largest file read. */
const char *scc_data_file(const char *path, size_t max, unsigned *name_line, unsigned *name_col);

#endif
