#!/usr/bin/env bash
# Builds what deploy/bench/device_daemonset_flags.sh runs, into BINDIR
# (default .device): gpuprobe as the image carries it (CGO_ENABLED=1 for
# NVML, the flags of scripts/build-images.sh), gpusla, and the chart's
# readers podspec and firstgpu (the deploy module).
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
(cd deploy && CGO_ENABLED=0 go build -trimpath -o "$bin/podspec" ./cmd/podspec && CGO_ENABLED=0 go build -trimpath -o "$bin/firstgpu" ./cmd/firstgpu)
ls -l "$bin"
