package app_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// TestCheckMasterKey: the key the secrets were sealed with passes; another
// key is ErrWrongMasterKey naming a node; a key that opens some records
// names the ones it cannot open; an empty store passes any key.
func TestCheckMasterKey(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	right, wrong := apptest.Box(t), apptest.Box(t)
	if bad, err := app.CheckMasterKey(t.Context(), st, wrong); err != nil || len(bad) != 0 {
		t.Fatalf("empty store: %v, %v", bad, err)
	}
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: right})
	if err != nil {
		t.Fatal(err)
	}
	apptest.AddNode(t, svc, "gz-01")
	apptest.AddNode(t, svc, "gz-02")
	if bad, err := app.CheckMasterKey(t.Context(), st, right); err != nil || len(bad) != 0 {
		t.Fatalf("right key: %v, %v", bad, err)
	}
	_, err = app.CheckMasterKey(t.Context(), st, wrong)
	if !errors.Is(err, app.ErrWrongMasterKey) || !strings.Contains(err.Error(), "gz-0") || !strings.Contains(err.Error(), "none of the 2") {
		t.Fatalf("wrong key: %v", err)
	}
	// A record sealed with the other key (damage, not a wrong key).
	sealed, _ := wrong.Seal([]byte("s"), "gz-03")
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-03", Provider: "acme", Contract: "c", SealedSecret: sealed}); err != nil {
		t.Fatal(err)
	}
	if bad, err := app.CheckMasterKey(t.Context(), st, right); err != nil || !slices.Equal(bad, []string{"gz-03"}) {
		t.Fatalf("one damaged record: %v, %v; want [gz-03] and no error", bad, err)
	}
}
