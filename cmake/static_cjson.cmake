# SPDX-License-Identifier: MIT
# static_cjson.cmake - cJSON as a static library, for SCC_STATIC=ON.
#
# Debian ships libyaml.a, libzstd.a, libxxhash.a and libvterm.a, but no
# libcjson.a.  So at build time `apt-get source cjson` fetches Debian's own
# source package (its Debian patches applied by dpkg-source, its hashes
# checked by apt against the signed Release file) into the build folder,
# and cJSON.c is compiled from there: nothing from outside is copied into
# the repository.  It needs a deb-src entry (scripts/setup-deps.sh adds
# one) and dpkg-dev.  It provides PkgConfig::CJSON, the name the shared
# build's pkg_check_modules gives, so no CMakeLists.txt changes.
set(_cj ${PROJECT_BINARY_DIR}/cjson-static)
add_custom_command(
  OUTPUT ${_cj}/cJSON.c ${_cj}/include/cjson/cJSON.h
  COMMAND ${CMAKE_COMMAND} -DOUT=${_cj} -P ${PROJECT_SOURCE_DIR}/cmake/fetch_cjson.cmake
  COMMENT "Fetching cJSON from Debian's source package (apt-get source cjson)"
  VERBATIM)
add_library(sc_cjson_static STATIC ${_cj}/cJSON.c)
# Not our code: built as Debian builds it, without our warning flags.
target_compile_options(sc_cjson_static PRIVATE -w)
set_target_properties(sc_cjson_static PROPERTIES POSITION_INDEPENDENT_CODE ON C_EXTENSIONS ON)
target_include_directories(sc_cjson_static PUBLIC ${_cj}/include PRIVATE ${_cj}/include/cjson)
target_link_libraries(sc_cjson_static PUBLIC m)
add_library(PkgConfig::CJSON ALIAS sc_cjson_static)
