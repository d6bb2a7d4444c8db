# Fuzzing.  Seeds and findings are replayed by a plain main() (fuzz_replay.c)
# in every build; -DSCC_FUZZ=ON (with clang) also builds the libFuzzer
# binaries.
#
# The compiler front to back (scc_compile: both front ends, embedding):
# tests/fuzz/compile-corpus, plus the stdlib and error scenarios as seeds.
add_executable(fuzz_compile_replay fuzz/fuzz_replay.c fuzz/fuzz_compile.c)
target_link_libraries(fuzz_compile_replay PRIVATE sc_compiler)
add_test(NAME fuzz_compile_regressions
         COMMAND fuzz_compile_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/compile-corpus
                 ${PROJECT_SOURCE_DIR}/stdlib-scenarios ${CMAKE_CURRENT_SOURCE_DIR}/errors)
set_tests_properties(fuzz_compile_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)

# The loaders (.scb, bare payloads, .scp) and playback of what they accept:
# tests/fuzz/load-corpus, plus seeds compiled here by this build's scc, so
# no compiled binary is committed and the seeds follow the format.  Some
# scenarios as .scb (one with its line table stripped), a small pack with
# embedded files (a patch, an image, a repo folder), and an ElizaOS and a
# Yao scenario (CASE, USER_INPUT, EVAL: bytecode 1.2).
add_executable(fuzz_load_replay fuzz/fuzz_replay.c fuzz/fuzz_load.c)
target_link_libraries(fuzz_load_replay PRIVATE sc_vm PkgConfig::XXHASH PkgConfig::CJSON)
set(_fz_seeds ${CMAKE_CURRENT_BINARY_DIR}/fuzz-load-seeds)
add_test(NAME fuzz_load_seeds
         COMMAND sh -c "set -e; rm -rf \"$2\"; mkdir -p \"$2\"; cd \"$3\"; \
for s in rate_limited_retry rich_content_blocks acp_load_session pty_bash_session; do \
\"$1\" -o \"$2/$s.scb\" $s.yaml; done; \
\"$1\" -s -o \"$2/bugfix_with_tests.stripped.scb\" bugfix_with_tests.yaml; \
\"$1\" --pack -o \"$2/small.scp\" multimodal_prompt.yaml user_edits_concurrent.yaml bugfix_with_tests.yaml; \
\"$1\" -o \"$2/eliza_triage.scb\" \"$4/eliza_triage.yaml\"; \"$1\" -o \"$2/yao_expense.scb\" \"$4/yao_expense.jsonl\""
                 sh $<TARGET_FILE:scc> ${_fz_seeds} ${PROJECT_SOURCE_DIR}/stdlib-scenarios
                 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/compile-corpus)
set_tests_properties(fuzz_load_seeds PROPERTIES FIXTURES_SETUP fuzz_load_seeds
                     LABELS "fuzz-regress" TIMEOUT 60)
add_test(NAME fuzz_load_regressions
         COMMAND fuzz_load_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/load-corpus ${_fz_seeds})
set_tests_properties(fuzz_load_regressions PROPERTIES FIXTURES_REQUIRED fuzz_load_seeds
                     LABELS "fuzz-regress" TIMEOUT 300)

# The tui-use reader on its own (fuzz_compile.c with the dialect forced):
# tests/fuzz/tuiuse-corpus, plus the tui-use seeds of compile-corpus.
add_executable(fuzz_tuiuse_replay fuzz/fuzz_replay.c fuzz/fuzz_compile.c)
target_compile_definitions(fuzz_tuiuse_replay PRIVATE FUZZ_DIALECT="tui-use")
target_link_libraries(fuzz_tuiuse_replay PRIVATE sc_compiler)
add_test(NAME fuzz_tuiuse_regressions
         COMMAND fuzz_tuiuse_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/tuiuse-corpus)
set_tests_properties(fuzz_tuiuse_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)

# The Yao (.jsonl) and ElizaOS (.scenario.yaml, matrices) readers on their
# own, the same way (--dialect=yao, --dialect=eliza): tests/fuzz/yao-corpus
# and tests/fuzz/eliza-corpus.
foreach(_fz_d yao eliza)
  add_executable(fuzz_${_fz_d}_replay fuzz/fuzz_replay.c fuzz/fuzz_compile.c)
  target_compile_definitions(fuzz_${_fz_d}_replay PRIVATE FUZZ_DIALECT="${_fz_d}")
  target_link_libraries(fuzz_${_fz_d}_replay PRIVATE sc_compiler)
  add_test(NAME fuzz_${_fz_d}_regressions
           COMMAND fuzz_${_fz_d}_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${_fz_d}-corpus)
  set_tests_properties(fuzz_${_fz_d}_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)
endforeach()

# The HTTP request reader of every server (head parser, chunked bodies),
# whole against piece by piece: tests/fuzz/http-corpus.
add_executable(fuzz_http_replay fuzz/fuzz_replay.c fuzz/fuzz_http.c)
target_link_libraries(fuzz_http_replay PRIVATE sc_http)
add_test(NAME fuzz_http_regressions
         COMMAND fuzz_http_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/http-corpus)
