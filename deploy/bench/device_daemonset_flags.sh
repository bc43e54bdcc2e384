#!/usr/bin/env bash
# The probe as the chart's DaemonSet runs it, on a machine without Kubernetes
# (the lent GPU machine runs no containers): the binary with exactly the pod's
# arguments, environment and probe config, as the Helm chart renders them
# (podspec: Helm's own engine), its mounts made in a private mount namespace
# (host /proc and /sys read-only at /host, /dev/kmsg, the state host path, the
# config file, the token Secret, the memory-backed folders), root with the
# pod's two capabilities and no_new_privs, a read-only root file system —
# enrolling with a renter's token into a real `gpusla serve` on loopback.
# Then it prints what the backend stored of the node's first GPU.
#
#   bash deploy/bench/build_bins.sh BINDIR                  # where Go is
#   bash deploy/bench/device_daemonset_flags.sh OUTDIR [BINDIR]   # as root
#
# BINDIR (default .device) holds gpuprobe, gpusla and firstgpu, and either
# podspec (the chart is rendered here) or pod/, the DaemonSet as build_bins.sh
# rendered it with the same PORT, HEALTH, METRICS_PORT and DAEMONSET (podspec,
# Helm and the Kubernetes types, is 50 MB: too much to carry to the machine).
# Exit 0: a real card was read (a temperature with an NVML UUID, as stored by
# the backend); 2: the probe ran and enrolled but read no card; 1: it could
# not run. The run stops as soon as the first health check has been delivered,
# at most DURATION seconds (default 170) after the probe started.
#
# Environment:
#   HEALTH      probe.config.schedules.health, a chart value (default 1m: the
#               chart's own is the probe's 5m, whose first run comes 5 minutes
#               after start; HEALTH= keeps it, then set DURATION=360)
#   DURATION    seconds the probe may run (default 170)
#   PORT        serve's loopback port (default 18090)
#   METRICS_PORT  probe.metricsPort (default the chart's 9464)
#   NODE        the Kubernetes node name the downward API would give
#               (default the short host name)
#   ORDER_MODEL, ORDER_GPUS, ORDER_MEMORY_GB, ORDER_DRIVER  what the token
#               orders (default: what nvidia-smi shows, else H100, 1, 80)
#   DAEMONSET   gpusla-gpuprobe (stress off) or gpusla-gpuprobe-stress
#   NO_NAMESPACE=1  run without the mount namespace, as the script does by
#               itself where unshare or the pod's mounts are refused: the
#               chart's config with its pod paths moved under OUTDIR
#               (host_root /), said so in the output
# Nothing here changes clocks, power limits or modes. The mount points it
# must create on the host (empty folders, e.g. /host/proc, /etc/gpuprobe) are
# removed again at the end.
set -uo pipefail
out=${1:?usage: device_daemonset_flags.sh OUTDIR [BINDIR]}
bin=${2:-.device}
mkdir -p "$out" && out=$(cd "$out" && pwd) && bin=$(cd "$bin" && pwd) || exit 1
cd "$(dirname "$0")/../.." || exit 1
exec > >(tee -a "$out/log.txt") 2>&1
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root: the DaemonSet's probe is root, and its mounts need a mount namespace"
for t in unshare setpriv mount; do command -v $t >/dev/null || fail "$t (util-linux) is missing"; done
for b in gpuprobe gpusla firstgpu; do [ -x "$bin/$b" ] || fail "$bin/$b is missing: bash deploy/bench/build_bins.sh $bin"; done
[ -x "$bin/podspec" ] || [ -s "$bin/pod/values" ] || fail "neither $bin/podspec nor $bin/pod: bash deploy/bench/build_bins.sh $bin"
duration=${DURATION:-170}; port=${PORT:-18090}; node=${NODE:-$(hostname -s)}
date -u
if command -v nvidia-smi >/dev/null && nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.total,temperature.gpu,power.draw --format=csv
	name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
	gpus_seen=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
	driver_seen=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
