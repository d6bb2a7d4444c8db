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

/* Scenario-Format: the keys each mapping may hold and the values each enum
** may take, one list per mapping or enum, named by what holds it (SF_REPO_KEYS:
** the keys of `repo`; SF_TOOL_SIDE_KEYS: the tool-use fields beside a tool
** shorthand's arguments). */
/* lower.c */
extern const char *const SF_REPO_KEYS[], *const SF_REPO_FILE_KEYS[], *const SF_AH_KEYS[], *const SF_SERVER_KEYS[],
    *const SF_SERVER_MODES[], *const SF_API_STYLES[], *const SF_ACP_KEYS[], *const SF_ACP_CAP_KEYS[],
    *const SF_PROMPT_CAP_KEYS[], *const SF_MCP_CAP_KEYS[], *const SF_MCP_SERVER_KEYS[], *const SF_EXPECT_KEYS[],
    *const SF_ARTIFACT_KEYS[], *const SF_COMPAT_KEYS[];
/* lower_content.c */
extern const char *const SF_PLAN_ENTRY_KEYS[], *const SF_ANNOTATION_KEYS[], *const SF_ROLES[], *const SF_BLOCK_KEYS[],
    *const SF_TEXT_BLOCK_KEYS[], *const SF_MEDIA_BLOCK_KEYS[], *const SF_RESOURCE_BLOCK_KEYS[],
    *const SF_EMBEDDED_KEYS[], *const SF_LINK_BLOCK_KEYS[], *const SF_DIFF_BLOCK_KEYS[], *const SF_PLAN_BLOCK_KEYS[],
    *const SF_STEP_TIME_KEYS[], *const SF_STEP_EXTRA_KEYS[], *const SF_STEP_BODY_KEYS[], *const SF_LLM_ERROR_KEYS[],
    *const SF_LLM_ELEMENTS[], *const SF_PROGRESS_BODY_KEYS[], *const SF_EXEC_KEYS[], *const SF_EXEC_EVENT_KEYS[],
    *const SF_EDITS_KEYS[], *const SF_TOOL_SIDE_KEYS[], *const SF_SET_MODE_KEYS[], *const SF_SET_MODEL_KEYS[],
    *const SF_AGENT_PLAN_KEYS[], *const SF_CONTENT_TYPES[], *const SF_PLAN_PRIORITIES[], *const SF_PLAN_STATUSES[],
    *const SF_TOOL_USE_KEYS[], *const SF_TOOL_STATUSES[], *const SF_EXEC_TYPES[];
/* lower_events.c */
extern const char *const SF_INPUT_ENTRY_KEYS[], *const SF_EXPECTED_RESPONSE_KEYS[], *const SF_USER_EDITS_KEYS[],
    *const SF_USER_COMMAND_KEYS[], *const SF_LOG_KEYS[], *const SF_ASSERT_KEYS[], *const SF_ASSERT_FS_KEYS[],
    *const SF_ASSERT_FS_CONTAINS_KEYS[], *const SF_ASSERT_TEXT_KEYS[], *const SF_ASSERT_JSON_KEYS[],
    *const SF_ASSERT_JSON_FILE_KEYS[], *const SF_ASSERT_GIT_KEYS[], *const SF_ASSERT_GIT_COMMIT_KEYS[],
    *const SF_SESSION_START_KEYS[], *const SF_INITIALIZE_KEYS[], *const SF_FILE_READS_KEYS[],
    *const SF_FILE_READ_KEYS[], *const SF_PERMISSION_KEYS[], *const SF_PERMISSION_OPTION_KEYS[],
    *const SF_PERMISSION_KINDS[], *const SF_DECISION_OUTCOMES[], *const SF_DECISION_KEYS[], *const SF_TARGETS[];

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
