#!/usr/bin/env bash
# The H200 runs behind docs/BENCHMARKS.md "gpuprobe verdicts on a healthy
# H200": gpuprobe's own checks back to back (no warning, no failure is the
# goal on a healthy, idle card) and the power at the cap against gpu_burn's
# hottest mode, in one run. From the repository root:
#
#   bash probe/stress/bench/verdict_run.sh OUTDIR STEP...
#
# Steps: info | gen (regenerate the PTX with nvcc into OUTDIR/ptx, SASS
# into OUTDIR/sass, and run the later steps on it through GPUPROBE_PTX_DIR) |
# tensor:S (`gpuprobe stress` of every test for S s a precision,
# its fault injection, then the peers on the same card: PyTorch's 8192³
# GEMMs (BF16, FP16, TF32, FP8 _scaled_mm) and copies, gpu_burn -tc, -d and
# FP32 for S s each under nvidia-smi dmon, and the ratios) |
# checks:N (default and --quick, N times back to back) |
# full (one --full, then a default check right after it) | burn (gpu_burn
# -d, -tc and FP32 for 20 s each under nvidia-smi dmon) | soak:D (check
# --soak D) | daemon:S (gpusla serve and `gpuprobe run` with a stress job
# every minute for S seconds, a SIGTERM in the middle of a stress job, a
# restart, then the export's verdicts). Expects .device/gpuprobe, .device/gpusla and gpu-burn's source in
# .peers/gpu-burn (both git-ignored). Nothing here changes clocks, power
# limits or modes.
set -uo pipefail
out=${1:?OUTDIR}; shift
probe=.device/gpuprobe
mkdir -p "$out"
summary() { # name of a check --json report
	python3 - "$1" <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
c=r.get("counts",{})
print("  exit %s, %s s, pass %s warn %s fail %s skipped %s" % (r.get("exit_code"), round(r.get("duration_ms",0)/1000,1), c.get("pass"), c.get("warn"), c.get("fail"), c.get("skipped")))
for x in r.get("checks",[]):
    n=x["name"]
    if x["verdict"] in ("warn","fail") or n.startswith("gpu.power") or n.startswith("gpu.soak") or n in ("gpu.utilization","gpu.processes"):
        print("   ", x["verdict"], n, x.get("gpu",""), "|", x.get("value",""), "|", x.get("detail","")[:200])
PY
}
check() { # label, flags...
	local label=$1; shift
	local t0; t0=$(date +%s.%N)
	$probe check --no-progress --json "$@" >"$out/check-$label.json" 2>"$out/check-$label.err"
	echo "check $label ($*): rc=$? wall=$(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"
	summary "$out/check-$label.json"
}
for step in "$@"; do
	case $step in
	info)
		date -u
		nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,power.limit,clocks.max.sm,temperature.gpu,power.draw --format=csv
		;;
	gen)
		mkdir -p "$out/ptx" "$out/sass"
		SASS_DIR="$out/sass" bash probe/kernels/gen.sh "$out/ptx" || exit 1
		export GPUPROBE_PTX_DIR="$out/ptx"
		;;
	tensor:*)
		secs=${step#tensor:}
		export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
		t0=$(date +%s.%N)
		$probe stress --duration "${secs}s" --json >"$out/stress.json" 2>"$out/stress.err"
		echo "stress ${secs}s: rc=$? wall=$(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"
		grep -E "level=(WARN|ERROR)|GPU ready" "$out/stress.err" | cut -c1-400
		# --force: NVML still shows the burns just run as utilisation.
		$probe stress --force --duration 2s --fault-inject --tests fp32,fp64,tf32,bf16,fp16,fp8,memtest --memtest-fraction 0.3 --json >"$out/fault.json" 2>/dev/null
		echo "fault injection: rc=$? (3 expected: failed checks)"
		cuda=$(dirname "$(dirname "$(command -v nvcc)")")
		(cd .peers/gpu-burn && make -s CUDAPATH="$cuda" COMPUTE=90 >/dev/null 2>&1)
		for mode in -tc -d ""; do
			nvidia-smi dmon -s pc -d 1 >"$out/dmon$mode.txt" 2>&1 &
			dm=$!
			(cd .peers/gpu-burn && ./gpu_burn $mode "$secs" 2>&1 | tr '\r' '\n' | grep -E "Gflop" | tail -1) >"$out/gpuburn$mode.txt"
			kill $dm 2>/dev/null; wait $dm 2>/dev/null
		done
		python3 probe/stress/bench/torch_peers.py >"$out/peers.json" 2>"$out/peers.err" || cat "$out/peers.err"
		python3 - "$out" <<'PY'
import json, re, statistics, sys, os
d = sys.argv[1]
r = json.load(open(d + "/stress.json"))
for g in r.get("gpus", []):
    print("gpu", g["index"], g["name"], "cc", g["compute_capability"], "ptx", g["ptx_variant"])
    for s in g.get("wgmma_sanity") or []:
        print("  sanity", s["precision"], s["kernel"], "passed" if s["passed"] else "FAILED", s["checked"], "checked", s["mismatches"], "wrong", s.get("error", ""))
burn = {}
for b in r.get("burns", []):
    m = b.get("monitor") or {}
    burn[b["precision"]] = (b.get("median_tflops", 0), m.get("power_mean_w", 0))
    print("burn %-4s %-40s median %7.1f min %7.1f cv %.4f wrong %d of %d, %d launches, grid %d, %.0f W (%.0f-%.0f), clk %.0f, %.0f C %s %s %s" % (
        b["precision"], b.get("engine", ""), b.get("median_tflops", 0), b.get("min_tflops", 0), b.get("cv", 0), b.get("mismatches", 0),
        b.get("checked", 0), b.get("launches", 0), b.get("grid_blocks", 0), m.get("power_mean_w", 0), m.get("power_min_w", 0),
        m.get("power_max_w", 0), m.get("sm_clock_median_mhz", 0), m.get("temp_peak_c", 0), b.get("fallback", ""), b.get("skipped", ""), b.get("error", "")))
bw = {x["test"]: x["best_gbs"] for x in r.get("bandwidth", []) if x.get("peer") is None}
for c in r.get("checks", []):
    if c["verdict"] != "pass":
        print("CHECK", c["verdict"], c["name"], "|", c.get("value", ""), "|", c.get("detail", "")[:300])
f = json.load(open(d + "/fault.json"))
for b in f.get("burns", []):
    print("fault", b["precision"], "mismatches", b["mismatches"], "of", b.get("checked"), "injected", b.get("fault_injected"), b.get("skipped", ""), b.get("error", ""))
for m in f.get("memtests", []):
    print("fault memtest bad_words", m["bad_words"])
gb = {}
for mode in ["-tc", "-d", ""]:
    txt = open(d + "/gpuburn%s.txt" % mode).read()
    g = re.findall(r"\((\d+) Gflop/s\)", txt)
    w = []
    for line in open(d + "/dmon%s.txt" % mode):
        p = line.split()
        if len(p) > 1 and p[0] == "0" and p[1].replace(".", "").isdigit() and float(p[1]) > 200:
            w.append(float(p[1]))
    w = w[2:]
    gb[mode] = (int(g[-1]) / 1000 if g else 0, statistics.median(w) if w else 0)
    print("gpu_burn %-3s %.1f TFLOP/s, %s W median (n=%d)" % (mode or "fp32", gb[mode][0], gb[mode][1], len(w)))
try:
    pe = json.load(open(d + "/peers.json"))
except Exception as e:
    pe = {}
    print("no PyTorch peers:", e)
print("torch", pe.get("torch"), {k: round(v["best"], 1) for k, v in pe.items() if isinstance(v, dict)})
def ratio(label, a, b, goal):
    if b:
        print("RATIO %-38s %8.1f / %8.1f = %.3f (goal %s)" % (label, a, b, a / b, goal))
get = lambda k: pe.get(k, {}).get("best", 0)
ratio("bf16 burn / torch bf16 8192^3", burn.get("bf16", (0,))[0], get("gemm_bf16"), ">= 0.95")
ratio("fp16 burn / torch fp16 8192^3", burn.get("fp16", (0,))[0], get("gemm_fp16"), ">= 0.95")
ratio("tf32 burn / gpu_burn -tc", burn.get("tf32", (0,))[0], gb["-tc"][0], ">= 1.0")
ratio("fp8 burn / torch _scaled_mm", burn.get("fp8", (0,))[0], get("gemm_fp8_e4m3"), ">= 0.9")
ratio("fp8 burn / torch _scaled_mm fast accum", burn.get("fp8", (0,))[0], get("gemm_fp8_e4m3_fast_accum"), ">= 0.9")
hot = max(v[1] for v in gb.values())
ratio("bf16 burn power W / gpu_burn hottest", burn.get("bf16", (0, 0))[1], hot, ">= 0.98")
ratio("fp32 burn / gpu_burn fp32", burn.get("fp32", (0,))[0], gb[""][0], ">= 1.28 (today)")
ratio("fp64 burn / gpu_burn -d", burn.get("fp64", (0,))[0], gb["-d"][0], ">= 1.19 (today)")
ratio("d2d copy / torch copy", max(bw.get("d2d_memcpy", 0), bw.get("d2d_kernel", 0)), get("d2d_copy_4GiB"), ">= 1.003 (today)")
PY
		;;
	checks:*)
		for i in $(seq "${step#checks:}"); do check "default-$i"; check "quick-$i" --quick; done
		;;
	full)
		check full --full
		check after-full
		;;
	soak:*)
		check soak --soak "${step#soak:}"
		;;
	burn)
		cuda=$(dirname "$(dirname "$(command -v nvcc)")")
		(cd .peers/gpu-burn && make -s CUDAPATH="$cuda" COMPUTE=90 >/dev/null 2>&1)
		for mode in -d -tc ""; do
			df=$out/dmon$mode.txt
			nvidia-smi dmon -s pc -d 1 >"$df" 2>&1 &
			dm=$!
			(cd .peers/gpu-burn && ./gpu_burn $mode 20 2>&1 | tr '\r' '\n' | grep -E "Gflop|errors|OK|FAULTY" | tail -2)
			kill $dm 2>/dev/null; wait $dm 2>/dev/null
			echo "gpu_burn ${mode:-fp32} power W (gpu 0, readings > 200 W, first two left out):"
			awk '$1==0 && $2+0>200 {print $2}' "$df" | tail -n +3 | sort -n | awk '{a[NR]=$1} END {if (NR) print "  n="NR" min="a[1]" median="a[int((NR+1)/2)]" max="a[NR]}'
		done
		;;
	daemon:*)
		secs=${step#daemon:}
		d=$(mktemp -d)
		export GPUSLA_TERMS=testdata/terms
		.device/gpusla node add --data "$d/data" --id h200-dev --provider lab --contract cn-example --gpu-model H200 --gpus 1 \
			--gpu-memory-gb 141 --heartbeat 10s --push 10s --backend-url http://127.0.0.1:18080/v1/batches >"$d/add.txt"
		.device/gpusla serve --data "$d/data" --listen 127.0.0.1:18080 --demo off >"$out/serve.log" 2>&1 &
		srv=$!
		for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/18080) 2>/dev/null && break; sleep 0.2; done
		sed -n 3p "$d/add.txt" >"$d/secret"; chmod 600 "$d/secret"
		cat >"$d/probe.yaml" <<YAML
