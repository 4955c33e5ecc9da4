package report_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goFiles parses the non-test Go files of a directory.
func goFiles(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = f
	}
	if len(out) == 0 {
		t.Fatalf("no Go files in %s: the test lost its way", dir)
	}
	return out
}

// localName is the name a file refers to an imported package by, "" when
// it does not import it.
func localName(f *ast.File, path string) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			if im.Name != nil {
				return im.Name.Name
			}
			return path[strings.LastIndexByte(path, '/')+1:]
		}
	}
	return ""
}

// exported lists a package's exported functions and the exported methods
// of its type recv ("" for none).
func exported(t *testing.T, dir, recv string) (funcs, methods []string) {
	for _, f := range goFiles(t, dir) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				funcs = append(funcs, fd.Name.Name)
				continue
			}
			rt := fd.Recv.List[0].Type
			if st, ok := rt.(*ast.StarExpr); ok {
				rt = st.X
			}
			if id, ok := rt.(*ast.Ident); ok && id.Name == recv {
				methods = append(methods, fd.Name.Name)
			}
		}
	}
	return funcs, methods
}

// notStatistics are the functions of package analysis that compute no
// statistic and that renderers may call: option defaults, benchmark
// names, the one natural order, the distinct units of samples, and the
// rule by which an axis is drawn on a log scale.
var notStatistics = []string{"DefaultOptions", "ParseName", "CompareNames", "NaturalOrder", "Units", "SpansDecades"}

// TestNoStatisticsInRenderers keeps statistics out of the packages that
// render or gate: report, serve, cmd/perflab and compare read the values
// package findings computes and call nothing that computes a summary, a
// test, an interval, a fit or a verdict. Parsing their Go files, it fails
// on an import of benchmath; on a call of a function of package analysis
// (other than notStatistics) or of a method of analysis.Options (Paired,
// Geomean, Shift, …; such calls are found by the method's name); on a
// call of claim.Evaluate; and on a call of a function of package profshare
// or of its Counts.Share method. Types and constants may be referred to.
func TestNoStatisticsInRenderers(t *testing.T) {
	const mod = "github.com/perflab/perflab/"
	aFuncs, aMethods := exported(t, filepath.Join("..", "analysis"), "Options")
	pFuncs, _ := exported(t, filepath.Join("..", "profshare"), "")
	if len(aFuncs) < 20 || !slices.Contains(aMethods, "Paired") || !slices.Contains(aMethods, "Shift") || !slices.Contains(pFuncs, "NewShare") {
		t.Fatalf("analysis functions %v, Options methods %v, profshare functions %v: the test lost its way", aFuncs, aMethods, pFuncs)
	}
	banned := map[string][]string{ // import path → banned function names
		mod + "analysis":  slices.DeleteFunc(aFuncs, func(n string) bool { return slices.Contains(notStatistics, n) }),
		mod + "claim":     {"Evaluate"},
		mod + "profshare": pFuncs,
	}
	bannedMethods := append(slices.Clone(aMethods), "Share")
	checked := 0
	for _, dir := range []string{".", "../serve", "../cmd/perflab", "../compare"} {
		for path, f := range goFiles(t, dir) {
			checked++
			if localName(f, "golang.org/x/perf/benchmath") != "" {
				t.Errorf("%s imports benchmath", path)
			}
			local := map[string][]string{}
			for p, names := range banned {
				if n := localName(f, p); n != "" {
					local[n] = names
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok {
					if names, isPkg := local[id.Name]; isPkg {
						if slices.Contains(names, sel.Sel.Name) {
							t.Errorf("%s: calls %s.%s, a statistic; compute it in findings", path, id.Name, sel.Sel.Name)
						}
						return true
					}
				}
				if slices.Contains(bannedMethods, sel.Sel.Name) {
					t.Errorf("%s: calls .%s(…), a statistic of analysis.Options or profshare; compute it in findings", path, sel.Sel.Name)
				}
				return true
			})
		}
	}
	if checked < 30 {
		t.Fatalf("only %d files checked; the test lost its way", checked)
	}
}
