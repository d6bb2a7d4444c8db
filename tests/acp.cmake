# SPDX-License-Identifier: MIT
# scvm serve acp (docs/serve-acp.md): the mock ACP agent driven by real
# clients.  The official ACP SDK is pinned twice in tests/acp/package.json
# (2.4.0's app API, 1.9.0's ClientSideConnection) and installed by `npm ci`
# into the build tree; the SDK tests skip (77) only without node/npm or a
# reachable registry.
set(ACP_SRC ${CMAKE_CURRENT_SOURCE_DIR}/acp)
set(ACP_NPM ${CMAKE_CURRENT_BINARY_DIR}/acp-npm)
set(ACP_WORK ${CMAKE_CURRENT_BINARY_DIR}/acp-work)

sc_npm_fixture(acp ${ACP_SRC} ${ACP_NPM} server)

foreach(mode raw sdk2 sdk1 stdlib corpus passthrough)
  add_test(NAME acp.${mode}
           COMMAND ${Python3_EXECUTABLE} ${ACP_SRC}/acp_test.py ${mode} --scc $<TARGET_FILE:scc>
                   --scvm $<TARGET_FILE:scvm> --work ${ACP_WORK}/${mode} --modules ${ACP_NPM}/node_modules
                   --corpus ${SCC_CORPUS})
  set_tests_properties(acp.${mode} PROPERTIES LABELS "server" TIMEOUT 300 SKIP_RETURN_CODE 77)
  if(NOT mode STREQUAL "raw")
    set_tests_properties(acp.${mode} PROPERTIES FIXTURES_REQUIRED acp_npm)
  endif()
endforeach()
set_tests_properties(acp.corpus PROPERTIES LABELS "server;corpus")

# docs/serve-acp.md's console example, run as written.
add_test(NAME acp.doc_examples
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/vm/doc_examples.py ${PROJECT_SOURCE_DIR}/docs/serve-acp.md
                 $<TARGET_FILE_DIR:scvm>
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(acp.doc_examples PROPERTIES LABELS "server;docs" TIMEOUT 60)
