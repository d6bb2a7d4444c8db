# formats/ tests: round trip, bad bytecode (one case per error), robustness
# (every byte flipped / every truncation, under ASan in the sanitizer
# build), allocation-failure injection, and the opcode doc check.
# Included by tests/CMakeLists.txt; paths are relative to this file so a
# scratch build can include it too.
set(_tf ${CMAKE_CURRENT_LIST_DIR}/formats)

add_library(tf_util STATIC ${_tf}/tf_util.c)
target_include_directories(tf_util PUBLIC ${_tf})
target_link_libraries(tf_util PUBLIC sc_formats sc_common PkgConfig::ZSTD PkgConfig::XXHASH)

foreach(t t_roundtrip t_bad t_robust t_alloc)
  add_executable(${t} ${_tf}/${t}.c)
  target_link_libraries(${t} PRIVATE tf_util)
endforeach()

add_test(NAME formats.roundtrip COMMAND t_roundtrip ${_tf})
add_test(NAME formats.bad COMMAND t_bad)
add_test(NAME formats.robust COMMAND t_robust)
add_test(NAME formats.alloc COMMAND t_alloc)
add_test(NAME formats.opcodes_doc
         COMMAND gen_opcodes check ${CMAKE_CURRENT_LIST_DIR}/../docs/opcodes.md)
set_tests_properties(formats.roundtrip formats.alloc PROPERTIES LABELS "unit" TIMEOUT 30)
set_tests_properties(formats.bad formats.robust PROPERTIES LABELS "errors" TIMEOUT 60)
set_tests_properties(formats.opcodes_doc PROPERTIES LABELS "golden" TIMEOUT 10)
