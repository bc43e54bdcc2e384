#!/usr/bin/env bash
# The power test beside gpu_burn on the same card, in one command, as run on
# the lent H200 machine for docs/BENCHMARKS.md ("Power burn"). From the
# repository root:
#
#   bash probe/stress/bench/power_run.sh OUTDIR [SECONDS]
#
# Expects .device/gpuprobe (go build -o .device/gpuprobe ./probe/cmd/gpuprobe)
# and gpu-burn's source in .peers/gpu-burn (git-ignored; never committed).
# It regenerates the PTX with nvcc into OUTDIR/ptx and runs the probe on it
# (GPUPROBE_PTX_DIR), then gpu_burn (FP32, its default) for the same time
# with `nvidia-smi dmon -s p -d 1`. The probe runs first, so gpu_burn gets
# the warmer card (warmth raises power: this favours the peer). Nothing here
# changes clocks, power limits or modes.
set -uo pipefail
out=${1:?OUTDIR}; secs=${2:-20}
mkdir -p "$out/ptx"
exec > >(tee -a "$out/log.txt") 2>&1
date -u
nvidia-smi --query-gpu=index,name,driver_version,power.limit,power.default_limit,clocks.max.sm,temperature.gpu --format=csv
cuda=$(dirname "$(dirname "$(command -v nvcc)")")
( cd .peers/gpu-burn && make -s CUDAPATH="$cuda" COMPUTE=90 >/tmp/gpuburn-build.log 2>&1 ) &
build=$!
if bash probe/kernels/gen.sh "$out/ptx"; then
	export GPUPROBE_PTX_DIR="$out/ptx"
else
	echo "gen.sh FAILED: the embedded PTX runs (it has no power kernel)"
fi
echo "== gpuprobe stress --tests power --duration ${secs}s"
start=$(date +%s.%N)
.device/gpuprobe stress --tests power --duration "${secs}s" --json >"$out/power.json" 2>/tmp/power.err
echo "rc=$? wall=$(python3 -c "print(round($(date +%s.%N)-$start,1))")s"
grep -E "level=(WARN|ERROR)|GPU ready|msg=power" /tmp/power.err | cut -c1-400
python3 - "$out/power.json" <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
for p in r.get("power",[]):
    m=p.get("monitor") or {}
    for t in p.get("tuning",[]): print("tune mem_every %d shared_ops %-5s %6.1f W %6.1f TFLOP/s %6.0f GB/s %.1fs" % (t["mem_every"], t["shared_ops"], t["power_w"], t["tflops"], t["copy_gbs"], t["seconds"]))
    print("power gpu%d mix %s (%s): %.1f W mean %.0f-%.0f +-%.2f%% limit %.0f | %.1f TFLOP/s, copy %.0f GB/s | wrong %d/%d copy bad %d/%d launches %d | temp %.0f C clk %.0f events %s tune %s xids %s | samples %s %s %s" % (
        p["gpu"], p.get("mix"), p.get("tuned",""), m.get("power_mean_w",0), m.get("power_min_w",0), m.get("power_max_w",0), m.get("power_fluct_pct",0), m.get("power_limit_w",0),
        p.get("median_tflops",0), p.get("copy_gbs",0), p.get("mismatches",0), p.get("checked",0), p.get("copy_bad_words",0), p.get("copy_words_checked",0), p.get("launches",0),
        m.get("temp_peak_c",0), m.get("sm_clock_median_mhz",0), m.get("event_samples"), p.get("tune_events"), m.get("xids"), m.get("power_samples_w"), p.get("skipped",""), p.get("error","")))
for c in r.get("checks",[]):
    print("CHECK", c["verdict"], c["name"], c.get("value",""), c.get("detail",""))
PY
wait $build; tail -3 /tmp/gpuburn-build.log; ls -l .peers/gpu-burn/gpu_burn
echo "== gpu_burn ${secs}"
nvidia-smi dmon -s p -d 1 >"$out/dmon.txt" 2>&1 &
dm=$!
( cd .peers/gpu-burn && ./gpu_burn "$secs" 2>&1 | tr '\r' '\n' | grep -E "Gflop|errors|OK|FAULTY|Tested" | tail -3 )
kill $dm 2>/dev/null; wait $dm 2>/dev/null
echo "gpu_burn power, W (gpu0 dmon samples above 200 W, first two left out as the probe does):"
awk '$1==0 && $2+0>200 {print $2}' "$out/dmon.txt" | tail -n +3 | sort -n | awk '{a[NR]=$1; s+=$1} END {if (NR) printf "n=%d min=%s median=%s max=%s mean=%.1f\n", NR, a[1], a[int((NR+1)/2)], a[NR], s/NR}'
python3 - "$out/power.json" "$out/dmon.txt" <<'PY'
import json,sys,statistics
r=json.load(open(sys.argv[1]))
ours=[(p.get("monitor") or {}).get("power_mean_w",0) for p in r.get("power",[])]
peer=[float(l.split()[1]) for l in open(sys.argv[2]) if l.split() and l.split()[0]=="0" and l.split()[1].replace('.','',1).isdigit() and float(l.split()[1])>200][2:]
if ours and peer:
    print("RESULT ours %.1f W, gpu_burn median %.1f W mean %.1f W, ratio (median) %.3f" % (ours[0], statistics.median(peer), statistics.mean(peer), ours[0]/statistics.median(peer)))
PY
nvidia-smi --query-gpu=temperature.gpu,power.draw --format=csv
date -u
