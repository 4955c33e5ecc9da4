package main

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/score.golden")

func readTestTrials(t *testing.T) []trial {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "trials.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	trials, err := readTrials(f)
	if err != nil {
		t.Fatal(err)
	}
	return trials
}

// TestScores scores a synthetic trials file whose counts are known.
func TestScores(t *testing.T) {
	inf := math.Inf(1)
	want := []struct {
		budget, class, label                                    string
		trials, failed, refused, rows, decided, correct, falses int
		noDiff, gated, passed                                   int
		perMinute, medianHW                                     float64
	}{
		{"1m30s", "slow2", "base", 1, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, inf},
		{"1m30s", "slow5", "base", 1, 0, 0, 3, 2, 1, 1, 0, 0, 0, 2, 0.05},
		{"1m30s", "slow5", "new", 1, 0, 0, 3, 3, 2, 0, 1, 0, 0, 1.5, 0.01},
		{"1m30s", "slow5", "benchstat", 1, 0, 0, 2, 1, 1, 0, 0, 0, 0, 2, inf},
		{"1m30s", "layout", "base", 2, 1, 0, 3, 2, 2, 1, 0, 1, 1, 4.0 / 3, 0.03},
		{"1m30s", "layout", "new", 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 2, 0.01},
		{"3m0s", "slow5", "base", 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1.0 / 3, 0.015},
	}
	got := scores(readTestTrials(t), false)
	if len(got) != len(want) {
		t.Fatalf("%d groups, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Budget != w.budget || g.Class != w.class || g.Label != w.label {
			t.Errorf("group %d is %s %s %s, want %s %s %s", i, g.Budget, g.Class, g.Label, w.budget, w.class, w.label)
			continue
		}
		counts := [...]int{g.Trials, g.Failed, g.Refused, g.Rows, g.Decided, g.Correct, g.False, g.NoDiff, g.Gated, g.GatePassed}
		wantCounts := [...]int{w.trials, w.failed, w.refused, w.rows, w.decided, w.correct, w.falses, w.noDiff, w.gated, w.passed}
		if counts != wantCounts {
			t.Errorf("%s %s %s: trials, failed, refused, rows, decided, correct, false, no-diff, gated, passed = %v, want %v", w.budget, w.class, w.label, counts, wantCounts)
		}
		if math.Abs(g.perMinute()-w.perMinute) > 1e-9 {
			t.Errorf("%s %s %s: %.4f decided/min, want %.4f", w.budget, w.class, w.label, g.perMinute(), w.perMinute)
		}
		if hw := g.medianHalfWidth(); hw != w.medianHW && math.Abs(hw-w.medianHW) > 1e-12 {
			t.Errorf("%s %s %s: median half-width %v, want %v", w.budget, w.class, w.label, hw, w.medianHW)
		}
	}
	// By module, every group names its module; here no group mixes
	// modules, so the groups are the same.
	byModule := scores(readTestTrials(t), true)
	if len(byModule) != len(want) {
		t.Fatalf("by module: %d groups, want %d", len(byModule), len(want))
	}
	for i, g := range byModule {
		if wantMod := map[bool]string{true: "bitset", false: "gjson"}[i <= 1]; g.Module != wantMod {
			t.Errorf("by module: group %d (%s %s) has module %q, want %q", i, g.Class, g.Label, g.Module, wantMod)
		}
	}
}

// TestPrintScores compares the printed table with testdata/score.golden
// (go test -run TestPrintScores -update rewrites it).
func TestPrintScores(t *testing.T) {
	var b strings.Builder
	printScores(&b, readTestTrials(t), false)
	golden := filepath.Join("testdata", "score.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestReadTrialsBadLine(t *testing.T) {
	_, err := readTrials(strings.NewReader("{\"seq\":1}\nnot json\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
}

// TestMedianHalfWidth: rows without an interval count as infinitely
// wide, so a median over them is infinite once half have none.
func TestMedianHalfWidth(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		hw   []float64
		want float64
	}{
		{nil, math.NaN()},
		{[]float64{0.03}, 0.03},
		{[]float64{0.01, 0.03}, 0.02},
		{[]float64{0.01, inf}, inf},
		{[]float64{0.01, 0.02, inf}, 0.02},
		{[]float64{inf, 0.05, 0.01, inf}, inf},
	} {
		s := score{HalfWidths: c.hw}
		got := s.medianHalfWidth()
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("median of %v = %v, want %v", c.hw, got, c.want)
		}
	}
}
