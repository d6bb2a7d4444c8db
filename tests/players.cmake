# SPDX-License-Identifier: MIT
# The players' op tables (runtime/player.h): every op of ops.def is handled
# or declared ignored by every converted player, docs/players.md is the
# matrix they make, and the check itself reports a missing op.
# Included by tests/CMakeLists.txt.
add_executable(player_cover ${CMAKE_CURRENT_LIST_DIR}/players/player_cover.c)
target_link_libraries(player_cover PRIVATE sc_runtime sc_rt_pty sc_rt_harness sc_rt_rest sc_mockagent sc_aut_target sc_rt_llm sc_rt_acp)
add_test(NAME players.cover
         COMMAND player_cover check ${CMAKE_CURRENT_LIST_DIR}/../docs/players.md)
add_test(NAME players.cover_selftest COMMAND player_cover selftest)
set_tests_properties(players.cover players.cover_selftest PROPERTIES LABELS "golden" TIMEOUT 10)