else
	echo "no nvidia-smi answer: no card on this machine"
	name="" gpus_seen=1 driver_seen=""
fi
case "$name" in
*H200*) model_seen=H200 mem_seen=141 ;;
*H100*) model_seen=H100 mem_seen=80 ;;
*) model_seen=H100 mem_seen=80 ;;
esac
model=${ORDER_MODEL:-$model_seen}; gpus=${ORDER_GPUS:-$gpus_seen}; mem=${ORDER_MEMORY_GB:-$mem_seen}; driver=${ORDER_DRIVER-$driver_seen}

d=$out/run; rm -rf "$d"; mkdir -p "$d/state" "$d/secret" || exit 1
data=$d/data; url=http://127.0.0.1:$port/v1/batches
export GPUSLA_TERMS=testdata/terms
echo "== the renter's token: $gpus × $model, ${mem} GB${driver:+, driver $driver}"
"$bin/gpusla" token create --data "$data" --provider lab --contract cn-example --gpu-model "$model" --gpus "$gpus" \
	--gpu-memory-gb "$mem" ${driver:+--driver "$driver"} --price 1 --uses 1 --heartbeat 10s --push 10s --grace 20s \
	--backend-url "$url" --name daemonset-bench >"$d/token.txt" || fail "gpusla token create"
grep '^gpe_' "$d/token.txt" | head -1 >"$d/secret/token" && chmod 400 "$d/secret/token" && [ -s "$d/secret/token" ] || fail "no token printed"
key=$("$bin/gpusla" apikey create --data "$data" --name daemonset-bench --scope read 2>/dev/null) || fail "gpusla apikey create"

echo "== the chart's DaemonSet ${DAEMONSET:-gpusla-gpuprobe}, rendered for node $node"
sets=$(bash deploy/bench/chart_values.sh)
if [ -x "$bin/podspec" ]; then
	"$bin/podspec" -chart deploy/chart/gpusla $sets -node "$node" -out "$d/pod" || fail "podspec"
else
	[ "$(cat "$bin/pod/values")" = "$sets" ] ||
		fail "$bin/pod was rendered with $(cat "$bin/pod/values"), this run needs $sets: build_bins.sh again with the same PORT, HEALTH, METRICS_PORT, DAEMONSET"
	cp -r "$bin/pod" "$d/pod" && sed -i "s/^NODE_NAME=.*/NODE_NAME=$node/" "$d/pod/env" || fail "copy $bin/pod"
fi
echo "values: $sets"
for f in args env mounts security; do echo "-- $f"; cat "$d/pod/$f"; done
echo "-- probe.yaml (the ConfigMap)"; cat "$d/pod/files/etc/gpuprobe/probe.yaml"
mport=$(sed -n 's/^  listen: .*:\([0-9]*\)$/\1/p' "$d/pod/files/etc/gpuprobe/probe.yaml")

"$bin/gpusla" serve --data "$data" --listen "127.0.0.1:$port" --demo off >"$d/serve.log" 2>&1 &
srv=$!
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.2; done

# The pod's mounts, made in the namespace only; the mount points on the host.
made=()
point() { # point TARGET dir|file: make a missing mount point, each new part remembered
	[ -e "$1" ] && return 0
	local parts=() p=$1
	while [ ! -e "$p" ]; do parts=("$p" "${parts[@]}"); p=$(dirname "$p"); done
	for p in "${parts[@]}"; do
		if [ "$p" != "$1" ] || [ "$2" = dir ]; then mkdir "$p"; else : >"$p"; fi || fail "cannot make the mount point $p"
		made+=("$p")
	done
}
cleanup() {
	[ -s "$d/probe.pid" ] && kill -TERM "$(cat "$d/probe.pid")" 2>/dev/null
	[ -n "${ns:-}" ] && wait "$ns" 2>/dev/null
	kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
	local i
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do rm -d "${made[i]}" 2>/dev/null || rm -f "${made[i]}"; done
}
trap cleanup EXIT
caps=$(awk -F'\t' '$1=="caps"{n=split(tolower($2),a,",");for(i=1;i<=n;i++)printf ",+%s",a[i]}' "$d/pod/security")
nnp=; grep -q $'^no_new_privs\ttrue' "$d/pod/security" && nnp=--no-new-privs
launcher=(setpriv --inh-caps=-all "--bounding-set=-all$caps" $nnp --)
if ! "${launcher[@]}" true 2>/dev/null; then
	echo "WARN: setpriv cannot drop capabilities on this machine: the probe runs with root's"
	launcher=()
