package findings

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/store"
)

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
	s, err := LoadHistory(ctx, db, "Work/n=4", HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 30 || s.Config != "default" || s.Benchmark != "BenchmarkWork/n=4" {
		t.Fatalf("loaded %d points of %s @%s", len(s.Points), s.Benchmark, s.Config)
	}
	if len(s.Changes) == 0 || abs(s.Changes[0].Index-at) > 1 {
		t.Fatalf("change points %v, planted at run index %d", s.Changes, at)
	}
	c := s.Changes[0]
	if c.BeforeFrom != 0 || c.AfterTo != 30 || c.Before > 52e-9 || c.After < 58e-9 {
		t.Errorf("change %+v: want runs 0.. before at about 50ns, ..30 after at about 60ns", c)
	}
	if s.Opt.Permutations != 199 || s.Opt.MinSize != 3 {
		t.Errorf("options %+v: want the defaults filled in", s.Opt)
	}
	if _, err := LoadHistory(ctx, db, "BenchmarkMissing", HistoryOptions{}); !errors.Is(err, ErrNoData) {
		t.Errorf("missing benchmark: %v, want ErrNoData", err)
	}
	if _, err := LoadHistory(ctx, db, "Work/n=4", HistoryOptions{Unit: "B/op"}); err == nil || !strings.Contains(err.Error(), "sec/op") {
		t.Errorf("wrong unit: %v, want a hint naming sec/op", err)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
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
		s, err := LoadHistory(ctx, db, tt.query, HistoryOptions{})
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
	s, err := LoadHistory(ctx, db, "Hash", HistoryOptions{})
	if err != nil || len(s.Points) != 3 || s.Points[2].Config != "go126" || s.Points[0].Config != "default" {
		t.Fatalf("Load across names = %+v, %v; want 3 points, default then go126", s, err)
	}
	add("default", "go126")
	if s, err := LoadHistory(ctx, db, "Hash", HistoryOptions{}); err != nil || s.Config != "default" || len(s.Points) != 3 {
		t.Errorf("with a run of two configs: %+v, %v; want the default config's 3 runs", s, err)
	}
	if _, err := LoadHistory(ctx, db, "Hash", HistoryOptions{Config: "default,go126"}); err == nil || !strings.Contains(err.Error(), "under both default and go126") {
		t.Errorf("--config default,go126 with a run of both: %v", err)
	}
	s, err = LoadHistory(ctx, db, "Hash", HistoryOptions{Config: "go126"})
	if err != nil || len(s.Points) != 2 {
		t.Errorf("--config go126: %+v, %v", s, err)
	}
}
