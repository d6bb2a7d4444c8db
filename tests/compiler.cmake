# SPDX-License-Identifier: MIT
# Compiler front-end tests: YAML tree + rules, data-driven.
set(SCC_COMPILER_DIR ${PROJECT_SOURCE_DIR}/compiler)

add_executable(scc_tree ${CMAKE_CURRENT_LIST_DIR}/compiler/scc_tree.c)
target_link_libraries(scc_tree PRIVATE sc_compiler)

set(_cases ${CMAKE_CURRENT_LIST_DIR}/compiler)
add_test(NAME compiler.yaml
         COMMAND ${Python3_EXECUTABLE} ${_cases}/run_cases.py $<TARGET_FILE:scc_tree> ${_cases}/yaml)
add_test(NAME compiler.rules
         COMMAND ${Python3_EXECUTABLE} ${_cases}/run_cases.py $<TARGET_FILE:scc_tree> ${_cases}/rules)
add_test(NAME compiler.yaml_limits
         COMMAND ${Python3_EXECUTABLE} ${_cases}/gen_cases.py $<TARGET_FILE:scc_tree>)
add_test(NAME compiler.runner_fails
         COMMAND ${Python3_EXECUTABLE} ${_cases}/run_cases.py $<TARGET_FILE:scc_tree> ${_cases}/must_fail)
set_tests_properties(compiler.runner_fails PROPERTIES WILL_FAIL TRUE)
set_tests_properties(compiler.yaml compiler.rules compiler.runner_fails PROPERTIES LABELS "errors;golden" TIMEOUT 60)
set_tests_properties(compiler.yaml_limits PROPERTIES LABELS "errors;unit" TIMEOUT 60)

# Bytecode must not depend on the C compiler that built scc: no call in the
# front ends may take two arguments that intern into the builder's pools
# (C leaves argument evaluation order unspecified; gcc and clang differ).
# The VM fixtures are built the same way, and docs/scvm.md shows their bytes.
file(GLOB _front_ends ${SCC_COMPILER_DIR}/*.c ${PROJECT_SOURCE_DIR}/tools/scc/*.c)
add_test(NAME compiler.eval_order
         COMMAND ${Python3_EXECUTABLE} ${_cases}/check_eval_order.py ${_front_ends}
                 ${CMAKE_CURRENT_LIST_DIR}/vm/vm_fixtures.c)
set_tests_properties(compiler.eval_order PROPERTIES LABELS "unit" TIMEOUT 30)

# scc_compile() as a library: both front ends, a forced dialect, -Werror,
# the phase hook, the caller's source untouched, the verified program.
add_executable(compile_unit ${CMAKE_CURRENT_LIST_DIR}/compiler/compile_unit.c)
target_link_libraries(compile_unit PRIVATE sc_compiler)
add_test(NAME compiler.compile_unit
         COMMAND compile_unit ${PROJECT_SOURCE_DIR}/stdlib-scenarios/rate_limited_retry.yaml
                 ${CMAKE_CURRENT_LIST_DIR}/fuzz/compile-corpus/tuiuse_cat.json)
set_tests_properties(compiler.compile_unit PROPERTIES LABELS "unit" TIMEOUT 30)

# The ElizaOS and Yao front ends through scc and scvm (docs/eliza.md,
# docs/yao.md): detection, --dialect, checks at their positions,
# determinism, packs, simulation events, the PTY target's refusal.
add_test(NAME compiler.agent_dialects
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/compiler/agent_dialects.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/compile-corpus)
set_tests_properties(compiler.agent_dialects PROPERTIES LABELS "golden" TIMEOUT 120)

# Damaged ElizaOS and Yao files (truncations, seeded mutations): exit 0 or
# 1, no sanitizer report, no hang, an error with a position.
add_test(NAME compiler.agent_mutations
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/compiler/agent_mutations.py $<TARGET_FILE:scc>
                 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/compile-corpus/eliza_triage.yaml
                 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/compile-corpus/yao_expense.jsonl
                 ${CMAKE_CURRENT_SOURCE_DIR}/errors/eliza_scenario.yaml
                 ${CMAKE_CURRENT_SOURCE_DIR}/errors/yao_cases.jsonl)
set_tests_properties(compiler.agent_mutations PROPERTIES LABELS "errors" TIMEOUT 600)

# Issue 33 item 5: the Yao specification's own test files (tests/yao-spec,
# copied from yao-agent-test-v2.md) load as written, pretty-printed or one
# case a line, detected by content (docs/yao.md).
add_test(NAME compiler.yao_spec
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/compiler/yao_spec.py $<TARGET_FILE:scc>
                 ${CMAKE_CURRENT_SOURCE_DIR}/yao-spec)
set_tests_properties(compiler.yao_spec PROPERTIES LABELS "golden" TIMEOUT 120)

# The fast YAML reader (compiler/yaml_fast.c) against the libyaml path:
# same tree and same scc output for every file it accepts.
add_executable(yaml_fast_diff ${CMAKE_CURRENT_LIST_DIR}/compiler/yaml_fast_diff.c)
target_link_libraries(yaml_fast_diff PRIVATE sc_compiler)
add_test(NAME compiler.yaml_fast_diff
         COMMAND ${Python3_EXECUTABLE} ${_cases}/yaml_fast_diff.py $<TARGET_FILE:yaml_fast_diff>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/yaml_fast_diff.work)
set_tests_properties(compiler.yaml_fast_diff PROPERTIES LABELS "unit" TIMEOUT 300)
