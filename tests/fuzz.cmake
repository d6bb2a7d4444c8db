# Fuzzing the compiler front to back.  Seeds and findings in
# tests/fuzz/compile-corpus are replayed by a plain main() in every build;
# -DSCC_FUZZ=ON (with clang) also builds the libFuzzer binary.
add_executable(fuzz_compile_replay fuzz/fuzz_replay.c fuzz/fuzz_compile.c)
target_link_libraries(fuzz_compile_replay PRIVATE sc_compiler)
add_test(NAME fuzz_compile_regressions
         COMMAND fuzz_compile_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/compile-corpus
                 ${PROJECT_SOURCE_DIR}/stdlib-scenarios ${CMAKE_CURRENT_SOURCE_DIR}/errors)
set_tests_properties(fuzz_compile_regressions PROPERTIES LABELS "fuzz-regress" TIMEOUT 300)

option(SCC_FUZZ "Build libFuzzer targets (needs clang)" OFF)
if(SCC_FUZZ)
  add_executable(fuzz_compile fuzz/fuzz_compile.c)
  target_compile_options(fuzz_compile PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_compile PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_compile PRIVATE sc_compiler)
endif()
