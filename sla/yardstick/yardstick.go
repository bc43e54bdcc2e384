// Package yardstick holds the absolute figures each GPU model's stress
// results are compared with in the provider scorecard: the model's
// datasheet figure and what a healthy card of the model measured. Judged
// only against the renter's own fleet, a fleet throttled as a whole, or the
// only provider of a model, scores about 100 %.
//
// The figures are the probe's spec database's (probe/specdb, specs.yaml:
// each threshold's official and healthy figures), mirrored here because the
// backend (the monthly report's Lambda among it) carries none of the probe:
// yardsticks.json is written from the spec database by probe/specdb's
// TestYardstickMirror (-update), which fails whenever the two differ.
//
// On the path from an observation to a report row, this is no step of its
// own: a table the scorecard's performance figures are divided by.
package yardstick

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Yardstick is one model's absolute figures for one stress figure; a zero
// field is not known.
type Yardstick struct {
	Datasheet float64 `json:"datasheet,omitempty"`
	Healthy   float64 `json:"healthy,omitempty"`
}

// Model is one GPU model of the table, named as the spec database names it.
type Model struct {
	ID      string   `json:"id"`
	Family  string   `json:"family"`
	Names   []string `json:"names"`
	Aliases []string `json:"aliases,omitempty"`
	// MemoryMiB is the memory per GPU a genuine card reports (NVML's
	// total), 0 where the spec database names none: an order's memory
	// narrows the models its family name can mean.
	MemoryMiB uint64               `json:"memory_mib,omitempty"`
	Figures   map[string]Yardstick `json:"figures"` // by stress figure: gpu.burn.fp32, gpu.bw.h2d, gpu.power
}

// Table is the mirror's content.
type Table struct {
	Models []Model `json:"models"`
}

//go:embed yardsticks.json
var embedded []byte

var table = mustParse(embedded)

func mustParse(b []byte) Table {
	var t Table
	if err := json.Unmarshal(b, &t); err != nil {
		panic(fmt.Sprintf("yardsticks.json: %v", err))
	}
	return t
}

// Embedded is the table as shipped (TestYardstickMirror compares it with
// the spec database).
func Embedded() Table { return table }

// Figure maps a spec database threshold name to the scorecard's stress
// figure it is the yardstick of: stress.<precision> → gpu.burn.<precision>,
// bw.<test> → gpu.bw.<test>, stress.power → gpu.power; false for the
// others (fallback kernels, collectives).
func Figure(threshold string) (string, bool) {
	switch {
	case threshold == "stress.power":
		return "gpu.power", true
	case strings.HasPrefix(threshold, "stress.") && !strings.Contains(strings.TrimPrefix(threshold, "stress."), "."):
		return "gpu.burn." + strings.TrimPrefix(threshold, "stress."), true
	case strings.HasPrefix(threshold, "bw."):
		return "gpu.bw." + strings.TrimPrefix(threshold, "bw."), true
	}
	return "", false
}

// Lookup is the yardstick of model's figure. model is what a node's
// registration says (an id, NVML name, alias or family, spelt as the spec
// database accepts it: case, "NVIDIA", spaces and dashes do not matter); a
// family of several models has a yardstick only where all of them agree.
func Lookup(model, figure string) (Yardstick, bool) {
	ms := resolve(model)
	if len(ms) == 0 {
		return Yardstick{}, false
	}
	y, ok := ms[0].Figures[figure]
	for _, m := range ms[1:] {
		if z, ok2 := m.Figures[figure]; !ok2 || z != y {
			return Yardstick{}, false
		}
	}
	return y, ok
}

// LookupCard is Lookup for the name a card reports itself by (NVML's):
// an exact name first — "NVIDIA H200" is the H200 SXM's own name, though
// it also spells the H200 family — then as Lookup reads it.
func LookupCard(name, figure string) (Yardstick, bool) {
	if ms := exact[Normalise(name)]; len(ms) == 1 {
		y, ok := ms[0].Figures[figure]
		return y, ok
	}
	return Lookup(name, figure)
}

