# SPDX-License-Identifier: MIT
# scvm agent, the mock agent (docs/mock-agent.md): its tools on their own
# (ma_unit.c), the scenarios of tests/mockagent/ compiled by scc and played
# in fresh work folders (run_mockagent.py, one ctest per case), the mock
# agent as the program a PTY run launches, and the page's examples.
set(MA_SRC ${CMAKE_CURRENT_SOURCE_DIR}/mockagent)
set(MA_FIX ${CMAKE_CURRENT_BINARY_DIR}/mockagent-fixtures)
set(MA_WORK ${CMAKE_CURRENT_BINARY_DIR}/mockagent-work)
file(MAKE_DIRECTORY ${MA_FIX})

add_executable(ma_unit ${MA_SRC}/ma_unit.c)
target_compile_definitions(ma_unit PRIVATE _XOPEN_SOURCE=700)
target_link_libraries(ma_unit PRIVATE sc_mockagent PkgConfig::CJSON)
add_test(NAME mockagent.unit COMMAND ma_unit ${MA_WORK}/unit)
set_tests_properties(mockagent.unit PROPERTIES LABELS "unit" TIMEOUT 60)

# The test scenarios, compiled by scc, and a pack of two of them.
file(GLOB MA_SCENARIOS ${MA_SRC}/*.yaml)
foreach(y ${MA_SCENARIOS})
  get_filename_component(n ${y} NAME_WE)
  add_test(NAME mockagent.scc.${n} COMMAND scc -o ${MA_FIX}/${n}.scb ${y})
  set_tests_properties(mockagent.scc.${n} PROPERTIES FIXTURES_SETUP ma_scb LABELS "unit" TIMEOUT 30)
endforeach()
add_test(NAME mockagent.scc.pack COMMAND scc --pack -o ${MA_FIX}/two.scp ${MA_SRC}/pass.yaml ${MA_SRC}/fail_assert.yaml)
set_tests_properties(mockagent.scc.pack PROPERTIES FIXTURES_SETUP ma_scb LABELS "unit" TIMEOUT 30)

set(MA_CASES pass transcript checkpoint_count json fail_result fail_status fail_assert fail_checkpoint fail_edit
    claude_code unmapped_tool unsupported_tool pack_selection pacing sigterm sigint_wait bad_input stdin_prompts pty_host pty_prompt
    relative_cwd background notebook scripted scripted_regex)
foreach(c ${MA_CASES})
  add_test(NAME mockagent.e2e.${c}
           COMMAND ${Python3_EXECUTABLE} ${MA_SRC}/run_mockagent.py $<TARGET_FILE:scvm> ${MA_FIX} ${MA_WORK}/${c} ${c})
  set_tests_properties(mockagent.e2e.${c} PROPERTIES FIXTURES_REQUIRED ma_scb LABELS "golden" TIMEOUT 120)
endforeach()
set_tests_properties(mockagent.e2e.pty_host mockagent.e2e.pty_prompt PROPERTIES LABELS "pty")

# docs/mock-agent.md: its scenarios compiled, its examples run as written.
add_test(NAME mockagent.doc_examples
         COMMAND ${Python3_EXECUTABLE} ${MA_SRC}/doc_mockagent.py $<TARGET_FILE:scc> $<TARGET_FILE_DIR:scvm>
                 ${PROJECT_SOURCE_DIR}/docs/mock-agent.md ${PROJECT_SOURCE_DIR}/tests/vm/doc_examples.py ${MA_WORK}/doc)
set_tests_properties(mockagent.doc_examples PROPERTIES LABELS "golden;docs" TIMEOUT 120)
