# SPDX-License-Identifier: MIT
# The agent under test (runtime/aut): over HTTP against `scvm serve llm`,
# over ACP against `scvm serve acp`, in a PTY against a shell loop.
add_executable(t_aut ${CMAKE_CURRENT_SOURCE_DIR}/aut/t_aut.c)
target_link_libraries(t_aut PRIVATE sc_aut)
add_test(NAME aut.transports
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/aut/aut_test.py $<TARGET_FILE:t_aut>
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/aut-work)
set_tests_properties(aut.transports PROPERTIES LABELS "server;pty" TIMEOUT 300)

# The tape of recorded replies (runtime/tape).
add_executable(t_tape ${CMAKE_CURRENT_SOURCE_DIR}/tape/t_tape.c)
target_link_libraries(t_tape PRIVATE sc_tape)
add_test(NAME tape.unit COMMAND t_tape ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/tape-corpus)
set_tests_properties(tape.unit PROPERTIES LABELS "unit" TIMEOUT 30)
add_test(NAME tape.doc_examples
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/vm/doc_examples.py ${PROJECT_SOURCE_DIR}/docs/tape.md
                 $<TARGET_FILE_DIR:scvm>)
set_tests_properties(tape.doc_examples PROPERTIES LABELS "docs" TIMEOUT 60)

# ElizaOS evaluations and Yao assertions (runtime/judge).
add_executable(t_judge ${CMAKE_CURRENT_SOURCE_DIR}/judge/t_judge.c)
target_link_libraries(t_judge PRIVATE sc_judge)
add_test(NAME judge.unit COMMAND t_judge)
set_tests_properties(judge.unit PROPERTIES LABELS "unit" TIMEOUT 60)

# scvm run -t aut: compiled ElizaOS and Yao suites against scripted agents.
add_test(NAME aut.target
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/aut/aut_target_test.py $<TARGET_FILE:scc>
                 $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/aut-target-work)
set_tests_properties(aut.target PROPERTIES LABELS "server" TIMEOUT 300)

# Issue 30: skipped is not passed (--allow-skipped), a live judge, ElizaOS's
# turn and conversation limits against slow agents, Yao's static turns
# stopping at the first failure.
add_test(NAME aut.judged
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/aut/aut_judged_test.py $<TARGET_FILE:scc>
                 $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/aut-judged-work)
set_tests_properties(aut.judged PROPERTIES LABELS "server" TIMEOUT 300)

# Issue 33 items 6 and 7: the Yao specification's own cases (tests/yao-spec)
# against `scvm serve llm`: options, metadata and attachments in the
# requests its journal kept, --results per turn, the console's name and
# -v tree, and Yao's command line (-i, -c, --timeout, --interactive,
# --skip-interactive, --on-missing-input).
add_test(NAME aut.yao_spec
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/aut/aut_yao_spec_test.py $<TARGET_FILE:scc>
                 $<TARGET_FILE:scvm> ${CMAKE_CURRENT_SOURCE_DIR}/yao-spec ${CMAKE_CURRENT_BINARY_DIR}/aut-yao-spec-work)
set_tests_properties(aut.yao_spec PROPERTIES LABELS "server" TIMEOUT 300)

# Issue 33 item 8: ElizaOS's command line (scvm scenario run|matrix,
# --env-file as dotenv reads it, --live), from tests/eliza-cli.
add_test(NAME aut.eliza_cli
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/aut/aut_eliza_cli_test.py $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_SOURCE_DIR}/eliza-cli ${CMAKE_CURRENT_BINARY_DIR}/aut-eliza-cli-work)
set_tests_properties(aut.eliza_cli PROPERTIES LABELS "server" TIMEOUT 300)

# Issue 33 item 8: ElizaOS's _logs_ files (--logs, ./_logs_ for scvm
# scenario), --filter as ElizaOS filters a matrix, the scenario command in
# the help; from tests/eliza-logs against a small agent the test serves.
add_test(NAME aut.eliza_logs
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/aut/aut_eliza_logs_test.py $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_SOURCE_DIR}/eliza-logs ${CMAKE_CURRENT_BINARY_DIR}/aut-eliza-logs-work)
set_tests_properties(aut.eliza_logs PROPERTIES LABELS "server" TIMEOUT 300)
