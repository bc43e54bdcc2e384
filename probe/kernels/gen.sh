#!/usr/bin/env bash
# Regenerates the PTX that gpuprobe embeds (probe/kernels/ptx/*.ptx) from
# burn.cu. Needs nvcc (CUDA 12 or newer; the committed PTX was made with
# CUDA 13.0). Run it on a machine with the CUDA toolkit, from anywhere:
#
#   bash probe/kernels/gen.sh            # writes into probe/kernels/ptx
#   bash probe/kernels/gen.sh OUTDIR     # writes into OUTDIR instead
#
# Four variants, chosen at run time by the card's compute capability:
#   burn_sm70.ptx   portable (7.0 and up): FMA burns and memory kernels
#   burn_sm80.ptx   8.x: adds mma.sync tensor-core burns (TF32, BF16, FP16, FP64 m8n8k4)
#   burn_sm90.ptx   9.0 and up: FP64 through the m16n8k16 f64 tensor shape
#   burn_sm90a.ptx  9.0 exactly (compute_90a, arch-specific): adds the wgmma
#                   tensor burns (TF32, BF16, FP16, FP8), used after a sanity burn
# PTX (not cubin) is shipped so that the driver compiles it for whatever
# card it meets; newer cards run the newest variant their driver accepts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/ptx}"
mkdir -p "$out"
nvcc --version | tail -n 2
for cc in 70 80 90; do
	if nvcc -ptx -O3 -arch=compute_$cc -o "$out/burn_sm$cc.ptx" "$here/burn.cu" 2>/dev/null; then
		nvcc -cubin -O3 -arch=sm_$cc -Xptxas -v -o /dev/null "$here/burn.cu" 2>&1 | grep -E "Compiling|registers|spill" || true
	elif [ $cc = 70 ]; then
		# CUDA 13's nvcc no longer targets Volta (7.0). The portable
		# kernels use only instructions Volta has (FMA, loads, stores,
		# atomics), so build for 7.5 and lower the .target line; the
		# driver re-checks the PTX against the card when it loads it.
		echo "nvcc refuses compute_70: building compute_75 and lowering .target to sm_70"
		nvcc -ptx -O3 -arch=compute_75 -o "$out/burn_sm70.ptx" "$here/burn.cu"
		sed -i 's/^\.target sm_75$/.target sm_70/' "$out/burn_sm70.ptx"
		grep -q '^\.target sm_70$' "$out/burn_sm70.ptx"
		nvcc -cubin -O3 -arch=sm_75 -Xptxas -v -o /dev/null "$here/burn.cu" 2>&1 | grep -E "Compiling|registers|spill" || true
	else
		nvcc -ptx -O3 -arch=compute_$cc -o "$out/burn_sm$cc.ptx" "$here/burn.cu" # show the error
	fi
done
# The arch-specific Hopper variant: wgmma.mma_async exists only in
# compute_90a PTX, which only a 9.0 card runs. ptxas reports registers and
# spills for sm_90a; with SASS_DIR set, the cubin and its SASS are kept
# there (the wgmma burns must show HGMMA, and QGMMA for FP8).
nvcc -ptx -O3 -arch=compute_90a -o "$out/burn_sm90a.ptx" "$here/burn.cu"
cubin="${SASS_DIR:-$(mktemp -d)}/burn_sm90a.cubin"
if ! nvcc -cubin -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o "$cubin" "$here/burn.cu" >"$cubin.log" 2>&1; then
	cat "$cubin.log" # ptxas rejects what the PTX step let through
	exit 1
fi
grep -E "Compiling|registers|spill|warning" "$cubin.log" || true
if [ -n "${SASS_DIR:-}" ]; then
	cuobjdump -sass "$cubin" >"$SASS_DIR/burn_sm90a.sass"
	grep -oE "[HQ]GMMA\.[0-9A-Za-z.]+" "$SASS_DIR/burn_sm90a.sass" | sort | uniq -c
fi
# The f64 tensor shape must be in the 9.0 PTX: it is what makes the FP64
# burn reach the tensor rate on Hopper; the wgmma burns must be in 9.0a's.
grep -q 'mma.sync.aligned.m16n8k16.row.col.f64' "$out/burn_sm90.ptx"
grep -q '^\.target sm_90a$' "$out/burn_sm90a.ptx"
for k in bf16 fp16 tf32 fp8; do grep -q "\.entry burn_wg_$k(" "$out/burn_sm90a.ptx"; done
grep -q 'wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2' "$out/burn_sm90a.ptx"
ls -l "$out"/burn_sm*.ptx
