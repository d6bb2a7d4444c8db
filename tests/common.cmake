# SPDX-License-Identifier: MIT
# common/: base64, UTF-8, edit distance, string copies.
add_executable(common_unit ${CMAKE_CURRENT_SOURCE_DIR}/common/t_common.c)
target_link_libraries(common_unit PRIVATE sc_common)
add_test(NAME common.unit COMMAND common_unit)
set_tests_properties(common.unit PROPERTIES LABELS "unit" TIMEOUT 30)
