# SPDX-License-Identifier: MIT
# Golden tests for stdlib-scenarios/: one test per scenario (listing,
# playback and metadata goldens, determinism, events vs YAML) and one
# whole-set coverage test.  Runner and goldens: tests/stdlib/ (README.md).
set(_stdlib_dir ${PROJECT_SOURCE_DIR}/stdlib-scenarios)
set(_stdlib_runner ${CMAKE_CURRENT_LIST_DIR}/stdlib/run_stdlib.py)
set(_stdlib_cmd ${Python3_EXECUTABLE} ${_stdlib_runner}
    --scc $<TARGET_FILE:scc> --scvm $<TARGET_FILE:scvm>
    --scenarios ${_stdlib_dir} --golden ${CMAKE_CURRENT_LIST_DIR}/stdlib/golden
    --ops-def ${PROJECT_SOURCE_DIR}/formats/ops.def
    --lower-c ${PROJECT_SOURCE_DIR}/compiler/lower.c)

file(GLOB _stdlib_yaml CONFIGURE_DEPENDS ${_stdlib_dir}/*.yaml)
foreach(_f ${_stdlib_yaml})
  get_filename_component(_n ${_f} NAME_WE)
  add_test(NAME stdlib.${_n} COMMAND ${_stdlib_cmd} --only ${_n})
  set_tests_properties(stdlib.${_n} PROPERTIES LABELS golden TIMEOUT 60)
endforeach()

add_test(NAME stdlib.coverage COMMAND ${_stdlib_cmd} --coverage)
set_tests_properties(stdlib.coverage PROPERTIES LABELS golden TIMEOUT 60)
