#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes Debian's (or Ubuntu's) source packages reachable: adds deb-src
# entries beside the deb ones when there are none, then apt-get update.
# The static binaries build cJSON from its source package (apt-get source
# cjson: cmake/static_cjson.cmake).  Used by setup-deps.sh and by the
# GitHub action's static install (scripts/action.sh).  Safe to run again.
set -euo pipefail
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ && exit 0
shopt -s nullglob
added=0
for f in /etc/apt/sources.list.d/*.sources; do
  # deb822 files (Debian 12's debian.sources, Ubuntu 24.04's ubuntu.sources): the same entries as deb-src
  case "$f" in */scc-deb-src*) continue ;; esac
  grep -q '^Types: deb$' "$f" || continue
  echo "deb-src: adding deb-src entries like $f's" >&2
  sed 's/^Types: deb$/Types: deb-src/' "$f" | $sudo tee "/etc/apt/sources.list.d/scc-deb-src-$(basename "$f")" >/dev/null
  added=1
done
if [ "$added" -eq 0 ] && [ -f /etc/apt/sources.list ]; then
  echo "deb-src: adding deb-src lines like /etc/apt/sources.list's" >&2
  sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | $sudo tee /etc/apt/sources.list.d/scc-deb-src.list >/dev/null
fi
$sudo apt-get update -qq
