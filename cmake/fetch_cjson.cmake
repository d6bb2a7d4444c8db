# SPDX-License-Identifier: MIT
# fetch_cjson.cmake -DOUT=DIR: `apt-get source cjson` in a scratch folder,
# then DIR/cJSON.c and DIR/include/cjson/cJSON.h from it, and DIR/VERSION
# (Debian's source version) and DIR/copyright (its license, for the static
# binaries' notices).  Run by static_cjson.cmake at build time.
set(_work ${OUT}/apt)
file(REMOVE_RECURSE ${_work})
file(MAKE_DIRECTORY ${_work} ${OUT}/include/cjson)
execute_process(COMMAND apt-get source -qq cjson WORKING_DIRECTORY ${_work}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(GLOB _src LIST_DIRECTORIES true ${_work}/cjson-*)
list(FILTER _src EXCLUDE REGEX "\\.(tar|dsc|gz|xz)")
if(NOT rc EQUAL 0 OR NOT _src OR NOT EXISTS ${_src}/cJSON.c)
  message(FATAL_ERROR "apt-get source cjson failed (${rc}): ${err}\n"
          "SCC_STATIC needs Debian's source packages: a deb-src entry and dpkg-dev "
          "(scripts/setup-deps.sh adds both).")
endif()
file(COPY_FILE ${_src}/cJSON.c ${OUT}/cJSON.c)
file(COPY_FILE ${_src}/cJSON.h ${OUT}/include/cjson/cJSON.h)
file(COPY_FILE ${_src}/LICENSE ${OUT}/copyright)
file(GLOB _dsc ${_work}/cjson_*.dsc)
get_filename_component(_n "${_dsc}" NAME)
string(REGEX REPLACE "^cjson_(.*)\\.dsc$" "\\1" _v "${_n}")
file(WRITE ${OUT}/VERSION "${_v}\n")
message(STATUS "cJSON ${_v} from Debian's source package")
file(REMOVE_RECURSE ${_work})
