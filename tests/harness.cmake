# SPDX-License-Identifier: MIT
# scvm serve harness (docs/serve-harness.md): the Go harness's event
# contract, with raw sockets and the pinned `eventsource` npm package
# (tests/harness/package.json, installed by `npm ci` into the build tree).
set(HARNESS_SRC ${CMAKE_CURRENT_SOURCE_DIR}/harness)
set(HARNESS_NPM ${CMAKE_CURRENT_BINARY_DIR}/harness-npm)
sc_npm_fixture(harness ${HARNESS_SRC} ${HARNESS_NPM} server)
add_test(NAME harness.contract
         COMMAND ${Python3_EXECUTABLE} ${HARNESS_SRC}/harness_test.py --scc $<TARGET_FILE:scc>
                 --scvm $<TARGET_FILE:scvm> --work ${CMAKE_CURRENT_BINARY_DIR}/harness-work
                 --modules ${HARNESS_NPM}/node_modules)
set_tests_properties(harness.contract PROPERTIES FIXTURES_REQUIRED harness_npm LABELS "server" TIMEOUT 120
                     SKIP_RETURN_CODE 77)
