# SPDX-License-Identifier: MIT
# The benchmarks in quick mode (small sizes, one run), so they cannot rot:
# every program builds, runs and prints its table, the pack rows and the
# scvm serve llm row included (1 s of wrk; the row says skipped without
# wrk).  Passes under ASan+UBSan (-DSCC_SANITIZE=ON).  Nothing here checks a
# time; the full run is `cmake --build BUILD --target bench` (bench/run.py,
# docs/performance.md).
add_test(NAME bench.quick
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bench/run.py --quick
                 --build ${PROJECT_BINARY_DIR} --corpus ${SCC_CORPUS})
set_tests_properties(bench.quick PROPERTIES LABELS "bench" TIMEOUT 300)

# bc_load_with / BcLoadCtx (the load context the per-file benchmark uses)
# gives exactly what bc_load gives, for good and bad input alike.
# Two stdlib scenarios compiled by scc are corrupted byte by byte too:
# real frames, which the reused context once judged differently.
add_executable(bench_t_load_ctx ${PROJECT_SOURCE_DIR}/bench/t_load_ctx.c)
target_link_libraries(bench_t_load_ctx PRIVATE sc_formats PkgConfig::XXHASH)
set(_lc ${CMAKE_CURRENT_BINARY_DIR}/load-ctx)
set(_std ${PROJECT_SOURCE_DIR}/stdlib-scenarios)
add_test(NAME bench.load_ctx_inputs
         COMMAND sh -c "mkdir -p '${_lc}' && \"$1\" -o '${_lc}/a.scb' '${_std}/rate_limited_retry.yaml' && \"$1\" -o '${_lc}/b.scb' '${_std}/bugfix_with_tests.yaml'"
                 sh $<TARGET_FILE:scc>)
set_tests_properties(bench.load_ctx_inputs PROPERTIES FIXTURES_SETUP load_ctx LABELS "unit")
add_test(NAME bench.load_ctx
         COMMAND bench_t_load_ctx ${_lc}/a.scb ${_lc}/b.scb)
set_tests_properties(bench.load_ctx PROPERTIES FIXTURES_REQUIRED load_ctx LABELS "unit" TIMEOUT 120)
