package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeModule writes a module of files (path → text) into a new
// directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mixedNames is a module whose benchmarks print names of every shape: a
// plain benchmark first, then sub-benchmarks that are not key=value, with
// spaces, commas, stray '=', regexp characters, a duplicate and what looks
// like a -N suffix, and a key=value sweep.
const mixedNames = `package odd

import "testing"

var sink int

func work(b *testing.B) {
	for b.Loop() {
		sink++
	}
}

func BenchmarkPlain(b *testing.B) { work(b) }

func BenchmarkOdd(b *testing.B) {
	for _, name := range []string{"with space", "a,b", "k=v=w", "=lead", "log-4", "Rank(1)", "a|b", "dup", "dup"} {
		b.Run(name, work)
	}
	b.Run("deep", func(b *testing.B) { b.Run("size=1024-2", work) })
}

func BenchmarkSweep(b *testing.B) {
	for _, n := range []string{"1", "10"} {
		b.Run("n="+n, work)
	}
}
`

// TestBenchAndInitOnMixedNames: bench measures every leaf of a selection
// that mixes a plain benchmark with sub-benchmarks of any shape, each in
// its own cell, and init writes a spec that selects them; neither panics.
func TestBenchAndInitOnMixedNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	mod := writeModule(t, map[string]string{"go.mod": "module example.com/odd\n\ngo 1.26\n", "odd_test.go": mixedNames})
	tmp := t.TempDir()
	common := []string{"-C", mod, "-bench", ".", "--rounds", "1", "--benchtime", "1x", "--cache", filepath.Join(tmp, "cache")}
	out, stderr, code := perflab(t, append([]string{"bench", ".", "--db", filepath.Join(tmp, "p.db"), "--out", filepath.Join(tmp, "runs"), "--no-profile"}, common...)...)
	if code != 0 {
		t.Fatalf("bench exited %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "13 benchmarks × 1 configs") || !strings.Contains(stderr, "0 failed cells") {
		t.Errorf("bench did not run the 13 leaves, each in a cell that ran:\n%s", stderr)
	}
	for _, name := range []string{"BenchmarkPlain", "BenchmarkOdd/with_space", "BenchmarkOdd/a,b", "BenchmarkOdd/k=v=w", "BenchmarkOdd/=lead",
		"BenchmarkOdd/Rank(1)", "BenchmarkOdd/a|b", "BenchmarkOdd/dup#01", "BenchmarkOdd/deep/size=1024-2", "BenchmarkSweep/n=10"} {
		if !strings.Contains(out, name) {
			t.Errorf("the results do not show %s:\n%s", name, out)
		}
	}

	spec := filepath.Join(tmp, "odd.toml")
	out, stderr, code = perflab(t, append([]string{"init", ".", "-o", spec}, common...)...)
	if code != 0 {
		t.Fatalf("init exited %d\n%s\n%s", code, out, stderr)
	}
	text, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `benchmarks = ["BenchmarkPlain", "BenchmarkOdd", "BenchmarkSweep"]`) ||
		!strings.Contains(string(text), "# No axes: BenchmarkOdd/with_space has a sub-benchmark level") {
		t.Errorf("init wrote:\n%s", text)
	}
}
