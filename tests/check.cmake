# SPDX-License-Identifier: MIT
# scc --check as a linter: output formats (text with carets, JSON, SARIF
# validated by the official multitool) and use from git hooks.
add_test(NAME check_output_formats
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check/check_formats.py
                 $<TARGET_FILE:scc> ${CMAKE_CURRENT_SOURCE_DIR}/errors
                 ${CMAKE_CURRENT_SOURCE_DIR}/check/golden ${CMAKE_BINARY_DIR}/check-work)
set_tests_properties(check_output_formats PROPERTIES LABELS "errors;golden" TIMEOUT 900)

add_test(NAME check_git_hooks
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check/check_hooks.py
                 $<TARGET_FILE:scc> ${PROJECT_SOURCE_DIR})
set_tests_properties(check_git_hooks PROPERTIES LABELS "errors" TIMEOUT 600)

# Where scc writes: atomically over regular files, in place into FIFOs and
# devices (never replacing them), never a partial or stale-looking output.
add_test(NAME scc_output_files
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_output.py
                 $<TARGET_FILE:scc> ${PROJECT_SOURCE_DIR}/stdlib-scenarios/acp_file_reads.yaml)
set_tests_properties(scc_output_files PROPERTIES LABELS "errors" TIMEOUT 120)

# scc --check DIR chooses files as scc --pack DIR does: the project's own
# stdlib-scenarios/ passes; a .json no scenario references is still checked.
add_test(NAME check.dir
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_dir.py $<TARGET_FILE:scc>
                 ${PROJECT_SOURCE_DIR}/stdlib-scenarios ${CMAKE_CURRENT_BINARY_DIR}/check-dir)
set_tests_properties(check.dir PROPERTIES LABELS "errors" TIMEOUT 60)
