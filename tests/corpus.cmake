# SPDX-License-Identifier: MIT
# The shared corpus of real scenario files: expected outcome of every file,
# and playback parity with the reference for every file it accepts.
# Skipped (exit 77) when ../shared/corpus is absent.
add_test(NAME corpus_agent_harbor
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_corpus.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${SCC_CORPUS})
set_tests_properties(corpus_agent_harbor PROPERTIES LABELS "corpus;golden" TIMEOUT 120
                     SKIP_RETURN_CODE 77)

# Malformed scenarios with their exact diagnostics written inside them.
add_test(NAME compiler_expected_diagnostics
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/errors/check_errors.py
                 $<TARGET_FILE:scc> ${CMAKE_CURRENT_SOURCE_DIR}/errors)
set_tests_properties(compiler_expected_diagnostics PROPERTIES LABELS "errors" TIMEOUT 120)

# Every example in docs/*.md is compiled and played; its shown output must match.
add_test(NAME docs_examples
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_docs.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${PROJECT_SOURCE_DIR}/docs)
set_tests_properties(docs_examples PROPERTIES LABELS "golden;docs" TIMEOUT 120)

# No foreign file runs green: every file of every dialect in the corpus is
# refused, plays or checks something, or is warned empty (docs/dialects.md).
add_test(NAME corpus_dialects
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_dialects.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${SCC_CORPUS})
set_tests_properties(corpus_dialects PROPERTIES LABELS "corpus" TIMEOUT 300 SKIP_RETURN_CODE 77)

# The spec's own timing examples on the spec clock (docs/timing.md, "Two clocks").
add_test(NAME corpus_spec_examples
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_spec_examples.py
                 $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${SCC_CORPUS}/../seeds)
set_tests_properties(corpus_spec_examples PROPERTIES LABELS "corpus" TIMEOUT 120 SKIP_RETURN_CODE 77)

# The ElizaOS and Yao corpora (issue 18): every file's outcome, compiled
# (cases, inputs, checks, warnings) or rejected with positioned errors, as
# recorded in tests/corpus/{eliza,yao}_corpus.tsv (--update rewrites them).
foreach(_d eliza yao)
  add_test(NAME corpus_${_d}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_agent_corpus.py
                   $<TARGET_FILE:scc> $<TARGET_FILE:scvm> ${SCC_CORPUS} ${_d})
  set_tests_properties(corpus_${_d} PROPERTIES LABELS "corpus;golden" TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
