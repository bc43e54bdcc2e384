#!/usr/bin/env bash
# The H200 runs behind docs/BENCHMARKS.md "gpuprobe verdicts on a healthy
# H200": gpuprobe's own checks back to back (no warning, no failure is the
# goal on a healthy, idle card) and the power at the cap against gpu_burn's
# hottest mode, in one run. From the repository root:
#
#   bash probe/stress/bench/verdict_run.sh OUTDIR STEP...
#
# Steps: info | checks:N (default and --quick, N times back to back) |
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
