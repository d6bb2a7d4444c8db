/* SPDX-License-Identifier: MIT */
/* fe_tables.h - the key and value lists the front ends check, shared with
** the schema generator (schema.c, `scc --print-schema`), so the JSON
** Schemas editors read cannot drift from what scc accepts.
**
** Every list is NULL-terminated and defined in the front end that checks
** it: lower.c (Scenario-Format; its top-level keys and events are read
** through lower_top_key and lower_event, lower.h), dialect_tuiuse.c,
** dialect_eliza.c, dialect_yao.c.  The check types of ElizaOS and Yao are
** formats/agentcheck.def's (ac_dialect_names). */
#ifndef SC_COMPILER_FE_TABLES_H
#define SC_COMPILER_FE_TABLES_H

#include <stddef.h>

/* Scenario-Format (lower.c): where an event may stand (lower_event_where). */
enum { LOWER_IN_TIMELINE = 1, LOWER_IN_AGENT = 2, LOWER_IN_USER = 4 };
extern const char *const LOWER_COMPANIONS[];   /* keys beside the event key in a timeline item */
extern const char *const LOWER_BARE_EVENTS[];  /* events that may be written as a bare string */
/* The LOWER_IN_* bits of the i-th event of lower_event, 0 past the last. */
unsigned lower_event_where(size_t i);

/* tui-use (dialect_tuiuse.c) */
extern const int TU_SCENARIO_VERSION, TU_POLICY_VERSION;
extern const char *const TU_TOP_KEYS[], *const TU_META_KEYS[], *const TU_RUN_KEYS[], *const TU_SIZE_KEYS[];
extern const char *const TU_STEP_KEYS[], *const TU_ACTION_KEYS[], *const TU_ACTION_TYPES[];
extern const char *const TU_POLICY_KEYS[], *const TU_SANDBOXES[], *const TU_NETWORKS[];
extern const char *const TU_POLICY_FS_KEYS[], *const TU_POLICY_EXEC_KEYS[], *const TU_POLICY_ENV_KEYS[];
extern const char *const TU_POLICY_BUDGET_KEYS[], *const TU_POLICY_ARTIFACT_KEYS[], *const TU_POLICY_REPLAY_KEYS[];

/* ElizaOS (dialect_eliza.c) */
/* An evaluation type and its keys (EZ_EVAL_KEYS ends with a NULL type). */
typedef struct FeTypeKeys {
    const char *type;
    const char *const *keys;
} FeTypeKeys;
extern const FeTypeKeys EZ_EVAL_KEYS[];
extern const char *const EZ_MOCK_KEYS[];
extern const char *const EZ_TOP_KEYS[], *const EZ_ENVIRONMENT_KEYS[], *const EZ_PLUGIN_KEYS[];
extern const char *const EZ_MATRIX_KEYS[], *const EZ_MATRIX_ENTRY_KEYS[];   /* eliza_matrix.c */
extern const char *const EZ_SETUP_KEYS[], *const EZ_JUDGMENT_KEYS[], *const EZ_STRATEGIES[], *const EZ_STEP_KEYS[];

/* Yao (dialect_yao.c) */
extern const char *const YAO_CASE_KEYS[], *const YAO_ASSERT_KEYS[];

#endif
