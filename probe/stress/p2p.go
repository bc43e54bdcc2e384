package stress

import (
	"context"
	"fmt"

	"github.com/gpusla/gpusla/probe/cuda"
	"github.com/gpusla/gpusla/probe/stress/result"
)

// peerCopies measures every ordered pair of GPUs: src's stream copies
// PeerBytes into dst's memory with peer access enabled both ways (over
// NVLink where there is one), then dst's copy is checked against src's
// pattern.
func peerCopies(ctx context.Context, drv *cuda.Driver, gpus []*device, size uint64, reps int) []result.Bandwidth {
	var out []result.Bandwidth
	for _, a := range gpus {
		for _, b := range gpus {
			if a == b || ctx.Err() != nil {
				continue
			}
			done := make(chan result.Bandwidth)
			go func() { done <- peerCopy(ctx, drv, a, b, size, reps) }()
			out = append(out, <-done)
		}
	}
	return out
}

func peerCopy(ctx context.Context, drv *cuda.Driver, a, b *device, size uint64, reps int) (r result.Bandwidth) {
	peer := b.Index
	r = result.Bandwidth{GPU: a.Index, Peer: &peer, Test: "p2p", Method: "cuMemcpyPeerAsync, peer access on", Bytes: size, Reps: reps, Counting: "one-way", BadWords: -1}
	can, err := drv.CanAccessPeer(a.Index, b.Index)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if !can {
		r.Skipped = fmt.Sprintf("GPU %d cannot access GPU %d's memory directly", a.Index, b.Index)
		return r
	}
	// Peer access is enabled from the context that is current.
	if err := b.ctx.Bind(); err != nil {
		r.Error = err.Error()
		return r
	}
	if err := b.ctx.EnablePeer(a.ctx); err != nil {
		r.Error = err.Error()
		return r
	}
	dst, err := b.ctx.Alloc(size)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer func() { _ = b.ctx.Bind(); _ = b.ctx.Free(dst) }()
	if err := a.ctx.Bind(); err != nil {
		r.Error = err.Error()
		return r
	}
	if err := a.ctx.EnablePeer(b.ctx); err != nil {
		r.Error = err.Error()
		return r
	}
	s, mk, v, err := memSetup(a)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer func() { _ = a.ctx.Bind(); v.free(); _ = s.Destroy() }()
	src, err := a.ctx.Alloc(size)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer func() { _ = a.ctx.Bind(); _ = a.ctx.Free(src) }()
	_ = mk
	words := size / 4
	const seed, mode = 0x7070, 3
	if err := v.fill(src, words, 0, seed, mode); err != nil {
		r.Error = err.Error()
		return r
	}
	best, med, err := timeCopies(a.ctx, s, reps, size, func() error { return s.CopyPeer(dst, b.ctx, src, a.ctx, size) })
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.BestGBs, r.MedianGB = best, med
	if ctx.Err() != nil {
		// Timed but not verified: not a result to pass.
		r.Error = "interrupted: " + context.Cause(ctx).Error()
		return r
	}
	// Verify on the destination GPU with its own kernels.
	if err := b.ctx.Bind(); err != nil {
		r.Error = err.Error()
		return r
	}
	sb, _, vb, err := memSetup(b)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer func() { _ = b.ctx.Bind(); vb.free(); _ = sb.Destroy() }()
	bad, _, err := vb.check(dst, words, 0, seed, mode)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.BadWords = int64(bad)
	return r
}
