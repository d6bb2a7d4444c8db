# SPDX-License-Identifier: MIT
# VM, runtime and scvm tests.  vm_fixtures writes the .scb inputs (built
# with the bytecode builder, so they track the format) into VM_FIX; every
# scvm test runs there, so paths in messages are short and stable.
set(VM_SRC ${CMAKE_CURRENT_SOURCE_DIR}/vm)
set(VM_FIX ${CMAKE_CURRENT_BINARY_DIR}/vm-fixtures)
file(MAKE_DIRECTORY ${VM_FIX})

add_executable(vm_fixtures ${VM_SRC}/vm_fixtures.c)
target_link_libraries(vm_fixtures PRIVATE sc_formats sc_common)
add_executable(vm_unit ${VM_SRC}/vm_unit.c)
target_link_libraries(vm_unit PRIVATE sc_vm)

add_test(NAME vm.fixtures COMMAND vm_fixtures ${VM_FIX})
set_tests_properties(vm.fixtures PROPERTIES FIXTURES_SETUP vm_fix LABELS "unit" TIMEOUT 30)

add_test(NAME vm.unit COMMAND vm_unit ${VM_FIX}/all_ops.scb WORKING_DIRECTORY ${VM_FIX})
set_tests_properties(vm.unit PROPERTIES FIXTURES_REQUIRED vm_fix LABELS "unit;fuzz-regress" TIMEOUT 300)

# vm_cli(NAME LABEL CHECKS... -- SCVM-ARGS...): one scvm command, checked
# by cli_check.py (see its header for the checks).
function(vm_cli name label)
  add_test(NAME vm.cli.${name}
           COMMAND ${Python3_EXECUTABLE} ${VM_SRC}/cli_check.py ${ARGN}
           WORKING_DIRECTORY ${VM_FIX})
  set_tests_properties(vm.cli.${name} PROPERTIES FIXTURES_REQUIRED vm_fix LABELS "${label}" TIMEOUT 60)
endfunction()
# The scvm path goes after the checks' "--".
set(SCVM $<TARGET_FILE:scvm>)

# ---- run: the event stream ----
# the wait, the check and the eval: said not evaluated, on stderr and as events (docs/events.md);
# not evaluated is not passed: exit 1, the events all written, unless --allow-skipped
vm_cli(run.all_ops golden --status 1 --stdout ${VM_SRC}/all_ops.jsonl --twice
       --stderr-has "scvm: 3 assertions not evaluated in simulation" --stderr-has "play with -t pty or -t agent to check them"
       --stderr-has "not evaluated is not passed (--allow-skipped accepts it)"
       -- ${SCVM} run all_ops.scb)
vm_cli(run.allow_skipped golden --status 0 --stdout ${VM_SRC}/all_ops.jsonl
       --stderr-has "scvm: 3 assertions not evaluated in simulation" --stderr-has "check them (allowed: --allow-skipped)"
       -- ${SCVM} run --allow-skipped all_ops.scb)
vm_cli(run.allow_skipped_pty errors --status 2 --stdout-empty --stderr-has "--allow-skipped needs --target sim or aut"
       -- ${SCVM} run -t pty --allow-skipped all_ops.scb -- true)
vm_cli(run.target_sim golden --status 1 --stdout ${VM_SRC}/all_ops.jsonl -- ${SCVM} run -t sim all_ops.scb)
vm_cli(run.options_after golden --status 0 --stdout ${VM_SRC}/all_ops.jsonl -- ${SCVM} run all_ops.scb --target=sim --allow-skipped)
vm_cli(run.output_file golden --status 1 --stdout-empty --fresh out.jsonl --file out.jsonl=${VM_SRC}/all_ops.jsonl
       -- ${SCVM} run -o out.jsonl all_ops.scb)
vm_cli(run.output_joined golden --status 0 --stdout-empty --fresh out2.jsonl --file out2.jsonl=${VM_SRC}/all_ops.jsonl
       -- ${SCVM} run -oout2.jsonl --allow-skipped all_ops.scb)
