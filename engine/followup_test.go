package engine

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/spec"
)

// undecidedFirst is a claim that the first look cannot decide, whatever
// the noise, and the second look can: b costs more than a at n=4 and at
// n=16, where b/a is about 0.7 and 0.27 (a costs 40·n steps, b 100+5·n).
// Neither check can be reproduced, and a contradiction is judged with
// Holm across the claim's two checks, at α/3/2 ≈ 0.0083 at the first
// look: finer than six rounds can reach (1/64), and within reach of
// seven (1/128) at the second look's 2α/3/2.
const undecidedFirst = `
[[claim]]
id = "T3"
text = "b costs more than a at n=4 and n=16"
[[claim.check]]
kind = "ratio"
where = "n=4,config=default"
num = "variant=b"
den = "variant=a"
op = ">"
value = 1
[[claim.check]]
kind = "ratio"
where = "n=16,config=default"
num = "variant=b"
den = "variant=a"
op = ">"
value = 1
`

// tinyWithClaim copies the tiny experiment with extra claims appended to
// its spec, so the stored spec text holds them too.
func tinyWithClaim(t *testing.T, claims string) *spec.Spec {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "tiny_test.go", "spec.toml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tiny", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "spec.toml" {
			b = append(b, claims...)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := spec.Load(filepath.Join(dir, "spec.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFollowUpRounds runs the tiny experiment with a claim the first look
// cannot decide: after the 6 planned rounds its checks are open, so their
// four cells (and only they) run follow-up rounds, the run is marked for
// two looks, and the analysis judges T1 at the first look and T3 at the
// second while every other table reads rounds 1–6.
// With NoFollowUp the same run stops at 6 rounds and is judged once.
func TestFollowUpRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	ctx := context.Background()
	db := openStore(t)
	s := tinyWithClaim(t, undecidedFirst)
	var progress bytes.Buffer
	res, err := Run(ctx, Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, NoiseRuns: 3, Progress: &progress, NoProfile: true,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	out := progress.String()
	// Each check gets its own number of rounds (its cells cost differently:
	// n=4 and n=16), so the line names both without fixing the numbers.
	line := regexp.MustCompile(`first look after 6 rounds: 2 of 3 testable counted checks undecided; follow-up rounds within [^:]+: [0-9]+ for [^\n]*`).FindString(out)
	if !strings.Contains(line, "T3.1") || !strings.Contains(line, "T3.2") {
		t.Fatalf("progress does not report the first look leaving T3.1 and T3.2 open:\n%s", out)
	}
	if res.Status != "complete" || res.RoundsDone <= 6 || res.RoundsDone > 6+followUpFactor*6 || res.RoundsTotal != res.RoundsDone {
		t.Fatalf("result = %+v, want a complete run of 7 to %d rounds\n%s", res, 6+followUpFactor*6, out)
	}
	results, err := db.Results(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		round := r.GetConfig("round")
		if len(round) == 1 && round[0] >= '1' && round[0] <= '6' {
			continue
		}
		if name := string(r.Name.Full()); r.GetConfig("config") != "default" || !strings.Contains(name+"-", "/n=4-") && !strings.Contains(name+"-", "/n=16-") {
			t.Errorf("follow-up round %s ran %s @%s, which no open check reads", round, name, r.GetConfig("config"))
		}
	}
	run, err := db.GetRun(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got := findings.SamplingOf(run).FirstLook; got != 6 {
		t.Fatalf("stored first look = %d, want 6 (note %s)", got, run.Note)
	}
	f, err := findings.Load(ctx, db, res.RunID, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f.Looks == "" || f.RoundsDone != 6 || f.FollowUp.Rounds != res.RoundsDone-6 || f.FollowUp.Results != 4 {
		t.Errorf("findings: looks %q, rounds %d, follow-up %+v; want the two-look rule, 6 planned rounds and %d follow-up rounds of 4 cells",
			f.Looks, f.RoundsDone, f.FollowUp, res.RoundsDone-6)
	}
	looks := map[string]claim.CheckResult{}
	for _, v := range f.Verdicts {
		for i, c := range v.Checks {
			looks[fmt.Sprintf("%s.%d", v.ID, i+1)] = c
		}
	}
	if c := looks["T1.1"]; c.Look != 1 || c.Verdict != claim.Reproduced {
		t.Errorf("T1 (b/a = 0.28 < 1) = %s at look %d, want reproduced at the first look", c.Verdict, c.Look)
	}
	for _, id := range []string{"T3.1", "T3.2"} {
		if c := looks[id]; c.Look != 2 || c.Verdict != claim.Contradicted || !strings.Contains(c.Measured, "second look") {
			t.Errorf("%s (b/a < 0.75 against > 1) = %s at look %d (%s), want contradicted at the second look", id, c.Verdict, c.Look, c.Measured)
		}
	}

	progress.Reset()
	res, err = Run(ctx, Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, NoiseRuns: 3, Progress: &progress, NoProfile: true, NoFollowUp: true,
	})
	if err != nil {
		t.Fatalf("Run with NoFollowUp: %v\n%s", err, progress.String())
	}
	run, err = db.GetRun(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if res.RoundsDone != 6 || findings.SamplingOf(run).FirstLook != 0 || strings.Contains(progress.String(), "first look") {
		t.Errorf("NoFollowUp: %d rounds, first look %d; want exactly 6 rounds judged once\n%s", res.RoundsDone, findings.SamplingOf(run).FirstLook, progress.String())
	}
}

// TestFollowUpAllowance checks the allowance: a fifth of the planned
// rounds' time, at least followUpFloor, and never more than the planned
// rounds took themselves.
func TestFollowUpAllowance(t *testing.T) {
	for _, tt := range []struct{ planned, want time.Duration }{
		{10 * time.Minute, 2 * time.Minute},
		{100 * time.Second, 20 * time.Second},
		{44 * time.Second, 20 * time.Second},
		{5 * time.Second, 5 * time.Second},
		{0, 0},
	} {
		if got := followUpAllowance(tt.planned); got != tt.want {
			t.Errorf("followUpAllowance(%s) = %s, want %s", tt.planned, got, tt.want)
		}
	}
}

// TestAllot checks how follow-up rounds are shared among open checks:
// max-min fair within the allowance, a shared cell paid for once, a check
// whose cells have no measured cost left out, and never more than most.
func TestAllot(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name      string
		checks    [][]int
		cost      map[int]time.Duration
		allowance time.Duration
		most      int
		rounds    []int
		cell      map[int]int
	}{
		{"one cheap check stops at most", [][]int{{0, 1}}, map[int]time.Duration{0: ms, 1: ms}, time.Second, 12,
			[]int{12}, map[int]int{0: 12, 1: 12}},
		// A crossover over 8 cells of 600 ms and a ratio inside one 1 s cell:
		// one shared count would give both a single round; the cheap check
		// takes what the expensive one cannot use.
		{"an expensive check does not hold a cheap one", [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8}},
			map[int]time.Duration{0: 600 * ms, 1: 600 * ms, 2: 600 * ms, 3: 600 * ms, 4: 600 * ms, 5: 600 * ms, 6: 600 * ms, 7: 600 * ms, 8: time.Second},
			10 * time.Second, 12, []int{1, 5}, map[int]int{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 5}},
		{"equal costs share evenly", [][]int{{0}, {1}, {2}}, map[int]time.Duration{0: ms, 1: ms, 2: ms}, 7 * ms, 12,
			[]int{3, 2, 2}, map[int]int{0: 3, 1: 2, 2: 2}},
		{"a cell read by two checks is paid once", [][]int{{0}, {0, 1}}, map[int]time.Duration{0: time.Second, 1: time.Second}, 6 * time.Second, 12,
			[]int{3, 3}, map[int]int{0: 3, 1: 3}},
		{"a cell of unknown cost leaves its check out", [][]int{{0, 1}, {2}}, map[int]time.Duration{0: ms, 2: ms}, time.Second, 4,
			[]int{0, 4}, map[int]int{2: 4}},
		{"nothing fits the allowance", [][]int{{0}, {1}}, map[int]time.Duration{0: time.Second, 1: time.Second}, 500 * ms, 12,
			[]int{0, 0}, map[int]int{}},
		{"no rounds allowed", [][]int{{0}}, map[int]time.Duration{0: ms}, time.Second, 0, []int{0}, map[int]int{}},
		{"no checks", nil, nil, time.Second, 12, []int{}, map[int]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rounds, cell := allot(tt.checks, tt.cost, tt.allowance, tt.most)
			if !slices.Equal(rounds, tt.rounds) || !maps.Equal(cell, tt.cell) {
				t.Errorf("allot = %v, %v; want %v, %v", rounds, cell, tt.rounds, tt.cell)
			}
			var spent time.Duration
			for ci, k := range cell {
				spent += time.Duration(k) * tt.cost[ci]
			}
			if spent > tt.allowance {
				t.Errorf("the allotted rounds cost %s, over the allowance %s", spent, tt.allowance)
			}
		})
	}
}
