# SPDX-License-Identifier: MIT
# The run library (runtime/run/): the worker pool behind every target's -j
# and the one JUnit module (tests/run/t_run.c).
add_executable(t_run ${CMAKE_CURRENT_SOURCE_DIR}/run/t_run.c)
target_link_libraries(t_run PRIVATE sc_run)
add_test(NAME run.unit COMMAND t_run)
set_tests_properties(run.unit PROPERTIES LABELS "unit" TIMEOUT 60)
