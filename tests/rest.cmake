# SPDX-License-Identifier: MIT
# scvm serve rest (docs/serve-rest.md): the Agent Harbor REST mock with raw
# requests and SSE subscribers, and the pinned `eventsource` npm package
# (installed for the harness tests, tests/harness/package.json) reconnecting
# with Last-Event-ID through a proxy that cuts its first connection.
add_test(NAME rest.api
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/rest/rest_test.py --scc $<TARGET_FILE:scc>
                 --scvm $<TARGET_FILE:scvm> --work ${CMAKE_CURRENT_BINARY_DIR}/rest-work
                 --modules ${CMAKE_CURRENT_BINARY_DIR}/harness-npm/node_modules)
set_tests_properties(rest.api PROPERTIES FIXTURES_REQUIRED harness_npm LABELS "server" TIMEOUT 120
                     SKIP_RETURN_CODE 77)
