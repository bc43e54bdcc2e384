// Package pushtest is a small but real ingest endpoint for tests of the
// probe's delivery: it verifies signatures with wire.Verify before reading
// anything, decodes and validates batches, deduplicates by batch id, stores
// each batch once, and can be taken down (connection refused, or 503) and
// brought back on the same address. CheckChain then proves that what was
// stored is every sequence number exactly once with an unbroken hash chain.
//
// For tests of step 5 of the observation pipeline (read, judge, observe,
// spool, push): the backend's end of the delivery.
package pushtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// Mode is how the receiver answers.
type Mode int

const (
	Up          Mode = iota
	Unavailable      // answers 503
	Refused          // listener closed: connection refused
)

// Receiver is the test backend for one node.
type Receiver struct {
	Node   string
	Secret []byte

	mu        sync.Mutex
	addr      string
	srv       *http.Server
	mode      Mode
	offset    time.Duration // server clock minus real clock
	stored    map[uint64][]byte
	ids       map[string]uint64
	order     []uint64 // seqs in the order they were stored
	dupes     int
	badSig    int
	badSchema int
	conflicts []string
	refuse    map[uint64]wire.Error
	sigs      []string
	conns     int
}

// Start listens on a free loopback port.
func Start(node string, secret []byte) (*Receiver, error) {
	r := &Receiver{Node: node, Secret: secret, stored: map[uint64][]byte{}, ids: map[string]uint64{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r.addr = ln.Addr().String()
	r.serve(ln)
	return r, nil
}

func (r *Receiver) serve(ln net.Listener) {
	r.srv = &http.Server{Handler: http.HandlerFunc(r.handle), ReadHeaderTimeout: 5 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				r.mu.Lock()
				r.conns++
				r.mu.Unlock()
			}
		}}
	go r.srv.Serve(ln)
}

// Conns counts the connections accepted so far: a request's, or a bare
// dial such as the probe's link watch makes. A test waits on it to know a
// dial reached the receiver.
func (r *Receiver) Conns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns
}

// URL is the ingest endpoint.
func (r *Receiver) URL() string { return "http://" + r.addr + "/v1/batches" }

// SetMode switches the receiver up or down.
func (r *Receiver) SetMode(m Mode) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m == r.mode {
		return nil
	}
	if r.mode == Refused {
		ln, err := net.Listen("tcp", r.addr)
		if err != nil {
			return fmt.Errorf("pushtest: listen again on %s: %w", r.addr, err)
		}
		r.serve(ln)
	}
	if m == Refused {
		r.srv.Close()
	}
	r.mode = m
	return nil
}

// RefuseSeq makes the receiver answer 400 for one sequence number, as a
// backend with a stricter schema would.
func (r *Receiver) RefuseSeq(seq uint64, field, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse == nil {
		r.refuse = map[uint64]wire.Error{}
	}
	r.refuse[seq] = wire.Error{Error: msg, Field: field}
}

// SetClockOffset makes the receiver's clock run ahead (positive) or behind.
func (r *Receiver) SetClockOffset(d time.Duration) {
	r.mu.Lock()
	r.offset = d
	r.mu.Unlock()
}

// Close stops the server.
func (r *Receiver) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode != Refused {
		r.srv.Close()
	}
}

