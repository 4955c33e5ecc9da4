package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/store"
)

func TestComparedPairs(t *testing.T) {
	cells := func(configs ...string) []plan.Cell {
		return plan.New([]string{"BenchmarkW"}, []plan.Axis{{Key: "v", Values: []string{"a", "b", "c"}}, {Key: "n", Values: []string{"1", "2"}}}, configs, 1, 1).Cells
	}
	label := func(cs []plan.Cell, pairs [][2]int) []string {
		var out []string
		for _, p := range pairs {
			out = append(out, cs[p[0]].String()+" / "+cs[p[1]].String())
		}
		return out
	}
	one := cells("default")
	two := cells("default", "off")
	tests := []struct {
		name         string
		cells        []plan.Cell
		specBy, base string
		wantBy       string
		want         []string
	}{
		{"spec by and baseline", one, "v", "b", "v", []string{
			"BenchmarkW/v=a/n=1 @default / BenchmarkW/v=b/n=1 @default", "BenchmarkW/v=a/n=2 @default / BenchmarkW/v=b/n=2 @default",
			"BenchmarkW/v=c/n=1 @default / BenchmarkW/v=b/n=1 @default", "BenchmarkW/v=c/n=2 @default / BenchmarkW/v=b/n=2 @default"}},
		{"last varying key, first value", one, "", "", "n", []string{
			"BenchmarkW/v=a/n=2 @default / BenchmarkW/v=a/n=1 @default", "BenchmarkW/v=b/n=2 @default / BenchmarkW/v=b/n=1 @default",
			"BenchmarkW/v=c/n=2 @default / BenchmarkW/v=c/n=1 @default"}},
		{"configs when several", two[:4], "", "", "config", []string{
			"BenchmarkW/v=a/n=1 @off / BenchmarkW/v=a/n=1 @default", "BenchmarkW/v=a/n=2 @off / BenchmarkW/v=a/n=2 @default"}},
		{"unknown spec key falls back", two[:2], "size", "64", "config", []string{"BenchmarkW/v=a/n=1 @off / BenchmarkW/v=a/n=1 @default"}},
		{"nothing varies", one[:1], "", "", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pairs, by := comparedPairs(tc.cells, tc.specBy, tc.base)
			if got := label(tc.cells, pairs); by != tc.wantBy || !slices.Equal(got, tc.want) {
				t.Errorf("comparedPairs = %q by %q, want %q by %q", got, by, tc.want, tc.wantBy)
			}
		})
	}
}

func TestCheckMore(t *testing.T) {
	// Half-width 10% on the log scale, estimate 5% from the threshold, 10
	// rounds: four times the rounds are needed, so 30 more.
	cr := claim.CheckResult{Verdict: claim.Inconclusive, Estimate: 1.05, Threshold: 1}
	cr.Lo, cr.Hi = 1.05*0.9048374180359595, 1.05*1.1051709180756477
	// log distance log(1.05) ≈ 0.0488, half-width 0.1: (0.1/0.0488)² × 10 ≈ 42.
	if got := checkMore(cr, 10); got < 30 || got > 35 {
		t.Errorf("checkMore = %d, want ≈32", got)
	}
	cr.Verdict = claim.Reproduced
	if got := checkMore(cr, 10); got != -1 {
		t.Errorf("checkMore of a decided check = %d, want -1", got)
	}
}

// TestSequentialRun runs the tiny spec sequentially: an initial pass of
// whole rounds, then rounds of only the cells of the still undecided
// claim check, at most MaxRounds, with cpu-sec/op from the fixed-count
// runs after a cell's first.
func TestSequentialRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	for _, unit := range []string{"", UnitCPU} {
		t.Run(cmpOr(unit, "default"), func(t *testing.T) { testSequentialRun(t, unit) })
	}
}

