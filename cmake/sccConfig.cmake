# sccConfig.cmake - find_package(scc) for projects that use scc and scvm.
#
# Provides:
#   scc::scc, scc::scvm     the installed programs (imported executables)
#   scc::libscc             the C API library (include/scc/scc.h, include/scc/session.h)
#   SCC_EXECUTABLE, SCVM_EXECUTABLE
#   scc_add_scenarios(<target> SOURCES <file|dir>... [PACK <name>]
#                     [OUTPUT_DIRECTORY <dir>] [DEFINES <NAME[=VALUE]>...]
#                     [OPTIONS <scc option>...] [ALL])
#     Compiles scenarios as part of the build: one .scb per source, or with
#     PACK one <name>.scp holding them all.  Each rule gets a depfile from
#     `scc -MD`, so editing a scenario or any file it references (patches,
#     images, repo.dir trees, terminalRef) rebuilds exactly what depends on it.
#     <target> is a custom target; its SCC_OUTPUTS property lists the outputs.
#     See docs/cmake.md.
cmake_minimum_required(VERSION 3.20)
get_filename_component(_scc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

include(CMakeFindDependencyMacro)
find_dependency(PkgConfig)
find_dependency(Threads)   # the built-in zstd dictionary is prepared once (pthread_once)
pkg_check_modules(SCC_DEPS REQUIRED IMPORTED_TARGET libzstd libxxhash vterm libcjson)

if(NOT TARGET scc::libscc)
  add_library(scc::libscc STATIC IMPORTED)
  find_library(_scc_lib NAMES scc PATHS "${_scc_prefix}/lib" "${_scc_prefix}/lib64"
               "${_scc_prefix}/${CMAKE_INSTALL_LIBDIR}" NO_DEFAULT_PATH REQUIRED)
  set_target_properties(scc::libscc PROPERTIES
    IMPORTED_LOCATION "${_scc_lib}"
    INTERFACE_INCLUDE_DIRECTORIES "${_scc_prefix}/include"
    INTERFACE_LINK_LIBRARIES "PkgConfig::SCC_DEPS;Threads::Threads;m")
endif()
if(NOT TARGET scc::scc)
  add_executable(scc::scc IMPORTED)
  set_target_properties(scc::scc PROPERTIES IMPORTED_LOCATION "${_scc_prefix}/bin/scc")
  add_executable(scc::scvm IMPORTED)
  set_target_properties(scc::scvm PROPERTIES IMPORTED_LOCATION "${_scc_prefix}/bin/scvm")
endif()
set(SCC_EXECUTABLE "${_scc_prefix}/bin/scc")
set(SCVM_EXECUTABLE "${_scc_prefix}/bin/scvm")

function(scc_add_scenarios target)
  cmake_parse_arguments(PARSE_ARGV 1 A "ALL" "PACK;OUTPUT_DIRECTORY" "SOURCES;DEFINES;OPTIONS")
  if(NOT A_SOURCES)
    message(FATAL_ERROR "scc_add_scenarios(${target}): SOURCES is required")
  endif()
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "scc_add_scenarios(${target}): unknown arguments ${A_UNPARSED_ARGUMENTS}")
  endif()
  set(dir "${A_OUTPUT_DIRECTORY}")
  if(NOT dir)
    set(dir "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(flags ${A_OPTIONS})
  foreach(d IN LISTS A_DEFINES)
    list(APPEND flags "-D${d}")
  endforeach()
  set(srcs)
  foreach(s IN LISTS A_SOURCES)
    get_filename_component(abs "${s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND srcs "${abs}")
  endforeach()
  set(outputs)
  if(A_PACK)
    set(out "${dir}/${A_PACK}.scp")
    add_custom_command(OUTPUT "${out}"
      COMMAND scc::scc --pack ${flags} -MD -MF "${out}.d" -o "${out}" ${srcs}
      DEPENDS ${srcs} scc::scc
      DEPFILE "${out}.d"
      COMMENT "Packing scenarios into ${A_PACK}.scp"
      VERBATIM)
    list(APPEND outputs "${out}")
  else()
    foreach(abs IN LISTS srcs)
      if(IS_DIRECTORY "${abs}")
        message(FATAL_ERROR "scc_add_scenarios(${target}): ${abs} is a directory; use PACK for directories")
      endif()
      get_filename_component(stem "${abs}" NAME_WE)
      set(out "${dir}/${stem}.scb")
      add_custom_command(OUTPUT "${out}"
        COMMAND scc::scc ${flags} -MD -MF "${out}.d" -o "${out}" "${abs}"
        DEPENDS "${abs}" scc::scc
        DEPFILE "${out}.d"
        COMMENT "Compiling scenario ${stem}"
        VERBATIM)
      list(APPEND outputs "${out}")
    endforeach()
  endif()
  if(A_ALL)
    add_custom_target(${target} ALL DEPENDS ${outputs})
  else()
    add_custom_target(${target} DEPENDS ${outputs})
  endif()
  set_target_properties(${target} PROPERTIES SCC_OUTPUTS "${outputs}")
endfunction()
