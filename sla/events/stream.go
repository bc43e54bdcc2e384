package events

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// A decoding job holds chunkLines lines, or fewer where they reach
// chunkBytes: a chunk of heartbeat runs is a few hundred kB, one of stress
// results (6 kB a line) would be 13 MB, with its decoded events twice that,
// and a few chunks a worker are in flight.
const (
	chunkLines = 2048
	chunkBytes = 512 << 10
)

type chunk struct {
	first int // line number of the chunk's first line
	data  []byte
	ends  []int // end offset of each line in data
	done  chan decoded
}

type decoded struct {
	evs   []Event
	lines []int
	errs  []*LineError
}

// chunks are recycled: a month of heartbeats is thousands of chunks, and
// allocating each afresh made the garbage collector a tenth of the cost.
var chunkPool = sync.Pool{New: func() any {
	return &chunk{data: make([]byte, 0, 512<<10), ends: make([]int, 0, chunkLines), done: make(chan decoded, 1)}
}}

var eventsPool = sync.Pool{New: func() any { s := make([]Event, 0, chunkLines); return &s }}

func newChunk(first int) *chunk {
	c := chunkPool.Get().(*chunk)
	c.first, c.data, c.ends = first, c.data[:0], c.ends[:0]
	return c
}

// Stream decodes a log on several goroutines (decoding JSON is the costly
// part of reading a month of heartbeats) and hands the events to fn one at a
// time, in file order, on the calling goroutine. A malformed line goes to
// bad, in order too; if bad returns false, or fn returns an error, Stream
// stops and returns that error (nil for bad). Memory stays bounded: at most
// a few chunks of lines per worker are in flight. workers <= 0 means
// GOMAXPROCS. The *Event passed to fn is reused after fn returns.
func Stream(r io.Reader, workers int, fn func(e *Event, line int) error, bad func(*LineError) bool) (lines int, err error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *chunk, workers)
	order := make(chan *chunk, 2*workers)
	quit := make(chan struct{})
	defer close(quit)
	for w := 0; w < workers; w++ {
		go func() {
			for c := range jobs {
				c.done <- decodeChunk(c)
			}
		}()
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(jobs)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
		line := 0
		c := newChunk(1)
		send := func() bool {
			select {
			case order <- c:
			case <-quit:
				return false
			}
			select {
			case jobs <- c:
			case <-quit:
				return false
			}
			return true
		}
		for sc.Scan() {
			line++
			c.data = append(c.data, sc.Bytes()...)
			c.ends = append(c.ends, len(c.data))
			if len(c.ends) == chunkLines || len(c.data) >= chunkBytes {
				if !send() {
					readErr <- nil
					return
				}
				c = newChunk(line + 1)
			}
		}
		err := sc.Err()
		if errors.Is(err, bufio.ErrTooLong) {
			err = &LineError{Line: line + 1, Err: fmt.Errorf("line longer than %d bytes", MaxLineBytes)}
		} else if err != nil {
			err = &LineError{Line: line + 1, Err: fmt.Errorf("cannot be read: %w", err)}
		}
		if len(c.ends) > 0 && !send() {
			readErr <- nil
			return
		}
		readErr <- err
	}()
	for c := range order {
		d := <-c.done
		ei, bi := 0, 0
		// Merge events and errors back into line order.
		for ei < len(d.evs) || bi < len(d.errs) {
			if bi < len(d.errs) && (ei == len(d.evs) || d.errs[bi].Line < d.lines[ei]) {
				if !bad(d.errs[bi]) {
					return lines, nil
				}
				bi++
				continue
			}
			if err := fn(&d.evs[ei], d.lines[ei]); err != nil {
				return lines, err
			}
			ei++
		}
		lines = c.first + len(c.ends) - 1
		// fn has taken what it keeps (copies); the buffers can be reused.
		clear(d.evs)
		evs := d.evs[:0]
		eventsPool.Put(&evs)
		chunkPool.Put(c)
	}
	if err := <-readErr; err != nil {
		var le *LineError
		if errors.As(err, &le) {
			bad(le)
			return lines, nil
		}
		return lines, err
	}
	return lines, nil
}

func decodeChunk(c *chunk) decoded {
	evs := eventsPool.Get().(*[]Event)
	d := decoded{evs: (*evs)[:0], lines: make([]int, 0, len(c.ends))}
	start := 0
	for i, end := range c.ends {
		b := bytes.TrimSpace(c.data[start:end])
		start = end
		if len(b) == 0 {
			continue
		}
		line := c.first + i
		d.evs = append(d.evs, Event{})
		e := &d.evs[len(d.evs)-1]
		err := decodeLine(b, e)
		if err == nil {
			err = e.Validate()
		}
		if err != nil {
			d.evs = d.evs[:len(d.evs)-1]
			d.errs = append(d.errs, &LineError{Line: line, Err: err})
			continue
		}
		d.lines = append(d.lines, line)
	}
	return d
}
