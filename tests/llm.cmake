# SPDX-License-Identifier: MIT
# scvm serve llm (docs/serve-llm.md): unit tests of the pure parts, raw
# HTTP tests, and the official OpenAI and Anthropic SDKs (pinned in
# tests/llm/package-lock.json, installed by `npm ci` into the build tree)
# streaming from the server.  Every test binds an ephemeral loopback port,
# starts and stops its own server, and has a TIMEOUT.
set(LLM_SRC ${CMAKE_CURRENT_SOURCE_DIR}/llm)
set(LLM_FIX ${CMAKE_CURRENT_BINARY_DIR}/llm-fixtures)
set(LLM_NPM ${CMAKE_CURRENT_BINARY_DIR}/llm-npm)
file(MAKE_DIRECTORY ${LLM_FIX})

add_executable(llm_unit ${LLM_SRC}/llm_unit.c)
target_link_libraries(llm_unit PRIVATE sc_rt_llm PkgConfig::CJSON)
add_test(NAME llm.unit COMMAND llm_unit)
set_tests_properties(llm.unit PROPERTIES LABELS "unit" TIMEOUT 60)

# The server with each allocation failing in turn (tests/llm/llm_alloc.c).
add_executable(llm_alloc ${LLM_SRC}/llm_alloc.c)
target_link_libraries(llm_alloc PRIVATE sc_rt_llm Threads::Threads)

