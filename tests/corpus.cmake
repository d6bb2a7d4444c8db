# The shared corpus of real scenario files: expected outcome of every file,
# and playback parity with the reference for every file it accepts.
# Skipped (exit 77) when ../shared/corpus is absent.
add_test(NAME corpus_agent_harbor
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_corpus.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${SCC_CORPUS})
set_tests_properties(corpus_agent_harbor PROPERTIES LABELS "corpus;golden" TIMEOUT 120
                     SKIP_RETURN_CODE 77)
