#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages scc/scvm need to build and test, when they are
# missing. Safe to run repeatedly: does nothing when everything is present.
set -euo pipefail

# Libraries and tools, by Debian package name.
pkgs=(build-essential cmake pkg-config python3 python3-yaml git pre-commit
      libyaml-dev libxxhash-dev libvterm-dev libzstd-dev libcjson-dev)
pkgs+=(less tmux)  # PTY tests: a full-screen program, and tmux as a second terminal emulator
pkgs+=(wrk)        # bench/run.py: load on scvm serve llm (issue 6, speed)
pkgs+=(expect)      # bench/run.py: PTY round trips against expect(1) in the same run (issue 35 item 1)
pkgs+=(nginx-light) # bench/run.py: serve llm against nginx serving the same bytes (issue 35 item 2); not left running as a service (below)
pkgs+=(vim-tiny htop) # PTY tests: the issue's real full-screen programs (vim.tiny -u NONE, htop)
pkgs+=(asciinema)   # PTY tests: scvm's --cast recordings must play in asciinema
pkgs+=(curl)        # rest.api: the REST calls made as a user makes them
pkgs+=(strace)      # pack.linear: the system calls a pack build makes per scenario, counted
pkgs+=(zstd)        # formats.doc_zstd_cli: the docs' zstd command lines reproduce scc's frames
pkgs+=(python3-junitparser) # cli.junit: the reports read by a real JUnit reader
pkgs+=(python3-jsonschema)  # cli.schemas: the JSON Schemas checked by a real validator
pkgs+=(meson)      # pack.install: a Meson project finds libscc with dependency('scc')
pkgs+=(lintian)    # ship.deb: the Debian package has no lintian error
pkgs+=(dpkg-dev)   # ship.static: apt-get source cjson (dpkg-source) for the static binaries' cJSON
pkgs+=(bash-completion zsh fish groff-base) # cli.completions, cli.man: the generated completions load in each shell; the man pages render
pkgs+=(neovim)     # editors.nvim: docs/editors.md's Neovim configuration run headless against scc --lsp
pkgs+=(chromium fonts-dejavu-core fonts-wqy-microhei) # report tests: headless Chromium screenshots the pictures (a monospace and a CJK font, so reference PNGs match)

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

# ship.static builds cJSON from Debian's source package (apt-get source
# cjson): that needs deb-src entries beside the deb ones.
"$(dirname "$0")/deb-src.sh"

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm run the real client SDKs and validators the tests use.
# Checked by command: machines may carry a nodejs build that bundles npm.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
# nginx is a program the benchmark starts on a port of its own, never a
# service: while it installs, a policy-rc.d (if there is none) keeps
# invoke-rc.d and deb-systemd-invoke from starting it on port 80, and a
# systemd machine does not start it at boot either.
nginx_new=false
policy_ours=false
case " ${missing[*]} " in *" nginx-light "*) nginx_new=true ;; esac
if $nginx_new && [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
  $sudo chmod 755 /usr/sbin/policy-rc.d
  policy_ours=true
fi
status=0
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" || status=$?
$policy_ours && $sudo rm -f /usr/sbin/policy-rc.d
if $nginx_new && command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  $sudo systemctl disable --now nginx >/dev/null 2>&1 || true
fi
exit $status
