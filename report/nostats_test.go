package report_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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

// statisticsHomes are the packages that compute statistics: analysis
// (every statistic), claim (the verdict rule) and findings (every view of
// stored runs, computed through them). internal/noisetest generates noise
// for their tests; scripts/cputime, scripts/estimates and scripts/varlab are measurement
// programs that print their own statistics of stored or measured rounds.
var statisticsHomes = []string{"analysis", "claim", "findings", "internal/noisetest", "scripts/cputime", "scripts/estimates", "scripts/varlab"}

// statisticsDirs lists every directory of the module with Go files that is
// not a home of statistics (nor testdata or an experiment's workload).
func statisticsDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel("..", path)
		rel = filepath.ToSlash(rel)
		if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "experiments" || strings.HasPrefix(rel, "experiments/") || slices.Contains(statisticsHomes, rel) {
			return filepath.SkipDir
		}
		if m, _ := filepath.Glob(filepath.Join(path, "*.go")); len(m) > 0 {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestNoStatisticsOutsideFindings keeps statistics in their homes: every
// other package — report, serve, cmd/perflab and compare, which render or
// gate the values findings computes, and engine, store, the drivers
// (driver/load, driver/gotest, driver/cachegrind) and the rest — calls
// nothing that computes a summary, a test, an interval, a fit or a
// verdict. Parsing their Go files, it fails on an import of benchmath; on
// a call of any function of package analysis or of a method of
// analysis.Options (Paired, Geomean, Shift, …; such calls are found by
// the method's name); on a call of claim.Evaluate; and on a call of a
// function of package profshare or of its Counts.Share method. Types and
// constants may be referred to. The homes other than analysis (claim,
// findings, …) compute through analysis: they may not import benchmath
// either.
func TestNoStatisticsOutsideFindings(t *testing.T) {
	const mod = "github.com/perflab/perflab/"
	aFuncs, aMethods := exported(t, filepath.Join("..", "analysis"), "Options")
	pFuncs, _ := exported(t, filepath.Join("..", "profshare"), "")
	if len(aFuncs) < 20 || !slices.Contains(aMethods, "Paired") || !slices.Contains(aMethods, "Shift") || !slices.Contains(pFuncs, "NewShare") {
		t.Fatalf("analysis functions %v, Options methods %v, profshare functions %v: the test lost its way", aFuncs, aMethods, pFuncs)
	}
	banned := map[string][]string{ // import path → banned function names
		mod + "analysis":  aFuncs,
		mod + "claim":     {"Evaluate"},
		mod + "profshare": pFuncs,
	}
	bannedMethods := append(slices.Clone(aMethods), "Share")
	checked := 0
	dirs := statisticsDirs(t)
	for _, must := range []string{"../report", "../serve", "../cmd/perflab", "../compare", "../engine", "../driver/cachegrind", "../driver/gotest", "../driver/load"} {
		if !slices.Contains(dirs, filepath.Clean(must)) {
			t.Fatalf("%s is not among the packages checked %v: the test lost its way", must, dirs)
		}
	}
	for _, dir := range dirs {
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
	if checked < 100 {
		t.Fatalf("only %d files checked; the test lost its way", checked)
	}
	// The other homes compute through analysis too: claim judges the
	// intervals analysis gives, findings assembles them.
	for _, home := range statisticsHomes {
		if home == "analysis" {
			continue
		}
		for path, f := range goFiles(t, filepath.Join("..", home)) {
			if localName(f, "golang.org/x/perf/benchmath") != "" {
				t.Errorf("%s imports benchmath: statistics are computed in analysis", path)
			}
		}
	}
}
