# runtime/http (docs/http.md): plans, SSE frames and the connection loop
# over loopback sockets.
add_executable(http_unit ${CMAKE_CURRENT_SOURCE_DIR}/http/http_unit.c)
target_link_libraries(http_unit PRIVATE sc_http Threads::Threads)
add_test(NAME http.unit COMMAND http_unit)
set_tests_properties(http.unit PROPERTIES LABELS "unit;server" TIMEOUT 60)
