package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// A damaged bbolt file does not fail politely: a page with a wrong id
// panics inside bbolt, and a page number past the end of the file (a
// truncated file, or a damaged branch page) faults on the memory map,
// which kills the process (SIGSEGV or SIGBUS) where no recover can catch
// it. And a 0-byte file is taken for a new database and silently becomes
// an empty store. So before bbolt maps a file, Verify reads it with plain
// reads and checks what bbolt would rely on: a valid meta page, a file at
// least as long as the meta page says, and a page tree whose every page
// number is inside the file, whose pages have the id and type their
// parents say, and whose elements stay inside their pages. Only a file
// that passes is handed to bbolt, whose own consistency check (Tx.Check:
// key order, freed pages) then runs on it without risk.

// DamagedError is a store file that cannot be used as it is.
type DamagedError struct {
	Path    string
	Problem string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("store %s is damaged: %s; nothing was changed. Restore the last backup (`gpusla restore`), or move the file away to start an empty store", e.Path, e.Problem)
}

// bbolt's on-disk format (go.etcd.io/bbolt/internal/common), version 2.
const (
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	pageHeaderSize  = 16 // id u64, flags u16, count u16, overflow u32
	metaSize        = 64 // magic, version, page size, flags, root bucket (16), freelist, pgid, txid, checksum
	elementSize     = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	bucketValueSize = 16 // root pgid u64, sequence u64
	flagBranch      = 0x01
	flagLeaf        = 0x02
	flagMeta        = 0x04
	leafBucket      = 0x01
	maxDepth        = 64 // far deeper than any real tree: a loop or garbage
)

type meta struct {
	pageSize uint32
	root     uint64
	pgid     uint64 // high-water mark: pages 0 … pgid-1 exist
	txid     uint64
}

// Verify checks the store file at path without opening it with bbolt (see
// above). A missing file is reported as such (os.ErrNotExist); any other
// problem is a *DamagedError saying what is wrong.
func Verify(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("store %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store %s: %w", path, err)
	}
	bad := func(format string, args ...any) error {
		return &DamagedError{Path: path, Problem: fmt.Sprintf(format, args...)}
	}
	size := fi.Size()
	if size == 0 {
		return bad("the file is empty (0 bytes), so every record it held is gone")
	}
	m, err := readMeta(f, size)
	if err != nil {
		return bad("%v", err)
	}
	if need := int64(m.pgid) * int64(m.pageSize); need > size {
		return bad("the file is truncated: its meta page counts %d pages of %d bytes (%d bytes), the file has %d bytes", m.pgid, m.pageSize, need, size)
	}
	w := walker{r: f, m: m, seen: map[uint64]bool{0: true, 1: true}}
	if _, err := w.page(m.root, nil, nil, 0, "root"); err != nil {
		return bad("%v", err)
	}
	return nil
}

// readMeta returns the newest valid meta page, as bbolt chooses it.
func readMeta(r io.ReaderAt, size int64) (meta, error) {
	var best meta
	var errs []error
	for i, off := range []int64{0, -1} {
		if off < 0 {
			// The second meta page sits one page in: the size the first
			// meta page states, or bbolt's default when it is unreadable.
			off = 4096
			if best.pageSize != 0 {
				off = int64(best.pageSize)
			}
		}
		m, err := readMetaAt(r, off, size)
		if err != nil {
			errs = append(errs, fmt.Errorf("meta page %d: %w", i, err))
			continue
		}
		if best.pageSize == 0 || m.txid > best.txid {
			best = m
		}
	}
	if best.pageSize == 0 {
		return meta{}, fmt.Errorf("no valid meta page, so this is no bbolt file or its header is destroyed (%w)", errors.Join(errs...))
	}
	return best, nil
}

func readMetaAt(r io.ReaderAt, off, size int64) (meta, error) {
	if off+pageHeaderSize+metaSize > size {
		return meta{}, fmt.Errorf("file of %d bytes ends before it", size)
	}
	b := make([]byte, pageHeaderSize+metaSize)
	if _, err := r.ReadAt(b, off); err != nil {
		return meta{}, err
	}
	le := binary.LittleEndian
	if le.Uint16(b[8:])&flagMeta == 0 {
		return meta{}, errors.New("not marked as a meta page")
	}
	mb := b[pageHeaderSize:]
	if le.Uint32(mb[0:]) != boltMagic {
		return meta{}, errors.New("bad magic number")
	}
	if v := le.Uint32(mb[4:]); v != boltVersion {
		return meta{}, fmt.Errorf("format version %d, want %d", v, boltVersion)
	}
	h := fnv.New64a()
	h.Write(mb[:56])
	if h.Sum64() != le.Uint64(mb[56:]) {
		return meta{}, errors.New("checksum mismatch")
	}
	m := meta{pageSize: le.Uint32(mb[8:]), root: le.Uint64(mb[16:]), pgid: le.Uint64(mb[40:]), txid: le.Uint64(mb[48:])}
	if m.pageSize < 512 || m.pageSize > 1<<16 || m.pageSize&(m.pageSize-1) != 0 {
		return meta{}, fmt.Errorf("page size %d is not one bbolt writes", m.pageSize)
	}
	if m.pgid < 4 || m.root < 2 || m.root >= m.pgid {
		return meta{}, fmt.Errorf("root page %d outside the %d pages it counts", m.root, m.pgid)
	}
	return m, nil
}