# The test scenarios, compiled by scc.
file(GLOB LLM_SCENARIOS ${LLM_SRC}/scenarios/*.yaml)
foreach(y ${LLM_SCENARIOS})
  get_filename_component(n ${y} NAME_WE)
  add_test(NAME llm.scc.${n} COMMAND scc -o ${LLM_FIX}/${n}.scb ${y})
  set_tests_properties(llm.scc.${n} PROPERTIES FIXTURES_SETUP llm_scb LABELS "server" TIMEOUT 30)
endforeach()

# A pack of two scenarios: routing by name and prompt inside one file.
add_test(NAME llm.scc.pack COMMAND scc --pack -o ${LLM_FIX}/routes.scp
         ${LLM_SRC}/scenarios/route_alpha.yaml ${LLM_SRC}/scenarios/route_beta.yaml)
# Not a fixture: a pack problem must not stop the other server tests
# (raw_http's pack test reports a missing pack as a skip of that part).
set_tests_properties(llm.scc.pack PROPERTIES FIXTURES_REQUIRED llm_scb LABELS "server" TIMEOUT 30)

add_test(NAME llm.raw_http COMMAND ${Python3_EXECUTABLE} ${LLM_SRC}/raw_http.py $<TARGET_FILE:scvm> ${LLM_FIX})
set_tests_properties(llm.raw_http PROPERTIES FIXTURES_REQUIRED llm_scb DEPENDS llm.scc.pack LABELS "server" TIMEOUT 120)

# The pinned SDKs; skipped (77) without node/npm or a reachable registry.
sc_npm_fixture(llm ${LLM_SRC} ${LLM_NPM} server)

# The verdict: the OpenAI script asks every session to its end (ok, 0); the
# Anthropic one asks the path-routed session once, so the summary names it
# and ends INCOMPLETE (1; docs/serve-llm.md, "Summary").
set(_sdk_verdict_openai --log-has "summary: ok")
set(_sdk_verdict_anthropic --status 1
    --log-has "summary: INCOMPLETE: scenario 'sdk_agent', session 'sk-ant-path': 1 of 2 responses served"
    --log-has "assertions: 0 passed, 0 failed" --log-has "summary: INCOMPLETE\\n*$")
foreach(sdk openai anthropic)
  add_test(NAME llm.sdk.${sdk}
           COMMAND ${Python3_EXECUTABLE} ${LLM_SRC}/run_sdk.py --scvm $<TARGET_FILE:scvm>
                   --node-modules ${LLM_NPM}/node_modules
                   --log-has "-> 429: scenario 'sdk_agent'"
                   --log-has "-> 503: scenario 'sdk_errors'.*\\n.*-> 503: scenario 'sdk_errors'.*\\n.*-> 200: scenario 'sdk_errors'"
                   ${_sdk_verdict_${sdk}}
                   ${LLM_SRC}/sdk_${sdk}.cjs
                   -- --speed 0.02 ${LLM_FIX}/sdk_agent.scb ${LLM_FIX}/sdk_errors.scb)
  set_tests_properties(llm.sdk.${sdk} PROPERTIES FIXTURES_REQUIRED "llm_scb;llm_npm" LABELS "server"
                       TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()

# Gemini (generateContent, streamed and whole) with the Google Gen AI SDK
# at the version Gemini CLI uses; it does not retry, so the 429 and the
# 503s are each answered once and the script asks again.
add_test(NAME llm.sdk.gemini
         COMMAND ${Python3_EXECUTABLE} ${LLM_SRC}/run_sdk.py --scvm $<TARGET_FILE:scvm>
                 --node-modules ${LLM_NPM}/node_modules
                 --log-has "streamGenerateContent\\?alt=sse -> 200: scenario 'sdk_agent'"
                 --log-has "-> 429: scenario 'sdk_agent'"
                 --log-has "-> 503: scenario 'sdk_errors'.*\n.*-> 503: scenario 'sdk_errors'.*\n.*-> 200: scenario 'sdk_errors'"
                 --status 1 --log-has "summary: INCOMPLETE: scenario 'sdk_agent', session 'g-whole': 1 of 2 responses served"
                 --log-has "assertions: 0 passed, 0 failed" --log-has "summary: INCOMPLETE\n*$"
                 ${LLM_SRC}/sdk_gemini.cjs
                 -- --speed 0.02 ${LLM_FIX}/sdk_agent.scb ${LLM_FIX}/sdk_errors.scb)
set_tests_properties(llm.sdk.gemini PROPERTIES FIXTURES_REQUIRED "llm_scb;llm_npm" LABELS "server"
                     TIMEOUT 120 SKIP_RETURN_CODE 77)

# Scripted network faults (faults.scb) through the official SDKs: a cut
# stream raises in each SDK; a reset and a refused connection are retried
# by the OpenAI and Anthropic SDKs and reach the next response, the retry
# after a refusal on a new connection once the server listens again.
add_test(NAME llm.sdk.faults
         COMMAND ${Python3_EXECUTABLE} ${LLM_SRC}/run_sdk.py --scvm $<TARGET_FILE:scvm>
                 --node-modules ${LLM_NPM}/node_modules
                 --log-has "summary: scripted faults: 4 cut, 3 reset, 3 refuse; 0 unknown"
                 --log-has "listening again\n.*session 'sdk-messages' response 6/6"
                 --status 1 --log-has "summary: INCOMPLETE: scenario 'faults', session 'sdk-gemini': 2 of 6 responses served"
                 --log-has "assertions: 0 passed, 0 failed" --log-has "summary: INCOMPLETE\n*$"
                 ${LLM_SRC}/sdk_faults.cjs
                 -- --speed 1 ${LLM_FIX}/faults.scb)
set_tests_properties(llm.sdk.faults PROPERTIES FIXTURES_REQUIRED "llm_scb;llm_npm" LABELS "server"
                     TIMEOUT 120 SKIP_RETURN_CODE 77)

# The server's exact bytes for every test scenario, API and mode, against
# tests/llm/wire.sha256 (wire_golden.py --update rewrites it).
add_test(NAME llm.wire_golden COMMAND ${Python3_EXECUTABLE} ${LLM_SRC}/wire_golden.py $<TARGET_FILE:scvm> ${LLM_FIX}
                                      ${LLM_SRC}/wire.sha256)
set_tests_properties(llm.wire_golden PROPERTIES FIXTURES_REQUIRED llm_scb LABELS "server;golden" TIMEOUT 120)

add_test(NAME llm.alloc COMMAND llm_alloc ${LLM_FIX}/timing.scb)
set_tests_properties(llm.alloc PROPERTIES FIXTURES_REQUIRED llm_scb LABELS "server" TIMEOUT 300)

# Hostile clients: 1,000 slow or idle connections held while a normal
# client is served, none of its answers stalled; 100 MB bodies, header floods,
# requests and streams abandoned half-way; peak memory within the budget;
# every descriptor given back; a clean exit.  Alone: ctest -L abuse.
# RUN_SERIAL: it holds 1,200 descriptors and measures peak memory.  No
# answer may stall (3 s; the ASan+UBSan build scales it by 4); the latency
# while under attack is a speed, measured by bench/run.py (docs/http.md).
if(SCC_SANITIZE)
  set(LLM_ABUSE_SCALE 4)
else()
  set(LLM_ABUSE_SCALE 1)
endif()
add_test(NAME llm.abuse COMMAND ${Python3_EXECUTABLE} ${LLM_SRC}/abuse.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                                ${CMAKE_CURRENT_BINARY_DIR}/llm-abuse ${LLM_ABUSE_SCALE})
set_tests_properties(llm.abuse PROPERTIES LABELS "server;abuse" TIMEOUT 110 RUN_SERIAL TRUE)
