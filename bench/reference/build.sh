#!/bin/sh
# SPDX-License-Identifier: MIT
# build.sh - builds refbench (bench/reference/main.rs), a load + playback
# benchmark of the reference implementation, Agent Harbor's
# crates/ah-scenario-format, for `bench/run.py --reference PATH`
# (docs/performance.md, "The reference measured in the same run").
#
#   bench/reference/build.sh AGENT_HARBOR OUT
#
# AGENT_HARBOR is an agent-harbor checkout (or its crates/ah-scenario-format
# folder); OUT a folder this script creates or reuses.  It prints the path of
# the built program, OUT/target/release/refbench, on its last line.
#
# The crate is copied to OUT/ah-scenario-format and adapted there, nothing is
# changed in AGENT_HARBOR and none of its code is in this repository.  The
# build is offline, with Debian's cargo and rustc against the crates Debian
# packages in /usr/share/cargo/registry:
#   apt-get install cargo rustc librust-serde-dev librust-serde-derive-dev \
#     librust-serde-yaml-dev librust-serde-json-dev librust-thiserror-dev \
#     librust-strsim-dev
# Debian has serde_yaml 0.8 (the crate asks for 0.9) and strsim 0.10 (0.11):
#   - the manifest is replaced: the crate inherits versions from its
#     workspace, which is not copied; the versions are Debian's;
#   - serde_yaml 0.8's Mapping::get, remove and contains_key take &Value
#     (0.9: any index), and 0.8 has no Mapping::keys(): their call sites are
#     rewritten below, and the script stops if it finds none to rewrite.
# serde_yaml 0.8 also prints YAML differently (`---` first) where the crate
# dumps a value back to text; timing is what this is for.
set -eu

[ $# -eq 2 ] || { echo "usage: $0 AGENT_HARBOR_CHECKOUT OUT_DIR" >&2; exit 2; }
src=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$src/crates/ah-scenario-format/Cargo.toml" ] && src=$src/crates/ah-scenario-format
[ -f "$src/src/loader.rs" ] && [ -f "$src/src/playback.rs" ] ||
    { echo "$0: $1: not an agent-harbor checkout nor its crates/ah-scenario-format" >&2; exit 2; }
cargo=${CARGO:-/usr/bin/cargo}
rustc=${RUSTC:-/usr/bin/rustc}
registry=${DEB_CARGO_REGISTRY:-/usr/share/cargo/registry}
for f in "$cargo" "$rustc"; do
    [ -x "$f" ] || { echo "$0: $f missing: apt-get install cargo rustc (see this script's header)" >&2; exit 2; }
done
[ -d "$registry" ] || { echo "$0: $registry missing: apt-get install the librust-*-dev packages in this script's header" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
crate=$out/ah-scenario-format
rm -rf "$crate"
mkdir -p "$crate"
cp -R "$src/src" "$crate/src"

cat > "$crate/Cargo.toml" <<'TOML'
[package]
name = "ah-scenario-format"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_yaml = "0.8"
serde_json = "1"
thiserror = "1"
strsim = "0.10"
TOML

# serde_yaml 0.8: Mapping::{get,remove,contains_key}(&Value), no keys().
n=$(grep -Ec '\.(get|remove|contains_key)\(Value::String\(|map\.keys\(\)\.cloned\(\)' \
        "$crate/src/loader.rs" "$crate/src/model.rs" | awk -F: '{ s += $2 } END { print s }')
[ "$n" -gt 0 ] || { echo "$0: no serde_yaml 0.9 call site found to adapt: has the crate changed?" >&2; exit 1; }
sed -i -E 's/\.(get|remove|contains_key)\(Value::String\(/.\1(\&Value::String(/g' \
    "$crate/src/loader.rs" "$crate/src/model.rs"
sed -i 's/map\.keys()\.cloned()\.collect()/map.iter().map(|(k, _)| k.clone()).collect()/' "$crate/src/loader.rs"
echo "build.sh: adapted $n serde_yaml 0.9 call sites (loader.rs, model.rs)" >&2

bin=$out/refbench
mkdir -p "$bin/src"
cp "$here/main.rs" "$bin/src/main.rs"
cat > "$bin/Cargo.toml" <<'TOML'
[package]
name = "refbench"
version = "0.1.0"
edition = "2021"
license = "MIT"
publish = false

[dependencies]
ah-scenario-format = { path = "../ah-scenario-format" }
TOML

cat > "$out/Cargo.toml" <<'TOML'
[workspace]
members = ["ah-scenario-format", "refbench"]

[profile.release]
debug = 1
TOML

# A CARGO_HOME of its own: Debian's registry replaces crates.io, offline,
# and the user's ~/.cargo is neither read nor written.
mkdir -p "$out/cargo-home"
cat > "$out/cargo-home/config.toml" <<TOML
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "$registry"

[net]
offline = true
TOML

CARGO_HOME=$out/cargo-home RUSTC=$rustc "$cargo" build --release --offline \
    --manifest-path "$out/Cargo.toml" --target-dir "$out/target" -p refbench >&2
echo "$out/target/release/refbench"
