#!/usr/bin/env bash
# Builds gpusla's container images as OCI image layouts, from this checkout
# alone: the binaries with the Go toolchain (module proxy), the rest from this
# machine's Debian packages (libc6, ca-certificates); no registry is pulled.
# Reproducible: -trimpath, no build id or VCS stamp, files and config dated
# SOURCE_DATE_EPOCH (default: the HEAD commit's time), sorted tar entries.
#
#   scripts/build-images.sh [OUT]      # default OUT: build/images
#   -> OUT/gpuprobe (layout), OUT/gpusla (layout), OUT/images.txt (name digest bytes)
# Push with any OCI tool, e.g. skopeo copy oci:OUT/gpuprobe docker://REGISTRY/gpusla/gpuprobe:TAG
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/images}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
version=${VERSION:-$(git describe --tags --always 2>/dev/null || echo dev)}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
flags=(-trimpath -buildvcs=false -ldflags "-s -w -buildid= -X main.version=$version")
# gpuprobe needs cgo (NVML through go-nvml); the time zones are built in.
CGO_ENABLED=1 go build "${flags[@]}" -tags timetzdata -o "$bin/gpuprobe" ./probe/cmd/gpuprobe
CGO_ENABLED=0 go build "${flags[@]}" -tags timetzdata -o "$bin/gpusla" ./functions/cmd/gpusla
(cd deploy && go build -trimpath -o "$bin/mkimage" ./cmd/mkimage)
{
  "$bin/mkimage" -kind probe -bin "$bin/gpuprobe" -out "$out/gpuprobe" -version "$version"
  "$bin/mkimage" -kind serve -bin "$bin/gpusla" -out "$out/gpusla" -version "$version"
} | tee "$out/images.txt"
