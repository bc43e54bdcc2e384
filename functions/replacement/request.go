package replacement

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/atomicfile"
)

// Requester requests replacements: it gathers the evidence, opens (once)
// the hardware ticket on the desk, renders the text and writes the pack.
type Requester struct {
	Desk *app.TicketDesk
	Key  ed25519.PrivateKey
	// Dir is where packs are written.
	Dir string
	// Packs, when set, takes the pack and its text instead of Dir (a
	// Lambda has no lasting disk: the report bucket), under PacksDir/;
	// PacksAt is where that is, for the text ("s3://bucket/").
	Packs interface {
		Put(ctx context.Context, name string, data []byte) error
	}
	PacksAt string
}

// Request asks for one replacement.
type Request struct {
	Node       string
	IncidentID string // "" picks the newest open hardware incident
	Lang       Lang
	By         string // who asked, for the ticket's timeline
	Thread     string // the incident alert's thread, when asked from it
}

// Result is what Request did.
type Result struct {
	Ticket store.Ticket
	// Created: this call opened the ticket (false: it was open already).
	Created bool
	// Warning says the ticket the incident already had is not a hardware
	// ticket, so no replacement clock runs on it.
	Warning  string
	Text     string
	Pack     string // path of the zip
	TextPath string // path of the ticket text beside it
	Manifest *Manifest
	Evidence *Evidence
}

// Request runs r. Running it again for the same incident opens no second
// ticket (the desk's key is the incident's, the one the alert's "Ticket
// opened" button uses) and writes the pack again, with the same name.
func (q *Requester) Request(ctx context.Context, r Request) (*Result, error) {
	if q.Desk == nil || len(q.Key) == 0 || (q.Dir == "" && q.Packs == nil) {
		return nil, fmt.Errorf("replacement: requester needs a desk, a signing key and a folder or blob store")
	}
	svc := q.Desk.Service()
	now := svc.Now()
	ev, err := Gather(ctx, svc, r.Node, r.IncidentID, now)
	if err != nil {
		return nil, err
	}
	tm := q.Desk.Terms()[ev.Node.Contract]
	if tm == nil || len(tm.Support.Priorities) == 0 {
		return nil, app.Errorf(app.EInvalid, "node", "contract %q of node %s is not loaded or has no priorities", ev.Node.Contract, ev.Node.ID)
	}
	inc := ev.Incident
	summary := fmt.Sprintf("请更换物理机 / please replace the physical machine: %s since %s", inc.Kind, inc.Start.UTC().Format(time.RFC3339))
	tk, created, err := q.Desk.Open(ctx, app.OpenRequest{Node: ev.Node.ID, Priority: tm.Support.Priorities[0], Category: store.CategoryHardware,
		Summary: summary, By: r.By, Key: app.IncidentTicketKey(ev.Node.ID, inc.ID), IncidentID: inc.ID, Thread: r.Thread})
	if err != nil {
		return nil, err
	}
	res := &Result{Ticket: tk, Created: created, Evidence: ev}
	if tk.Category != store.CategoryHardware {
		res.Warning = fmt.Sprintf("ticket %s was opened for this incident before as a %q ticket: the contract's replacement clock does not run on it; open a hardware ticket with `/gpusla ticket open` or the API", tk.ID, tk.Category)
	}
	tim, _, err := q.Desk.Timing(&tk, now)
	if err != nil {
		return nil, err
	}
	var due time.Time
	if tim.Replacement != nil {
		due = tim.Replacement.Deadline
	}
	base := fmt.Sprintf("replacement-%s-%s", ev.Node.ID, fileSafe(inc.ID))
	res.Pack = filepath.Join(q.Dir, base+".zip")
	res.TextPath = filepath.Join(q.Dir, base+".txt")
	if q.Packs != nil {
		res.Pack, res.TextPath = q.PacksAt+PacksDir+"/"+base+".zip", q.PacksAt+PacksDir+"/"+base+".txt"
	}
	// The text names the pack and its key; the pack holds the text (its
	// SHA-256 in the signed manifest).
	text, err := Text(TextInput{Evidence: ev, Terms: tm, Due: due, Pack: base + ".zip", KeyID: KeyID(q.Key.Public().(ed25519.PublicKey))}, r.Lang)
	if err != nil {
		return nil, err
	}
	res.Text = text
	var buf bytes.Buffer
	m, err := WritePack(&buf, PackInput{Evidence: ev, Ticket: tk.ID, Text: text, Key: q.Key, Created: now})
	if err != nil {
		return nil, err
	}
	res.Manifest = m
	if q.Packs != nil {
		if err := q.Packs.Put(ctx, PacksDir+"/"+base+".zip", buf.Bytes()); err != nil {
			return nil, fmt.Errorf("replacement: %w", err)
		}
		if err := q.Packs.Put(ctx, PacksDir+"/"+base+".txt", []byte(text)); err != nil {
			return nil, fmt.Errorf("replacement: %w", err)
		}
		return res, nil
	}
	if err := os.MkdirAll(q.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("replacement: %w", err)
	}
	if err := atomicfile.WriteFile(res.Pack, buf.Bytes(), 0o640); err != nil {
		return nil, fmt.Errorf("replacement: %w", err)
	}
	if err := atomicfile.WriteFile(res.TextPath, []byte(text), 0o640); err != nil {
		return nil, fmt.Errorf("replacement: %w", err)
	}
	return res, nil
}

// fileSafe turns an incident id (kind@time~check/gpuN) into a file name part.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// RequestReplacement is Request for the alert's button and link
// (slackapi.Replacer, actionlink.Requester): both languages, the pack
// written to the requester's folder. created is false when the incident had
// its ticket already (the store's conditional create decided).
func (q *Requester) RequestReplacement(ctx context.Context, node, incidentID, by, thread string) (text, ticketID string, created bool, err error) {
	res, err := q.Request(ctx, Request{Node: node, IncidentID: incidentID, Lang: Both, By: by, Thread: thread})
	if err != nil {
		return "", "", false, err
	}
	text = res.Text + "\nEvidence pack: " + res.Pack
	if res.Warning != "" {
		text += "\nWarning: " + res.Warning
	}
	return text, res.Ticket.ID, res.Created, nil
}