// resolve is the models a name means: a family's every model, else the
// one an id, NVML name or alias names.
func resolve(name string) []*Model {
	want := Normalise(name)
	if ms := families[want]; len(ms) > 0 {
		return ms
	}
	return exact[want]
}

// families and exact index the table by normalised name, once: the
// scorecard looks up every GPU's series.
var families, exact = index(table)

func index(t Table) (map[string][]*Model, map[string][]*Model) {
	fam, ex := map[string][]*Model{}, map[string][]*Model{}
	for i := range t.Models {
		m := &t.Models[i]
		fam[Normalise(m.Family)] = append(fam[Normalise(m.Family)], m)
		seen := map[string]bool{}
		for _, n := range append(append([]string{m.ID}, m.Names...), m.Aliases...) {
			if k := Normalise(n); k != "" && !seen[k] {
				seen[k] = true
				ex[k] = append(ex[k], m)
			}
		}
	}
	delete(fam, "")
	return fam, ex
}

// Normalise folds a GPU model's spelling: case, "NVIDIA", "GeForce",
// spaces, dashes and underscores do not matter. The spec database resolves
// an order's model name with it too, so both read a name alike.
func Normalise(s string) string {
	s = strings.ToLower(s)
	for _, w := range []string{"nvidia", "geforce"} {
		s = strings.ReplaceAll(s, w, "")
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '\t':
			return -1
		}
		return r
	}, s)
}

// Models are the ids of the models an order's name means, as Lookup reads
// it: a family's every model, else the one an id, NVML name or alias
// names; none for a name the table does not know.
func Models(name string) []string { return ids(resolve(name)) }

// CardModels are the ids of the models a card's own reported name means,
// as LookupCard reads it: the exact name first ("NVIDIA H200" is the H200
// SXM's own name, though it also spells the H200 family).
func CardModels(name string) []string {
	if ms := exact[Normalise(name)]; len(ms) == 1 {
		return ids(ms)
	}
	return Models(name)
}

func ids(ms []*Model) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// ByID is the model of the table with id; false for an id it does not
// hold.
func ByID(id string) (Model, bool) {
	for _, m := range exact[Normalise(id)] {
		if m.ID == id {
			return *m, true
		}
	}
	return Model{}, false
}

// DisplayName is the name a genuine card of m reports, else its id.
func (m Model) DisplayName() string {
	if len(m.Names) > 0 {
		return m.Names[0]
	}
	return m.ID
}

// Outdone says whether the model card is its family's cut-down form among
// the models ordered (the ids an order's name means): where "H100" may be
// the SXM, the NVL or the PCIe card, a model of them at least as good as
// card on every datasheet figure both have and better on one (the SXM over
// the PCIe card: bandwidth, FLOPS and power; the A100 80 GB over the 40
// GB) is the one the renter had reason to expect, and it is returned.
// Only the models meant pass (the memory ordered narrows a family: "H20"
// with 96 GB is not also the 141 GB card). The probe's order check and the
// trial's judge both ask it; each warns, never fails: the order did name
// the family, and the provider could refuse a failure on it.
func Outdone(card string, ordered []string, meant func(Model) bool) (Model, bool) {
	mine, ok := ByID(card)
	if !ok || !slices.Contains(ordered, card) {
		return Model{}, false
	}
	for _, id := range ordered {
		o, ok := ByID(id)
		if !ok || id == card || !meant(o) {
			continue
		}
		better, common := false, 0
		for f, y := range o.Figures {
			w := mine.Figures[f].Datasheet
			if y.Datasheet <= 0 || w <= 0 {
				continue
			}
			if y.Datasheet < w {
				common = -1
				break
			}
			common++
			better = better || y.Datasheet > w
		}
		if common > 0 && better {
			return o, true
		}
	}
	return Model{}, false
}
