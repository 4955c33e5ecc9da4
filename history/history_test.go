package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/store"
)

// noisy returns n values around level with relative Gaussian noise sd.
func noisy(r *rand.Rand, n int, level, sd float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = level * (1 + sd*r.NormFloat64())
	}
	return out
}

// TestPlantedStep: a step change planted in 30 runs is found, placed
// within one run of where it was planted, for many noise draws and step
// positions.
func TestPlantedStep(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		at := 8 + int(seed)%15 // the first run of the new level
		xs := append(noisy(r, at, 100e-9, 0.02), noisy(r, 30-at, 120e-9, 0.02)...)
		cps := EDivisive(xs, EDivisiveOptions{})
		if len(cps) == 0 {
			t.Errorf("seed %d: no change point found; planted at %d", seed, at)
			continue
		}
		// The strongest split is the planted one; any extra one must be
		// a real (if small) effect of the noise draw, and rare.
		hit := false
		for _, c := range cps {
			if abs(c.Index-at) <= 1 {
				hit = true
			}
		}
		if !hit {
			t.Errorf("seed %d: change points %v, planted at %d", seed, indexes(cps), at)
		}
		if len(cps) > 2 {
			t.Errorf("seed %d: %d change points for one planted step: %v", seed, len(cps), indexes(cps))
		}
	}
}

// TestNoChange: a series without a change has no change point in most
// draws (the permutation test holds its false-alarm rate near α).
func TestNoChange(t *testing.T) {
	falseAlarms := 0
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		if len(EDivisive(noisy(r, 30, 1, 0.03), EDivisiveOptions{})) > 0 {
			falseAlarms++
		}
	}
	if falseAlarms > 8 { // α=0.05 of 40 is 2; allow for chance
		t.Errorf("%d of 40 flat series had a change point", falseAlarms)
	}
}

func TestTwoSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	xs := append(append(noisy(r, 10, 10, 0.01), noisy(r, 10, 14, 0.01)...), noisy(r, 10, 9, 0.01)...)
	got := indexes(EDivisive(xs, EDivisiveOptions{}))
	if len(got) != 2 || abs(got[0]-10) > 1 || abs(got[1]-20) > 1 {
		t.Errorf("change points %v, want ≈ [10 20]", got)
	}
}

func TestEDivisiveEdges(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want int
	}{
		{"empty", nil, 0},
		{"short", []float64{1, 2, 3, 4, 5}, 0},
		{"constant", []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 0},
		{"NaN kept in place", []float64{1, 1, 1, 1, 1, math.NaN(), 1, 5, 5, 5, 5, 5, 5}, 1},
	} {
		cps := EDivisive(tc.xs, EDivisiveOptions{})
		if len(cps) != tc.want {
			t.Errorf("%s: %d change points %v, want %d", tc.name, len(cps), indexes(cps), tc.want)
		}
		if tc.name == "NaN kept in place" && len(cps) == 1 && cps[0].Index != 7 {
			t.Errorf("%s: change at %d, want 7 (the NaN keeps its index)", tc.name, cps[0].Index)
		}
	}
}

// TestBestSplitMatchesDirect checks the O(n²) statistic against a direct
// evaluation of the formula.
func TestBestSplitMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	z := noisy(r, 17, 5, 0.3)
	tau, q := bestSplit(z, 3)
	bestT, bestQ := -1, math.Inf(-1)
	for t := 3; t <= len(z)-3; t++ {
		var b, l, w float64
		for i := 0; i < len(z); i++ {
			for j := i + 1; j < len(z); j++ {
				d := math.Abs(z[i] - z[j])
				switch {
				case j < t:
					l += d
				case i >= t:
					w += d
				default:
					b += d
				}
			}
		}
		a, c, n := float64(t), float64(len(z)-t), float64(len(z))
		v := a * c / n * (2/(a*c)*b - l/(a*(a-1)/2) - w/(c*(c-1)/2))
		if v > bestQ {
			bestT, bestQ = t, v
		}
	}
	if tau != bestT || math.Abs(q-bestQ) > 1e-9*math.Abs(bestQ) {
		t.Errorf("bestSplit = (%d, %g), direct = (%d, %g)", tau, q, bestT, bestQ)
	}
}

