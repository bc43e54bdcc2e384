#!/usr/bin/env bash
# Regenerates the PTX that gpuprobe embeds (probe/kernels/ptx/*.ptx) from
# burn.cu. Needs nvcc (CUDA 12 or newer; the committed PTX was made with
# CUDA 13.0). Run it on a machine with the CUDA toolkit, from anywhere:
#
#   bash probe/kernels/gen.sh            # writes into probe/kernels/ptx
#   bash probe/kernels/gen.sh OUTDIR     # writes into OUTDIR instead
#
# Three variants, chosen at run time by the card's compute capability:
#   burn_sm70.ptx  portable (7.0 and up): FMA burns and memory kernels
#   burn_sm80.ptx  8.x: adds mma.sync tensor-core burns (TF32, BF16, FP16, FP64 m8n8k4)
#   burn_sm90.ptx  9.0 and up: FP64 through the m16n8k16 f64 tensor shape
# PTX (not cubin) is shipped so that the driver compiles it for whatever
# card it meets; newer cards run the newest variant their driver accepts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/ptx}"
mkdir -p "$out"
nvcc --version | tail -n 2
for cc in 70 80 90; do
	nvcc -ptx -O3 -arch=compute_$cc -o "$out/burn_sm$cc.ptx" "$here/burn.cu"
	# Assemble as well, so that a PTX the driver would reject fails here,
	# and print the register and spill report of every kernel.
	nvcc -cubin -O3 -arch=sm_$cc -Xptxas -v -o /dev/null "$here/burn.cu" 2>&1 | grep -E "Compiling|registers|spill" || true
done
ls -l "$out"/burn_sm*.ptx
