package app

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/gpusla/gpusla/internal/binrec"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
)

// A node's part travels between processes (a worker's Lambda, the
// assembling one) in two forms: its JSON, which is the report's own form
// and tells an empty list from none, and a gob of it, which carries the
// sentences the JSON leaves out (msg.Text, what the documents translate).
// DecodePart takes the JSON and puts the sentences back from the gob, so
// the documents of a month built apart are those of a month built whole.

func init() {
	// The types a sentence's arguments hold (sla/msg): a type missing here
	// fails the part's encoding by name, never drops a word.
	for _, v := range []any{msg.Time{}, msg.Word(""), msg.Text{}, msg.ProbeWords(""), msg.Exact{}, time.Duration(0), time.Time{},
		int(0), int64(0), uint64(0), float64(0), "", false, []string(nil), []msg.Text(nil)} {
		gob.Register(v)
	}
}

// partMagic starts a part's forms (EncodePart), storedMagic a stored part
// (encodeStoredPart): binary records (internal/binrec).
const (
	partMagic   = "\x00gpart\x01"
	storedMagic = "\x00gstored\x01"
)

// EncodePart is p in the form a worker stores.
func EncodePart(p report.Part) ([]byte, error) {
	js, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("part: %w", err)
	}
	var g bytes.Buffer
	if err := gob.NewEncoder(&g).Encode(p); err != nil {
		return nil, fmt.Errorf("part: %w", err)
	}
	out := make([]byte, 0, len(partMagic)+len(js)+g.Len()+16)
	out = binrec.AppendRaw(append(out, partMagic...), js)
	return binrec.AppendRaw(out, g.Bytes()), nil
}

// DecodePart is the part EncodePart stored.
func DecodePart(raw []byte) (report.Part, error) {
	var p, texts report.Part
	if !bytes.HasPrefix(raw, []byte(partMagic)) {
		return p, errors.New("part: not a part's forms")
	}
	r := binrec.NewReader("part", raw[len(partMagic):])
	js, gb := r.View("its JSON"), r.View("its gob")
	if err := r.End(); err != nil {
		return p, err
	}
	if err := json.Unmarshal(js, &p); err != nil {
		return p, fmt.Errorf("part: %w", err)
	}
	if err := gob.NewDecoder(bytes.NewReader(gb)).Decode(&texts); err != nil {
		return p, fmt.Errorf("part: %w", err)
	}
	if err := copyTexts(reflect.ValueOf(&p).Elem(), reflect.ValueOf(&texts).Elem(), "part"); err != nil {
		return p, err
	}
	return p, nil
}

var (
	textType  = reflect.TypeFor[msg.Text]()
	textsType = reflect.TypeFor[[]msg.Text]()
)

// copyTexts sets every msg.Text in dst (the JSON's part) from src (the
// gob's), walking both alike; where they differ in shape the part is
// refused, naming the path.
func copyTexts(dst, src reflect.Value, path string) error {
	if dst.Type() == textType || dst.Type() == textsType {
		dst.Set(src) // the JSON has none of them
		return nil
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if dst.IsNil() != src.IsNil() {
			if dst.IsNil() && src.Elem().IsZero() {
				return nil
			}
			return fmt.Errorf("part: %s: the two forms differ", path)
		}
		if dst.IsNil() {
			return nil
		}
		return copyTexts(dst.Elem(), src.Elem(), path)
	case reflect.Struct:
		for i := range dst.NumField() {
			if !dst.Type().Field(i).IsExported() {
				continue
			}
			if err := copyTexts(dst.Field(i), src.Field(i), path+"."+dst.Type().Field(i).Name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if dst.Len() != src.Len() {
			return fmt.Errorf("part: %s: %d items in one form, %d in the other", path, dst.Len(), src.Len())
		}
		for i := range dst.Len() {
			if err := copyTexts(dst.Index(i), src.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for _, k := range dst.MapKeys() {
			sv := src.MapIndex(k)
			if !sv.IsValid() {
				return fmt.Errorf("part: %s[%v]: missing from one form", path, k)
			}
			v := reflect.New(dst.Type().Elem()).Elem()
			v.Set(dst.MapIndex(k))
			if err := copyTexts(v, sv, fmt.Sprintf("%s[%v]", path, k)); err != nil {
				return err
			}
			dst.SetMapIndex(k, v)
		}
	}
	return nil
}

// encodeStoredPart is sp as a worker writes it.
func encodeStoredPart(sp *storedPart) []byte {
	out := make([]byte, 0, len(storedMagic)+len(sp.Part)+len(sp.Figures.Readings)*16+256)
	out = binrec.AppendString(append(out, storedMagic...), sp.Node)
	out = binrec.AppendRaw(out, sp.Part)
	for _, v := range []int{sp.Input.Lines, sp.Input.Events, sp.Input.Duplicates, sp.Input.AfterAsOf} {
		out = binrec.AppendInt(out, int64(v))
	}
	for _, list := range [][]string{sp.Figures.Names, sp.Figures.Units} {
		out = binrec.AppendUint(out, uint64(len(list)))
		for _, s := range list {
			out = binrec.AppendString(out, s)
		}
	}
	out = binrec.AppendUint(out, uint64(len(sp.Figures.Readings)))
	for _, r := range sp.Figures.Readings {
		// The instant, the name's index and the GPU are whole numbers.
		out = binrec.AppendInt(binrec.AppendInt(binrec.AppendInt(out, int64(r[0])), int64(r[1])), int64(r[2]))
		out = binrec.AppendFloat(out, r[3])
	}
	return out
}

// decodeStoredPart reads what encodeStoredPart wrote.
func decodeStoredPart(raw []byte) (storedPart, error) {
	var sp storedPart
	if !bytes.HasPrefix(raw, []byte(storedMagic)) {
		return sp, errors.New("stored part: not a stored part")
	}
	r := binrec.NewReader("stored part", raw[len(storedMagic):])
	sp.Node = r.String("node")
	sp.Part = r.View("part")
	in := &sp.Input
	for _, v := range []*int{&in.Lines, &in.Events, &in.Duplicates, &in.AfterAsOf} {
		*v = int(r.Int("input"))
	}
	for _, list := range []*[]string{&sp.Figures.Names, &sp.Figures.Units} {
		*list = make([]string, r.Count("figure names", r.Left()))
		for i := range *list {
			(*list)[i] = r.String("figure names")
		}
	}
	sp.Figures.Readings = make([][4]float64, r.Count("readings", r.Left()))
	for i := range sp.Figures.Readings {
		sp.Figures.Readings[i] = [4]float64{float64(r.Int("reading")), float64(r.Int("reading")), float64(r.Int("reading")), r.Float("reading")}
	}
	return sp, r.End()
}
