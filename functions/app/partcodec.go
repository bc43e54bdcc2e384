package app

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

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
	for _, v := range []any{msg.Time{}, msg.Word(""), msg.Text{}, time.Duration(0), time.Time{},
		int(0), int64(0), uint64(0), float64(0), "", false, []string(nil), []msg.Text(nil)} {
		gob.Register(v)
	}
}

type partForms struct {
	JSON json.RawMessage
	Gob  []byte
}

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
	return json.Marshal(partForms{JSON: js, Gob: g.Bytes()})
}

// DecodePart is the part EncodePart stored.
func DecodePart(raw []byte) (report.Part, error) {
	var (
		forms    partForms
		p, texts report.Part
	)
	if err := json.Unmarshal(raw, &forms); err != nil {
		return p, fmt.Errorf("part: %w", err)
	}
	if err := json.Unmarshal(forms.JSON, &p); err != nil {
		return p, fmt.Errorf("part: %w", err)
	}
	if err := gob.NewDecoder(bytes.NewReader(forms.Gob)).Decode(&texts); err != nil {
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
