#!/usr/bin/env bash
# Footprint of the idle gpuprobe daemon beside node_exporter, measured in the
# same run: resident memory (VmRSS) and CPU (utime+stime from /proc/PID/stat)
# over a window between checks. Only loopback traffic: the probe pushes to a
# local test receiver and its gateway check points at 127.0.0.1.
#
#   scripts/bench-footprint.sh [SECONDS] [NODE_EXPORTER_BINARY]
#   SCRAPE_EVERY=15 scripts/bench-footprint.sh 120   # also scrape both /metrics every 15 s
#
# node_exporter is built OUTSIDE the repository, e.g.
#   (cd /tmp/peers/node_exporter && go build -o /tmp/peers/node_exporter.bin .)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
scrape=${SCRAPE_EVERY:-0}
nx=${2:-/tmp/peers/node_exporter.bin}
[ -x "$nx" ] || { echo "bench-footprint: node_exporter binary $nx not found (build it outside the repo)" >&2; exit 2; }
work=$(mktemp -d /tmp/gpuprobe-footprint.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

go build -trimpath -o "$work/gpuprobe" ./probe/cmd/gpuprobe 2>"$work/build.log" || { cat "$work/build.log" >&2; exit 1; }
go build -o "$work/receiverd" ./probe/push/pushtest/receiverd
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/secret"; chmod 600 "$work/secret"

"$work/receiverd" -node bench-node -secret-file "$work/secret" >"$work/recv.url" 2>"$work/recv.log" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/recv.url" ] && break; sleep 0.1; done
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
gport=$(freeport); nport=$(freeport)
cat >"$work/probe.yaml" <<YAML
node: bench-node
backend:
  url: $(cat "$work/recv.url")
secret_file: secret
network:
  gateway: {address: 127.0.0.1}
spool:
  dir: $work/spool
metrics:
  listen: 127.0.0.1:$gport
YAML
"$work/gpuprobe" run --config "$work/probe.yaml" 2>"$work/probe.log" &
gp=$!; pids+=($gp)
"$nx" --web.listen-address=127.0.0.1:$nport >"$work/nx.log" 2>&1 &
nxp=$!; pids+=($nxp)

sleep 5 # start-up is not idle
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
rss() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
t0=$(date +%s.%N); g0=$(ticks $gp); n0=$(ticks $nxp)
gmax=0; nmax=0
end=$(( $(date +%s) + secs ))
next_scrape=0; scrapes=0
while [ "$(date +%s)" -lt "$end" ]; do
  g=$(rss $gp); n=$(rss $nxp)
  (( g > gmax )) && gmax=$g; (( n > nmax )) && nmax=$n
  if (( scrape > 0 )) && (( $(date +%s) >= next_scrape )); then
    curl -fsS "http://127.0.0.1:$gport/metrics" >/dev/null && curl -fsS "http://127.0.0.1:$nport/metrics" >/dev/null
    scrapes=$((scrapes + 1)); next_scrape=$(( $(date +%s) + scrape ))
  fi
  sleep 1
done
t1=$(date +%s.%N); g1=$(ticks $gp); n1=$(ticks $nxp)
report() { # name ticks0 ticks1 rss_now rss_max
  awk -v n="$1" -v a="$2" -v b="$3" -v r="$4" -v m="$5" -v t0="$t0" -v t1="$t1" -v hz="$hz" 'BEGIN{
    el=t1-t0; cpu=(b-a)/hz; printf "%-14s RSS %6.1f MB (max %6.1f MB)   CPU %6.2f s over %5.1f s = %6.3f %% of a core\n", n, r/1024, m/1024, cpu, el, cpu/el*100 }'
}
echo "idle footprint over ${secs}s on $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ), /metrics of both scraped $scrapes times:"
report gpuprobe "$g0" "$g1" "$(rss $gp)" "$gmax"
report node_exporter "$n0" "$n1" "$(rss $nxp)" "$nmax"
grep -c '"heartbeat"' "$work"/spool/*.batch 2>/dev/null | true
kill -TERM $gp; wait $gp || { echo "gpuprobe did not stop cleanly" >&2; exit 1; }
