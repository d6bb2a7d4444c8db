#!/bin/sh
# SPDX-License-Identifier: MIT
# A long fuzz run that counts the processor's time, not the clock's.
#
#   scripts/fuzz-long.sh BUILD-FUZZ TARGET CPU-SECONDS [libFuzzer options...]
#
# Runs BUILD-FUZZ/tests/TARGET on a fresh corpus folder (fuzz-runs/TARGET/corpus,
# seeded from tests/fuzz/<target's corpus>) until it has executed 10,000,000
# inputs or used CPU-SECONDS of processor time (all its threads), whichever
# comes first, then interrupts it the way Ctrl-C would so libFuzzer prints its
# final statistics. On a shared machine a run at the lowest priority gets what
# the other work leaves; counting processor time keeps "one hour" one hour of
# fuzzing. The log is fuzz-runs/TARGET/log; the last line of the log says how
# far it went. Findings (crash-*, leak-*, timeout-*) land in fuzz-runs/TARGET/.
# The server targets need FUZZ_SERVE_PACK, as docs/fuzzing.md says.
set -eu
if [ $# -lt 3 ]; then
	echo "usage: scripts/fuzz-long.sh BUILD-FUZZ TARGET CPU-SECONDS [libFuzzer options...]" >&2
	exit 2
fi
build=$1 target=$2 limit=$3
shift 3
bin=$(cd "$build" && pwd)/tests/$target
[ -x "$bin" ] || { echo "fuzz-long: no fuzzer $bin (build it with -DSCC_FUZZ=ON)" >&2; exit 2; }
case $target in
fuzz_http_client) seeds=httpc-corpus ;;
fuzz_aut_acp) seeds=aut-acp-corpus ;;
*) seeds=${target#fuzz_}-corpus ;;
esac
root=$(pwd)
dir=$root/fuzz-runs/$target
mkdir -p "$dir/corpus"
tick=$(getconf CLK_TCK)
cd "$dir"
start=$(date -u '+%Y-%m-%d %H:%M')
"$bin" corpus "$root/tests/fuzz/$seeds" -runs=10000000 -print_final_stats=1 "$@" >log 2>&1 &
pid=$!
used=0
while kill -0 "$pid" 2>/dev/null; do
	# utime + stime of the process, every thread included (proc(5) fields 14, 15)
	t=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}') || t=
	[ -n "$t" ] && used=$((t / tick))
	if [ "$used" -ge "$limit" ]; then
		kill -INT "$pid" 2>/dev/null || true
		break
	fi
	sleep 5
done
status=0
wait "$pid" || status=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' log | tail -n 1)
echo "fuzz-long: $target started $start UTC, ${execs:-?} inputs, ${used} s of processor time, exit $status" | tee -a log
