# SPDX-License-Identifier: MIT
# PTY target tests (label pty): layer unit tests in C, and scenarios played
# against real programs by scvm -t pty (tests/pty/cli_test.py).  No test
# asserts on timing; every wait inside is event-driven with generous
# deadlines, so a loaded machine only makes them slower.
set(PTY_SRC ${CMAKE_CURRENT_SOURCE_DIR}/pty)
add_executable(pty_unit ${PTY_SRC}/pty_unit.c)
target_compile_definitions(pty_unit PRIVATE _GNU_SOURCE)
target_link_libraries(pty_unit PRIVATE sc_rt_pty)
add_test(NAME pty.unit COMMAND pty_unit)
add_executable(sbx_probe ${PTY_SRC}/sbx_probe.c)
set_tests_properties(pty.unit PROPERTIES LABELS "pty;unit" TIMEOUT 300)

add_test(NAME pty.cli
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/cli_test.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/pty-work)
set_tests_properties(pty.cli PROPERTIES LABELS "pty" TIMEOUT 600)

# One set of `assert` scenarios on the PTY target and through the mock LLM
# server (scvm serve llm): the same verdict from both (runtime/scn_assert.c).
add_test(NAME pty.assert_parity
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/assert_parity.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/assert-parity)
set_tests_properties(pty.assert_parity PROPERTIES LABELS "pty;server" TIMEOUT 300)

# tui-use: scenarios compiled by the tui-use front end and played on real
# programs (cat, bash, python3, less; tmux as a second emulator), and the
# examples in docs/tui-use.md.
add_test(NAME pty.tuiuse
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/pty/tuiuse_test.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/tuiuse-work
                 ${PROJECT_SOURCE_DIR}/docs)
set_tests_properties(pty.tuiuse PROPERTIES LABELS "pty" TIMEOUT 900)
# Every file of the shared tui-use corpus: compiles, or its positioned errors.
add_test(NAME corpus_tuiuse
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/pty/tuiuse_corpus.py
                 $<TARGET_FILE:scc> ${SCC_CORPUS})
set_tests_properties(corpus_tuiuse PROPERTIES LABELS "corpus;golden" TIMEOUT 300 SKIP_RETURN_CODE 77)

