#!/usr/bin/env bash
# The side-by-side benchmark of `gpuprobe stress` and its peers, as run on
# the lent H200 machines for docs/BENCHMARKS.md. From the repository root:
#
#   bash probe/stress/bench/device_run.sh OUTDIR [BURN_SECONDS] [gen]
#
# Expects .device/gpuprobe (go build -o .device/gpuprobe ./probe/cmd/gpuprobe)
# and gpu-burn's source in .peers/gpu-burn (git-ignored; never committed).
# With "gen" it first regenerates the PTX with nvcc into OUTDIR and runs the
# probe on that PTX (GPUPROBE_PTX_DIR). Nothing here changes clocks, power
# limits or modes.
set -uo pipefail
out=${1:?OUTDIR}; secs=${2:-20}; gen=${3:-}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
mkdir -p "$out"
log="$out/log.txt"
exec > >(tee -a "$log") 2>&1
date -u
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,power.limit,clocks.max.sm --format=csv
nvidia-smi topo -m || true
if [ "$gen" = gen ]; then
	bash probe/kernels/gen.sh "$out" && export GPUPROBE_PTX_DIR="$out"
	# Fresh kernels must prove themselves before the recorded run: a short
	# burn of each precision with no wrong value, else the embedded PTX runs.
	if [ -n "${GPUPROBE_PTX_DIR:-}" ]; then
		.device/gpuprobe stress --duration 2s --tests fp32,fp64,tf32,bf16,fp16,fp8 --json >/tmp/sanity.json 2>/dev/null
		if ! python3 -c "import json,sys; r=json.load(open('/tmp/sanity.json')); b=r['burns']; sys.exit(0 if b and all(x['mismatches']==0 and not x.get('error') and not x.get('skipped') for x in b) else 1)"; then
			echo "NEW PTX REJECTED by the sanity burn; using the embedded PTX"; python3 -c "import json; [print(x['gpu'],x['precision'],x['mismatches'],x.get('first_bad',[])[:2],x.get('error','')) for x in json.load(open('/tmp/sanity.json'))['burns']]"
			unset GPUPROBE_PTX_DIR
		else
			echo "new PTX passed the sanity burn"
		fi
	fi
fi
probe=.device/gpuprobe
echo "== probe/cuda tests on the GPU (go test -c -o .device/cuda.test ./probe/cuda)"
[ -x .device/cuda.test ] && .device/cuda.test -test.v 2>&1 | grep -E "^(---|ok|PASS|FAIL)"
echo "== gpuprobe stress (all tests, ${secs}s a precision)"
start=$(date +%s.%N)
$probe stress --duration "${secs}s" --json >"$out/stress.json" 2>/tmp/stress.err; echo "rc=$? wall=$(python3 -c "print(round($(date +%s.%N)-$start,1))")s"
grep -E "level=(WARN|ERROR)|GPU ready" /tmp/stress.err | cut -c1-300
python3 - "$out/stress.json" <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
for b in r.get("burns",[]):
    m=b.get("monitor") or {}
    print("burn gpu%d %-4s %-14s median %7.1f min %7.1f cv %.4f wrong %d/%d launches %d power %.0fW (%.0f-%.0f) temp %.0fC clk %.0f events %s %s %s" % (b["gpu"], b["precision"], b.get("engine",""), b.get("median_tflops",0), b.get("min_tflops",0), b.get("cv",0), b.get("mismatches",0), b.get("checked",0), b.get("launches",0), m.get("power_mean_w",0), m.get("power_min_w",0), m.get("power_max_w",0), m.get("temp_peak_c",0), m.get("sm_clock_median_mhz",0), m.get("event_samples"), b.get("skipped",""), b.get("error","")))
for x in r.get("bandwidth",[]):
    print("bw gpu%d->%s %-10s best %8.1f median %8.1f GB/s bad %d %s %s" % (x["gpu"], x.get("peer","-"), x["test"], x["best_gbs"], x["median_gbs"], x["bad_words"], x.get("skipped",""), x.get("error","")))
for m in r.get("memtests",[]):
    print("memtest gpu%d %.1f GiB passes %d bad %d %.0f GB/s %.1fs %s" % (m["gpu"], m["bytes"]/2**30, m["passes"], m["bad_words"], m.get("write_read_gbs",0), m.get("seconds",0), m.get("error","")))
for c in r.get("checks",[]):
    if c["verdict"]!="pass": print("CHECK", c["verdict"], c["name"], c.get("gpu"), c.get("value",""), c.get("detail",""))
PY
echo "== gpuprobe stress --fault-inject (must fail, with one wrong value a burn and one bad word)"
$probe stress --duration 3s --fault-inject --tests fp32,fp64,tf32,bf16,fp16,fp8,memtest --memtest-fraction 0.3 --json >"$out/fault.json" 2>/dev/null; echo "rc=$? (2 expected)"
python3 - "$out/fault.json" <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
for b in r.get("burns",[]): print("fault", b["gpu"], b["precision"], "mismatches", b["mismatches"], "injected", b.get("fault_injected"), b.get("skipped",""), b.get("error",""))
for m in r.get("memtests",[]): print("fault memtest", m["gpu"], "bad_words", m["bad_words"], m.get("bad_addresses"))
PY
echo "== gpuprobe check (default: 30 s burn, bandwidth, memory test)"
start=$(date +%s.%N)
$probe check --no-progress >/tmp/check.txt 2>&1; echo "check rc=$? wall=$(python3 -c "print(round($(date +%s.%N)-$start,1))")s"
grep -E "gpu\.(burn|bw|memtest|nvlink|stress)|checks:" /tmp/check.txt | cut -c1-220 | head -60
echo "== gpu_burn"
cuda=$(dirname "$(dirname "$(command -v nvcc)")")
( cd .peers/gpu-burn && make -s CUDAPATH="$cuda" COMPUTE=90 >/dev/null 2>&1 || make CUDAPATH="$cuda" COMPUTE=90 2>&1 | tail -5 )
for mode in "" "-d" "-tc"; do
	df=/tmp/dmon$mode.txt
	nvidia-smi dmon -s pc -d 1 >"$df" 2>&1 & dm=$!
	( cd .peers/gpu-burn && ./gpu_burn $mode "$secs" 2>&1 | tr '\r' '\n' | grep -E "Gflop|errors|OK|FAULTY|Tested" | tail -4 )
	kill $dm 2>/dev/null; wait $dm 2>/dev/null
	echo "gpu_burn $mode power (W, gpu0, under load):"; awk '$1==0 && $2+0>200 {print $2}' "$df" | sort -n | awk '{a[NR]=$1} END {if (NR) print "n="NR" min="a[1]" median="a[int((NR+1)/2)]" max="a[NR]}'
	echo "# gpu_burn $mode" >>"$out/dmon.txt"; cat "$df" >>"$out/dmon.txt"
done
echo "== PyTorch peers"
python3 probe/stress/bench/torch_peers.py >"$out/peers.json"; cat "$out/peers.json"
date -u
