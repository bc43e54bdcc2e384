package app

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpusla/gpusla/sla/terms"
)

// TermsBook holds the contract terms the backend knows, by contract id.
type TermsBook map[string]*terms.Terms

// LoadTerms reads terms files; a path that is a folder contributes every
// *.yaml / *.yml file in it. Two definitions of one contract are an error.
func LoadTerms(paths ...string) (TermsBook, error) {
	book := TermsBook{}
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("terms: %w", err)
		} else if st.IsDir() {
			files = nil
			ents, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("terms: %w", err)
			}
			for _, e := range ents {
				if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
					files = append(files, filepath.Join(p, n))
				}
			}
			sort.Strings(files)
		}
		for _, f := range files {
			ts, err := terms.ReadFile(f)
			if err != nil {
				return nil, err
			}
			for _, tm := range ts {
				if prev, ok := book[tm.Contract]; ok {
					return nil, fmt.Errorf("terms: contract %q is defined in %s:%d and again in %s:%d", tm.Contract, prev.File, prev.Line, tm.File, tm.Line)
				}
				book[tm.Contract] = tm
			}
		}
	}
	return book, nil
}

// Contracts lists the contract ids, sorted.
func (b TermsBook) Contracts() []string {
	out := make([]string, 0, len(b))
	for k := range b {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// IncidentTicketKey is the idempotency key of the ticket opened from an
// incident's alert: one incident, one ticket, however often it is clicked,
// and the other buttons find that ticket from the same key.
func IncidentTicketKey(node, incidentID string) string { return "incident:" + node + ":" + incidentID }

// TicketIDForKey is the id Open gives a ticket opened with key.
func TicketIDForKey(key string) string {
	id, _ := ticketID(key)
	return id
}
