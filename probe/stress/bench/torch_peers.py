"""Peer figures for gpuprobe stress, measured with PyTorch on the same card.

Timed with CUDA events after warm-up; each figure is the best and the median
of N repetitions, counted the way gpuprobe counts them: device copies as
bytes read + written, host<->device and peer copies one way. Run:
    python3 torch_peers.py            (all GPUs visible)
"""
import json
import statistics
import sys

import torch


def timed(fn, reps, warm=2):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / 1e3)
    return ts


def rate(nbytes_or_flops, ts, unit):
    rs = [nbytes_or_flops / t / unit for t in ts]
    return {"best": max(rs), "median": statistics.median(rs)}


def main():
    out = {"torch": torch.__version__, "gpus": torch.cuda.device_count(),
           "name": torch.cuda.get_device_name(0)}
    dev = torch.device("cuda:0")
    n = 8192
    for name, dt, tf32 in [("bf16", torch.bfloat16, False), ("fp16", torch.float16, False),
                           ("tf32", torch.float32, True), ("fp32", torch.float32, False),
                           ("fp64", torch.float64, False)]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(n, n, device=dev, dtype=dt)
        b = torch.randn(n, n, device=dev, dtype=dt)
        reps = 20 if dt in (torch.bfloat16, torch.float16) else 5
        ts = timed(lambda: torch.mm(a, b), reps)
        out["gemm_" + name] = rate(2 * n ** 3, ts, 1e12)
        del a, b
    torch.backends.cuda.matmul.allow_tf32 = False
    # FP8 (E4M3 operands, BF16 out, unit scales) through torch._scaled_mm,
    # which wants B column-major; with and without cuBLAS's fast FP8
    # accumulation (the burn's wgmma accumulates natively, like the fast one).
    if hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability(dev) >= (8, 9):
        a = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        for key, fast in [("gemm_fp8_e4m3", False), ("gemm_fp8_e4m3_fast_accum", True)]:
            ts = timed(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                                use_fast_accum=fast), 20)
            out[key] = rate(2 * n ** 3, ts, 1e12)
        del a, b
    size = 4 << 30
    src = torch.randint(0, 255, (size,), device=dev, dtype=torch.uint8)
    dst = torch.empty_like(src)
    out["d2d_copy_4GiB"] = rate(2 * size, timed(lambda: dst.copy_(src), 10), 1e9)
    del src, dst
    hsize = 1 << 30
    h = torch.empty(hsize, dtype=torch.uint8, pin_memory=True)
    d = torch.empty(hsize, dtype=torch.uint8, device=dev)
    out["h2d_pinned_1GiB"] = rate(hsize, timed(lambda: d.copy_(h, non_blocking=True), 10), 1e9)
    out["d2h_pinned_1GiB"] = rate(hsize, timed(lambda: h.copy_(d, non_blocking=True), 10), 1e9)
    del h, d
    if torch.cuda.device_count() > 1:
        for s, t in [(0, 1), (1, 0)]:
            a = torch.empty(hsize, dtype=torch.uint8, device=f"cuda:{s}")
            b = torch.empty(hsize, dtype=torch.uint8, device=f"cuda:{t}")
            with torch.cuda.device(s):
                out[f"p2p_{s}to{t}_1GiB"] = rate(hsize, timed(lambda: b.copy_(a), 10), 1e9)
            del a, b
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