vm_cli(run.output_dash golden --status 0 --stdout ${VM_SRC}/all_ops.jsonl -- ${SCVM} run --output - --allow-skipped all_ops.scb)
vm_cli(run.stdin golden --status 0 --stdin all_ops.scb --stdout ${VM_SRC}/all_ops.jsonl -- ${SCVM} run --allow-skipped -)
vm_cli(run.empty golden --status 0 --stdout-empty --stderr-empty -- ${SCVM} run empty.scb)
vm_cli(run.dashdash golden --status 0 --stdout-empty -- ${SCVM} run -- empty.scb)

# ---- --speed: at_ms = round(t * speed), halves away from zero, min 0.01 ----
foreach(s 1 0.5 1.5 2 0.01)
  vm_cli(run.speed_${s} golden --status 0 --stdout ${VM_SRC}/speed-${s}.jsonl --twice -- ${SCVM} run --speed ${s} speed.scb)
endforeach()
vm_cli(run.speed_equals golden --status 0 --stdout ${VM_SRC}/speed-0.5.jsonl -- ${SCVM} run --speed=0.5 speed.scb)
vm_cli(run.speed_clamp golden --status 0 --stdout ${VM_SRC}/speed-0.01.jsonl -- ${SCVM} run --speed 0.001 speed.scb)
vm_cli(run.speed_zero golden --status 0 --stdout ${VM_SRC}/speed-0.01.jsonl -- ${SCVM} run --speed 0 speed.scb)
vm_cli(usage.speed_empty errors --status 2 --stderr-has "invalid speed" -- ${SCVM} run --speed= speed.scb)
foreach(bad -1 nan inf -inf abc 1e999 0.5x)
  string(MAKE_C_IDENTIFIER "x${bad}" id)
  vm_cli(usage.speed_${id} errors --status 2 --stdout-empty --stderr-has "invalid speed" -- ${SCVM} run --speed "${bad}" speed.scb)
endforeach()

# ---- --realtime: same events, and never early ----
vm_cli(run.realtime golden --status 0 --stdout ${VM_SRC}/realtime.jsonl --min-ms 80 -- ${SCVM} run --realtime realtime.scb)
vm_cli(run.realtime_slow golden --status 0 --stdout ${VM_SRC}/realtime-2.jsonl --min-ms 160 -- ${SCVM} run --realtime --speed 2 realtime.scb)
vm_cli(run.realtime_file golden --status 0 --stdout-empty --min-ms 80 --fresh rt.jsonl --file rt.jsonl=${VM_SRC}/realtime.jsonl
       -- ${SCVM} run --realtime -o rt.jsonl realtime.scb)

# ---- --count ----
vm_cli(run.count golden --status 0 --stdout-text "35 events" --twice -- ${SCVM} run --count all_ops.scb)
vm_cli(run.count_json golden --status 0 --stdout-json events=35 --stdout-json ops=40 -- ${SCVM} run --count --json all_ops.scb)
vm_cli(run.count_empty golden --status 0 --stdout-text "0 events" -- ${SCVM} run --count empty.scb)

