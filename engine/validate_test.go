package engine

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/perflab/perflab/spec"
)

// TestSelectionMatchingNothing: a spec whose benchmark, axis key or axis
// value matches nothing is refused before round 1, naming the selector and
// the nearest existing one, and nothing is recorded.
func TestSelectionMatchingNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	cache := t.TempDir()
	tests := []struct {
		name string
		edit func(s *spec.Spec)
		want []string
	}{
		{"benchmark", func(s *spec.Spec) { s.Benchmarks = []string{"BenchmarkWrok"} },
			[]string{`benchmark "BenchmarkWrok" matched nothing; did you mean "BenchmarkWork"?`}},
		{"axis key", func(s *spec.Spec) { s.Axes[0].Key = "varaint" },
			[]string{`axis key "varaint" matched nothing under BenchmarkWork`, `did you mean "variant"?`}},
		{"axis value", func(s *spec.Spec) { s.Axes[1].Quick = []string{"1", "3", "16"} },
			[]string{`axis n value "3" matched nothing under BenchmarkWork/variant=a (values there: 1, 2, 4, 8, 16)`, "4 of 12 planned cells"}},
		{"level below a leaf", func(s *spec.Spec) {
			s.Axes = append(s.Axes, spec.Axis{Key: "depth", Quick: []string{"1"}})
		}, []string{`BenchmarkWork/variant=a/n=1 has no sub-benchmarks, but the plan asks for "depth=1" below it`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tinySpec(t)
			tt.edit(s)
			db := openStore(t)
			res, err := Run(context.Background(), Options{Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: cache,
				Seed: 1, NoProfile: true, NoiseRuns: 2, Progress: io.Discard})
			var se *SelectionError
			if !errors.As(err, &se) {
				t.Fatalf("Run = %+v, %v; want a *SelectionError", res, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if runs, _ := db.Runs(context.Background()); len(runs) != 0 {
				t.Errorf("%d runs recorded; a refused selection records nothing", len(runs))
			}
		})
	}
}

// TestSelectionAcceptsSkips: cells whose benchmark skips itself exist; the
// check passes them and the run records them as not applicable.
func TestSelectionAcceptsSkips(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	s := tinySpec(t)
	s.Configs = s.Configs[:1]
	s.Axes[0].Quick = []string{"a", "skip"}
	var progress strings.Builder
	res, err := Run(context.Background(), Options{Spec: s, Mode: "quick", DB: openStore(t), ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, Rounds: 1, NoProfile: true, NoiseRuns: 2, Progress: &progress})
	if err != nil || res.Status != "complete" {
		t.Fatalf("Run = %+v, %v\n%s", res, err, progress.String())
	}
	if !strings.Contains(progress.String(), "selection checked: all 6 cells select a benchmark") {
		t.Errorf("progress does not report the check:\n%s", progress.String())
	}
}

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		s    string
		cand []string
		want string
	}{
		{"BenchmarkHashh", []string{"BenchmarkHash", "BenchmarkSum"}, `; did you mean "BenchmarkHash"?`},
		{"sise", []string{"size", "impl"}, `; did you mean "size"?`},
		{"zzzzzz", []string{"size", "impl"}, ""},
		{"x", nil, ""},
		{"3", []string{"1", "2"}, ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.s, tt.cand); got != tt.want {
			t.Errorf("didYouMean(%q, %q) = %q, want %q", tt.s, tt.cand, got, tt.want)
		}
	}
}
