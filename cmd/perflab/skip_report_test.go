package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// skipping is a module with one benchmark that runs and three that skip
// themselves, for two reasons.
const skipping = `package skipping

import "testing"

var sink int

func BenchmarkRuns(b *testing.B) {
	for b.Loop() {
		sink++
	}
}

func BenchmarkWords1(b *testing.B) { b.Skip("open /usr/share/dict/words: no such file or directory") }
func BenchmarkWords2(b *testing.B) { b.Skip("open /usr/share/dict/words: no such file or directory") }

func BenchmarkData(b *testing.B) {
	b.Run("x", func(b *testing.B) { b.Skip("test data not found; run with -download") })
}
`

// TestBenchReportsSkips: bench names every benchmark that skipped itself,
// grouped by its message, and a selection that only skips is an error
// that says why and what to do.
func TestBenchReportsSkips(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	mod := writeModule(t, map[string]string{"go.mod": "module example.com/skipping\n\ngo 1.26\n", "skip_test.go": skipping})
	tmp := t.TempDir()
	bench := func(regex string) (string, string, int) {
		return perflab(t, "bench", ".", "-C", mod, "-bench", regex, "--rounds", "1", "--benchtime", "1x", "--no-profile",
			"--cache", filepath.Join(tmp, "cache"), "--db", filepath.Join(tmp, "p.db"), "--out", filepath.Join(tmp, "runs"))
	}
	out, stderr, code := bench(".")
	if code != 0 {
		t.Fatalf("bench exited %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{
		`perflab: skipped: 2 benchmarks ("open /usr/share/dict/words: no such file or directory"): BenchmarkWords1, BenchmarkWords2` + "\n",
		`perflab: skipped: 1 benchmark ("test data not found; run with -download"): BenchmarkData/x` + "\n",
		"1 benchmarks × 1 configs",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("bench's output lacks %q:\n%s", want, stderr)
		}
	}

	out, stderr, code = bench("Words|Data")
	if code == 0 {
		t.Fatalf("bench of benchmarks that all skip exited 0\n%s\n%s", out, stderr)
	}
	for _, want := range []string{
		`all 3 benchmarks matching "Words|Data" skipped themselves, so there is nothing to measure`,
		`skipped: 2 benchmarks ("open /usr/share/dict/words: no such file or directory"): BenchmarkWords1, BenchmarkWords2`,
		`skipped: 1 benchmark ("test data not found; run with -download"): BenchmarkData/x`,
		"or select other benchmarks with -bench",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the error lacks %q:\n%s", want, stderr)
		}
	}
}
