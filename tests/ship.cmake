# SPDX-License-Identifier: MIT
# Shipping (docs/install.md): the Debian package built, checked by lintian,
# installed, used from the installed paths, removed without a trace.  It
# installs into the machine, so it runs alone (RUN_SERIAL) and holds a lock
# under /tmp that other checkouts' runs of it wait for.
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
