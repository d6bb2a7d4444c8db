# SPDX-License-Identifier: MIT
# Packs (docs/pack.md): the container, scc --pack, scvm's pack commands,
# the installed C API and CMake package.  Everything runs in PACK_DIR.
set(PACK_SRC ${CMAKE_CURRENT_SOURCE_DIR}/pack)
set(PACK_DIR ${CMAKE_CURRENT_BINARY_DIR}/pack-work)
file(MAKE_DIRECTORY ${PACK_DIR})

add_test(NAME pack.build COMMAND $<TARGET_FILE:scc> --pack -o ${PACK_DIR}/stdlib.scp ${PROJECT_SOURCE_DIR}/stdlib-scenarios)
set_tests_properties(pack.build PROPERTIES FIXTURES_SETUP pack_fix LABELS "unit" TIMEOUT 60)

add_executable(pack_unit ${PACK_SRC}/t_pack.c)
target_link_libraries(pack_unit PRIVATE scc_api sc_formats PkgConfig::ZSTD PkgConfig::XXHASH)
add_test(NAME pack.unit COMMAND pack_unit ${PACK_DIR}/stdlib.scp ${PACK_DIR})
set_tests_properties(pack.unit PROPERTIES FIXTURES_REQUIRED pack_fix FIXTURES_SETUP pack_bad
                     LABELS "unit;fuzz-regress" TIMEOUT 600)

# A pack forged byte by byte (names, tags, paths changed behind valid
# checksums) for pack_cli.py's "forged" case: what an attacker ships.
add_executable(pack_forge ${PACK_SRC}/pack_forge.c)
target_link_libraries(pack_forge PRIVATE sc_formats PkgConfig::ZSTD PkgConfig::XXHASH)

# pack_cli.py CASE: one scenario of the command-line suite (see its header).
foreach(case roundtrip selection shard hermetic escape forged limits depfile cache verify junit parallel batch size variants)
  add_test(NAME pack.cli.${case}
           COMMAND ${Python3_EXECUTABLE} ${PACK_SRC}/pack_cli.py ${case} $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                   ${PROJECT_SOURCE_DIR} ${PACK_DIR} ${SCC_CORPUS})
  set_property(TEST pack.cli.${case} APPEND PROPERTY ENVIRONMENT PACK_FORGE=$<TARGET_FILE:pack_forge>)
  set_tests_properties(pack.cli.${case} PROPERTIES FIXTURES_REQUIRED "pack_fix;pack_bad" LABELS "golden"
                       TIMEOUT 180 SKIP_RETURN_CODE 77)
endforeach()

# cmake --install into a temporary prefix, then build a tiny project against
# it with find_package(scc): scc_add_scenarios (depfiles, a pack) and libscc.
add_test(NAME pack.install
         COMMAND ${CMAKE_COMMAND} -DBUILD=${PROJECT_BINARY_DIR} -DWORK=${PACK_DIR}/install
                 -DSRC=${PACK_SRC}/consumer -DSCEN=${PROJECT_SOURCE_DIR}/stdlib-scenarios
                 -DGEN=${CMAKE_GENERATOR} -DSAN=${SCC_SANITIZE} -DTEMPLATES=${PROJECT_SOURCE_DIR}/cmake
                 -P ${PACK_SRC}/install_test.cmake)
set_tests_properties(pack.install PROPERTIES LABELS "unit" TIMEOUT 300 RUN_SERIAL TRUE)

# One prompt matcher: scvm --prompt, scvm serve llm and scc_match_prompt
# agree, also on prompts longer than the 1024 code points compared.
add_executable(match_prompt ${PACK_SRC}/match_prompt.c)
target_link_libraries(match_prompt PRIVATE scc_api)
add_test(NAME pack.prompt_agree
         COMMAND ${Python3_EXECUTABLE} ${PACK_SRC}/prompt_agree.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 $<TARGET_FILE:match_prompt> ${PACK_DIR})
set_tests_properties(pack.prompt_agree PROPERTIES LABELS "server" TIMEOUT 120)

# scc --pack DIR is linear: the folder listed a fixed number of times and a
# bounded number of system calls per scenario (strace -c, not a clock).
add_test(NAME pack.linear
         COMMAND ${Python3_EXECUTABLE} ${PACK_SRC}/pack_linear.py $<TARGET_FILE:scc> ${PACK_DIR}/linear)
set_tests_properties(pack.linear PROPERTIES LABELS "unit" TIMEOUT 300)

# One scvm run over a pack: its memory touched in huge pages, a fraction of
# a page fault a further scenario (getrusage, not a clock).
add_test(NAME pack.faults
         COMMAND ${Python3_EXECUTABLE} ${PACK_SRC}/pack_faults.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${PACK_DIR}/faults)
set_tests_properties(pack.faults PROPERTIES LABELS "unit" TIMEOUT 300 SKIP_RETURN_CODE 77)