# ---- verify ----
vm_cli(verify.ok golden --status 0 --stdout-text "all_ops.scb: ok\ndemo.scb: ok" --stderr-empty -- ${SCVM} verify all_ops.scb demo.scb)
vm_cli(verify.json golden --status 0 --stdout-json file=\"demo.scb\" --stdout-json ok=true -- ${SCVM} verify --json demo.scb)
vm_cli(verify.garbage errors --status 4 --stdout-empty --stderr-has "scvm: garbage.scb: rejected: " --stderr-has "[MAGIC]" -- ${SCVM} verify garbage.scb)
vm_cli(verify.garbage_json errors --status 4 --stdout-json ok=false --stdout-json code=\"MAGIC\" --stdout-json status=4 --stderr-empty -- ${SCVM} verify --json garbage.scb)
vm_cli(verify.empty_file errors --status 4 --stderr-has "scvm: empty-file.scb: rejected: " -- ${SCVM} verify empty-file.scb)
vm_cli(verify.truncated errors --status 4 --stderr-has "scvm: truncated.scb: rejected: " -- ${SCVM} verify truncated.scb)
vm_cli(verify.badsum errors --status 4 --stderr-has "scvm: badsum.scb: rejected: " -- ${SCVM} verify badsum.scb)
vm_cli(verify.missing errors --status 3 --stdout-empty --stderr-text "scvm: missing.scb: cannot read: No such file or directory" -- ${SCVM} verify missing.scb)
vm_cli(verify.directory errors --status 3 --stderr-has "scvm: .: cannot read: " -- ${SCVM} verify .)
vm_cli(verify.mixed errors --status 4 --stdout-text "all_ops.scb: ok\ndemo.scb: ok" --stderr-has "missing.scb: cannot read" --stderr-has "garbage.scb: rejected"
       -- ${SCVM} verify all_ops.scb missing.scb garbage.scb demo.scb)

# ---- run on bad input: nothing on stdout, no partial -o file ----
vm_cli(run.missing errors --status 3 --stdout-empty -- ${SCVM} run missing.scb)
vm_cli(run.garbage errors --status 4 --stdout-empty --stderr-has "[MAGIC]" -- ${SCVM} run garbage.scb)
vm_cli(run.truncated errors --status 4 --stdout-empty -- ${SCVM} run truncated.scb)
vm_cli(run.badsum errors --status 4 --stdout-empty -- ${SCVM} run badsum.scb)
vm_cli(run.rejected_no_file errors --status 4 --absent never.jsonl -- ${SCVM} run -o never.jsonl truncated.scb)
vm_cli(run.rejected_keeps_file errors --status 4 --keep old.jsonl=previous -- ${SCVM} run -o old.jsonl garbage.scb)
vm_cli(run.unwritable errors --status 3 --stderr-has "scvm: no-such-dir/x.jsonl: cannot write: " -- ${SCVM} run -o no-such-dir/x.jsonl all_ops.scb)
vm_cli(run.stdout_full errors --status 3 --stdout-to /dev/full --stderr-has "cannot write" -- ${SCVM} run all_ops.scb)
vm_cli(verify.stdout_full errors --status 3 --stdout-to /dev/full -- ${SCVM} verify all_ops.scb)

# ---- usage ----
vm_cli(usage.none errors --status 2 --stdout-empty --stderr-has "usage: scvm run" -- ${SCVM})
vm_cli(usage.command errors --status 2 --stderr-has "unknown command 'play'" -- ${SCVM} play all_ops.scb)
vm_cli(usage.run_nofile errors --status 2 --stderr-has "no input file" -- ${SCVM} run)
vm_cli(usage.run_twofiles errors --status 2 --stdout-empty -- ${SCVM} run all_ops.scb demo.scb)
vm_cli(usage.option errors --status 2 --stderr-has "unknown option '--fast'" -- ${SCVM} run --fast all_ops.scb)
vm_cli(usage.no_value errors --status 2 --stderr-has "option '-o' needs a value" -- ${SCVM} run all_ops.scb -o)
vm_cli(usage.target errors --status 2 --stderr-has "invalid --target 'nope' (sim, pty, agent or aut)" -- ${SCVM} run --target nope all_ops.scb)
vm_cli(usage.verify_nofile errors --status 2 -- ${SCVM} verify)
vm_cli(usage.info_option errors --status 2 -- ${SCVM} info --count all_ops.scb)
vm_cli(usage.dis_two errors --status 2 -- ${SCVM} dis all_ops.scb demo.scb)
vm_cli(help unit --status 0 --stdout-has "usage: scvm run" --stdout-has "exit status (docs/exit-status.md):" --stdout-has "  4  rejected: a .scb or pack failed loading or verification"
       --stdout-has "scvm COMMAND --help" --stderr-empty -- ${SCVM} --help)
vm_cli(help_run unit --status 0 --stdout-has "usage: scvm run" --stdout-has "--speed X" --stdout-has "aut target (-t aut"
       --stdout-has "exit status (docs/exit-status.md):" -- ${SCVM} run --help)
vm_cli(help_serve unit --status 0 --stdout-has "usage: scvm serve llm" --stdout-has "--max-connections N" -- ${SCVM} serve --help)
vm_cli(usage.did_you_mean errors --status 2 --stderr-has "unknown option '--jnuit'" --stderr-has "did you mean '--junit'?"
       --stderr-has "Try 'scvm run --help'." -- ${SCVM} run --jnuit r.xml all_ops.scb)
vm_cli(usage.other_command errors --status 2 --stderr-has "scvm serve takes no option '--junit': it is an option of scvm run"
       -- ${SCVM} serve llm --junit r.xml all_ops.scb)
vm_cli(usage.command_did_you_mean errors --status 2 --stderr-has "unknown command 'rn'" --stderr-has "did you mean 'run'?"
       -- ${SCVM} rn all_ops.scb)
vm_cli(usage.eq_value golden --status 0 --stdout ${VM_SRC}/all_ops.jsonl -- ${SCVM} run --target=sim --speed=1 --allow-skipped all_ops.scb)
vm_cli(usage.flag_value errors --status 2 --stderr-has "option '--count' takes no value" -- ${SCVM} run --count=3 all_ops.scb)

# ---- info and dis ----
vm_cli(info.text golden --status 0 --stdout-has "name         \"all_ops\"\n" --stdout-has "events       35\n"
       --stdout-has "duration_ms  1300\n" --stdout-has "tags         [\"vm\",\"test\"]\n" -- ${SCVM} info all_ops.scb)
vm_cli(info.json golden --status 0 --stdout-json name=\"all_ops\" --stdout-json source=\"all_ops.yaml\"
       --stdout-json "prompt=\"Fix the bug\"" --stdout-json "tags=[\"vm\",\"test\"]" --stdout-json ops=40 --stdout-json events=35
       --stdout-json duration_ms=1300 --stdout-json lines=true --stdout-json dict=true --stdout-json version=\"1.2\" -- ${SCVM} info --json all_ops.scb)
vm_cli(info.stripped golden --status 0 --stdout-json lines=false -- ${SCVM} info --json stripped.scb)
vm_cli(info.garbage errors --status 4 --stdout-empty -- ${SCVM} info garbage.scb)
vm_cli(dis.all_ops golden --status 0 --stdout-has "TOOL_START" --stdout-has "FILE_EDIT" --stdout-has "END" --twice -- ${SCVM} dis all_ops.scb)
vm_cli(dis.garbage errors --status 4 --stdout-empty -- ${SCVM} dis garbage.scb)

# The checker itself can fail: a wrong expectation must make it fail.
vm_cli(selftest.wrong_status unit --status 0 -- ${SCVM} run all_ops.scb)
vm_cli(selftest.wrong_stdout unit --status 0 --stdout ${VM_SRC}/speed-2.jsonl -- ${SCVM} run --allow-skipped all_ops.scb)
set_tests_properties(vm.cli.selftest.wrong_status vm.cli.selftest.wrong_stdout PROPERTIES WILL_FAIL TRUE)

# Every example in docs/scvm.md, run as written.
add_test(NAME vm.doc_examples
         COMMAND ${Python3_EXECUTABLE} ${VM_SRC}/doc_examples.py ${PROJECT_SOURCE_DIR}/docs/scvm.md $<TARGET_FILE_DIR:scvm>
         WORKING_DIRECTORY ${VM_FIX})
set_tests_properties(vm.doc_examples PROPERTIES FIXTURES_REQUIRED vm_fix LABELS "golden" TIMEOUT 60)

# docs/exit-status.md: its examples as written, and the one table of exit
# statuses equal in the doc, both --help texts and the programs' behaviour.
add_test(NAME vm.doc_exit_status
         COMMAND ${Python3_EXECUTABLE} ${VM_SRC}/doc_examples.py ${PROJECT_SOURCE_DIR}/docs/exit-status.md $<TARGET_FILE_DIR:scvm>
         WORKING_DIRECTORY ${VM_FIX})
set_tests_properties(vm.doc_exit_status PROPERTIES FIXTURES_REQUIRED vm_fix LABELS "golden;docs" TIMEOUT 60)
add_test(NAME cli.exit_status
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/exit_status.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PROJECT_SOURCE_DIR}/docs)
set_tests_properties(cli.exit_status PROPERTIES LABELS "unit;docs" TIMEOUT 120)

# What is made from the option tables (common/cliopt.h) is what the programs
# accept: docs/scc.md's and docs/scvm.md's option lists (equal to
# --generate=markdown), every listed option taken by the parser, the man
# pages rendering without a warning, and the bash, zsh and fish completions
# completing in each shell.  `tests/cli/options_cli.py ... --update` rewrites
# the docs' lists.
add_test(NAME cli.options
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/options_cli.py $<TARGET_FILE:scc>
                 $<TARGET_FILE:scvm> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/share)
set_tests_properties(cli.options PROPERTIES LABELS "unit;docs" TIMEOUT 120)

# The README's "Using it" block, run as written beside a copy of the sources
# (servers started, asked and stopped; nothing written into the sources).
add_test(NAME docs.readme
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/readme_run.py ${PROJECT_SOURCE_DIR}
                 $<TARGET_FILE_DIR:scvm> ${CMAKE_CURRENT_BINARY_DIR}/docs-readme
                 ${CMAKE_CURRENT_BINARY_DIR}/agents-npm/node_modules)
set_tests_properties(docs.readme PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "docs;pty;server;agents" TIMEOUT 600
                     RUN_SERIAL TRUE)

# docs/tutorial.md, every block run in one bash session as a reader runs it,
# its outputs compared; Claude Code from agents.npm_ci (tests/agents.cmake),
# the workflow's run steps in a clone of the tutorial's project.
add_test(NAME docs.tutorial
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/tutorial_run.py ${PROJECT_SOURCE_DIR}
                 $<TARGET_FILE_DIR:scvm> ${CMAKE_CURRENT_BINARY_DIR}/agents-npm/node_modules
                 ${CMAKE_CURRENT_BINARY_DIR}/docs-tutorial)
set_tests_properties(docs.tutorial PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "docs;pty;agents" TIMEOUT 600)

# JUnit as the dashboards read it, through a real JUnit reader (junitparser).
add_test(NAME cli.junit
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/junit_readers.py $<TARGET_FILE:scc>
                 $<TARGET_FILE:scvm> ${PROJECT_SOURCE_DIR}/stdlib-scenarios ${CMAKE_CURRENT_BINARY_DIR}/cli-junit)
set_tests_properties(cli.junit PROPERTIES LABELS "unit" TIMEOUT 120)

# One colour rule for scc and scvm agent (common/color.h), on a real terminal.
add_test(NAME cli.color
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/color.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli-color)
set_tests_properties(cli.color PROPERTIES LABELS "unit" TIMEOUT 120)

# docs/events.md's event table is generated from ops.def (via bc_op_info,
# what the writer itself reads); the check fails until it is regenerated.
add_executable(gen_events ${VM_SRC}/gen_events.c)
target_link_libraries(gen_events PRIVATE sc_formats sc_common)
add_test(NAME vm.events_doc COMMAND gen_events check ${PROJECT_SOURCE_DIR}/docs/events.md)
set_tests_properties(vm.events_doc PROPERTIES LABELS "golden" TIMEOUT 30)
add_custom_target(update-events-doc
  COMMAND gen_events update ${PROJECT_SOURCE_DIR}/docs/events.md
  DEPENDS gen_events
  COMMENT "Regenerating the event table in docs/events.md")

# The Scenario-Format assert on its own (runtime/scn_assert.c): the path
# policy, links, RFC 6901 pointers, JSON equality, git, text.contains.
add_executable(scn_assert_unit ${VM_SRC}/scn_assert_unit.c)
target_compile_definitions(scn_assert_unit PRIVATE _XOPEN_SOURCE=700)
target_link_libraries(scn_assert_unit PRIVATE sc_scn_assert sc_formats PkgConfig::CJSON)
add_test(NAME vm.scn_assert_unit COMMAND scn_assert_unit ${CMAKE_CURRENT_BINARY_DIR}/scn-assert-work)
set_tests_properties(vm.scn_assert_unit PROPERTIES LABELS "unit" TIMEOUT 60)

# The folders are layers: no include crosses one the wrong way (README, "Layout").
add_test(NAME cli.layers COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/layers.py ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.layers PROPERTIES LABELS "unit" TIMEOUT 60)

# One version (the CMake project's), printed alike by scc and scvm with the
# format versions they write and read, each checked against real files;
# CHANGELOG.md's newest entry is that version.
add_test(NAME cli.version
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/version.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION} ${CMAKE_CURRENT_BINARY_DIR}/cli-version)
set_tests_properties(cli.version PROPERTIES LABELS "unit;docs" TIMEOUT 120)

# The JSON Schemas (scc --print-schema) against every file scc accepts and
# the schema-reason rejections of tests/errors, with python3-jsonschema; the
# shared corpus too when the folder is there (docs/editors.md).
add_test(NAME cli.schemas
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/schema_check.py $<TARGET_FILE:scc>
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/share/scc/schemas ${SCC_CORPUS})
set_tests_properties(cli.schemas PROPERTIES LABELS "unit" TIMEOUT 300)
# Every source file names its license in an SPDX line (tests/cli/spdx.py --fix adds it).
add_test(NAME cli.spdx COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/spdx.py ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.spdx PROPERTIES LABELS "unit" TIMEOUT 60)

# docs/dialects.md: what scc says about files in other dialects.
add_test(NAME vm.doc_dialects
         COMMAND ${Python3_EXECUTABLE} ${VM_SRC}/doc_examples.py ${PROJECT_SOURCE_DIR}/docs/dialects.md $<TARGET_FILE_DIR:scvm>
         WORKING_DIRECTORY ${VM_FIX})
set_tests_properties(vm.doc_dialects PROPERTIES FIXTURES_REQUIRED vm_fix LABELS "golden;docs" TIMEOUT 60)

# The README's documentation table lists every page of docs/.
add_test(NAME cli.readme_docs COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/readme_docs.py ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.readme_docs PROPERTIES LABELS "docs" TIMEOUT 30)

# The two clocks: chosen by the file or --clock, recorded, shown (docs/timing.md).
add_test(NAME cli.clock COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/clock.py
                                $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.clock PROPERTIES LABELS "unit" TIMEOUT 60)

# --shard I/N --timings JUNIT (docs/ci.md): shards balanced by recorded
# durations, together the full run.
add_test(NAME cli.shard_timings
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/shard_timings.py $<TARGET_FILE:scc>
                 $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/shard-timings)
set_tests_properties(cli.shard_timings PROPERTIES LABELS "unit" TIMEOUT 120)

# The progress line on a real terminal (tools/scvm/progress.c).
add_test(NAME cli.progress COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/progress.py
         $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli-progress)
set_tests_properties(cli.progress PROPERTIES LABELS "pty" TIMEOUT 300)

# scvm's runners take sources and folders: compiled in memory, cached
# (tests/cli/sources.py; docs/scvm.md, "Sources, not only compiled files").
add_test(NAME cli.sources
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/sources.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PROJECT_SOURCE_DIR}/stdlib-scenarios ${CMAKE_CURRENT_BINARY_DIR}/cli-sources)
set_tests_properties(cli.sources PROPERTIES LABELS "unit" TIMEOUT 300)