# Differential: recorded output streams of bash, less, vim, htop and python3
# (tests/pty/replay/*.cast, made by replay/record.py) replayed into our
# screen (pty_replay) and into @xterm/headless (pinned in
# tests/pty/xterm/package-lock.json, installed by `npm ci` into the build
# tree); the text screens, cursors and alternate-screen flags must agree.
add_executable(pty_replay ${PTY_SRC}/pty_replay.c)
target_link_libraries(pty_replay PRIVATE sc_rt_pty PkgConfig::CJSON)
set(PTY_NPM ${CMAKE_CURRENT_BINARY_DIR}/pty-npm)
sc_npm_fixture(pty ${PTY_SRC}/xterm ${PTY_NPM} pty)
file(GLOB PTY_CASTS ${PTY_SRC}/replay/*.cast)
add_test(NAME pty.differential
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/differential.py $<TARGET_FILE:pty_replay>
                 ${PTY_NPM}/node_modules ${PTY_CASTS})
set_tests_properties(pty.differential PROPERTIES FIXTURES_REQUIRED pty_npm LABELS "pty"
                     TIMEOUT 300 SKIP_RETURN_CODE 77)

# stdlib-scenarios/pty_*.yaml played on real programs, their screenshots
# compared with stdlib-scenarios/goldens/<scenario>/<profile>/screenshots/
# (refresh: stdlib_pty.py ... --update).
add_test(NAME pty.stdlib
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/stdlib_pty.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PROJECT_SOURCE_DIR}/stdlib-scenarios ${CMAKE_CURRENT_BINARY_DIR}/pty-stdlib)
set_tests_properties(pty.stdlib PROPERTIES LABELS "pty;golden" TIMEOUT 600)

# vim and htop live (keys in the modes they set, resize, exit), and the
# --cast recordings played by asciinema (`asciinema cat`).
add_test(NAME pty.programs
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/programs_test.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/pty-programs ${PTY_SRC}/replay)
set_tests_properties(pty.programs PROPERTIES LABELS "pty" TIMEOUT 600)

# Every stdlib program (and a tui-use one) through every target's
# preparation: a program that verifies is never refused later.
file(GLOB _sweep_files ${PROJECT_SOURCE_DIR}/stdlib-scenarios/*.yaml)
add_executable(target_sweep ${PTY_SRC}/target_sweep.c)
target_link_libraries(target_sweep PRIVATE sc_compiler sc_rt_pty sc_rt_llm sc_runtime sc_vm sc_formats)
add_test(NAME pty.target_sweep
         COMMAND target_sweep ${_sweep_files} ${PROJECT_SOURCE_DIR}/tests/fuzz/compile-corpus/tuiuse_cat.json)
set_tests_properties(pty.target_sweep PROPERTIES LABELS "pty;unit" TIMEOUT 120)

# Cancellation: 50 sessions of a program that ignores TERM/HUP/INT and
# leaves a setsid grandchild, cancelled by SIGTERM, SIGINT, SIGHUP and
# SIGKILL; zero survivors, zero zombies (docs/pty.md, "Cancellation").
add_test(NAME pty.cancel
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/cancel_test.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/cancel-work)
set_tests_properties(pty.cancel PROPERTIES LABELS "pty" TIMEOUT 600)

# The Linux sandbox for tui-use policies: refused writes, connects and
# execs, from a grandchild too; fail closed; --explain-policy.
add_test(NAME pty.sandbox
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/sandbox_test.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> $<TARGET_FILE:sbx_probe> ${CMAKE_CURRENT_BINARY_DIR}/sandbox-work)
set_tests_properties(pty.sandbox PROPERTIES LABELS "pty" TIMEOUT 300)

# The session C API (include/scc/session.h) as a library user calls it,
# with every allocation failing in turn.
add_executable(session_unit ${PTY_SRC}/session_unit.c)
target_link_libraries(session_unit PRIVATE sc_pty_core)
add_test(NAME pty.session_api COMMAND session_unit)
set_tests_properties(pty.session_api PROPERTIES LABELS "pty;unit" TIMEOUT 600)

# scvm driver --stdio --json and scvm exec (docs/driver.md): a client of the
# NDJSON protocol drives less and vim, every protocol error, the policy flags
# and refusals, EOF ending everything, exec's RunResult, the docs' examples.
add_test(NAME pty.driver
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/driver_test.py $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/driver-work ${PROJECT_SOURCE_DIR}/docs $<TARGET_FILE:scc>)
set_tests_properties(pty.driver PROPERTIES LABELS "pty" TIMEOUT 600)

# tui-use against the data model's rules, one group per test
# (tests/pty/tuiuse_fields_test.py; docs/tui-use.md, "The policy, field by
# field"): typing into a program that has exited, every Policy field
# enforced or refused, the policy file kept in the scenario's folder.
foreach(_grp exited_input policy_fields policy_file)
  add_test(NAME pty.${_grp}
           COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/tuiuse_fields_test.py
                   $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/tuiuse-fields ${_grp})
  set_tests_properties(pty.${_grp} PROPERTIES LABELS "pty" TIMEOUT 300)
endforeach()

# The JSON we write against the data model's own field lists, read from the
# seed (docs/driver.md, docs/tui-use.md "Colours"); skipped (77) without it.
foreach(_grp color_names datamodel_shapes)
  add_test(NAME pty.${_grp}
           COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/tuiuse_fields_test.py
                   $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/tuiuse-fields ${_grp}
                   ${SCC_CORPUS}/../seeds)
  set_tests_properties(pty.${_grp} PROPERTIES LABELS "pty" TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()

# ptybox's utility commands under their names (docs/tui-use.md, "ptybox's
# commands"): completions, protocol-help, run -t pty --verbose, and trace's
# HTML page over a scenario run, the driver, exec and a replay.
add_test(NAME pty.ptybox_cli
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/ptybox_cli_test.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/ptybox-cli)
set_tests_properties(pty.ptybox_cli PROPERTIES LABELS "pty" TIMEOUT 300)

# Replays of a deterministic program are stable: a python3 REPL session (and
# a variant with a resize) recorded once, replayed 20 times, every replay
# exit 0; a real change still fails with 11 (docs/driver.md, "Replay").
add_test(NAME pty.replay_stable
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/replay_stable_test.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/replay-stable)
set_tests_properties(pty.replay_stable PROPERTIES LABELS "pty" TIMEOUT 300)

# The descriptors a spawned program inherits (runtime/rt_proc.h): each way
# rt_close_others closes the rest, above 65,536 too, and a real spawn.
add_executable(proc_unit ${PTY_SRC}/proc_unit.c)
target_link_libraries(proc_unit PRIVATE sc_runtime)
add_test(NAME pty.proc_fds COMMAND proc_unit)
set_tests_properties(pty.proc_fds PROPERTIES LABELS "pty;unit" TIMEOUT 120)
add_test(NAME pty.spawn_syscalls
         COMMAND ${Python3_EXECUTABLE} ${PTY_SRC}/spawn_syscalls.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/spawn-syscalls-work)
set_tests_properties(pty.spawn_syscalls PROPERTIES LABELS "pty" TIMEOUT 300)
