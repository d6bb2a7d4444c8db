# SPDX-License-Identifier: MIT
# Real agents under test (docs/real-agents.md): the agents' npm packages,
# pinned in tests/agents/package-lock.json, installed into the build tree by
# `npm ci`, each driven against scvm serve llm.
set(AGENTS_SRC ${CMAKE_CURRENT_SOURCE_DIR}/agents)
set(AGENTS_NPM ${CMAKE_CURRENT_BINARY_DIR}/agents-npm)
sc_npm_fixture(agents ${AGENTS_SRC} ${AGENTS_NPM} agents)

# Each agent plays docs/real-agents.md's scenario through `scvm run -t
# agent` with its shipped profile (tests/agents/run_agent.py); Claude Code
# also in its TUI, its screen compared with a golden (tests/agents/goldens/claude-code)
# whose masks hide the clock and the turn's verb and duration.
foreach(agent claude-code codex gemini-cli qwen-code opencode)
  string(REPLACE "-" "_" t ${agent})
  add_test(NAME agents.${t}
           COMMAND ${Python3_EXECUTABLE} ${AGENTS_SRC}/run_agent.py ${agent} $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                   ${AGENTS_NPM}/node_modules ${CMAKE_CURRENT_BINARY_DIR}/agents-${agent} ${PROJECT_SOURCE_DIR}/docs)
  set_tests_properties(agents.${t} PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "agents" TIMEOUT 600)
  # and what it must survive: a stream cut, a reset, a refusal
  add_test(NAME agents.${t}_faults
           COMMAND ${Python3_EXECUTABLE} ${AGENTS_SRC}/run_agent.py ${agent} $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                   ${AGENTS_NPM}/node_modules ${CMAKE_CURRENT_BINARY_DIR}/agents-${agent}-faults
                   ${PROJECT_SOURCE_DIR}/docs --faults)
  set_tests_properties(agents.${t}_faults PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "agents" TIMEOUT 600)
endforeach()
# The TUIs: the same scenario typed into each (Codex's TUI is not
# supported: docs/real-agents.md); Claude Code's screen is compared with a
# golden that masks its clock and its random verb.
foreach(agent claude-code gemini-cli qwen-code)
  string(REPLACE "-" "_" t ${agent})
  set(golden "")
  if(agent STREQUAL "claude-code")
    set(golden --golden ${AGENTS_SRC}/goldens/claude-code)
  endif()
  add_test(NAME agents.${t}_tui
           COMMAND ${Python3_EXECUTABLE} ${AGENTS_SRC}/run_agent.py ${agent} $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                   ${AGENTS_NPM}/node_modules ${CMAKE_CURRENT_BINARY_DIR}/agents-${agent}-tui ${PROJECT_SOURCE_DIR}/docs
                   --interactive ${golden})
  set_tests_properties(agents.${t}_tui PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "agents;pty" TIMEOUT 600)
endforeach()

# The orchestrator's own behaviour against a small agent of ours
# (tests/agents/fake_agent.py): verdicts, diffs, errors, cleanup.
add_test(NAME agent.orchestrator
         COMMAND ${Python3_EXECUTABLE} ${AGENTS_SRC}/fake_test.py $<TARGET_FILE:scc> $<TARGET_FILE:scvm>
                 ${CMAKE_CURRENT_BINARY_DIR}/agent-orchestrator ${PROJECT_SOURCE_DIR}/docs)
set_tests_properties(agent.orchestrator PROPERTIES LABELS "agent" TIMEOUT 300)

# Agent profiles and tool results, no agent needed (tests/agents/agent_unit.c).
add_executable(agent_unit ${AGENTS_SRC}/agent_unit.c)
target_link_libraries(agent_unit PRIVATE sc_rt_llm sc_agent PkgConfig::CJSON)
add_test(NAME agent.unit COMMAND agent_unit)
set_tests_properties(agent.unit PROPERTIES LABELS "unit" TIMEOUT 60)

# scvm run -t aut --via pty --agent claude-code: Claude Code's TUI as the
# agent under test of a Yao suite and an ElizaOS scenario (docs/aut.md).
add_test(NAME aut.claude_code_tui
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/aut/aut_agents_test.py $<TARGET_FILE:scc>
                 $<TARGET_FILE:scvm> ${AGENTS_NPM}/node_modules ${CMAKE_CURRENT_BINARY_DIR}/aut-claude-code)
set_tests_properties(aut.claude_code_tui PROPERTIES FIXTURES_REQUIRED agents_npm LABELS "agents;pty" TIMEOUT 600)