// testSequentialRun runs the tiny spec sequentially deciding on unit
// ("" = the default, sec/op): cpu-sec/op values are stored only when it
// is the decided unit.
func testSequentialRun(t *testing.T, unit string) {
	db := openStore(t)
	s := tinySpec(t)
	var progress bytes.Buffer
	res, err := Run(context.Background(), Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, NoiseRuns: 3, Progress: &progress, MaxRounds: 11, NoProfile: true, Unit: unit,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	out := progress.String()
	if res.Status != "complete" || !res.Sequential || res.RoundsDone < initialRounds || res.RoundsDone > 11 {
		t.Fatalf("result = %+v, want a complete sequential run of 8 to 11 rounds\n%s", res, out)
	}
	run, err := db.GetRun(context.Background(), res.RunID)
	if err != nil || !findings.SamplingOf(run).Sequential {
		t.Fatalf("stored run is not marked sequential (err %v)", err)
	}
	note := "(samples: after its first run each cell runs at a fixed iteration count"
	if unit == UnitCPU {
		note = "(cpu-sec/op: the benchmark process's CPU time"
	}
	for _, want := range []string{"sequential sampling stopped after round", "T1 check 1", "sample efficiency:", note} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
	results, err := db.Results(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	p := mustPlan(t)
	deps := claim.Depends(s.Claims[0].Checks[0], p.Cells)
	allowed := map[string]bool{}
	for _, i := range deps {
		allowed[p.Cells[i].Name()+"@"+p.Cells[i].Config] = true
	}
	perRound := map[int]int{}
	cpu := 0
	for _, r := range results {
		round, _ := strconv.Atoi(r.GetConfig("round"))
		perRound[round]++
		if round > initialRounds {
			name := strings.TrimSuffix(r.Name.String(), "-2")
			if !allowed[name+"@"+r.GetConfig("config")] {
				t.Errorf("round %d ran %s @%s, which the open check does not read", round, name, r.GetConfig("config"))
			}
		}
		// A cell's first run sizes it, so round 1 has no CPU time; later a
		// value is left out only when the process's CPU time did not
		// exceed its baseline's (the tiny benchmark's loop is very short).
		if v, ok := r.Value(UnitCPU); ok {
			cpu++
			if unit != UnitCPU || round == 1 || !(v > 0) {
				t.Errorf("round %d: %s %s = %g; want none in round 1 and positive values after", round, r.Name, UnitCPU, v)
			}
		}
	}
	for round := 1; round <= initialRounds; round++ {
		if perRound[round] != 12 {
			t.Errorf("initial round %d stored %d results, want all 12 cells", round, perRound[round])
		}
	}
	if unit == UnitCPU && cpu == 0 {
		t.Errorf("no %s values stored", UnitCPU)
	}
}

func mustPlan(t *testing.T) *plan.Plan {
	t.Helper()
	sp := tinySpec(t)
	p, err := makePlan(Options{Spec: sp, Mode: "quick"}, sp.Modes["quick"])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCPUTimed(t *testing.T) {
	for _, tc := range []struct {
		benchtime string
		budget    time.Duration
		cells     int
		want      time.Duration
	}{
		{"100ms", 0, 3, cpuProcessTime},                         // no budget: the full process time
		{"100ms", 60 * time.Second, 3, cpuProcessTime},          // 3 cells × 12 rounds × 1s fit in 60s
		{"100ms", 60 * time.Second, 20, 250 * time.Millisecond}, // 60s / (20 × 12)
		{"100ms", 5 * time.Second, 20, cpuMinProcessTime},       // never below the floor
		{"3s", 60 * time.Second, 3, 3 * time.Second},            // a longer benchtime asked for
		{"", 0, 3, time.Second},                                 // go test's default benchtime
		{"20000x", 60 * time.Second, 3, 0},                      // an iteration count is kept
	} {
		if got := cpuTimed(tc.benchtime, tc.budget, tc.cells); got != tc.want {
			t.Errorf("cpuTimed(%q, %s, %d) = %s, want %s", tc.benchtime, tc.budget, tc.cells, got, tc.want)
		}
	}
}

func TestFixedIters(t *testing.T) {
	sized := func(iters int, secPerOp float64) *benchfmt.Result {
		return &benchfmt.Result{Iters: iters, Values: []benchfmt.Value{{Value: secPerOp, Unit: UnitSec}}}
	}
	for _, tc := range []struct {
		name  string
		unit  string
		timed time.Duration
		in    *benchfmt.Result
		want  int
	}{
		{"sec/op keeps the sizing count", UnitSec, time.Second, sized(500000, 200e-9), 500000},
		{"cpu-sec/op fills the process time", UnitCPU, time.Second, sized(500000, 200e-9), 5000000},
		{"never fewer than the sizing run", UnitCPU, 10 * time.Millisecond, sized(500000, 200e-9), 500000},
		{"an iteration count kept", UnitCPU, 0, sized(20000, 1e-6), 20000},
		{"too few iterations for a baseline", UnitCPU, time.Second, sized(10*baselineIters, 0.05), 0},
		{"no sec/op: the sizing count", UnitCPU, time.Second, &benchfmt.Result{Iters: 1000}, 1000},
		{"no overflow", UnitCPU, time.Hour, sized(1000, 1e-15), 1e12},
	} {
		s := &sequential{unit: tc.unit, timed: tc.timed}
		if got := s.fixedIters(tc.in); got != tc.want {
			t.Errorf("%s: fixedIters = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSummaryHint: a sec/op run that ends with an undecided comparison
// points to cpu-sec/op; a decided one, or a cpu-sec/op run, does not.
func TestSummaryHint(t *testing.T) {
	const hint = "add --unit cpu-sec/op"
	open := status{label: "B v=b/a (sec/op)", interval: "1.03 [0.95, 1.12] ±7.8%", more: 9000}
	done := status{label: "B v=c/a (sec/op)", decided: true, verdict: "within ±1%, includes 1", interval: "1.00 [0.99, 1.01]"}
	cost := func(int) time.Duration { return time.Second }
	for _, tc := range []struct {
		unit string
		sts  []status
		want bool
	}{
		{UnitSec, []status{done, open}, true},
		{UnitSec, []status{done}, false},
		{UnitCPU, []status{done, open}, false},
	} {
		var b bytes.Buffer
		s := &sequential{unit: tc.unit, start: time.Now()}
		s.summary(&b, tc.sts, 20, "the budget 1m0s is spent", cost)
		if got := strings.Contains(b.String(), hint); got != tc.want {
			t.Errorf("unit %s, %d statuses: hint printed %v, want %v:\n%s", tc.unit, len(tc.sts), got, tc.want, b.String())
		}
	}
}

func TestEfficiencyString(t *testing.T) {
	for _, tc := range []struct {
		e    efficiency
		want []string
	}{
		{efficiency{}, []string{"no cells ran"}},
		{efficiency{timed: 6 * time.Second, wall: 10 * time.Second, runs: 30}, []string{"60% of the benchmark processes' wall time", "6s of 10s over 30 processes"}},
		{efficiency{timed: 38 * time.Millisecond, wall: 155 * time.Second, runs: 42}, []string{"0% of", "does not measure the cost of a sample"}},
	} {
		got := tc.e.String()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: %q lacks %q", tc.e, got, w)
			}
		}
		if tc.e.timed >= tc.e.wall/100 && strings.Contains(got, "does not measure") {
			t.Errorf("%+v: %q has the load-step note", tc.e, got)
		}
	}
}

// TestDecide runs the tiny spec sequentially under a caller's rule
// (Options.Decide) that stops after round 10: the rule is asked after the
// initial pass and after each later round, every cell runs in every
// round, and the run stops exactly when the rule says so; the caller's
// env keys (Options.Env) are stored with the run.
func TestDecide(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	db := openStore(t)
	var progress bytes.Buffer
	var asked []int
	decide := func(ctx context.Context, runID int64) (bool, string, error) {
		done, err := db.RoundsDone(ctx, runID)
		if err != nil {
			return false, "", err
		}
		asked = append(asked, len(done))
		return len(done) >= 10, fmt.Sprintf("%d rounds stored", len(done)), nil
	}
	res, err := Run(context.Background(), Options{
		Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, NoiseRuns: 3, Progress: &progress, NoProfile: true, Sequential: true, Decide: decide,
		Env: []store.KV{{Key: "part-of", Value: "a bisect"}},
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if res.Status != "complete" || res.RoundsDone != 10 {
		t.Fatalf("result = %+v, want a complete run of 10 rounds\n%s", res, progress.String())
	}
	if want := []int{8, 9, 10}; !slices.Equal(asked, want) {
		t.Errorf("the rule was asked after rounds %v, want %v", asked, want)
	}
	results, err := db.Results(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	perRound := map[string]int{}
	for _, r := range results {
		perRound[r.GetConfig("round")]++
	}
	for round := 1; round <= 10; round++ {
		if n := perRound[strconv.Itoa(round)]; n != 12 {
			t.Errorf("round %d stored %d results, want all 12 cells", round, n)
		}
	}
	if env, err := db.Env(context.Background(), res.RunID); err != nil || !slices.Contains(env, store.KV{Key: "part-of", Value: "a bisect"}) {
		t.Errorf("the run's env lacks Options.Env's key (%v): %v", err, env)
	}
	if !strings.Contains(progress.String(), "decision") || !strings.Contains(progress.String(), "10 rounds stored") {
		t.Errorf("progress does not show the rule's line:\n%s", progress.String())
	}
}
