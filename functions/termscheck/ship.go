package termscheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/internal/atomicfile"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/terms"
)

// shipped is one terms file on its way to the functions.
type shipped struct {
	src string
	raw []byte
	ts  []*terms.Terms
}

// Ship puts the contract terms among srcs (files, or folders whose *.yaml
// and *.yml files are read) into dest, as the Lambdas read them: a file
// named on its own must be valid terms; in a folder, a YAML file none of
// whose documents has a top-level contract: key (a config file, an alerts
// file) is left out and named, and every other file must be valid terms.
// Nothing is written unless every terms file is valid, no contract is
// defined twice and no two files share a name; then dest holds exactly
// the shipped files (YAML files already there and not shipped are
// removed, so a contract taken out of the source is not shipped). It
// returns how many files failed, each named on w in its contract's
// language with its line and field.
func Ship(w io.Writer, srcs []string, dest string, lang i18n.Lang) (failed int, err error) {
	files, err := shipCandidates(w, srcs, lang)
	if err != nil {
		return 0, err
	}
	var ok []shipped
	for _, f := range files {
		raw, rerr := os.ReadFile(f)
		if rerr == nil && len(raw) > terms.MaxFileBytes {
			rerr = fmt.Errorf("larger than %d bytes", terms.MaxFileBytes)
		}
		if rerr != nil {
			failed++
			if _, err := fmt.Fprintln(w, i18n.New(orEN(lang)).T("%s: cannot be read: %s", f, rerr.Error())); err != nil {
				return failed, err
			}
			continue
		}
		ts, perr := terms.Parse(f, raw)
		if perr != nil {
			failed++
			if _, err := fmt.Fprintln(w, errorLine(i18n.New(pick(lang, declaredLang(raw))), f, perr)); err != nil {
				return failed, err
			}
			continue
		}
		ok = append(ok, shipped{src: f, raw: raw, ts: ts})
	}
	if failed > 0 {
		return failed, nil
	}
	if err := shipConflicts(ok); err != nil {
		return 1, err
	}
	return 0, shipWrite(w, ok, dest, lang)
}

// shipCandidates lists the files srcs name: a file as it is, a folder's
// YAML files that hold contract terms (the others named as left out).
func shipCandidates(w io.Writer, srcs []string, lang i18n.Lang) ([]string, error) {
	p := i18n.New(orEN(lang))
	var out []string
	for _, src := range srcs {
		st, err := os.Stat(src)
		if err != nil {
			return nil, fmt.Errorf("terms: %w", err)
		}
		if !st.IsDir() {
			out = append(out, src)
			continue
		}
		ents, err := os.ReadDir(src)
		if err != nil {
			return nil, fmt.Errorf("terms: %w", err)
		}
		var names []string
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			f := filepath.Join(src, n)
			raw, err := os.ReadFile(f)
			if err == nil && !holdsTerms(raw) {
				if _, err := fmt.Fprintln(w, p.T("%s: left out: no document in it has a top-level contract: key, so it is no contract terms file", f)); err != nil {
					return nil, err
				}
				continue
			}
			out = append(out, f) // unreadable or terms: checked as terms
		}
	}
	return out, nil
}

// holdsTerms says whether raw is YAML any of whose documents is a mapping
// with a contract key, or is not YAML at all (then it is checked as terms,
// whose parser names the mistake, rather than silently left out).
func holdsTerms(raw []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			return true
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		m := doc.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			if m[i].Value == "contract" {
				return true
			}
		}
	}
}

// shipConflicts refuses two files of one name (one would overwrite the
// other beside bootstrap) and a contract defined in two files (the
// functions would fail their init).
func shipConflicts(files []shipped) error {
	names := map[string]string{}
	contracts := map[string]*terms.Terms{}
	for _, f := range files {
		b := filepath.Base(f.src)
		if prev, dup := names[b]; dup {
			return fmt.Errorf("terms: %s and %s have one name; the functions would get only one of them", prev, f.src)
		}
		names[b] = f.src
		for _, tm := range f.ts {
			if prev, dup := contracts[tm.Contract]; dup {
				return fmt.Errorf("terms: contract %q is defined in %s:%d and again in %s:%d", tm.Contract, prev.File, prev.Line, tm.File, tm.Line)
			}
			contracts[tm.Contract] = tm
		}
	}
	return nil
}

// shipWrite makes dest hold exactly files, each written whole, and says
// which contracts went.
func shipWrite(w io.Writer, files []shipped, dest string, lang i18n.Lang) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return fmt.Errorf("terms: %w", err)
	}
	keep := map[string]bool{}
	for _, f := range files {
		b := filepath.Base(f.src)
		keep[b] = true
		if err := atomicfile.WriteFile(filepath.Join(dest, b), f.raw, 0o644); err != nil {
			return fmt.Errorf("terms: %w", err)
		}
	}
	ents, err := os.ReadDir(dest)
	if err != nil {
		return fmt.Errorf("terms: %w", err)
	}
	for _, e := range ents {
		if n := e.Name(); !e.IsDir() && !keep[n] && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
			if err := os.Remove(filepath.Join(dest, n)); err != nil {
				return fmt.Errorf("terms: %w", err)
			}
		}
	}
	for _, f := range files {
		var ids []string
		for _, tm := range f.ts {
			ids = append(ids, tm.Contract)
		}
		p := i18n.New(orEN(pick(lang, declaredLang(f.raw))))
		if _, err := fmt.Fprintln(w, p.T("%s: shipped (contracts: %s)", f.src, strings.Join(ids, ", "))); err != nil {
			return err
		}
	}
	return nil
}
