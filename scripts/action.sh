#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GitHub action's steps (action.yml at the repository's root; docs/install.md):
#   action.sh install   install the Debian package of the action's own commit:
#                       SCC_DEB if given (a .deb made by `cpack -G DEB` from
#                       this commit), else built here from the action's sources;
#                       with SCC_STATIC=true, the static binaries instead, on PATH
#   action.sh check     scc --check with SARIF into SCC_SARIF
#   action.sh run       a pack (SCC_PATHS: a .scp, or scenarios and folders
#                       packed first) played by scvm run with JUnit and the
#                       HTML report
# Inputs come as SCC_* variables (action.yml's env:), never spliced into the
# script's text; results go to GITHUB_OUTPUT and GITHUB_STEP_SUMMARY, as
# GitHub's runner reads them.  Exit: scc's and scvm's own statuses
# (docs/exit-status.md), 2 for a bad input.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)   # the action's checkout (GITHUB_ACTION_PATH)
tmp=${RUNNER_TEMP:?RUNNER_TEMP is not set: run this as a step of action.yml}
out=${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"

say() { echo "scc-action: $*" >&2; }

# The version this commit's CMakeLists.txt declares: what the installed scc must print.
project_version() {
  sed -n 's/^project(scc VERSION \([0-9.]*\) .*/\1/p' "$here/CMakeLists.txt"
}

# The inputs' words (SCC_PATHS, SCC_ARGS: split on white space and line
# breaks, as a shell splits them without quotes, but with no globbing or
# expansion: an input cannot run a command).
words() { W=(); read -r -d '' -a W <<<"${1:-}" || true; }

# The Debian packages a build of this commit needs.
build_deps() {
  local need=() p
  for p in build-essential cmake pkg-config libyaml-dev libxxhash-dev libvterm-dev libzstd-dev libcjson-dev "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
  fi
}

# The static binaries of this commit (docs/install.md), put on PATH for the
# steps after this one: one folder, nothing installed into the system.
install_static() {
  build_deps dpkg-dev
  "$here/scripts/deb-src.sh"   # cJSON comes from its Debian source package
  local b="$tmp/scc-static-build" bin="$tmp/scc-bin"
  cmake -S "$here" -B "$b" -DCMAKE_BUILD_TYPE=Release -DSCC_STATIC=ON -DSCC_BUILD_TESTS=OFF -DSCC_WERROR=OFF >&2
  cmake --build "$b" --target scc scvm --parallel "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" >&2
  mkdir -p "$bin"
  cp "$b/bin/scc" "$b/bin/scvm" "$bin/"
  echo "$bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
  local v want
  v=$("$bin/scc" --version | sed -n '1s/^scc (scc) //p')
  want=$(project_version)
  [ "$v" = "$want" ] || { say "built scc $v; this action's commit is $want"; exit 2; }
  say "$bin/scc $v (static)"
  { echo "version=$v"; echo "scc=$bin/scc"; } >>"$out"
}

cmd_install() {
  if [ "${SCC_STATIC:-false}" = true ]; then
    install_static
    return
  fi
  local deb=${SCC_DEB:-}
  if [ -z "$deb" ]; then
    # Build the package of this commit: only what is installed (no tests).
    build_deps
    local b="$tmp/scc-build"
    cmake -S "$here" -B "$b" -DCMAKE_BUILD_TYPE=Release -DSCC_BUILD_TESTS=OFF -DSCC_WERROR=OFF \
          -DCMAKE_INSTALL_PREFIX=/usr >&2
    cmake --build "$b" --parallel "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" >&2
    (cd "$b" && cpack -G DEB -B "$b/package" >&2)
    deb=$(ls "$b"/package/scc_*.deb)
  fi
  [ -f "$deb" ] || { say "no such package: $deb"; exit 2; }
  # dpkg -i names what is missing; apt-get -f then installs it.
  if ! $sudo dpkg -i "$deb" >&2; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -f >&2
  fi
  local v want
  v=$(scc --version | sed -n '1s/^scc (scc) //p')
  want=$(project_version)
  if [ "$v" != "$want" ]; then
    say "the package installed is scc $v; this action's commit is $want"
    exit 2
  fi
  say "$(command -v scc) $v"
  { echo "deb=$deb"; echo "version=$v"; echo "scc=$(command -v scc)"; } >>"$out"
}

cmd_check() {
  local sarif=${SCC_SARIF:-$tmp/scc.sarif} st=0
  words "${SCC_PATHS:-.}"
  echo "sarif=$sarif" >>"$out"
  # Locations relative to the repository's root, as code scanning expects.
  scc --check --diagnostics-format=sarif --sarif-root "${GITHUB_WORKSPACE:-$PWD}" "${W[@]}" >"$sarif" || st=$?
  local n
  n=$(grep -c '"ruleId"' "$sarif" || true)
  if [ "$st" -eq 0 ]; then
    echo "scc --check: ${W[*]}: no error ($n results)" >>"$summary"
  else
    echo "scc --check: ${W[*]}: status $st, $n results (SARIF: $sarif)" >>"$summary"
    # The diagnostics in the log too, as text, for who reads the job's output.
    scc --check "${W[@]}" >&2 || true
  fi
  exit "$st"
}

cmd_run() {
  local junit=${SCC_JUNIT:-$tmp/scvm-junit.xml} report=${SCC_REPORT:-$tmp/scvm-report} pack st=0
  words "${SCC_PATHS:-.}"
  local paths=("${W[@]}")
  words "${SCC_ARGS:-}"
  local args=("${W[@]}")
  if [ ${#paths[@]} -eq 1 ] && [[ "${paths[0]}" == *.scp ]]; then
    pack=${paths[0]}
  else
    pack="$tmp/scc-suite.scp"
    scc --pack -o "$pack" "${paths[@]}"
  fi
  { echo "junit=$junit"; echo "report=$report"; echo "pack=$pack"; } >>"$out"
  scvm run --junit "$junit" --report "$report" "${args[@]}" "$pack" || st=$?
  echo "scvm run: $pack: status $st (JUnit: $junit, report: $report/index.html)" >>"$summary"
  exit "$st"
}

case "${1:-}" in
install) cmd_install ;;
check) cmd_check ;;
run) cmd_run ;;
*) say "usage: action.sh install|check|run"; exit 2 ;;
esac
