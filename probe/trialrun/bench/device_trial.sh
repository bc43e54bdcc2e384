#!/usr/bin/env bash
# `gpuprobe trial` on the lent GPU machine, as recorded in docs/BENCHMARKS.md:
# a real backend (gpusla serve) and an enrolled node on loopback, the PyTorch
# peers of the same card first, then the trial pushing into that backend,
# then the backend's export of what arrived. From the repository root:
#
#   bash probe/trialrun/bench/device_trial.sh OUTDIR SOAK [BIN_DIR]
#
# PORT (default 18080) is serve's loopback port. TRIAL_BURN and TRIAL_POWER
# (default 5s and 30s) shorten the burns and the power test where the lease
# is short; TRIAL_PEERS=copy measures only the
# peer of the bandwidth row (PyTorch's device copy).
# Without a card (nvidia-smi absent) it orders one H100 and runs no peer:
# the trial can only fail, which its test uses. The script exits with the
# trial's code (0 pass, 2 warn or incomplete, 3 fail), 1 where anything
# could not run or the record does not verify (`gpusla verify`, run here).
# BIN_DIR (default .device) holds gpuprobe (CGO_ENABLED=1) and gpusla. The
# machine reaches nothing outside itself, so the network checks are left out
# (--no-network: the mirror and the gateway are "not measured") and there is
# no iperf3 peer. Nothing here changes clocks, power limits or modes.
set -uo pipefail
out=${1:?OUTDIR}; soak=${2:?SOAK}; bin=${3:-.device}; port=${PORT:-18080}
mkdir -p "$out"
exec > >(tee -a "$out/log.txt") 2>&1
date -u
if nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,power.limit,clocks.max.sm,temperature.gpu,power.draw --format=csv
	name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
	driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
	gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
else
	# Without a card (the script's own test): an order of one H100, which
	# the trial can only fail, and no PyTorch peer.
	echo "no nvidia-smi answer: no card on this machine"
	name="NVIDIA H100 80GB HBM3" driver="" gpus=1 TRIAL_PEERS=none
fi
case "$name" in
*H200*) model=H200; mem=141 ;;
*H100*) model=H100; mem=80 ;;
*) model="$name"; mem=0 ;;
esac
if [ "${TRIAL_PEERS:-all}" = none ]; then
	echo "== no PyTorch peer"
elif [ "${TRIAL_PEERS:-all}" = copy ]; then
	# The one peer the trial's bandwidth row needs, in seconds: PyTorch's
	# device copy of 4 GiB, best of 5, counted read + write as bandwidthTest does.
	echo "== PyTorch peer on the same card (device copy)"
	PYTHONUNBUFFERED=1 timeout 60 python3 -c '
import json, torch
a = torch.empty(1 << 32, dtype=torch.uint8, device="cuda"); b = torch.empty_like(a); b.copy_(a); torch.cuda.synchronize()
best = 0.0
for _ in range(5):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); b.copy_(a); e.record(); e.synchronize()
    best = max(best, 2 * a.numel() / (s.elapsed_time(e) / 1e3) / 1e9)
print(json.dumps({"torch": torch.__version__, "name": torch.cuda.get_device_name(0), "d2d_best_gbs": round(best, 1)}))
' >"$out/peers.json" 2>"$out/peers.err"; echo "peers rc=$?"
else
	echo "== PyTorch peers on the same card (copy, pinned host copies, GEMMs)"
	PYTHONUNBUFFERED=1 timeout 120 python3 probe/stress/bench/torch_peers.py >"$out/peers.json" 2>"$out/peers.err"; echo "peers rc=$?"
fi
cat "$out/peers.json"
d=$(mktemp -d)
export GPUSLA_TERMS=testdata/terms
"$bin/gpusla" node add --data "$d/data" --id trial-1 --contract cn-example --gpu-model "$model" --gpus "$gpus" \
	--gpu-memory-gb "$mem" --backend-url http://127.0.0.1:$port/v1/batches >"$d/add.txt" || exit 1
"$bin/gpusla" serve --data "$d/data" --listen 127.0.0.1:$port --demo off >"$d/serve.log" 2>&1 &
srv=$!
for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.2; done
sed -n 3p "$d/add.txt" >"$d/secret"; chmod 600 "$d/secret"
cat >"$d/probe.yaml" <<YAML
node: trial-1
backend: {url: "http://127.0.0.1:$port/v1/batches"}
secret_file: $d/secret
spool: {dir: $d/spool}
YAML
echo "== gpuprobe trial --soak $soak (model $model, $gpus GPU(s), driver $driver)"
t0=$(date +%s.%N)
GPUPROBE_STATE_DIR=$d/state "$bin/gpuprobe" trial --config "$d/probe.yaml" --no-network --out "$d/trial" \
	--expect model="$model" --expect gpus="$gpus" --expect gpu_memory_gb="$mem" --expect disks=none ${driver:+--expect driver="$driver"} \
	--soak "$soak" --burn "${TRIAL_BURN:-5s}" --power "${TRIAL_POWER:-30s}" --push-wait 1m
trc=$?
echo "trial rc=$trc wall=$(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"
kill $srv; wait $srv 2>/dev/null
"$bin/gpusla" export --data "$d/data" >"$d/export.jsonl" 2>"$d/export.err"; echo "export rc=$?"
python3 - "$d/export.jsonl" <<'PY'
import json,sys
obs=marks=idle=rec=checks=0
for line in open(sys.argv[1]):
    e=json.loads(line)
    if e.get("type")!="observation": continue
    obs+=1
    for c in e.get("checks") or []:
        checks+=1
        marks+=c["name"]=="probe.trial"; idle+=c["name"]=="probe.trial.idle"
        if c["name"]=="probe.trial.record": rec+=1; print("backend holds", c["name"], c.get("value"), c.get("detail"))
print("backend export: %d observations, %d check results, %d trial steps, %d idle-marked, %d record" % (obs, checks, marks, idle, rec))
PY
cp "$d/trial/trial.json" "$d/trial/trial.md" "$d/trial/acceptance.zip" "$out/" || exit 1
tail -5 "$d/serve.log"
"$bin/gpusla" verify "$out/acceptance.zip" >"$out/verify.txt" 2>&1; vrc=$?
cat "$out/verify.txt"; echo "verify rc=$vrc"
[ "$vrc" = 0 ] || exit 1
# The trial's own exit: 0 pass, 2 warn or incomplete, 3 fail, 1 could not run.
exit "$trc"
