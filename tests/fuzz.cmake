# SPDX-License-Identifier: MIT
# Fuzzing.  Seeds and findings are replayed by a plain main() (fuzz_replay.c)
# in every build; -DSCC_FUZZ=ON (with clang) also builds the libFuzzer
# binaries.  Every target is one call of sc_fuzz_target below.

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
endif()

# sc_fuzz_target(NAME SOURCE file LIBS lib... [DEFINES def...] [ARGS arg...]
#                [PROPERTIES prop value...])
# One fuzz target: NAME_replay (fuzz_replay.c's main over SOURCE) run by the
# test NAME_regressions with ARGS (the corpus folders), labelled
# fuzz-regress with a TIMEOUT of 300 and PROPERTIES; with SCC_FUZZ also the
# libFuzzer binary NAME, sanitized.  DEFINES go to both builds.
function(sc_fuzz_target name)
  cmake_parse_arguments(F "" "SOURCE" "LIBS;DEFINES;ARGS;PROPERTIES" ${ARGN})
  add_executable(${name}_replay fuzz/fuzz_replay.c ${F_SOURCE})
  if(F_DEFINES)
    target_compile_definitions(${name}_replay PRIVATE ${F_DEFINES})
  endif()
  target_link_libraries(${name}_replay PRIVATE ${F_LIBS})
  add_test(NAME ${name}_regressions COMMAND ${name}_replay ${F_ARGS})
  set_tests_properties(${name}_regressions PROPERTIES ${F_PROPERTIES} LABELS "fuzz-regress" TIMEOUT 300)
  if(SCC_FUZZ)
    add_executable(${name} ${F_SOURCE})
    if(F_DEFINES)
      target_compile_definitions(${name} PRIVATE ${F_DEFINES})
    endif()
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer ${_fz_san})
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${name} PRIVATE ${F_LIBS})
  endif()
endfunction()

# The compiler front to back (scc_compile: both front ends, embedding):
# tests/fuzz/compile-corpus, plus the stdlib and error scenarios as seeds.
sc_fuzz_target(fuzz_compile SOURCE fuzz/fuzz_compile.c LIBS sc_compiler
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/compile-corpus ${PROJECT_SOURCE_DIR}/stdlib-scenarios
       ${CMAKE_CURRENT_SOURCE_DIR}/errors)

# The loaders (.scb, bare payloads, .scp) and playback of what they accept:
# tests/fuzz/load-corpus, plus seeds compiled here by this build's scc, so
# no compiled binary is committed and the seeds follow the format.  Some
# scenarios as .scb (one with its line table stripped), a small pack with
# embedded files (a patch, an image, a repo folder), and an ElizaOS and a
# Yao scenario (CASE, USER_INPUT, EVAL: bytecode 1.2).
# fuzz_load CORPUS_DIR SEED_DIR...: tests/fuzz/load-corpus/README.md
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
sc_fuzz_target(fuzz_load SOURCE fuzz/fuzz_load.c LIBS sc_vm PkgConfig::XXHASH PkgConfig::CJSON
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/load-corpus ${_fz_seeds}
  PROPERTIES FIXTURES_REQUIRED fuzz_load_seeds)

# The tui-use reader on its own (fuzz_compile.c with the dialect forced):
# tests/fuzz/tuiuse-corpus, plus the tui-use seeds of compile-corpus.
# The Yao (.jsonl) and ElizaOS (.scenario.yaml, matrices) readers on their
# own, the same way (--dialect=yao, --dialect=eliza): tests/fuzz/yao-corpus
# and tests/fuzz/eliza-corpus.
sc_fuzz_target(fuzz_tuiuse SOURCE fuzz/fuzz_compile.c LIBS sc_compiler DEFINES FUZZ_DIALECT="tui-use"
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/tuiuse-corpus)
foreach(_fz_d yao eliza)
  sc_fuzz_target(fuzz_${_fz_d} SOURCE fuzz/fuzz_compile.c LIBS sc_compiler DEFINES FUZZ_DIALECT="${_fz_d}"
    ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${_fz_d}-corpus)