fi
envs=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt)
while read -r kv; do envs+=("$kv"); done <"$d/pod/env"
args=(); while read -r a; do args+=("$a"); done <"$d/pod/args"
mode=ns
unshare --mount --propagation private true 2>/dev/null || mode=paths
[ -n "${NO_NAMESPACE:-}" ] && mode=paths

inner() { # the namespace's script: the pod's mounts, then the probe
	echo 'w() { echo "WARN: $*" >&2; }'
	printf 'mount --bind %q /usr/local/bin/gpuprobe || exit 97\n' "$bin/gpuprobe"
	# scratch folders last: they may hide where this run's files are
	{ awk -F'\t' '$2!="tmpfs"' "$d/pod/mounts"; awk -F'\t' '$2=="tmpfs"' "$d/pod/mounts"; } >"$d/mounts.ordered"
	while IFS=$'\t' read -r target kind src rw; do
		ro=; [ "$rw" = ro ] && ro=" && mount -o remount,bind,ro '$target'"
		case $kind in
		bind)
			if [ "$target" = /var/lib/gpuprobe ]; then # the host path, fresh for this run; the probe needs it
				point "$target" dir; echo "mount --rbind '$d/state' '$target' || exit 97"
			elif [ -e "$src" ]; then
				if [ -d "$src" ]; then point "$target" dir; else point "$target" file; fi
				echo "mount --rbind '$src' '$target'$ro || w 'the host path $src at $target'"
			else
				echo "w 'no $src on this machine: $target not mounted'"
			fi ;;
		tmpfs)
			point "$target" dir
			echo "mount -t tmpfs -o size=${src/-/64m},mode=0755 tmpfs '$target' || w 'no tmpfs at $target'" ;;
		file)
			point "$target" file
			echo "mount --bind '$d/pod/files/$src' '$target'$ro || exit 97" ;;
		secret)
			point "$target" dir
			echo "mount --bind '$d/secret' '$target'$ro || exit 97" ;;
		*) fail "mount kind $kind" ;;
		esac
	done <"$d/mounts.ordered"
	grep -q $'^read_only_root\ttrue' "$d/pod/security" &&
		echo "mount -o remount,bind,ro / || w 'the root file system could not be made read-only'"
	printf '%q ' "${envs[@]}" "${launcher[@]}" /usr/local/bin/gpuprobe "${args[@]}"
	printf '&\necho $! >&9\nexec 9>&-\nwait $!\n'
}
echo "== gpuprobe (up to ${duration}s)"
t0=$(date +%s.%N)
if [ $mode = ns ]; then
	point /usr/local/bin/gpuprobe file # where the image has it
	inner >"$d/inner.sh"
	echo "-- in the pod's mount namespace:"; cat "$d/inner.sh"
	# fd 9, the probe's pid, is opened out here: a file open for writing in the
	# namespace would keep its root from being remounted read-only.
	unshare --mount --propagation private bash "$d/inner.sh" >"$d/probe.log" 2>&1 9>"$d/probe.pid" &
	ns=$!
	for _ in $(seq 50); do [ -s "$d/probe.pid" ] && break; kill -0 $ns 2>/dev/null || break; sleep 0.2; done
	if ! [ -s "$d/probe.pid" ]; then
		wait $ns; [ $? = 97 ] && mode=paths && cat "$d/probe.log" && echo "WARN: the pod's mounts could not be made here"
	fi
