#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: install what is missing, build, compile every stdlib
# scenario to bytecode, verify them, and play one in simulation.
# Usage: scripts/demo.sh [SCENARIO-NAME]   (default: bugfix_with_tests)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target scc scvm >/dev/null

out=build/stdlib
mkdir -p "$out"
n=0
for f in stdlib-scenarios/*.yaml; do
  name=$(basename "$f" .yaml)
  # Scenarios with rules list their test configurations on
  # "# scc-test: VARIANT -D ..." lines; the demo uses the first one.
  defs=$(sed -n 's/^# scc-test: *[^ ]*//p' "$f" | head -n 1)
  # shellcheck disable=SC2086
  build/bin/scc $defs -o "$out/$name.scb" "$f"
  n=$((n + 1))
done
build/bin/scvm verify "$out"/*.scb >/dev/null
echo "compiled and verified $n scenarios into $out/" >&2

pick=${1:-bugfix_with_tests}
[ -f "$out/$pick.scb" ] || pick=$(basename "$(ls "$out"/*.scb | head -n 1)" .scb)
echo "playing $pick in simulation:" >&2
build/bin/scvm run --allow-skipped "$out/$pick.scb"   # the events; its checks need -t pty or -t agent
