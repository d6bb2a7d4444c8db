# PTY target tests (label pty): layer unit tests in C, and scenarios played
# against real programs by scvm -t pty (tests/pty/cli_test.py).  No test
# asserts on timing; every wait inside is event-driven with generous
# deadlines, so a loaded machine only makes them slower.
if(TARGET sc_rt_pty)
  set(PTY_SRC ${CMAKE_CURRENT_SOURCE_DIR}/pty)
  add_executable(pty_unit ${PTY_SRC}/pty_unit.c)
  target_compile_definitions(pty_unit PRIVATE _GNU_SOURCE)
  target_link_libraries(pty_unit PRIVATE sc_rt_pty)
  add_test(NAME pty.unit COMMAND pty_unit)
  set_tests_properties(pty.unit PROPERTIES LABELS "pty;unit" TIMEOUT 300)

  add_test(NAME pty.cli
           COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/cli_test.py
                   $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/pty-work)
  set_tests_properties(pty.cli PROPERTIES LABELS "pty" TIMEOUT 600)
endif()

# tui-use: scenarios compiled by the tui-use front end and played on real
# programs (cat, bash, python3, less; tmux as a second emulator), and the
# examples in docs/tui-use.md.
if(TARGET sc_rt_pty)
  add_test(NAME pty.tuiuse
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/pty/tuiuse_test.py
                   $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/tuiuse-work
                   ${PROJECT_SOURCE_DIR}/docs)
  set_tests_properties(pty.tuiuse PROPERTIES LABELS "pty" TIMEOUT 900)
endif()
# Every file of the shared tui-use corpus: compiles, or its positioned errors.
add_test(NAME corpus_tuiuse
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/pty/tuiuse_corpus.py
                 $<TARGET_FILE:scc> ${SCC_CORPUS})
set_tests_properties(corpus_tuiuse PROPERTIES LABELS "corpus;golden" TIMEOUT 300 SKIP_RETURN_CODE 77)
