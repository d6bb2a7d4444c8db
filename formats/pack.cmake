# Packs (docs/pack.md): many compiled scenarios and their files in one
# hermetic .scp.  Included from formats/CMakeLists.txt.
#
#   sc_pack   the container: writer, loader+verifier, prompt matcher.  scc
#             writes packs with it, scvm reads them (vm/CMakeLists.txt links
#             it into scvm when it exists).
#   scc_api   the installed C library (libscc.a, include/scc/scc.h): open a
#             .scb or pack, verify, iterate events.  Built from the same
#             sources as the internal libraries so it is self-contained.
add_library(sc_pack STATIC pack_read.c pack_write.c)
target_include_directories(sc_pack PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(sc_pack PUBLIC sc_formats sc_common PRIVATE PkgConfig::ZSTD PkgConfig::XXHASH)

# The command-line halves live with their commands, but their CMakeLists
# are other people's: add them once those targets exist (end of the top
# directory).  scc gains --pack, -MD and --cache-dir; scvm gains ls,
# extract and pack-aware run/verify/info.
function(_scc_pack_attach)
  target_sources(scc PRIVATE ${PROJECT_SOURCE_DIR}/compiler/embed.c)
  target_link_libraries(scc PRIVATE sc_pack PkgConfig::XXHASH)
  target_sources(scvm PRIVATE ${PROJECT_SOURCE_DIR}/vm/cmd_pack.c)
  target_link_libraries(scvm PRIVATE sc_pack)
  find_package(Threads REQUIRED)
  target_link_libraries(scvm PRIVATE Threads::Threads)
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _scc_pack_attach)

set(_scc_root ${PROJECT_SOURCE_DIR})
add_library(scc_api STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/pack_api.c
  ${CMAKE_CURRENT_SOURCE_DIR}/pack_read.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bc_info.c ${CMAKE_CURRENT_SOURCE_DIR}/bc_read.c ${CMAKE_CURRENT_SOURCE_DIR}/bc_write.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bc_value.c ${CMAKE_CURRENT_SOURCE_DIR}/bc_list.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bc_dict.c ${CMAKE_CURRENT_BINARY_DIR}/bc_dict_data.c
  ${CMAKE_CURRENT_BINARY_DIR}/bc_fields.h
  ${_scc_root}/common/sc_alloc.c ${_scc_root}/common/buf.c ${_scc_root}/common/fileio.c
  ${_scc_root}/common/levenshtein.c
  ${_scc_root}/runtime/rt_sim.c ${_scc_root}/runtime/rt_clock.c ${_scc_root}/vm/vm.c)
set_target_properties(scc_api PROPERTIES OUTPUT_NAME scc POSITION_INDEPENDENT_CODE ON)
target_include_directories(scc_api
  PUBLIC $<BUILD_INTERFACE:${_scc_root}/include> $<INSTALL_INTERFACE:include>
  PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR} ${_scc_root}/common
          ${_scc_root}/runtime ${_scc_root}/vm)
target_link_libraries(scc_api PRIVATE PkgConfig::ZSTD PkgConfig::XXHASH Threads::Threads m)

# ---- install: scc, scvm, libscc.a, include/scc, pkg-config, CMake package ----
include(GNUInstallDirs)
install(TARGETS scc_api ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${_scc_root}/include/scc/scc.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scc)
configure_file(${_scc_root}/cmake/scc.pc.in ${CMAKE_CURRENT_BINARY_DIR}/scc.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/scc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/sccConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${_scc_root}/cmake/sccConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/sccConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/scc)
install(PROGRAMS $<TARGET_FILE:scc> $<TARGET_FILE:scvm> DESTINATION ${CMAKE_INSTALL_BINDIR})