endforeach()

# The fast YAML reader against libyaml (compiler/yaml_fast.c): what it
# accepts, libyaml accepts with the same tree: tests/fuzz/yaml_fast-corpus.
sc_fuzz_target(fuzz_yaml_fast SOURCE fuzz/fuzz_yaml_fast.c LIBS sc_compiler
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/yaml_fast-corpus)

# The HTTP request reader of every server (head parser, chunked bodies),
# whole against piece by piece: tests/fuzz/http-corpus.
sc_fuzz_target(fuzz_http SOURCE fuzz/fuzz_http.c LIBS sc_http
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/http-corpus)

# What the mock LLM server reads from an agent (tool results, user text,
# declared tools) and from a profile (templates, the vocabulary both ways):
# tests/fuzz/agent-corpus, plus the shipped profiles as seeds.
sc_fuzz_target(fuzz_agent SOURCE fuzz/fuzz_agent.c LIBS sc_rt_llm sc_agent PkgConfig::CJSON
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/agent-corpus ${PROJECT_SOURCE_DIR}/runtime/agent/profiles)

# What the mock ACP agent reads from its client (runtime/acp): the client's
# side of the stream against tests/acp/scenarios/acp_full.yaml compiled by
# this build's scc: tests/fuzz/acp-corpus.
set(_fz_acp ${CMAKE_CURRENT_BINARY_DIR}/fuzz-acp)
add_test(NAME fuzz_acp_seed
         COMMAND sh -c "set -e; mkdir -p \"$2\"; sed 's|@WS@|/nonexistent|' \"$3\" > \"$2/acp_full.yaml\"; \"$1\" -o \"$2/acp_full.scb\" \"$2/acp_full.yaml\""
                 sh $<TARGET_FILE:scc> ${_fz_acp} ${CMAKE_CURRENT_SOURCE_DIR}/acp/scenarios/acp_full.yaml)
set_tests_properties(fuzz_acp_seed PROPERTIES FIXTURES_SETUP fuzz_acp_scb LABELS "fuzz-regress" TIMEOUT 60)
sc_fuzz_target(fuzz_acp SOURCE fuzz/fuzz_acp.c LIBS sc_rt_acp
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/acp-corpus
  PROPERTIES FIXTURES_REQUIRED fuzz_acp_scb ENVIRONMENT "FUZZ_ACP_SCB=${_fz_acp}/acp_full.scb")

# Tapes of recorded replies (runtime/tape): what is accepted must round-trip
# byte for byte: tests/fuzz/tape-corpus.
sc_fuzz_target(fuzz_tape SOURCE fuzz/fuzz_tape.c LIBS sc_tape
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/tape-corpus)

# What the HTTP client reads from a server (runtime/http/http_client.c):
# tests/fuzz/httpc-corpus.
sc_fuzz_target(fuzz_http_client SOURCE fuzz/fuzz_http_client.c LIBS sc_http
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/httpc-corpus)

# What the agent-under-test client reads from an ACP agent (runtime/aut):
# tests/fuzz/aut-acp-corpus.
sc_fuzz_target(fuzz_aut_acp SOURCE fuzz/fuzz_aut_acp.c LIBS sc_aut
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/aut-acp-corpus)

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
  sc_fuzz_target(fuzz_${_fz_s} SOURCE fuzz/fuzz_serve.c LIBS sc_rt_${_fz_s} Threads::Threads
    DEFINES FUZZ_SERVE_${_fz_S}
    ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${_fz_s}-corpus
    PROPERTIES FIXTURES_REQUIRED fuzz_serve_packs ENVIRONMENT "FUZZ_SERVE_PACK=${_fz_serve}/${_fz_s}.scp")
endforeach()

# scc --lsp (compiler/lsp.h) from a client's raw bytes, in pieces:
# tests/fuzz/lsp-corpus (a whole editing session, a tui-use document,
# broken frames).
sc_fuzz_target(fuzz_lsp SOURCE fuzz/fuzz_lsp.c LIBS sc_compiler PkgConfig::CJSON
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/lsp-corpus)
