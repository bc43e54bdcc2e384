#!/usr/bin/env bash
# BenchmarkScorecardYear (sla/scorecard/bench_test.go: 100 nodes × the 12
# months of 2026, ~250 MB of the backend's export form, streamed into 12
# month reports and the scorecard) old against new on two CPUs, for
# docs/BENCHMARKS.md ("Provider scorecard over a year", goal ≤ 5 s on 2
# cores). One command, from anywhere inside the repository:
#
#   bash sla/scorecard/bench/run2core.sh OUTDIR
#   BASE=e0204ff bash sla/scorecard/bench/run2core.sh OUTDIR
#
# new is the working tree as it stands (uncommitted changes included); old is
# BASE, by default the merge base of HEAD with main, unpacked with git
# archive into a temporary directory. Both test binaries are built by the
# same Go, offline (GOPROXY=off: the module cache must hold the modules, as
# it does wherever the tree has been built), then run alternately, RUNS
# times each (5), one op per run (-test.benchtime 1x), pinned to CPUS with
# taskset and GOMAXPROCS=2. CPUS defaults to CPU 0 and the first CPU that is
# not a hyperthread sibling of it (two cores, not one core's two threads).
# Needs bash, Go, git and the usual Linux userland; /usr/bin/time (max RSS)
# and benchstat are used if there.
#
# OUTDIR gets old.bench and new.bench (the benchmark's own lines, benchstat's
# input), raw.tsv (every run: the op's wall, the op's CPU, peak live heap,
# allocation, the process's wall/user/sys/max RSS with the log's generation,
# the load average before the run), compare.txt (benchstat's comparison, or
# medians and ratios where benchstat is absent) and env.txt (machine, Go,
# commits). The benchmark's own figures are the ones to quote: ns/op and
# cpu-s/op cover the op alone (the log is generated before the timer).
set -euo pipefail

out=${1:?usage: run2core.sh OUTDIR}
runs=${RUNS:-5}

