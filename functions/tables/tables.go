// Package tables prints the tables of the gpusla list commands (node list,
// ticket list, apikey list): one function a table, aligned columns, one row
// per record, so the command files only open the store and call.
package tables

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// NodeStore is what the node table reads.
type NodeStore interface {
	ListNodes(ctx context.Context) ([]store.Node, error)
	GetState(ctx context.Context, node string) (store.NodeState, error)
}

// Nodes prints every registered node with its last heartbeat and, once it
// was given back, when it was released. A node that
// has pushed nothing yet has no state and shows "-"; any other failure to
// read a state stops the table rather than show a node as quiet that is not.
func Nodes(ctx context.Context, w io.Writer, st NodeStore) error {
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tPROVIDER\tCONTRACT\tGPUS\tLAST SEQ\tLAST RECEIVED\tSTATE\tRELEASED AT")
	for _, n := range nodes {
		s, err := st.GetState(ctx, n.ID)
		never := errors.Is(err, store.ErrNotFound)
		if err != nil && !never {
			return fmt.Errorf("node %s: %w", n.ID, err)
		}
		// A node never heard from is neither reachable nor unreachable:
		// it has not sent its first batch (the probe is not running yet).
		seq, state := strconv.FormatUint(s.LastSeq, 10), "up"
		switch {
		case never:
			seq, state = "-", "no heartbeat yet"
		case s.Eval.Unreachable != nil:
			state = "unreachable"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", n.ID, n.Provider, n.Contract, n.GPUCount, seq,
			instant(s.LastReceivedAt), state, instant(n.ReleasedAt))
	}
	return tw.Flush()
}

// APIKeys prints the keys, never their secrets (the store holds only a
// hash of each anyway).
func APIKeys(w io.Writer, keys []store.APIKey) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSCOPES\tCREATED\tREVOKED")
	for _, k := range keys {
		scopes := strings.Join(k.Scopes, ",")
		if k.Scopes == nil {
			scopes = "tickets (from before scopes)" // app's legacy reading
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, scopes, k.CreatedAt.Format(time.RFC3339), instant(k.RevokedAt))
	}
	return tw.Flush()
}

// instant is t in RFC 3339, "-" for never.
func instant(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format(time.RFC3339)
}
