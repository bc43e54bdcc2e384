#!/usr/bin/env bash
# Two gpuprobe builds on the same GPUs, back to back: every stress path
# (the six burns with the wgmma sanity burn, device/host/peer copies, the
# memory test, the power test, NCCL's all-reduce, fault injection, a run
# stopped by SIGINT, the soak of `check --soak`) run by each, then the
# checks of the two compared name by name. For a change to the stress code
# that must not change what it measures or how it judges (a refactor): the
# same checks with the same verdicts is the pass; figures differ from run to
# run and are shown, not compared. From the repository root:
#
#   bash probe/stress/bench/compare_builds.sh OUTDIR OLD NEW [stress|check]...
#
# OLD and NEW are gpuprobe binaries (say .device/gpuprobe-old, built from
# the base commit, and .device/gpuprobe). Steps: stress (~2 min a build) and
# check (`check --soak 1m`, ~2.5 min a build); both by default. Every run
# uses --force: NVML still shows the previous build's burn as utilisation.
# Nothing here changes clocks, power limits or modes.
set -uo pipefail
out=${1:?OUTDIR}; old=${2:?OLD gpuprobe}; new=${3:?NEW gpuprobe}; shift 3
steps=${*:-stress check}
export NCCL_NVLS_ENABLE=0
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader
for step in $steps; do
	for b in old new; do
		p=$old; [ "$b" = new ] && p=$new
		case $step in
		stress)
			$p stress --force --duration 4s --tests fp32,fp64,tf32,bf16,fp16,fp8,bandwidth,memtest,power,allreduce \
				--memtest-fraction 0.3 --copy-mib 1024 --reps 3 --allreduce-max-mib 256 --json >"$out/$b-stress.json" 2>"$out/$b-stress.err"
			echo "$b stress: rc=$? (0 or 2)"
			$p stress --force --duration 2s --fault-inject --tests fp32,bf16,fp8,memtest --memtest-fraction 0.2 --json >"$out/$b-fault.json" 2>/dev/null
			echo "$b fault injection: rc=$? (3: failed checks)"
			timeout -s INT 6 "$p" stress --force --duration 30s --tests bf16 --json >"$out/$b-stopped.json" 2>/dev/null
			echo "$b stopped by SIGINT: rc=$? (1: stopped)"
			;;
		check)
			$p check --force --soak 1m --no-progress --json >"$out/$b-check.json" 2>"$out/$b-check.err"
			echo "$b check --soak 1m: rc=$?"
			;;
		esac
	done
done
python3 - "$out" $steps <<'PY'
import json, os, sys
d, steps = sys.argv[1], sys.argv[2:]
runs = {"stress": ["stress", "fault", "stopped"], "check": ["check"]}
bad = 0
def checks(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    return json.load(open(path)).get("checks") or []
for step in steps:
    for run in runs.get(step, []):
        a, b = checks(f"{d}/old-{run}.json"), checks(f"{d}/new-{run}.json")
        if a is None or b is None:
            print(f"{run}: no report from", "old" if a is None else "new"); bad += 1; continue
        key = lambda c: (c["name"], c.get("gpu"))
        va, vb = {key(c): c for c in a}, {key(c): c for c in b}
        diff = [k for k in sorted(set(va) | set(vb), key=str) if (va.get(k) or {}).get("verdict") != (vb.get(k) or {}).get("verdict")]
        counts = {}
        for c in b:
            counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
        print(f"{run}: {len(a)} checks old, {len(b)} new {counts}; {'SAME names and verdicts' if not diff else f'{len(diff)} DIFFER'}")
        for k in diff:
            print("   ", k, "old:", (va.get(k) or {}).get("verdict"), "new:", (vb.get(k) or {}).get("verdict"), "|", (vb.get(k) or va.get(k)).get("detail", "")[:160])
        bad += bool(diff)
        for c in b:
            if c["verdict"] in ("warn", "fail") or c["name"].startswith(("gpu.wgmma", "gpu.nccl", "gpu.power", "gpu.soak")) and c["name"].count(".") <= 3:
                print(f"    new {c['verdict']:7} {c['name']} [{c.get('gpu', '')}] {c.get('value', '')[:110]} {c.get('detail', '')[:110]}")
if "stress" in steps and os.path.exists(f"{d}/new-stress.json"):
    r = json.load(open(f"{d}/new-stress.json"))
    for g in r.get("gpus") or []:
        print("new gpu", g["index"], g["name"], "cc", g["compute_capability"], "wgmma_wanted", g.get("wgmma_wanted", False),
              "sanity passed", sum(s["passed"] for s in g.get("wgmma_sanity") or []), "of", len(g.get("wgmma_sanity") or []), g.get("wgmma_error", ""))
    for x in r.get("burns") or []:
        print(f"new burn gpu{x['gpu']} {x['precision']:4} {x.get('engine', '')[:34]:34} {x.get('median_tflops', 0):7.1f} TFLOP/s wrong {x.get('mismatches')} {x.get('fallback', '')}{x.get('skipped', '')}")
    ar = r.get("allreduce") or {}
    print("new allreduce:", len(ar.get("rows") or []), "rows, wrong", ar.get("wrong"), "of", ar.get("checked"), ar.get("skipped", ""), ar.get("error", ""))
print("RESULT:", "same checks and verdicts in every run" if not bad else f"{bad} run(s) differ (read the lines above: a verdict near its threshold may flip between runs)")
PY
