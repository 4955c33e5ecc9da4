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

// resultPackages hold, measure or show results, so they may not write
// JSON: their values go out through report.JSON. A name ending in "/"
// covers every package under it.
var resultPackages = []string{"analysis", "claim", "cmd/perflab", "compare", "driver/", "findings", "serve", "unit"}

// jsonWriters may write JSON inside resultPackages: it is no result.
// driver/gotest/cputime.go writes the -overlay file go build reads.
var jsonWriters = []string{"driver/gotest/cputime.go"}

// isResultPackage reports whether the directory rel is one of
// resultPackages.
func isResultPackage(rel string) bool {
	for _, p := range resultPackages {
		if rel == p || strings.HasSuffix(p, "/") && strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// TestTextOnlyInReport: report is the only package that writes results
// as text. Parsing every non-test Go file of the module outside report
// (experiments/ and target/, the programs perflab measures, aside): cmd,
// serve, claim, findings, the drivers and the rest, it fails on an import
// of text/tabwriter (but tableWriters), on a string literal that is a
// Markdown table row ("| …" or "|---"), and, in the packages that hold,
// measure or show results (cmd/perflab, serve, claim, every driver, …),
// on writing JSON (json.Marshal, json.MarshalIndent, json.NewEncoder; but
// jsonWriters) or declaring a MarshalJSON method.
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
			if !isResultPackage(relDir) || slices.Contains(jsonWriters, rel) {
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
	for _, must := range []string{"cmd/perflab", "driver/load", "driver/gotest", "driver/cachegrind", "claim", "serve"} {
		if !dirs[filepath.Join(root, must)] || !isResultPackage(must) {
			t.Errorf("%s is not checked as a package of results: the test lost its way", must)
		}
	}
	for _, w := range append(slices.Clone(tableWriters), jsonWriters...) {
		if _, err := os.Stat(filepath.Join(root, w)); err != nil {
			t.Errorf("allowed table writer %s: %v (drop it from the list)", w, err)
		}
	}
}

// claimWords are the functions of package claim that still write words,
// each read by package findings: LookRule the two-look rule of a run
// (findings.Run.Looks), RatioCells a ratio check's label (findings'
// machines view), with short, the selector shortening that label uses.
var claimWords = []string{"LookRule", "RatioCells", "short"}

// TestClaimBuildsNoSentences: claim returns data and report words it.
// Parsing claim's non-test Go files, it fails on a call of a function of
// fmt other than Errorf (Sprintf, Sprint, Fprintf, …), and on a string
// literal with a space, a word of a sentence, outside the arguments of
// fmt.Errorf and errors.New (an error says what went wrong in its own
// words), the names of the verdicts ("not testable") and claimWords.
func TestClaimBuildsNoSentences(t *testing.T) {
	checked := 0
	for path, f := range goFiles(t, filepath.Join("..", "claim")) {
		checked++
		name := "claim/" + filepath.Base(path)
		fmtName, errorsName := localName(f, "fmt"), localName(f, "errors")
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && slices.Contains(claimWords, fd.Name.Name) {
				continue
			}
			if verdictNames(d) {
				continue
			}
			var inError []*ast.CallExpr // the error constructors being walked
			ast.Inspect(d, func(n ast.Node) bool {
				if n == nil {
					return true
				}
				for len(inError) > 0 && n.Pos() >= inError[len(inError)-1].End() {
					inError = inError[:len(inError)-1]
				}
				switch n := n.(type) {
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					id, ok := sel.X.(*ast.Ident)
					switch {
					case !ok:
					case fmtName != "" && id.Name == fmtName && sel.Sel.Name == "Errorf", errorsName != "" && id.Name == errorsName && sel.Sel.Name == "New":
						inError = append(inError, n)
					case fmtName != "" && id.Name == fmtName:
						t.Errorf("%s: calls fmt.%s: claim returns data, report words it", name, sel.Sel.Name)
					}
				case *ast.BasicLit:
					if n.Kind.String() != "STRING" || len(inError) > 0 {
						return true
					}
					if s, err := strconv.Unquote(n.Value); err == nil && strings.Contains(s, " ") {
						t.Errorf("%s: the words %q: claim returns data, report words it", name, s)
					}
				}
				return true
			})
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files of claim checked; the test lost its way", checked)
	}
}

// verdictNames reports whether d declares constants of type Verdict: the
// verdicts' names, which are values ("not testable"), not sentences.
func verdictNames(d ast.Decl) bool {
	g, ok := d.(*ast.GenDecl)
	if !ok || g.Tok.String() != "const" {
		return false
	}
	for _, sp := range g.Specs {
		if id, ok := sp.(*ast.ValueSpec).Type.(*ast.Ident); !ok || id.Name != "Verdict" {
			return false
		}
	}
	return true
}
