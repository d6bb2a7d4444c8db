# SPDX-License-Identifier: MIT
# Shipping (docs/install.md): the Debian package built, checked by lintian,
# installed, used from the installed paths, removed without a trace.  It
# installs into the machine, so it runs alone (RUN_SERIAL) and holds a lock
# under /tmp that other checkouts' runs of it wait for.
#
# A package is made of a release build, and ship.action and ship.static
# build their own binaries from the sources: under SCC_SANITIZE (the second
# half of scripts/test.sh) they would only repeat the release build's run.
if(SCC_SANITIZE)
  return()
endif()
set(SHIP_SRC ${CMAKE_CURRENT_SOURCE_DIR}/ship)
add_test(NAME ship.deb
         COMMAND ${Python3_EXECUTABLE} ${SHIP_SRC}/deb_test.py ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/ship-deb)
set_tests_properties(ship.deb PROPERTIES LABELS "ship" TIMEOUT 900 RUN_SERIAL TRUE)

# The GitHub action (action.yml): its steps run as GitHub's runner runs them,
# with the variables it sets; it builds and installs the package of this
# commit, so it too runs alone and under the same lock.
add_test(NAME ship.action
         COMMAND ${Python3_EXECUTABLE} ${SHIP_SRC}/action_test.py ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/ship-action)
set_tests_properties(ship.action PROPERTIES LABELS "ship" TIMEOUT 1200 RUN_SERIAL TRUE)

# The static binaries (-DSCC_STATIC=ON): built in their own folder, then
# played in a root that holds nothing but them (a chroot): --check, run,
# serve llm on loopback, -t pty with a static program.
add_test(NAME ship.static
         COMMAND ${Python3_EXECUTABLE} ${SHIP_SRC}/static_test.py ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/ship-static)
set_tests_properties(ship.static PROPERTIES LABELS "ship;pty;server" TIMEOUT 1500)
