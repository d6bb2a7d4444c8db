# SPDX-License-Identifier: MIT
# package.cmake - what is installed beside the programs and the library
# (the docs, the license, the changelogs), and the Debian package CPack
# makes of the whole installation: `cpack -G DEB` in the build folder
# (docs/install.md; tested by ship.deb, tests/ship/deb_test.py).

# ---- docs: README, CHANGELOG, LICENSE and docs/ under share/doc/scc ----
install(FILES README.md CHANGELOG.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")

# Debian's two files in that folder: `copyright` (machine-readable, naming
# the license SCC_LICENSE of every source file's SPDX line) and
# `changelog.gz` (Debian's format; it points at CHANGELOG.md, which says what
# changed).  Its date is the last commit's, so the package is reproducible.
set(SCC_PACKAGE_MAINTAINER "scc/scvm maintainers <scc-maintainers@example.org>" CACHE STRING
    "the Debian package's Maintainer field (packagers: your name and address)")
file(READ ${PROJECT_SOURCE_DIR}/LICENSE _license)
string(REGEX REPLACE "^MIT License\n\n" "" _license "${_license}")
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" _ "${_license}")
set(_holder "${CMAKE_MATCH_1}")
string(REGEX REPLACE "^Copyright[^\n]*\n\n" "" _license "${_license}")
string(REGEX REPLACE "\n\n" "\n.\n" _license "${_license}")
string(REGEX REPLACE "\n([^\n.])" "\n \\1" _license "${_license}")
string(REGEX REPLACE "\n\\.\n" "\n .\n" _license "${_license}")
file(WRITE ${PROJECT_BINARY_DIR}/debian/copyright
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: scc
Source: the scc/scvm repository

Files: *
Copyright: ${_holder}
License: ${SCC_LICENSE}

License: ${SCC_LICENSE}
 ${_license}")
find_package(Git QUIET)
set(_date "")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} log -1 --format=%cD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT _date)
  set(_date "Sat, 28 Nov 2026 00:00:00 +0000")  # a copy of the sources without git: a fixed date
endif()
file(WRITE ${PROJECT_BINARY_DIR}/debian/changelog
"scc (${PROJECT_VERSION}) unstable; urgency=medium

  * Version ${PROJECT_VERSION}; what changed for users is in
    /usr/share/doc/scc/CHANGELOG.md.

 -- ${SCC_PACKAGE_MAINTAINER}  ${_date}
")
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/debian/changelog.gz
                   COMMAND ${SCC_GZIP} -9nc ${PROJECT_BINARY_DIR}/debian/changelog > ${PROJECT_BINARY_DIR}/debian/changelog.gz
                   DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog VERBATIM)
add_custom_target(debian_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog.gz)
install(FILES ${PROJECT_BINARY_DIR}/debian/copyright ${PROJECT_BINARY_DIR}/debian/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- the Debian package ----
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME scc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "${_holder}")
set(CPACK_PACKAGE_CONTACT "${SCC_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "compiler and VM for agent-testing scenarios")
# The long description, without the summary line; CPack indents it and
# writes an empty line as Debian's " .".
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "scc compiles agent-testing scenarios (Scenario-Format YAML and the
tui-use, ElizaOS and Yao dialects) into compact, verified bytecode and
packs; scc --check lints them, with SARIF output for code scanning.

scvm plays compiled scenarios: on a simulation, against a real program
in a pseudo-terminal with golden screens, against real coding agents,
or as mock LLM, ACP, harness and REST servers; JUnit and HTML reports.

The package also holds the C library libscc.a with its headers, a CMake
package and scc.pc, man pages and bash, zsh and fish completions.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Depends: computed from the programs' shared libraries (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Building against libscc.a needs the libraries' headers and pkg-config
# files (scc.pc's Requires; sccConfig.cmake's pkg_check_modules).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pkg-config, libzstd-dev, libxxhash-dev, libvterm-dev, libcjson-dev")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
include(CPack)
