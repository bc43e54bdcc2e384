#!/usr/bin/env bash
# The event log's decoder and the monthly report, old build against new,
# on two quiet cores: the runs behind docs/BENCHMARKS.md "Event log decode".
# From the repository root, with two test binaries of functions/document
# built beforehand (CGO_ENABLED=0 go test -c -o DIR/{old,new}.test):
#   bash functions/document/bench/decode_run.sh OUTDIR BINDIR [ROUNDS]
# Each round runs old then new (then new then old), one after the other,
# pinned to CPUs 2 and 3 (not hyperthread siblings of each other).
set -euo pipefail
out=$1 bin=$(cd "$2" && pwd) rounds=${3:-5}
mkdir -p "$out"
cd functions/document
{ date -u; nproc; grep -m1 'model name' /proc/cpuinfo; cat /sys/devices/system/cpu/cpu2/topology/thread_siblings_list; uptime; } > "$out/machine.txt"
pin="taskset -c 2,3 env GOMAXPROCS=2"
for r in $(seq 1 "$rounds"); do
  order="old new"; (( r % 2 == 0 )) && order="new old"
  for b in $order; do
    taskset -c 2 env GOMAXPROCS=1 "$bin/$b.test" -test.run '^$' -test.bench '^BenchmarkDecodeMonth100NodesRuns$' \
      -test.benchmem -test.count 1 -test.cpu 1 >> "$out/decode.$b.txt" 2>&1
    $pin "$bin/$b.test" -test.run '^$' -test.bench '^BenchmarkMonthlyReport100NodesRuns$' \
      -test.benchmem -test.benchtime 3x -test.cpu 2 >> "$out/report.$b.txt" 2>&1
  done
done
uptime >> "$out/machine.txt"
grep -h Benchmark "$out"/*.txt | sort
