package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/gpusla/gpusla/internal/zhstyle"
)

// probeTexts reads the probe's source (every non-test file under probe/)
// and returns the sentences it codes (the literal key of each Say, T and
// Check.Set* call, and each literal a check's value, criterion or detail is
// set to, which CodeCheck codes) and the texts it still sends as English
// only (a literal fmt format or a concatenation set straight into one of
// those fields), each with where it is.
func probeTexts(t *testing.T) (coded, uncoded map[string]string) {
	t.Helper()
	coded, uncoded = map[string]string{}, map[string]string{}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	consts := map[string]map[string]string{} // by directory: a string constant's value by name
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || terminalOnly[filepath.ToSlash(path)] {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files[path] = f
		dir := filepath.Dir(path)
		if consts[dir] == nil {
			consts[dir] = map[string]string{}
		}
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							if s, ok := literal(vs.Values[i]); ok {
								consts[dir][n.Name] = s
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// In file order, each text at its first place: the list is the same
	// from run to run.
	for _, path := range sorted(files) {
		f, dir := files[path], filepath.Dir(path)
		// text is e's value where it is a literal or a constant of its
		// package.
		text := func(e ast.Expr) (string, bool) {
			if id, ok := e.(*ast.Ident); ok {
				s, ok := consts[dir][id.Name]
				return s, ok
			}
			return literal(e)
		}
		at := func(n ast.Node) string { p := fset.Position(n.Pos()); return p.Filename + ":" + strconv.Itoa(p.Line) }
		field := func(e ast.Expr) {
			switch v := e.(type) {
			case *ast.BasicLit, *ast.Ident:
				if s, ok := text(v); ok && words(s) {
					first(coded, s, at(v))
				}
			case *ast.CallExpr:
				if sel, ok := v.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" && len(v.Args) > 0 {
					if s, ok := literal(v.Args[0]); ok && words(s) {
						first(uncoded, s, at(v))
					}
				}
			case *ast.BinaryExpr:
				if s, ok := literal(v.X); ok && words(s) {
					first(uncoded, s+"…", at(v))
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch fn := v.Fun.(type) {
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				case *ast.Ident:
					name = fn.Name
				}
				switch name {
				case "Say", "T", "SetValue", "SetCriterion", "SetDetail":
					if len(v.Args) > 0 {
						if s, ok := text(v.Args[0]); ok {
							first(coded, s, at(v))
						}
					}
				case "skipped", "skippedSaid":
					// A check that could not be made: its criterion and
					// reason, coded by CodeCheck where they are sentences.
					for _, a := range v.Args[1:] {
						if s, ok := text(a); ok && words(s) {
							first(coded, s, at(v))
						}
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := v.Key.(*ast.Ident); ok && textField(k.Name) {
					field(v.Value)
				}
			case *ast.AssignStmt:
				for i, l := range v.Lhs {
					if len(v.Rhs) != len(v.Lhs) {
						break
					}
					switch x := l.(type) {
					case *ast.SelectorExpr:
						if textField(x.Sel.Name) {
							field(v.Rhs[i])
						}
					case *ast.Ident:
						// A text built before it is set: crit := …, why = ….
						if textVar[x.Name] {
							field(v.Rhs[i])
						}
					}
				}
			}
			return true
		})
	}
	return coded, uncoded
}

// first records where s is, unless it was met before.
func first(m map[string]string, s, at string) {
	if _, ok := m[s]; !ok {
		m[s] = at
	}
}

// terminalOnly are files whose text goes to the terminal only, never into
// a check (gpuprobe check's table, in English by design: docs/probe-check.md).
var terminalOnly = map[string]bool{"../checkrun/report.go": true}

// textVar are the names the probe gives a check's text held in a variable
// before it is set.
var textVar = map[string]bool{"crit": true, "criterion": true, "why": true, "detail": true, "reason": true}

func textField(name string) bool { return name == "Value" || name == "Criterion" || name == "Detail" }

func literal(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// words says whether s holds a word outside its verbs that is not a name
// a Chinese text keeps as it is (zhstyle.Allowed: GB, MiB, HTTP): "-",
// "%d" and "%.0f MiB" are no sentence, "%d (ordered)" is.
func words(s string) bool {
	var word strings.Builder
	found := false
	flush := func() {
		if w := word.String(); len(w) >= 2 && !slices.Contains(zhstyle.Allowed, w) {
			found = true
		}
		word.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		if c == '%' && i+1 < len(s) {
			flush()
			i++
			for i < len(s) && strings.IndexByte("+-# 0123456789.", s[i]) >= 0 {
				i++
			}
			continue
		}
		if c < unicode.MaxASCII && unicode.IsLetter(c) {
			word.WriteRune(c)
		} else {
			flush()
		}
	}
	flush()
	return found
}

func sorted[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