func (r *Receiver) handle(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now().Add(r.offset)
	w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	if sig := req.Header.Get(wire.HeaderSignature); sig != "" {
		r.sigs = append(r.sigs, sig)
	}
	fail := func(code int, msg, field string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(wire.Error{Error: msg, Field: field})
	}
	if r.mode == Unavailable {
		fail(http.StatusServiceUnavailable, "down for the test", "")
		return
	}
	if req.Method != http.MethodPost || req.URL.Path != "/v1/batches" {
		fail(http.StatusNotFound, "no such endpoint", "")
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, wire.MaxBodyBytes+1))
	if err != nil {
		fail(http.StatusBadRequest, err.Error(), "")
		return
	}
	if len(body) > wire.MaxBodyBytes {
		fail(http.StatusRequestEntityTooLarge, "body too large", "")
		return
	}
	if req.Header.Get(wire.HeaderNode) != r.Node {
		r.badSig++
		fail(http.StatusUnauthorized, "unknown node", "")
		return
	}
	if _, err := wire.Verify(r.Secret, now, req.Header.Get(wire.HeaderTimestamp), req.Header.Get(wire.HeaderSignature), body); err != nil {
		r.badSig++
		fail(http.StatusUnauthorized, err.Error(), "")
		return
	}
	b, err := wire.Decode(body)
	if err != nil {
		r.badSchema++
		var fe *wire.FieldError
		if errors.As(err, &fe) {
			fail(http.StatusBadRequest, fe.Msg, fe.Field)
		} else {
			fail(http.StatusBadRequest, err.Error(), "")
		}
		return
	}
	if e, ok := r.refuse[b.Seq]; ok {
		r.badSchema++
		fail(http.StatusBadRequest, e.Error, e.Field)
		return
	}
	status := wire.AckStored
	if seq, ok := r.ids[b.ID]; ok {
		status = wire.AckDuplicate
		r.dupes++
		if seq != b.Seq {
			r.conflicts = append(r.conflicts, fmt.Sprintf("id %s sent with seq %d and %d", b.ID, seq, b.Seq))
		}
	} else if prev, ok := r.stored[b.Seq]; ok {
		// Same sequence number, different id: the probe reused a number.
		r.conflicts = append(r.conflicts, fmt.Sprintf("seq %d stored twice with different ids (%s)", b.Seq, wire.BodyHash(prev)[:8]))
	} else {
		r.ids[b.ID] = b.Seq
		r.stored[b.Seq] = body
		r.order = append(r.order, b.Seq)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(wire.Ack{ID: b.ID, Status: status, ServerTime: now.UTC()})
}

// Signatures returns every signature header received, in order.
func (r *Receiver) Signatures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.sigs...)
}

// Counts says what the receiver has seen.
type Counts struct {
	Stored, Duplicates, BadSignatures, BadSchema int
}

// Counts returns the counters.
func (r *Receiver) Counts() Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Counts{Stored: len(r.stored), Duplicates: r.dupes, BadSignatures: r.badSig, BadSchema: r.badSchema}
}

// Batches returns the stored batches in sequence order.
func (r *Receiver) Batches() []*wire.Batch {
	r.mu.Lock()
	defer r.mu.Unlock()
	seqs := make([]uint64, 0, len(r.stored))
	for s := range r.stored {
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	out := make([]*wire.Batch, 0, len(seqs))
	for _, s := range seqs {
		b, _ := wire.Decode(r.stored[s])
		out = append(out, b)
	}
	return out
}

// CheckChain returns an error unless the stored batches are exactly 1..n
// with each prev equal to the hash of the one before, they were stored in
// ascending order, no sequence number was reused, and no request
// carried a bad signature.
func (r *Receiver) CheckChain() (n uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.conflicts) > 0 {
		return 0, fmt.Errorf("conflicts: %v", r.conflicts)
	}
	if r.badSig > 0 {
		return 0, fmt.Errorf("%d requests had a bad signature", r.badSig)
	}
	for i := 1; i < len(r.order); i++ {
		if r.order[i] <= r.order[i-1] {
			return 0, fmt.Errorf("stored out of order: seq %d after %d", r.order[i], r.order[i-1])
		}
	}
	var max uint64
	for s := range r.stored {
		if s > max {
			max = s
		}
	}
	for s := uint64(1); s <= max; s++ {
		body, ok := r.stored[s]
		if !ok {
			return 0, fmt.Errorf("seq %d missing (have up to %d)", s, max)
		}
		b, _ := wire.Decode(body)
		want := ""
		if s > 1 {
			want = wire.BodyHash(r.stored[s-1])
		}
		if b.Prev != want {
			return 0, fmt.Errorf("seq %d: prev %q does not match hash of seq %d", s, b.Prev, s-1)
		}
	}
	return max, nil
}
