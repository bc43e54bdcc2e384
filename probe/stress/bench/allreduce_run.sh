#!/usr/bin/env bash
# The all-reduce runs behind docs/BENCHMARKS.md "NCCL all-reduce": on the
# GPU machine, gpuprobe's all-reduce (`gpuprobe stress --tests allreduce`)
# and its two peers back to back, on every GPU of the machine, with the
# same libnccl (the one PyTorch's nvidia-nccl wheel ships):
#   - nccl-tests' all_reduce_perf, built here from its source in
#     .peers/nccl-tests (git-ignored; never committed), one process driving
#     every GPU (-g N) as gpuprobe does, float32 and bfloat16;
#   - torch.distributed.all_reduce, one process per GPU
#     (torch_allreduce.py).
# From the repository root: bash probe/stress/bench/allreduce_run.sh OUTDIR
# Expects .device/gpuprobe. NVLink multicast stays off in every run, and
# nothing here changes clocks, power limits or modes.
set -uo pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
ngpu=$(nvidia-smi --list-gpus | wc -l)
max=$((1 << 30))
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv | tee "$out/gpus.csv"
nvidia-smi topo -m | tee "$out/topo.txt"
ncclpkg=$(python3 -c 'import nvidia.nccl, os; print(list(nvidia.nccl.__path__)[0])')
lib="$ncclpkg/lib/libnccl.so.2"
python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())' | tee "$out/torch.txt"
# nccl-tests links -lnccl: give it a home with the wheel's header and library.
home=$(mktemp -d)
mkdir -p "$home/lib" && ln -s "$ncclpkg/include" "$home/include" && ln -s "$lib" "$home/lib/libnccl.so" && ln -s "$lib" "$home/lib/libnccl.so.2"
t0=$(date +%s)
make -C .peers/nccl-tests -j"$(nproc)" MPI=0 NCCL_HOME="$home" CUDA_HOME=/usr/local/cuda NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR="$home/build" >"$out/nccl-tests-build.log" 2>&1 || { tail -30 "$out/nccl-tests-build.log"; }
echo "nccl-tests built in $(( $(date +%s) - t0 )) s"
export LD_LIBRARY_PATH="$home/lib:${LD_LIBRARY_PATH:-}"
for round in 1 2; do
	GPUPROBE_NCCL_LIBRARY="$lib" .device/gpuprobe stress --tests allreduce --allreduce-max-mib $((max >> 20)) --json >"$out/gpuprobe-$round.json" 2>"$out/gpuprobe-$round.err"
	echo "gpuprobe round $round: rc=$?"
	for dt in float bfloat16; do
		"$home/build/all_reduce_perf" -b 8 -e $max -f 2 -g "$ngpu" -d $dt -w 5 -n 20 >"$out/nccl-tests-$dt-$round.txt" 2>&1
		echo "nccl-tests $dt round $round: rc=$?"
	done
	python3 probe/stress/bench/torch_allreduce.py "$ngpu" $max >"$out/torch-$round.txt" 2>"$out/torch-$round.err"
	echo "torch round $round: rc=$?"
done
python3 - "$out" "$ngpu" <<'PY'
import json, sys, re, glob
out, n = sys.argv[1], int(sys.argv[2])
def gp(r):
    j = json.load(open(f"{out}/gpuprobe-{r}.json"))
    a = j.get("allreduce") or {}
    print(f"gpuprobe {r}: NCCL {a.get('nccl_version')} wrong {a.get('wrong')} of {a.get('checked')} skipped={a.get('skipped','')} error={a.get('error','')}")
    for c in j.get("checks", []):
        if "nccl" in c["name"] or c["name"] == "gpu.topology":
            print("   ", c["verdict"], c["name"], "|", c.get("value", ""), "|", c.get("detail", ""))
    return {(x["dtype"], x["bytes"]): x for x in a.get("rows", [])}
def nt(dt, r):
    rows = {}
    for line in open(f"{out}/nccl-tests-{dt}-{r}.txt"):
        f = line.split()
        if len(f) >= 13 and f[0].isdigit():
            # size count type redop root | out-of-place: time algbw busbw #wrong | in-place ...
            rows[int(f[0])] = dict(time=float(f[5]), alg=float(f[6]), bus=float(f[7]), wrong=f[8])
    return rows
def th(r):
    rows = {}
    for line in open(f"{out}/torch-{r}.txt"):
        f = line.split()
        if len(f) == 5:
            rows[(f[0], int(f[1]))] = dict(time=float(f[2]), alg=float(f[3]), bus=float(f[4]))
    return rows
for r in (1, 2):
    g, t = gp(r), th(r)
    for dt, ntdt in (("float32", "float"), ("bfloat16", "bfloat16")):
        ntr = nt(ntdt, r)
        print(f"round {r} {dt}: size | gpuprobe time_us algbw busbw | nccl-tests time_us algbw busbw | torch time_us algbw | ratio algbw gp/nt, time nt/gp")
        for (d, size), x in sorted(g.items(), key=lambda k: k[0][1]):
            if d != dt or size not in ntr:
                continue
            y, z = ntr[size], t.get((dt, size), {})
            ra = x["algbw_gbs"] / y["alg"] if y["alg"] else float("nan")
            print(f"  {size:>11} | {x['time_us']:9.1f} {x['algbw_gbs']:8.1f} {x['busbw_gbs']:8.1f} | {y['time']:9.1f} {y['alg']:8.1f} {y['bus']:8.1f} | {z.get('time', 0):9.1f} {z.get('alg', 0):8.1f} | {ra:5.3f} {y['time'] / x['time_us']:5.3f}")
PY
