package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoStatisticsInRenderers is the grep that keeps statistics out of
// report/ and serve/: they render package findings' value and call
// nothing that computes a summary, a test, an interval, a fit or a
// verdict. The same check by hand:
//
//	grep -nE 'benchmath|analysis\.(Summarize|Compare\(|FindKnee|Knees|Crossovers|Paired|Geomean)|\.Paired\(|\.Geomean\(|claim\.Evaluate|NewShare|\.Share\(' report/*.go serve/*.go | grep -v _test.go
func TestNoStatisticsInRenderers(t *testing.T) {
	banned := []string{"benchmath", "analysis.Summarize", "analysis.Compare(", "analysis.FindKnee", "analysis.Knees(", "analysis.Crossovers(",
		"analysis.Paired", "analysis.Geomean", ".Paired(", ".Geomean(", "claim.Evaluate", "NewShare", ".Share(", "PairedLogs"}
	var files []string
	for _, dir := range []string{".", filepath.Join("..", "serve")} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		n++
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, b := range banned {
				if strings.Contains(line, b) {
					t.Errorf("%s:%d calls statistics (%s): %s", f, i+1, b, strings.TrimSpace(line))
				}
			}
		}
	}
	if n < 8 {
		t.Fatalf("only %d files checked; the test lost its way", n)
	}
}
