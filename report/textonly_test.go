package report_test

import (
	"go/ast"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tableWriters may use text/tabwriter outside report: they print no
// results of benchmarks. perflab cache lists the disk its caches take.
var tableWriters = []string{"cmd/perflab/cache.go"}

// resultPackages hold or show results, so they may not write JSON: their
// values go out through report.JSON.
var resultPackages = []string{"analysis", "claim", "cmd/perflab", "compare", "findings", "serve", "unit"}

// TestTextOnlyInReport: report is the only package that writes results
// as text. Parsing every non-test Go file of the module outside report
// (experiments/ and target/, the programs perflab measures, aside), it
// fails on an import of text/tabwriter (but tableWriters), on a string
// literal that is a Markdown table row ("| …" or "|---"), and, in the
// packages that hold or show results, on writing JSON (json.Marshal,
// json.MarshalIndent, json.NewEncoder) or declaring a MarshalJSON method.
func TestTextOnlyInReport(t *testing.T) {
	root := ".."
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".":
			case rel == "report", rel == "experiments", rel == "target", strings.HasPrefix(d.Name(), "."), d.Name() == "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for dir := range dirs {
		relDir, _ := filepath.Rel(root, dir)
		relDir = filepath.ToSlash(relDir)
		for path, f := range goFiles(t, dir) {
			checked++
			rel := relDir + "/" + filepath.Base(path)
			if localName(f, "text/tabwriter") != "" && !slices.Contains(tableWriters, rel) {
				t.Errorf("%s imports text/tabwriter: results tables are written by report", rel)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind.String() != "STRING" {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && (strings.HasPrefix(s, "| ") || strings.Contains(s, "\n| ") || strings.Contains(s, "|---")) {
					t.Errorf("%s: a Markdown table literal %.40q: Markdown is written by report", rel, s)
				}
				return true
			})
			if !slices.Contains(resultPackages, relDir) {
				continue
			}
			js := localName(f, "encoding/json")
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					if n.Recv != nil && n.Name.Name == "MarshalJSON" {
						t.Errorf("%s: declares MarshalJSON: JSON of results is written by report.JSON", rel)
					}
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && js != "" && id.Name == js && slices.Contains([]string{"Marshal", "MarshalIndent", "NewEncoder"}, n.Sel.Name) {
						t.Errorf("%s: writes JSON (json.%s): JSON of results is written by report.JSON", rel, n.Sel.Name)
					}
				}
				return true
			})
		}
	}
	if checked < 100 {
		t.Fatalf("only %d files checked; the test lost its way", checked)
	}
	for _, w := range tableWriters {
		if _, err := os.Stat(filepath.Join(root, w)); err != nil {
			t.Errorf("allowed table writer %s: %v (drop it from the list)", w, err)
		}
	}
}