set_tests_properties(fuzz_http_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)

# What the mock LLM server reads from an agent (tool results, user text,
# declared tools) and from a profile (templates, the vocabulary both ways):
# tests/fuzz/agent-corpus, plus the shipped profiles as seeds.
add_executable(fuzz_agent_replay fuzz/fuzz_replay.c fuzz/fuzz_agent.c)
target_link_libraries(fuzz_agent_replay PRIVATE sc_rt_llm sc_agent PkgConfig::CJSON)
add_test(NAME fuzz_agent_regressions
         COMMAND fuzz_agent_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/agent-corpus ${PROJECT_SOURCE_DIR}/runtime/agent/profiles)
set_tests_properties(fuzz_agent_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)

# What the mock ACP agent reads from its client (runtime/acp): the client's
# side of the stream against tests/acp/scenarios/acp_full.yaml compiled by
# this build's scc: tests/fuzz/acp-corpus.
add_executable(fuzz_acp_replay fuzz/fuzz_replay.c fuzz/fuzz_acp.c)
target_link_libraries(fuzz_acp_replay PRIVATE sc_rt_acp)
set(_fz_acp ${CMAKE_CURRENT_BINARY_DIR}/fuzz-acp)
add_test(NAME fuzz_acp_seed
         COMMAND sh -c "set -e; mkdir -p \"$2\"; sed 's|@WS@|/nonexistent|' \"$3\" > \"$2/acp_full.yaml\"; \"$1\" -o \"$2/acp_full.scb\" \"$2/acp_full.yaml\""
                 sh $<TARGET_FILE:scc> ${_fz_acp} ${CMAKE_CURRENT_SOURCE_DIR}/acp/scenarios/acp_full.yaml)
set_tests_properties(fuzz_acp_seed PROPERTIES FIXTURES_SETUP fuzz_acp_scb LABELS "fuzz-regress" TIMEOUT 60)
add_test(NAME fuzz_acp_regressions COMMAND fuzz_acp_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/acp-corpus)
set_tests_properties(fuzz_acp_regressions PROPERTIES FIXTURES_REQUIRED fuzz_acp_scb LABELS "fuzz-regress" TIMEOUT 300
                     ENVIRONMENT "FUZZ_ACP_SCB=${_fz_acp}/acp_full.scb")

# Tapes of recorded replies (runtime/tape): what is accepted must round-trip
# byte for byte: tests/fuzz/tape-corpus.
add_executable(fuzz_tape_replay fuzz/fuzz_replay.c fuzz/fuzz_tape.c)
target_link_libraries(fuzz_tape_replay PRIVATE sc_tape)
add_test(NAME fuzz_tape_regressions COMMAND fuzz_tape_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/tape-corpus)
set_tests_properties(fuzz_tape_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)

# What the HTTP client reads from a server (runtime/http/http_client.c):
# tests/fuzz/httpc-corpus.
add_executable(fuzz_http_client_replay fuzz/fuzz_replay.c fuzz/fuzz_http_client.c)
target_link_libraries(fuzz_http_client_replay PRIVATE sc_http)
add_test(NAME fuzz_http_client_regressions
         COMMAND fuzz_http_client_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/httpc-corpus)
set_tests_properties(fuzz_http_client_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)

# What the agent-under-test client reads from an ACP agent (runtime/aut):
# tests/fuzz/aut-acp-corpus.
add_executable(fuzz_aut_acp_replay fuzz/fuzz_replay.c fuzz/fuzz_aut_acp.c)
target_link_libraries(fuzz_aut_acp_replay PRIVATE sc_aut)
add_test(NAME fuzz_aut_acp_regressions COMMAND fuzz_aut_acp_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/aut-acp-corpus)
set_tests_properties(fuzz_aut_acp_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)

# A server's whole handling of a connection's bytes, request to answer
# (tests/fuzz/fuzz_serve.c, one build per server): the mock LLM server, the
# REST mock and the harness event server, each with a pack of test
# scenarios compiled by this build's scc: tests/fuzz/llm-corpus,
# rest-corpus, harness-corpus.
set(_fz_serve ${CMAKE_CURRENT_BINARY_DIR}/fuzz-serve)
add_test(NAME fuzz_serve_packs
         COMMAND sh -c "set -e; mkdir -p \"$2\"; \"$1\" --pack -o \"$2/llm.scp\" \"$3\"/llm/scenarios/*.yaml; \
\"$1\" --pack -o \"$2/rest.scp\" \"$3/rest/scenarios/rest_paced.yaml\" \"$4/bugfix_with_tests.yaml\" \
\"$4/tool_failure_recovery.yaml\" \"$4/pty_bash_session.yaml\"; \
\"$1\" --pack -o \"$2/harness.scp\" \"$3\"/harness/scenarios/*.yaml"
                 sh $<TARGET_FILE:scc> ${_fz_serve} ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/stdlib-scenarios)
