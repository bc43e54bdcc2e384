package bolt

import (
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/binrec"
)

// A batch record is written in a binary form (internal/binrec): its body
// (and its form) as the bytes they are, where JSON made them base64 a
// third larger, and read by slicing, where JSON had to be scanned and
// unquoted. A month of a node is some 800 records of a few kilobytes; in
// JSON, reading them cost more than what the books then do with them. The
// form: binMagic, then the fields in store.BatchRecord's order, Why with
// its count plus one first (0: nil), times read back in UTC.
const binMagic = "\x00gbr\x01"

func encodeBatch(b *store.BatchRecord) []byte {
	out := make([]byte, 0, len(binMagic)+len(b.Body)+len(b.Form)+len(b.Node)+len(b.ID)+len(b.Hash)+64)
	out = append(out, binMagic...)
	out = binrec.AppendString(out, b.Node)
	out = binrec.AppendUint(out, b.Seq)
	out = binrec.AppendString(out, b.ID)
	out = binrec.AppendString(out, b.Hash)
	out = binrec.AppendTime(out, b.ReceivedAt)
	if b.Why == nil {
		out = binrec.AppendUint(out, 0)
	} else {
		out = binrec.AppendUint(out, uint64(len(b.Why))+1)
		for _, w := range b.Why {
			out = binrec.AppendString(out, w)
		}
	}
	out = binrec.AppendBytes(out, b.Body)
	out = binrec.AppendBytes(out, b.Form)
	return binrec.AppendTime(out, b.ExpiresAt)
}

// binHead reads a binary record's fields up to its receive time.
func binHead(r *binrec.Reader, b *store.BatchRecord) {
	b.Node, b.Seq, b.ID, b.Hash, b.ReceivedAt = r.String("node"), r.Uint("seq"), r.String("id"), r.String("hash"), r.Time("received_at")
}

func decodeBinBatch(p []byte, b *store.BatchRecord) error {
	r := binrec.NewReader("batch record", p)
	*b = store.BatchRecord{}
	binHead(r, b)
	if n := r.Uint("why"); n > 0 && r.Err() == nil {
		if n-1 > uint64(r.Left()) {
			r.Fail("why", binrec.ErrShort)
			return r.Err()
		}
		b.Why = make([]string, n-1)
		for i := range b.Why {
			b.Why[i] = r.String("why")
		}
	}
	b.Body, b.Form, b.ExpiresAt = r.Bytes("body"), r.Bytes("form"), r.Time("expires_at")
	return r.End()
}