// walker visits the page tree from the root bucket down.
type walker struct {
	r    io.ReaderAt
	m    meta
	seen map[uint64]bool
}

// page checks page id (and its overflow pages) and everything below it;
// where names the reference that led here, for the error. Its keys must lie
// in [min, maxOpen) (nil: no bound), in order, as bbolt's check wants them;
// it returns the greatest key below it.
func (w *walker) page(id uint64, min, maxOpen []byte, depth int, where string) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: the page tree is more than %d levels deep (a loop)", where, maxDepth)
	}
	if id < 2 || id >= w.m.pgid {
		return nil, fmt.Errorf("%s: page %d is outside the file's %d pages", where, id, w.m.pgid)
	}
	ps := uint64(w.m.pageSize)
	hdr := make([]byte, pageHeaderSize)
	if _, err := w.r.ReadAt(hdr, int64(id*ps)); err != nil {
		return nil, fmt.Errorf("%s: page %d: %w", where, id, err)
	}
	le := binary.LittleEndian
	overflow := uint64(le.Uint32(hdr[12:]))
	switch {
	case le.Uint64(hdr) != id:
		return nil, fmt.Errorf("%s: page %d carries the id %d", where, id, le.Uint64(hdr))
	case id+overflow >= w.m.pgid:
		return nil, fmt.Errorf("%s: page %d runs %d pages past the file's %d pages", where, id, overflow, w.m.pgid)
	}
	for i := id; i <= id+overflow; i++ {
		if w.seen[i] {
			return nil, fmt.Errorf("%s: page %d is referenced twice", where, i)
		}
		w.seen[i] = true
	}
	buf := make([]byte, (1+overflow)*ps)
	if _, err := w.r.ReadAt(buf, int64(id*ps)); err != nil {
		return nil, fmt.Errorf("%s: page %d: %w", where, id, err)
	}
	return w.nodePage(buf, id, min, maxOpen, depth, where)
}

// nodePage checks a branch or leaf page held in buf (a whole page with its
// overflow, or an inline bucket's page inside a value).
func (w *walker) nodePage(buf []byte, id uint64, min, maxOpen []byte, depth int, where string) ([]byte, error) {
	le := binary.LittleEndian
	flags, count := le.Uint16(buf[8:]), int(le.Uint16(buf[10:]))
	if flags != flagBranch && flags != flagLeaf {
		return nil, fmt.Errorf("%s: page %d is neither a branch nor a leaf page (flags %#x)", where, id, flags)
	}
	if pageHeaderSize+count*elementSize > len(buf) {
		return nil, fmt.Errorf("%s: page %d says %d elements, more than fit in it", where, id, count)
	}
	// Bounds first, so that every key below can be read.
	keys := make([][]byte, count)
	for i := range count {
		at := pageHeaderSize + i*elementSize
		e := buf[at : at+elementSize]
		pos, ksize, vsize := uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		if flags == flagBranch {
			pos, ksize, vsize = uint64(le.Uint32(e[0:])), uint64(le.Uint32(e[4:])), 0
		}
		if start := uint64(at) + pos; start+ksize+vsize > uint64(len(buf)) {
			return nil, fmt.Errorf("%s: page %d element %d: key or value outside the page", where, id, i)
		} else {
			keys[i] = buf[start : start+ksize]
		}
	}
	running := min
	for i, k := range keys {
		if (i == 0 && running != nil && bytes.Compare(running, k) > 0) || (i > 0 && bytes.Compare(running, k) >= 0) ||
			(maxOpen != nil && bytes.Compare(k, maxOpen) >= 0) {
			return nil, fmt.Errorf("%s: page %d element %d: keys out of order", where, id, i)
		}
		at := pageHeaderSize + i*elementSize
		e := buf[at : at+elementSize]
		if flags == flagBranch {
			next := maxOpen
			if i+1 < count {
				next = keys[i+1]
			}
			sub, err := w.page(le.Uint64(e[8:]), k, next, depth+1, fmt.Sprintf("page %d element %d", id, i))
			if err != nil {
				return nil, err
			}
			running = sub
			continue
		}
		running = k
		if le.Uint32(e[0:])&leafBucket == 0 {
			continue
		}
		vstart := uint64(at) + uint64(le.Uint32(e[4:])) + uint64(len(k))
		v := buf[vstart : vstart+uint64(le.Uint32(e[12:]))]
		child := fmt.Sprintf("bucket %q (page %d element %d)", k, id, i)
		if len(v) < bucketValueSize {
			return nil, fmt.Errorf("%s: %d bytes, too short for a bucket", child, len(v))
		}
		if root := le.Uint64(v); root != 0 {
			if _, err := w.page(root, nil, nil, depth+1, child); err != nil {
				return nil, err
			}
			continue
		}
		// An inline bucket: its page follows in the value.
		inline := v[bucketValueSize:]
		if len(inline) < pageHeaderSize || le.Uint16(inline[8:]) != flagLeaf {
			return nil, fmt.Errorf("%s: inline bucket is not a leaf page", child)
		}
		if _, err := w.nodePage(inline, id, nil, nil, depth+1, child); err != nil {
			return nil, err
		}
	}
	if flags == flagLeaf && count > 0 {
		return keys[count-1], nil
	}
	return running, nil
}