set_tests_properties(fuzz_serve_packs PROPERTIES FIXTURES_SETUP fuzz_serve_packs LABELS "fuzz-regress" TIMEOUT 60)
foreach(_fz_s llm rest harness)
  string(TOUPPER ${_fz_s} _fz_S)
  add_executable(fuzz_${_fz_s}_replay fuzz/fuzz_replay.c fuzz/fuzz_serve.c)
  target_compile_definitions(fuzz_${_fz_s}_replay PRIVATE FUZZ_SERVE_${_fz_S})
  target_link_libraries(fuzz_${_fz_s}_replay PRIVATE sc_rt_${_fz_s} Threads::Threads)
  add_test(NAME fuzz_${_fz_s}_regressions COMMAND fuzz_${_fz_s}_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${_fz_s}-corpus)
  set_tests_properties(fuzz_${_fz_s}_regressions PROPERTIES FIXTURES_REQUIRED fuzz_serve_packs LABELS "fuzz-regress"
                       TIMEOUT 300 ENVIRONMENT "FUZZ_SERVE_PACK=${_fz_serve}/${_fz_s}.scp")
endforeach()

option(SCC_FUZZ "Build libFuzzer targets (needs clang)" OFF)
if(SCC_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SCC_FUZZ needs clang: -DCMAKE_C_COMPILER=clang")
  endif()
  set(_fz_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  # The fuzzer is guided by coverage of the code under test, so the libraries
  # the targets link are instrumented too (fuzzer-no-link: no second main),
  # and sanitized, so that a bug in them is a crash the fuzzer sees; with
  # the interpreter's debug-build asserts on (-UNDEBUG) whatever the build
  # type.  Their other users (scc, scvm, the tests) then link the sanitizer
  # runtimes.
  foreach(lib sc_common sc_term sc_formats sc_runtime sc_vm sc_compiler sc_http sc_agent sc_rt_llm sc_scn_assert
              sc_rt_acp sc_tape sc_aut sc_rt_pty sc_rt_rest sc_rt_harness)
    target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link ${_fz_san} -UNDEBUG)
    target_link_options(${lib} INTERFACE -fsanitize=address,undefined)
  endforeach()

  add_executable(fuzz_compile fuzz/fuzz_compile.c)
  target_compile_options(fuzz_compile PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_compile PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_compile PRIVATE sc_compiler)

  foreach(_fz_d tuiuse yao eliza)
    add_executable(fuzz_${_fz_d} fuzz/fuzz_compile.c)
    if(_fz_d STREQUAL "tuiuse")
      target_compile_definitions(fuzz_${_fz_d} PRIVATE FUZZ_DIALECT="tui-use")
    else()
      target_compile_definitions(fuzz_${_fz_d} PRIVATE FUZZ_DIALECT="${_fz_d}")
    endif()
    target_compile_options(fuzz_${_fz_d} PRIVATE -fsanitize=fuzzer ${_fz_san})
    target_link_options(fuzz_${_fz_d} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_${_fz_d} PRIVATE sc_compiler)
  endforeach()

  add_executable(fuzz_http fuzz/fuzz_http.c)
  target_compile_options(fuzz_http PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_http PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_http PRIVATE sc_http)

  add_executable(fuzz_acp fuzz/fuzz_acp.c)
  target_compile_options(fuzz_acp PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_acp PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_acp PRIVATE sc_rt_acp)

  add_executable(fuzz_agent fuzz/fuzz_agent.c)
  target_compile_options(fuzz_agent PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_agent PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_agent PRIVATE sc_rt_llm sc_agent PkgConfig::CJSON)

  add_executable(fuzz_http_client fuzz/fuzz_http_client.c)
  target_compile_options(fuzz_http_client PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_http_client PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_http_client PRIVATE sc_http)

  add_executable(fuzz_aut_acp fuzz/fuzz_aut_acp.c)
  target_compile_options(fuzz_aut_acp PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_aut_acp PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_aut_acp PRIVATE sc_aut)

  add_executable(fuzz_tape fuzz/fuzz_tape.c)
  target_compile_options(fuzz_tape PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_tape PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_tape PRIVATE sc_tape)

  foreach(_fz_s llm rest harness)
    string(TOUPPER ${_fz_s} _fz_S)
    add_executable(fuzz_${_fz_s} fuzz/fuzz_serve.c)
    target_compile_definitions(fuzz_${_fz_s} PRIVATE FUZZ_SERVE_${_fz_S})
    target_compile_options(fuzz_${_fz_s} PRIVATE -fsanitize=fuzzer ${_fz_san})
    target_link_options(fuzz_${_fz_s} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_${_fz_s} PRIVATE sc_rt_${_fz_s} Threads::Threads)
  endforeach()

  # fuzz_load CORPUS_DIR SEED_DIR...: tests/fuzz/load-corpus/README.md
  add_executable(fuzz_load fuzz/fuzz_load.c)
  target_compile_options(fuzz_load PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_load PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_load PRIVATE sc_vm PkgConfig::XXHASH PkgConfig::CJSON)
endif()
