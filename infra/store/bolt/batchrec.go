package bolt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// decodeBatch reads a stored batch record: the binary form records are
// written in (encodeBatch), or the JSON that records written before it
// are in. JSON records are json.Marshal's form
// of store.BatchRecord, fields in its order; reading that form directly
// (the body is base64 in a JSON string) costs a tenth of json.Unmarshal,
// which spends most of its time checking and unquoting 2 KB of base64. Any
// record not in exactly that form (an escape in a string, a null, a field
// out of place) is decoded by json.Unmarshal, so the result is always
// Unmarshal's (TestBatchRecordQuickDecode).
func decodeBatch(raw []byte, b *store.BatchRecord) error {
	if bytes.HasPrefix(raw, []byte(binMagic)) {
		return decodeBinBatch(raw[len(binMagic):], b)
	}
	if quickBatch(raw, b) {
		return nil
	}
	*b = store.BatchRecord{}
	return json.Unmarshal(raw, b)
}

// rec is a cursor over one record in json.Marshal's form.
type rec struct {
	raw []byte
	ok  bool
}

// key expects `"name":` (after a ',' unless first).
func (r *rec) key(name string, first bool) {
	if !r.ok {
		return
	}
	p := `,"` + name + `":`
	if first {
		p = `{"` + name + `":`
	}
	if !bytes.HasPrefix(r.raw, []byte(p)) {
		r.ok = false
		return
	}
	r.raw = r.raw[len(p):]
}

// str reads a JSON string without escapes.
func (r *rec) str() []byte {
	if !r.ok || len(r.raw) == 0 || r.raw[0] != '"' {
		r.ok = false
		return nil
	}
	i := bytes.IndexByte(r.raw[1:], '"')
	if i < 0 || bytes.IndexByte(r.raw[1:1+i], '\\') >= 0 {
		r.ok = false
		return nil
	}
	s := r.raw[1 : 1+i]
	r.raw = r.raw[2+i:]
	return s
}

func (r *rec) time() time.Time {
	s := r.str()
	if !r.ok {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	r.ok = err == nil
	return t
}

func (r *rec) uint() uint64 {
	if !r.ok {
		return 0
	}
	i := 0
	for i < len(r.raw) && r.raw[i] >= '0' && r.raw[i] <= '9' {
		i++
	}
	n, err := strconv.ParseUint(string(r.raw[:i]), 10, 64)
	r.ok = err == nil && i > 0
	r.raw = r.raw[i:]
	return n
}

// bytes reads a base64 string.
func (r *rec) bytes() []byte {
	s := r.str()
	if !r.ok {
		return nil
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, s)
	r.ok = err == nil
	return out[:n]
}

// strs reads an array of strings without escapes.
func (r *rec) strs() []string {
	if !r.ok || len(r.raw) < 2 || r.raw[0] != '[' {
		r.ok = false
		return nil
	}
	r.raw = r.raw[1:]
	out := []string{}
	for r.ok && r.raw[0] != ']' {
		if len(out) > 0 {
			if r.raw[0] != ',' {
				r.ok = false
				return nil
			}
			r.raw = r.raw[1:]
		}
		out = append(out, string(r.str()))
		if len(r.raw) == 0 {
			r.ok = false
		}
	}
	if r.ok {
		r.raw = r.raw[1:]
	}
	return out
}

func quickBatch(raw []byte, b *store.BatchRecord) bool {
	r := &rec{raw: raw, ok: true}
	r.key("node", true)
	b.Node = string(r.str())
	r.key("seq", false)
	b.Seq = r.uint()
	r.key("id", false)
	b.ID = string(r.str())
	r.key("hash", false)
	b.Hash = string(r.str())
	r.key("received_at", false)
	b.ReceivedAt = r.time()
	r.key("why", false)
	if r.ok && bytes.HasPrefix(r.raw, []byte("null")) {
		b.Why, r.raw = nil, r.raw[4:]
	} else {
		b.Why = r.strs()
	}
	r.key("body", false)
	b.Body = r.bytes()
	if bytes.HasPrefix(r.raw, []byte(`,"form":`)) {
		r.key("form", false)
		b.Form = r.bytes()
	}
	r.key("expires_at", false)
	b.ExpiresAt = r.time()
	return r.ok && string(r.raw) == "}"
}
