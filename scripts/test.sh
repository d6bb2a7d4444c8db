#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the whole test suite twice: a normal -Werror build, then the same
# suite under AddressSanitizer + UndefinedBehaviorSanitizer.
# Usage: scripts/test.sh            (from anywhere; installs missing packages)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

echo "== build (release, -Werror)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== build (ASan+UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSCC_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan &&
 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
 ctest --output-on-failure -j"$jobs")
