package wiring

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/sla/terms"
)

// TermsPaths says where the contract terms are: the files and folders
// $GPUSLA_TERMS lists, else dir when it exists (the terms/ folder beside a
// Lambda's bootstrap, the data folder's terms/ for serve), else none.
// Listed paths must exist; the default folder may be absent, and then
// opening a ticket says which contract is missing.
func (e Env) TermsPaths(dir string) ([]string, error) {
	if e.Terms != "" {
		return filepath.SplitList(e.Terms), nil
	}
	st, err := os.Stat(dir)
	switch {
	case err == nil && st.IsDir():
		return []string{dir}, nil
	case err == nil, errors.Is(err, fs.ErrNotExist):
		return nil, nil
	}
	return nil, fmt.Errorf("terms: %w", err)
}

// LambdaTermsDir is the terms/ folder the Makefile copies beside a
// function's bootstrap.
func (e Env) LambdaTermsDir() string { return filepath.Join(e.TaskRoot, "terms") }

// LoadTermsFrom finds the terms (TermsPaths) and loads them; it returns the
// paths it read for the log.
func (e Env) LoadTermsFrom(dir string) (app.TermsBook, []string, error) {
	paths, err := e.TermsPaths(dir)
	if err != nil {
		return nil, nil, err
	}
	book, err := LoadTerms(paths...)
	return book, paths, err
}

// LoadTerms reads terms files; a path that is a folder contributes every
// *.yaml / *.yml file in it. Two definitions of one contract are an error.
func LoadTerms(paths ...string) (app.TermsBook, error) {
	book := app.TermsBook{}
	for _, p := range paths {
		ts, err := terms.ReadPath(p)
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
	return book, nil
}
