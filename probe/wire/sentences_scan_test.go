package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
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
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		at := func(n ast.Node) string { p := fset.Position(n.Pos()); return p.Filename + ":" + strconv.Itoa(p.Line) }
		field := func(e ast.Expr) {
			switch v := e.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(v.Value); err == nil && words(s) {
					coded[s] = at(v)
				}
			case *ast.CallExpr:
				if sel, ok := v.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" && len(v.Args) > 0 {
					if s, ok := literal(v.Args[0]); ok && words(s) {
						uncoded[s] = at(v)
					}
				}
			case *ast.BinaryExpr:
				if s, ok := literal(v.X); ok && words(s) {
					uncoded[s+"…"] = at(v)
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
						if s, ok := literal(v.Args[0]); ok {
							coded[s] = at(v)
						}
					}
				case "skipped":
					// A check that could not be made: its reason, coded
					// by CodeCheck where it is a sentence.
					for _, a := range v.Args[1:] {
						if s, ok := literal(a); ok && words(s) {
							coded[s] = at(v)
						}
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := v.Key.(*ast.Ident); ok && textField(k.Name) {
					field(v.Value)
				}
			case *ast.AssignStmt:
				for i, l := range v.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && textField(sel.Sel.Name) && len(v.Rhs) == len(v.Lhs) {
						field(v.Rhs[i])
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return coded, uncoded
}

func textField(name string) bool { return name == "Value" || name == "Criterion" || name == "Detail" }

func literal(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// words says whether s holds a word (a run of two Latin letters outside its
// verbs): "-" and "%d" are no sentence, "%d (ordered)" is.
func words(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		if c == '%' && i+1 < len(s) {
			i++
			for i < len(s) && strings.IndexByte("+-# 0123456789.", s[i]) >= 0 {
				i++
			}
			run = 0
			continue
		}
		if c < unicode.MaxASCII && unicode.IsLetter(c) {
			if run++; run >= 2 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func sorted(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
