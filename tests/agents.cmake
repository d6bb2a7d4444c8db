# Real agents under test (docs/real-agents.md): the agents' npm packages,
# pinned in tests/agents/package-lock.json, installed into the build tree by
# `npm ci`, each driven against scvm serve llm.
set(AGENTS_SRC ${CMAKE_CURRENT_SOURCE_DIR}/agents)
set(AGENTS_NPM ${CMAKE_CURRENT_BINARY_DIR}/agents-npm)
add_test(NAME agents.npm_ci COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/npm_setup.py ${AGENTS_SRC} ${AGENTS_NPM})
set_tests_properties(agents.npm_ci PROPERTIES FIXTURES_SETUP agents_npm LABELS "agents" TIMEOUT 300
                     SKIP_RETURN_CODE 77)

# Gemini CLI headless: a shell command and an edit with its own tool names,
# the files checked, every response served once.
add_test(NAME agents.gemini_cli
         COMMAND ${Python3_EXECUTABLE} ${AGENTS_SRC}/gemini_cli.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${AGENTS_NPM}/node_modules ${CMAKE_CURRENT_BINARY_DIR}/agents-gemini)
set_tests_properties(agents.gemini_cli PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "agents" TIMEOUT 300)