fi
if [ $mode = paths ]; then
	# No mount namespace on this machine: the same binary, args and env, the
	# chart's config with its pod paths moved to where this run keeps them.
	echo "FALLBACK: no mount namespace: host_root /, state $d/state, token $d/secret/token, runtime $d/runstate"
	mkdir -p "$d/runstate"
	sed -e 's#^host_root: /host$#host_root: /#' -e "s#/var/lib/gpuprobe#$d/state#" -e "s#/etc/gpuprobe/enrol/token#$d/secret/token#" \
		"$d/pod/files/etc/gpuprobe/probe.yaml" >"$d/probe-paths.yaml"
	for i in "${!envs[@]}"; do [[ ${envs[i]} == GPUPROBE_STATE_DIR=* ]] && envs[i]=GPUPROBE_STATE_DIR=$d/runstate; done
	for i in "${!args[@]}"; do [ "${args[i]}" = /etc/gpuprobe/probe.yaml ] && args[i]=$d/probe-paths.yaml; done
	echo "-- as run:"; printf '%q ' "${envs[@]}" "${launcher[@]}" "$bin/gpuprobe" "${args[@]}"; echo
	"${envs[@]}" "${launcher[@]}" "$bin/gpuprobe" "${args[@]}" >"$d/probe.log" 2>&1 &
	ns=$!
	echo $ns >"$d/probe.pid"
fi
metric() { curl -sf "http://127.0.0.1:$mport/metrics" 2>/dev/null || (exec 3<>/dev/tcp/127.0.0.1/$mport &&
	printf 'GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n' >&3 && cat <&3) 2>/dev/null; }
ran=no exited=no
while :; do
	el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print int(b-a)}')
	kill -0 "$ns" 2>/dev/null || { echo "the probe exited"; exited=yes; break; }
	[ "$el" -ge "$duration" ] && { echo "stopped after ${el}s"; break; }
	m=$(metric)
	if grep -q '^gpuprobe_job_duration_seconds{job="health"}' <<<"$m" &&
		grep -q '^gpuprobe_spool_batches 0$' <<<"$m" && grep -q '^gpuprobe_spool_staged_observations 0$' <<<"$m"; then
		ran=yes; echo "the first health check ran and was delivered after ${el}s"; break
	fi
	sleep 2
done
metric | grep -E '^gpuprobe_(check_[a-z_]+\{check="gpu\.[a-z_.]+",gpu="0"|spool|delivery_acked|job_duration)' >"$d/metrics.txt"
kill -TERM "$(cat "$d/probe.pid" 2>/dev/null)" 2>/dev/null; wait "$ns"; echo "probe rc=$?"
tail -5 "$d/probe.log"
echo "== serve's API: the node and its enrolment"
for p in /v1/nodes /v1/enrolments; do
	curl -sf -H "Authorization: Bearer $key" "http://127.0.0.1:$port$p" ||
		(exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET %s HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n' "$p" "$key" >&3 &&
			sed '1,/^\r$/d' <&3)
	echo
done
kill "$srv"; wait "$srv" 2>/dev/null
echo "== the node's first GPU, as the backend stored it"
"$bin/gpusla" export --data "$data" --node "$node" >"$d/export.jsonl" || fail "gpusla export"
"$bin/firstgpu" -node "$node" <"$d/export.jsonl"
rc=$?
[ $exited = yes ] && rc=1 && echo "the probe exited on its own: it did not run as the DaemonSet would"
grep -q "\"$node\"" "$d/export.jsonl" || { rc=1; echo "node $node never reached the backend"; }
echo "-- the probe's /metrics of GPU 0 (what Prometheus would scrape)"; cat "$d/metrics.txt"
if [ $rc = 2 ] && grep -q 'check="gpu.temperature",gpu="0",uuid="GPU-' "$d/metrics.txt"; then
	echo "the backend kept no batch with GPU 0's readings (all passed: not evidence); the probe read the card (metrics above)"
	rc=0
fi
echo "health ran and delivered: $ran; wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s; exit $rc"
exit $rc
