package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/infra/store"
)

// counter is a record with a version, as the stores keep one; writes are
// refused while rivals remain (each rival a write that won the race).
type counter struct {
	n, version int64
	rivals     int
	reads      []int
	writes     int
}

func (c *counter) record() versioned[counter] {
	return versioned[counter]{
		read: func(_ context.Context, attempt int) (counter, error) {
			c.reads = append(c.reads, attempt)
			return counter{n: c.n, version: c.version}, nil
		},
		write: func(_ context.Context, v counter) (counter, error) {
			c.writes++
			if c.rivals > 0 {
				c.rivals--
				c.n, c.version = c.n+100, c.version+1 // the rival's change
				return v, store.ErrConflict
			}
			if v.version != c.version {
				return v, store.ErrConflict
			}
			c.n, c.version = v.n, c.version+1
			v.version = c.version
			return v, nil
		},
	}
}

func inc(v *counter) error { v.n++; return nil }

// A lost race starts over from a fresh read, so the change applies to the
// rival's result and nothing is lost; contention that never ends stops at
// maxRetries with an error naming the record.
func TestUpdateRetriesOnConflictThenGivesUp(t *testing.T) {
	c := &counter{rivals: 3}
	got, err := update(t.Context(), "counter", c.record(), inc)
	if err != nil || got.n != 301 || c.n != 301 || c.writes != 4 || len(c.reads) != 4 || c.reads[3] != 3 {
		t.Fatalf("got %+v err %v; store n=%d writes %d reads %v", got, err, c.n, c.writes, c.reads)
	}
	c = &counter{rivals: maxRetries}
	if _, err := update(t.Context(), "counter c1", c.record(), inc); err == nil || !strings.Contains(err.Error(), "counter c1: still conflicting after 32 attempts") {
		t.Fatalf("endless contention: %v", err)
	}
	if c.writes != maxRetries {
		t.Fatalf("%d writes, want %d", c.writes, maxRetries)
	}
}

// errUnchanged ends without a write; errReread reads again without one; a
// conflict met while deciding reads again; any other error of the change
// ends it as it is.
func TestUpdateChangeOutcomes(t *testing.T) {
	c := &counter{n: 5}
	if got, err := update(t.Context(), "c", c.record(), func(*counter) error { return errUnchanged }); err != nil || got.n != 5 || c.writes != 0 {
		t.Fatalf("unchanged: %+v %v, %d writes", got, err, c.writes)
	}
	calls := 0
	change := func(v *counter) error {
		calls++
		switch calls {
		case 1:
			return errReread
		case 2:
			return store.ErrConflict
		}
		v.n = 9
		return nil
	}
	if got, err := update(t.Context(), "c", c.record(), change); err != nil || got.n != 9 || c.writes != 1 || len(c.reads) != 4 {
		t.Fatalf("reread: %+v %v, %d writes, reads %v", got, err, c.writes, c.reads)
	}
	boom := errors.New("boom")
	if _, err := update(t.Context(), "c", c.record(), func(*counter) error { return boom }); err != boom {
		t.Fatalf("change error came back as %v", err)
	}
}
