# SPDX-License-Identifier: MIT
# Processes, signals and temporary files (docs/security.md, "Processes and
# signals"): nothing a run starts outlives it, a signal at any moment ends
# a command the documented way, and no temporary of ours is left behind.
set(LT_SRC ${CMAKE_CURRENT_SOURCE_DIR}/lifetimes)

# A server signalled the instant it prints "listening on": 30 tries each of
# serve llm, rest, harness and llm+rest+harness, every one summarised, with
# its documented status.
add_test(NAME lifetimes.serve_signal
         COMMAND ${Python3_EXECUTABLE} ${LT_SRC}/serve_signal.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PROJECT_SOURCE_DIR}/stdlib-scenarios/bugfix_with_tests.yaml 30)
set_tests_properties(lifetimes.serve_signal PROPERTIES LABELS "server" TIMEOUT 300)

# scvm agent's runCmd with a `setsid -f` daemon: nothing carries the
# command's marker after a pass, a failure, a timeout, TERM/INT/HUP or KILL
# of scvm; in a PID namespace, with the subreaper (SCVM_PIDNS=0), and as
# user nobody (a user namespace).
add_test(NAME lifetimes.agent_leftovers
         COMMAND ${Python3_EXECUTABLE} ${LT_SRC}/agent_leftovers.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/lifetimes-work/agent)
set_tests_properties(lifetimes.agent_leftovers PROPERTIES LABELS "unit" TIMEOUT 300)

# scvm run -t aut --via acp: an ElizaOS code step with a `setsid -f` daemon
# and an ACP agent with a background child; nothing carries the marker
# after a pass, a failure, a code step's timeout, TERM/INT/HUP or KILL of
# scvm; in a PID namespace and with the subreaper (SCVM_PIDNS=0).
add_test(NAME lifetimes.aut_leftovers
         COMMAND ${Python3_EXECUTABLE} ${LT_SRC}/aut_leftovers.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/lifetimes-work/aut)
set_tests_properties(lifetimes.aut_leftovers PROPERTIES LABELS "server" TIMEOUT 300)

# scvm exec and scvm driver on SIGTERM, SIGINT, SIGHUP: RunResult
# "interrupted" (E_INTERRUPTED), artifacts, TMPDIR emptied, nothing left
# running, exit 128 + N.
add_test(NAME lifetimes.driver_signals
         COMMAND ${Python3_EXECUTABLE} ${LT_SRC}/driver_signals.py $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/lifetimes-work/driver)
set_tests_properties(lifetimes.driver_signals PROPERTIES LABELS "pty" TIMEOUT 120)

# Temporaries and artifacts: run.json put in place last (inotify), checksums
# .json even when another artifact fails, a killed writer's temporaries
# removed by the next run in the folder (a live writer's kept), TMPDIR
# honoured.
add_test(NAME lifetimes.tmp_files
         COMMAND ${Python3_EXECUTABLE} ${LT_SRC}/tmp_files.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/lifetimes-work/tmp)
set_tests_properties(lifetimes.tmp_files PROPERTIES LABELS "pty" TIMEOUT 180)

# scvm replay killed (TERM, KILL) while it replays: the replayed run, its
# own scvm, and its program end with it.
add_test(NAME lifetimes.replay_killed
         COMMAND ${Python3_EXECUTABLE} ${LT_SRC}/replay_killed.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/lifetimes-work/replay)
set_tests_properties(lifetimes.replay_killed PROPERTIES LABELS "pty" TIMEOUT 180)