# two CPUs on two cores: 0, and the first CPU not among 0's thread siblings
# (listed as "0,8" or "0-1").
two_cores() {
	local sib=/sys/devices/system/cpu/cpu0/topology/thread_siblings_list part x c
	local -A same=([0]=1)
	if [ -r "$sib" ]; then
		IFS=, read -ra parts <"$sib"
		for part in "${parts[@]}"; do
			for ((x = ${part%-*}; x <= ${part#*-}; x++)); do same[$x]=1; done
		done
	fi
	for ((c = 1; c < $(nproc); c++)); do
		if [ -z "${same[$c]:-}" ]; then
			echo "0,$c"
			return
		fi
	done
	echo "0,1"
}
cpus=${CPUS:-$(two_cores)}
root=$(git rev-parse --show-toplevel)
base=${BASE:-$(git -C "$root" merge-base HEAD main)}
base=$(git -C "$root" rev-parse --verify "$base^{commit}")
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export GOPROXY=off GOFLAGS=-buildvcs=false GOTOOLCHAIN=local CGO_ENABLED=0

{
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -srm), $(nproc) CPUs online, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "go: $(go version)"
	echo "new: $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet HEAD -- . 2>/dev/null || echo ' + uncommitted changes')"
	echo "old: $base"
	echo "runs: $runs each, alternately, one op per run, CPUs $cpus, GOMAXPROCS=2"
	for c in ${cpus//,/ }; do
		echo "cpu$c thread siblings: $(cat "/sys/devices/system/cpu/cpu$c/topology/thread_siblings_list" 2>/dev/null || echo unknown)"
	done
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/env.txt"

echo "== building (offline)"
(cd "$root" && go test -c -o "$tmp/new.test" ./sla/scorecard/)
mkdir "$tmp/old"
git -C "$root" archive "$base" | tar -x -C "$tmp/old"
(cd "$tmp/old" && go test -c -o "$tmp/old.test" ./sla/scorecard/)

pin=(taskset -c "$cpus")
if ! command -v taskset >/dev/null; then
	echo "WARNING: no taskset (util-linux): runs are NOT pinned, only GOMAXPROCS=2" | tee -a "$out/env.txt"
	pin=()
fi
timev=()
if [ -x /usr/bin/time ] && /usr/bin/time -v true 2>/dev/null; then
	timev=(/usr/bin/time -v -o "$tmp/time.txt")
fi

# metric NAME LINE: the value before unit NAME on a benchmark line.
metric() { awk -v u="$1" '{for (i = 2; i <= NF; i++) if ($i == u) {print $(i-1); exit}}' <<<"$2"; }

: >"$out/old.bench"
: >"$out/new.bench"
printf 'side\trun\top_wall_s\top_cpu_s\tpeak_heap_MiB\talloc_GiB\tallocs_M\tproc_wall_s\tproc_user_s\tproc_sys_s\tmax_rss_MiB\tload1_before\n' >"$out/raw.tsv"
for i in $(seq 1 "$runs"); do
	for side in old new; do
		if [ "$side" = old ]; then dir=$tmp/old/sla/scorecard; else dir=$root/sla/scorecard; fi
		load=$(cut -d' ' -f1 /proc/loadavg)
		rm -f "$tmp/time.txt"
		TIMEFORMAT='%R %U %S'
		{ time (cd "$dir" && GOMAXPROCS=2 "${timev[@]}" "${pin[@]}" "$tmp/$side.test" \
			-test.run '^$' -test.bench '^BenchmarkScorecardYear$' -test.benchtime 1x >"$tmp/run.txt" 2>&1); } 2>"$tmp/bashtime.txt"
		line=$(grep '^BenchmarkScorecardYear' "$tmp/run.txt" || true)
		if [ -z "$line" ]; then
			echo "run $i $side FAILED:" >&2
			cat "$tmp/run.txt" >&2
			exit 1
		fi
		# benchstat's input: the header lines once, then each run's result.
		if [ ! -s "$out/$side.bench" ]; then grep -E '^(goos|goarch|pkg|cpu):' "$tmp/run.txt" >>"$out/$side.bench" || true; fi
		echo "$line" >>"$out/$side.bench"
		read -r pwall puser psys <"$tmp/bashtime.txt"
		rss=
		if [ -s "$tmp/time.txt" ]; then
			rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$tmp/time.txt")
		fi
		ns=$(metric ns/op "$line")
		bop=$(metric B/op "$line")
		aop=$(metric allocs/op "$line")
		printf '%s\t%d\t%.3f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$side" "$i" \
			"$(awk -v n="$ns" 'BEGIN {print n/1e9}')" "$(metric cpu-s/op "$line")" "$(metric peak-heap-MB "$line")" \
			"$(awk -v n="$bop" 'BEGIN {if (n != "") printf "%.3f", n/1073741824}')" \
			"$(awk -v n="$aop" 'BEGIN {if (n != "") printf "%.2f", n/1e6}')" \
			"$pwall" "$puser" "$psys" "$rss" "$load" | tee -a "$out/raw.tsv"
	done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/env.txt"

bs=$(command -v benchstat || true)
[ -z "$bs" ] && [ -x "$(go env GOPATH)/bin/benchstat" ] && bs=$(go env GOPATH)/bin/benchstat
{
	if [ -n "$bs" ]; then
		(cd "$out" && "$bs" old.bench new.bench)
		echo
	fi
	# Medians of the runs, and how often new beat old: with 5 runs each, new
	# below old in all 25 pairs is p = 0.008 (Mann-Whitney U, two-sided),
	# benchstat's test.
	awk -F'\t' '
		NR == 1 { for (c = 3; c <= NF; c++) name[c] = $c; nc = NF; next }
		{ s = $1; n[s]++; for (c = 3; c <= nc; c++) v[s, c, n[s]] = $c }
		function med(s, c,   k, m, a, i, j, t) {
			m = n[s]; for (i = 1; i <= m; i++) a[i] = v[s, c, i] + 0
			for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
			return m % 2 ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
		}
		END {
			printf "%-14s %12s %12s %8s %s\n", "median of " n["old"] "/" n["new"], "old", "new", "new/old", "pairs new<old"
			for (c = 3; c <= nc; c++) {
				if (name[c] == "load1_before" || v["old", c, 1] == "" || v["new", c, 1] == "") continue
				o = med("old", c); w = med("new", c); below = 0
				for (i = 1; i <= n["old"]; i++) for (j = 1; j <= n["new"]; j++) if (v["new", c, j] + 0 < v["old", c, i] + 0) below++
				printf "%-14s %12.3f %12.3f %8.2f %d/%d\n", name[c], o, w, (o ? w / o : 0), below, n["old"] * n["new"]
			}
		}' "$out/raw.tsv"
} | tee "$out/compare.txt"
