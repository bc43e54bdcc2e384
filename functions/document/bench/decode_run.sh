#!/usr/bin/env bash
# The event log's decoder and the monthly report, builds against each other
# on quiet cores: the runs behind docs/BENCHMARKS.md "event log decode".
# From the repository root, with test binaries of functions/document built
# beforehand, one per build (CGO_ENABLED=0 go test -c -o DIR/NAME.test), e.g.
# old.test (the commit before a change) and new.test:
#   bash functions/document/bench/decode_run.sh OUTDIR BINDIR [ROUNDS]
# Each round runs every build once, one after the other, the order rotated
# from round to round; the decoder on one CPU, the report on two: CPUs 2 and
# 3 (not hyperthread siblings of each other on the device machine) where the
# machine has four or more, else unpinned with GOMAXPROCS 1 and 2.
set -euo pipefail
out=$1 bin=$(cd "$2" && pwd) rounds=${3:-5}
mkdir -p "$out"
cd functions/document
builds=()
for f in "$bin"/*.test; do builds+=("$(basename "$f" .test)"); done
{ date -u; nproc; grep -m1 'model name' /proc/cpuinfo; cat /sys/devices/system/cpu/cpu2/topology/thread_siblings_list 2>/dev/null || true; uptime; echo "builds: ${builds[*]}"; } > "$out/machine.txt"
one="taskset -c 2" two="taskset -c 2,3"
if (( $(nproc) < 4 )); then one="" two=""; fi
n=${#builds[@]}
for r in $(seq 1 "$rounds"); do
  for i in $(seq 0 $((n - 1))); do
    b=${builds[$(((i + r) % n))]}
    $one env GOMAXPROCS=1 "$bin/$b.test" -test.run '^$' -test.bench '^BenchmarkDecodeMonth100NodesRuns$' \
      -test.benchmem -test.count 1 -test.cpu 1 >> "$out/decode.$b.txt" 2>&1
    $two env GOMAXPROCS=2 "$bin/$b.test" -test.run '^$' -test.bench '^BenchmarkMonthlyReport100NodesRuns$' \
      -test.benchmem -test.benchtime 3x -test.cpu 2 >> "$out/report.$b.txt" 2>&1
  done
done
uptime >> "$out/machine.txt"
for f in "$out"/decode.*.txt "$out"/report.*.txt; do echo "== $(basename "$f")"; grep Benchmark "$f"; done
