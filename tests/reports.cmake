# SPDX-License-Identifier: MIT
# The pictures (issue 19): screens as SVG/HTML (formats/term/term_svg.c),
# the schedule as HTML (scc -l --html), and headless Chromium looking at
# them as a person would.  Refresh the expected SVG with
# `reports_term_svg tests/reports/screen.svg --update`, the reference PNGs
# with `chromium_test.py ... --update`.
set(_rp ${CMAKE_CURRENT_SOURCE_DIR}/reports)
add_executable(reports_term_svg ${_rp}/t_term_svg.c)
target_link_libraries(reports_term_svg PRIVATE sc_term)
add_test(NAME reports.term_svg COMMAND reports_term_svg ${_rp}/screen.svg)
set_tests_properties(reports.term_svg PROPERTIES LABELS "unit;golden" TIMEOUT 10)

add_test(NAME reports.chromium
         COMMAND ${Python3_EXECUTABLE} ${_rp}/chromium_test.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/reports-chromium)
set_tests_properties(reports.chromium PROPERTIES LABELS "pty;golden" TIMEOUT 900 SKIP_RETURN_CODE 77)

# The HTML run report (scvm run --report, runtime/report): records and
# pages of the stdlib pack, -j and shards merged byte for byte, a failing
# and a skipped PTY run, the recording's frames, scvm report FILE.
add_test(NAME reports.run_report
         COMMAND ${Python3_EXECUTABLE} ${_rp}/run_report.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/reports-run)
set_tests_properties(reports.run_report PROPERTIES LABELS "pty;golden" TIMEOUT 300)
