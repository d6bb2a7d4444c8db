# SPDX-License-Identifier: MIT
# runtime/http (docs/http.md): plans, SSE frames and the connection loop
# over loopback sockets.
add_executable(http_unit ${CMAKE_CURRENT_SOURCE_DIR}/http/http_unit.c)
target_link_libraries(http_unit PRIVATE sc_http Threads::Threads)
add_test(NAME http.unit COMMAND http_unit)
set_tests_properties(http.unit PROPERTIES LABELS "unit;server" TIMEOUT 60)

# What clients can make the servers hold, and how strictly they read
# requests (docs/security.md, "Servers under load"): connection slots
# under a low RLIMIT_NOFILE, 20,000 session keys against `serve llm --loop`
# and 20,000 `serve rest` tasks within a peak-memory bound, 10 MB tasks
# with count 16, and strict bodies, Last-Event-ID and reason phrases for
# llm, rest and harness.  Raw sockets on 127.0.0.1; every wait bounded.
if(SCC_SANITIZE)
  set(HTTP_CONTAIN_ASAN --asan)
else()
  set(HTTP_CONTAIN_ASAN "")
endif()
foreach(part slots llm_sessions rest_sessions rest_amplify rest_unread strict)
  add_test(NAME http.containment.${part}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/http/containment.py $<TARGET_FILE:scc>
                   $<TARGET_FILE:scvm> ${CMAKE_CURRENT_BINARY_DIR}/http-containment ${part} ${HTTP_CONTAIN_ASAN})
  set_tests_properties(http.containment.${part} PROPERTIES LABELS "server" TIMEOUT 240)
endforeach()
