# SPDX-License-Identifier: MIT
# formats/ tests: round trip, bad bytecode (one case per error), robustness
# (every byte flipped / every truncation, under ASan in the sanitizer
# build), allocation-failure injection, and the opcode doc check.
# Included by tests/CMakeLists.txt; paths are relative to this file so a
# scratch build can include it too.
set(_tf ${CMAKE_CURRENT_LIST_DIR}/formats)

# Target names carry a formats_ prefix: tests of every module share one namespace.
add_library(formats_testutil STATIC ${_tf}/tf_util.c)
target_include_directories(formats_testutil PUBLIC ${_tf})  # tf.h
target_link_libraries(formats_testutil PUBLIC sc_formats sc_common PkgConfig::ZSTD PkgConfig::XXHASH)

foreach(t roundtrip bad robust alloc)
  add_executable(formats_${t} ${_tf}/t_${t}.c)
  target_link_libraries(formats_${t} PRIVATE formats_testutil)
endforeach()

# formats_roundtrip DIR --update rewrites tests/formats/sample.lst.
add_test(NAME formats.roundtrip COMMAND formats_roundtrip ${_tf})
add_test(NAME formats.bad COMMAND formats_bad)
add_test(NAME formats.robust COMMAND formats_robust)
add_test(NAME formats.alloc COMMAND formats_alloc)
add_test(NAME formats.opcodes_doc
         COMMAND gen_opcodes check ${CMAKE_CURRENT_LIST_DIR}/../docs/opcodes.md)
set_tests_properties(formats.roundtrip formats.alloc PROPERTIES LABELS "unit" TIMEOUT 30)
set_tests_properties(formats.bad formats.robust PROPERTIES LABELS "errors" TIMEOUT 60)
set_tests_properties(formats.opcodes_doc PROPERTIES LABELS "golden" TIMEOUT 10)
# docs/bytecode.md section 10: the worked example's bytes are what the writer makes.
add_test(NAME formats.doc_hex
         COMMAND ${Python3_EXECUTABLE} ${_tf}/doc_hex.py $<TARGET_FILE:formats_roundtrip>
                 ${CMAKE_CURRENT_LIST_DIR}/../docs/bytecode.md)
set_tests_properties(formats.doc_hex PROPERTIES LABELS "golden" TIMEOUT 10)
# docs/bytecode.md section 3 and docs/pack.md section 2: the zstd command
# lines they give reproduce the frames scc writes (the zstd CLI, installed
# by scripts/setup-deps.sh).
add_test(NAME formats.doc_zstd_cli
         COMMAND ${Python3_EXECUTABLE} ${_tf}/doc_zstd_cli.py $<TARGET_FILE:scc> ${CMAKE_CURRENT_LIST_DIR}/..
                 ${CMAKE_CURRENT_BINARY_DIR}/doc-zstd-cli)
set_tests_properties(formats.doc_zstd_cli PROPERTIES LABELS "golden" TIMEOUT 120)
