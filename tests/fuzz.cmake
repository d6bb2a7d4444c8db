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
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SCC_FUZZ needs clang: -DCMAKE_C_COMPILER=clang")
  endif()
  set(_fz_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  # The fuzzer is guided by coverage of the code under test, so the libraries
  # the targets link are instrumented too (fuzzer-no-link: no second main),
  # and sanitized, so that a bug in them is a crash the fuzzer sees; with
  # the interpreter's debug-build asserts on (-UNDEBUG) whatever the build
  # type.  Their other users (scc, scvm, the tests) then link the sanitizer
  # runtimes.
  foreach(lib sc_common sc_formats sc_pack sc_runtime sc_vm sc_compiler)
    target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link ${_fz_san} -UNDEBUG)
    target_link_options(${lib} INTERFACE -fsanitize=address,undefined)
  endforeach()

  add_executable(fuzz_compile fuzz/fuzz_compile.c)
  target_compile_options(fuzz_compile PRIVATE -fsanitize=fuzzer ${_fz_san})
  target_link_options(fuzz_compile PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_compile PRIVATE sc_compiler)
endif()
