#!/usr/bin/env bash
# Builds what deploy/bench/device_daemonset_flags.sh runs, into BINDIR
# (default .device): gpuprobe as the image carries it (CGO_ENABLED=1 for
# NVML, the flags of scripts/build-images.sh), gpusla, firstgpu, and
# BINDIR/pod: the chart's DaemonSet rendered here by podspec (Helm's engine;
# 50 MB, left out of BINDIR so that it fits what a run may carry) with the
# values of chart_values.sh — the same PORT, HEALTH, METRICS_PORT and
# DAEMONSET must be given to both scripts.
#
#   bash deploy/bench/build_bins.sh [BINDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.device}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)
flags=(-trimpath -buildvcs=false -ldflags "-s -w -buildid= -X main.version=${VERSION:-bench}")
CGO_ENABLED=1 go build "${flags[@]}" -tags timetzdata -o "$bin/gpuprobe" ./probe/cmd/gpuprobe
CGO_ENABLED=0 go build "${flags[@]}" -tags timetzdata -o "$bin/gpusla" ./functions/cmd/gpusla
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd deploy && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/podspec" ./cmd/podspec &&
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin/firstgpu" ./cmd/firstgpu)
rm -rf "$bin/pod" "$bin/podspec"
sets=$(bash deploy/bench/chart_values.sh)
# shellcheck disable=SC2086 # one word a flag or value
"$tmp/podspec" -chart deploy/chart/gpusla $sets -node rendered-here -out "$bin/pod"
printf '%s' "$sets" >"$bin/pod/values"
ls -l "$bin"; du -sh "$bin"