node: h200-dev
backend: {url: "http://127.0.0.1:18080/v1/batches"}
secret_file: $d/secret
spool: {dir: $d/spool}
schedules: {heartbeat: 10s, push: 10s, health: 20s, network: "off", stress: "@every 1m", jitter: 1s}
stress: {quiet_window: "00:00-23:59", burn: 5s, timeout: 10m}
expected: {model: H200, gpus: 1, gpu_memory_gb: 141}
YAML
		GPUPROBE_STATE_DIR=$d/state $probe run --config "$d/probe.yaml" >"$out/probe-run1.log" 2>&1 &
		pr=$!
		sleep "$secs"; kill -TERM $pr; wait $pr; echo "probe stopped (SIGTERM) rc=$?"
		GPUPROBE_STATE_DIR=$d/state $probe run --config "$d/probe.yaml" >"$out/probe-run2.log" 2>&1 &
		pr=$!
		sleep 25; kill -TERM $pr; wait $pr
		kill $srv; wait $srv 2>/dev/null
		.device/gpusla export --data "$d/data" >"$out/export.jsonl" 2>"$out/export.err"; echo "export rc=$?"
		python3 - "$out/export.jsonl" <<'PY'
import json,sys,collections
n=collections.Counter(); bad=[]
for line in open(sys.argv[1]):
    e=json.loads(line)
    for c in e.get("checks") or []:
        n[(c["name"].split(".")[0]+"."+c["name"].split(".")[1] if "." in c["name"] else c["name"], c["verdict"])]+=1
        if c["verdict"] in ("warn","fail") or c["name"]=="gpu.stress.run": bad.append((e.get("at"), c["name"], c["verdict"], c.get("value",""), c.get("detail","")[:160]))
print("export: checks by family and verdict:", dict(sorted(n.items())))
for b in bad: print("  ", *b)
PY
		grep -E "level=(WARN|ERROR)" "$out/probe-run1.log" "$out/probe-run2.log" | cut -c1-240 | head -20
		;;
	*) echo "unknown step $step"; exit 1 ;;
	esac
done
date -u