// TestLoadAndDetect stores a planted step over 30 runs and reads it back
// through the store, as "perflab history" does.
func TestLoadAndDetect(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(42, 42))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const at = 17
	for run := 0; run < 30; run++ {
		level := 50e-9
		if run >= at {
			level = 60e-9
		}
		id, err := db.CreateRun(ctx, &store.Run{Experiment: "synthetic", Mode: "quick", RoundsPlanned: 6, StartedAt: start.Add(time.Duration(run) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		for round := 1; round <= 6; round++ {
			var rs []*benchfmt.Result
			for _, name := range []string{"Work/n=4", "Other"} {
				res := &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1000, Values: []benchfmt.Value{{Value: level * (1 + 0.02*r.NormFloat64()), Unit: "sec/op"}}}
				res.SetConfig("config", "default")
				rs = append(rs, res)
			}
			if err := db.AddRound(ctx, id, round, rs); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, err := Load(ctx, db, "Work/n=4", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 30 || s.Config != "default" || s.Benchmark != "BenchmarkWork/n=4" {
		t.Fatalf("loaded %d points of %s @%s", len(s.Points), s.Benchmark, s.Config)
	}
	s.Detect(EDivisiveOptions{})
	if len(s.Changes) == 0 || abs(s.Changes[0].Index-at) > 1 {
		t.Fatalf("change points %v, planted at run index %d", indexes(s.Changes), at)
	}
	var out bytes.Buffer
	if err := s.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	c := s.Changes[0]
	want := fmt.Sprintf("between run %d and run %d", s.Points[c.Index-1].RunID, s.Points[c.Index].RunID)
	for _, w := range []string{want, "before: runs 1–", "after: runs ", "–30 ("} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
	if _, err := Load(ctx, db, "BenchmarkMissing", LoadOptions{}); !errors.Is(err, ErrNoData) {
		t.Errorf("missing benchmark: %v, want ErrNoData", err)
	}
	if _, err := Load(ctx, db, "Work/n=4", LoadOptions{Unit: "B/op"}); err == nil || !strings.Contains(err.Error(), "sec/op") {
		t.Errorf("wrong unit: %v, want a hint naming sec/op", err)
	}
}

func indexes(cps []ChangePoint) []int {
	var out []int
	for _, c := range cps {
		out = append(out, c.Index)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestWithoutProcs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"BenchmarkHash/impl=old/size=4096-2", "BenchmarkHash/impl=old/size=4096"},
		{"BenchmarkHash/impl=old/size=4096", "BenchmarkHash/impl=old/size=4096"},
		{"BenchmarkX/n=-3", "BenchmarkX/n=-3"},
		{"BenchmarkX/-3", "BenchmarkX/-3"},
		{"BenchmarkX-16", "BenchmarkX"},
		{"BenchmarkX-", "BenchmarkX-"},
		{"BenchmarkX/v=a-b", "BenchmarkX/v=a-b"},
	}
	for _, tt := range tests {
		if got := WithoutProcs(tt.in); got != tt.want {
			t.Errorf("WithoutProcs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLoadWithoutProcsSuffix: a name without its -N suffix finds the runs;
// a name measured at several GOMAXPROCS asks for the suffix.
func TestLoadWithoutProcsSuffix(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for run := 0; run < 3; run++ {
		id, err := db.CreateRun(ctx, &store.Run{Experiment: "x", Mode: "quick", RoundsPlanned: 1})
		if err != nil {
			t.Fatal(err)
		}
		var rs []*benchfmt.Result
		for _, name := range []string{"Hash/impl=old/size=4096-2", "Par-1", "Par-4"} {
			res := &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1000, Values: []benchfmt.Value{{Value: 1e-6, Unit: "sec/op"}}}
			res.SetConfig("config", "default")
			rs = append(rs, res)
		}
		if err := db.AddRound(ctx, id, 1, rs); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		query, want, err string
	}{
		{"BenchmarkHash/impl=old/size=4096", "BenchmarkHash/impl=old/size=4096-2", ""},
		{"Hash/impl=old/size=4096-2", "BenchmarkHash/impl=old/size=4096-2", ""},
		{"Par", "", "several GOMAXPROCS values (BenchmarkPar-1, BenchmarkPar-4)"},
		{"Par-4", "BenchmarkPar-4", ""},
	}
	for _, tt := range tests {
		s, err := Load(ctx, db, tt.query, LoadOptions{})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Load(%q) = %v, want an error with %q", tt.query, err, tt.err)
			}
			continue
		}
		if err != nil || s.Benchmark != tt.want || len(s.Points) != 3 {
			t.Errorf("Load(%q) = %+v, %v; want %s with 3 points", tt.query, s, err, tt.want)
		}
	}
}

// TestLoadAcrossConfigNames: runs whose one config is named differently
// ("default", later "go126") form one history; --config a,b says so
// explicitly; two of the named configs in one run is an error.
func TestLoadAcrossConfigNames(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	add := func(configs ...string) {
		id, err := db.CreateRun(ctx, &store.Run{Experiment: "x", Mode: "quick", RoundsPlanned: 1})
		if err != nil {
			t.Fatal(err)
		}
		var rs []*benchfmt.Result
		for _, c := range configs {
			res := &benchfmt.Result{Name: benchfmt.Name("Hash-2"), Iters: 1000, Values: []benchfmt.Value{{Value: 1e-6, Unit: "sec/op"}}}
			res.SetConfig("config", c)
			rs = append(rs, res)
		}
		if err := db.AddRound(ctx, id, 1, rs); err != nil {
			t.Fatal(err)
		}
	}
	add("default")
	add("default")
	add("go126")
	s, err := Load(ctx, db, "Hash", LoadOptions{})
	if err != nil || len(s.Points) != 3 || s.Points[2].Config != "go126" || s.Points[0].Config != "default" {
		t.Fatalf("Load across names = %+v, %v; want 3 points, default then go126", s, err)
	}
	add("default", "go126")
	if s, err := Load(ctx, db, "Hash", LoadOptions{}); err != nil || s.Config != "default" || len(s.Points) != 3 {
		t.Errorf("with a run of two configs: %+v, %v; want the default config's 3 runs", s, err)
	}
	if _, err := Load(ctx, db, "Hash", LoadOptions{Config: "default,go126"}); err == nil || !strings.Contains(err.Error(), "under both default and go126") {
		t.Errorf("--config default,go126 with a run of both: %v", err)
	}
	s, err = Load(ctx, db, "Hash", LoadOptions{Config: "go126"})
	if err != nil || len(s.Points) != 2 {
		t.Errorf("--config go126: %+v, %v", s, err)
	}
}
