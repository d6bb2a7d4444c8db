# Real agents under test (docs/real-agents.md): the agents' npm packages,
# pinned in tests/agents/package-lock.json, installed into the build tree by
# `npm ci`, each driven against scvm serve llm.
set(AGENTS_SRC ${CMAKE_CURRENT_SOURCE_DIR}/agents)
set(AGENTS_NPM ${CMAKE_CURRENT_BINARY_DIR}/agents-npm)
add_test(NAME agents.npm_ci COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/npm_setup.py ${AGENTS_SRC} ${AGENTS_NPM})
set_tests_properties(agents.npm_ci PROPERTIES FIXTURES_SETUP agents_npm LABELS "agents" TIMEOUT 300
                     SKIP_RETURN_CODE 77)

# Each agent headless: a shell command and an edit in its own tool names,
# the file checked, every response served once (tests/agents/agent_test.py).
foreach(agent gemini-cli qwen-code claude-code codex opencode)
  string(REPLACE "-" "_" t ${agent})
  add_test(NAME agents.${t}
           COMMAND ${Python3_EXECUTABLE} ${AGENTS_SRC}/agent_test.py ${agent} $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                   ${AGENTS_NPM}/node_modules ${CMAKE_CURRENT_BINARY_DIR}/agents-${agent})
  set_tests_properties(agents.${t} PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "agents" TIMEOUT 300)
endforeach()

# Claude Code's interactive TUI in a real terminal (scvm run -t pty)
# against the mock: the scripted answer on its screen.
add_test(NAME agents.claude_code_tui
         COMMAND ${Python3_EXECUTABLE} ${AGENTS_SRC}/claude_tui.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${AGENTS_NPM}/node_modules ${CMAKE_CURRENT_BINARY_DIR}/agents-claude-tui)
set_tests_properties(agents.claude_code_tui PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "agents;pty" TIMEOUT 300)
