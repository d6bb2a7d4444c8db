# SPDX-License-Identifier: MIT
# scc --lsp (docs/editors.md): driven by the official LSP client library
# (vscode-languageserver-protocol, pinned in tests/editors/package.json and
# installed by `npm ci` into the build tree), by raw bytes, and by Neovim
# running docs/editors.md's configuration as written.
set(EDITORS_SRC ${CMAKE_CURRENT_SOURCE_DIR}/editors)
set(EDITORS_NPM ${CMAKE_CURRENT_BINARY_DIR}/editors-npm)
set(EDITORS_WORK ${CMAKE_CURRENT_BINARY_DIR}/editors-work)

sc_npm_fixture(editors ${EDITORS_SRC} ${EDITORS_NPM} editors)

add_test(NAME editors.lsp_session
         COMMAND node ${EDITORS_SRC}/lsp_session.js $<TARGET_FILE:scc> ${EDITORS_NPM}/node_modules
                 ${EDITORS_WORK}/session)
set_tests_properties(editors.lsp_session PROPERTIES FIXTURES_REQUIRED editors_npm LABELS "editors" TIMEOUT 300)

add_test(NAME editors.lsp_raw
         COMMAND ${Python3_EXECUTABLE} ${EDITORS_SRC}/lsp_raw.py $<TARGET_FILE:scc> ${EDITORS_WORK}/raw)
set_tests_properties(editors.lsp_raw PROPERTIES LABELS "editors" TIMEOUT 300)

add_test(NAME editors.nvim
         COMMAND ${Python3_EXECUTABLE} ${EDITORS_SRC}/nvim_test.py $<TARGET_FILE_DIR:scc>
                 ${PROJECT_SOURCE_DIR}/docs/editors.md ${EDITORS_WORK}/nvim)
set_tests_properties(editors.nvim PROPERTIES LABELS "editors" TIMEOUT 300 SKIP_RETURN_CODE 77)
