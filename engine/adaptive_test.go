package engine

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/store"
)

// TestSequentialRun runs the tiny spec sequentially under a judge that
// keeps one item open, reading the two cells of T1: an initial pass of
// whole rounds, then rounds of only those cells, each with the noise
// measured before it, until MaxRounds. Deciding on cpu-sec/op, every
// process reports it from the CPU timer inside the process, or, where the
// binary cannot have the timer (the build passes its own -overlay), the
// fixed-count runs after a cell's first report it less a baseline
// process. How the run stopped is stored with it.
func TestSequentialRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	for _, tc := range []struct {
		name, unit string
		noTimer    bool
	}{
		{"default", "", false},
		{UnitCPU, UnitCPU, false},
		{UnitCPU + " without the CPU timer", UnitCPU, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noTimer {
				empty := filepath.Join(t.TempDir(), "overlay.json")
				if err := os.WriteFile(empty, []byte(`{"Replace":{}}`), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Setenv("GOFLAGS", "-overlay="+empty)
			}
			testSequentialRun(t, tc.unit, tc.noTimer)
		})
	}
}

// testSequentialRun runs the tiny spec sequentially deciding on unit
// ("" = the default, sec/op): cpu-sec/op values are stored only when it
// is the decided unit, in every round from the CPU timer, after round 1
// from the baseline processes without it.
func testSequentialRun(t *testing.T, unit string, noTimer bool) {
	db := openStore(t)
	s := tinySpec(t)
	var progress bytes.Buffer
	open := []plan.Cell{{Bench: "BenchmarkWork", Levels: []string{"variant=b", "n=16"}, Config: "default"},
		{Bench: "BenchmarkWork", Levels: []string{"variant=a", "n=16"}, Config: "default"}}
	j := &scriptJudge{db: db, initial: 8, sequential: func(rounds int) Status {
		return Status{Items: []Item{
			{Label: "T1 check 1", Cells: open, More: 40, Line: "T1 check 1 still open"},
			{Label: "decided", Cells: []plan.Cell{{Bench: "BenchmarkWork", Levels: []string{"variant=a", "n=1"}, Config: "gogc50"}}, Decided: true},
		}}
	}}
	res, err := Run(context.Background(), Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, NoiseRuns: 3, Progress: &progress, MaxRounds: 11, NoProfile: true, Unit: unit,
		Judge: j, Repeat: analysis.RepeatEstimate,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	out := progress.String()
	if res.Status != "complete" || !res.Sequential || res.RoundsDone != 11 || res.RoundsTotal != 11 {
		t.Fatalf("result = %+v, want a complete sequential run of 11 rounds\n%s", res, out)
	}
	// The judge is asked once after round 2 too, for the groups of
	// compared cells whose repetitions are chosen together (alloc.go)
	// and which the budget may leave out together (leaveout.go).
	asked := []int{2, 8, 9, 10, 11}
	if !slices.Equal(j.asked, asked) {
		t.Errorf("judge asked after rounds %v, want after %v", j.asked, asked)
	}
	// In a log a look gets a short line at most every 30 s (this run is
	// shorter), and the end says why sampling stopped.
	want := []string{"sampling stopped after 11 rounds", "1 of 2 open (max-rounds)", "sample efficiency:"}
	if noTimer {
		want = append(want, "cpu-sec/op falls back to the difference of two processes' CPU time", "passes its own -overlay")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("progress lacks %q:\n%s", w, out)
		}
	}
	if !noTimer && strings.Contains(out, "falls back") {
		t.Errorf("progress reports a fallback:\n%s", out)
	}
	run, err := db.GetRun(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	p := run.Plan
	wantUnit, repeats := cmpOr(unit, UnitSec), 5
	if unit == UnitCPU {
		repeats = 1
	}
	if !p.Sequential || p.Rounds != 8 || p.Decide == nil || p.Decide.Unit != wantUnit || p.Decide.UnitChosen != (unit != "") ||
		p.Decide.MaxRounds != 11 || p.Decide.Repeats != repeats {
		t.Errorf("stored plan = %+v (decide %+v), want a sequential plan of 8 initial rounds deciding on %s, at most 11 rounds, %d repetitions", p, p.Decide, wantUnit, repeats)
	}
	if p.Stop.Round != 11 || p.Stop.Reason != store.StopMaxRounds || p.Stop.Elapsed <= 0 || p.Stop.CellCost <= 0 {
		t.Errorf("stored stop = %+v, want round 11 at --max-rounds with its time and a cell's cost", p.Stop)
	}
	rounds, err := db.Rounds(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ri := range rounds {
		if measured := ri.Noise != nil; measured != (ri.Round > 8) {
			t.Errorf("round %d: noise %+v; want noise stored with every round after the initial pass, and only those", ri.Round, ri.Noise)
		} else if measured && !(ri.Noise.CV >= 0) {
			t.Errorf("round %d: calibration CV %g", ri.Round, ri.Noise.CV)
		}
	}
	results, err := db.Results(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, c := range open {
		allowed[c.Name()+"@"+c.Config] = true
	}
	perRound := map[int]int{}
	cpu, cpuRound1 := 0, 0
	for _, r := range results {
		round, _ := strconv.Atoi(r.GetConfig("round"))
		perRound[round]++
		if round > 8 {
			name := "Benchmark" + strings.TrimSuffix(string(r.Name.Full()), "-"+strconv.Itoa(procsOf(r.Name)))
			if !allowed[name+"@"+r.GetConfig("config")] {
				t.Errorf("round %d ran %s @%s, which the open item does not read", round, name, r.GetConfig("config"))
			}
		}
		// Without the CPU timer a cell's first run sizes it, so round 1
		// has no CPU time; later a value is left out only when the
		// process's CPU time did not exceed its baseline's (the tiny
		// benchmark's loop is very short). With the timer every process
		// reports it, the sizing run too.
		if v, ok := r.Value(UnitCPU); ok {
			cpu++
			if round == 1 {
				cpuRound1++
			}
			if unit != UnitCPU || (noTimer && round == 1) || !(v > 0) {
				t.Errorf("round %d: %s %s = %g; want none in round 1 without the CPU timer, none deciding on sec/op, and positive values", round, r.Name, UnitCPU, v)
			}
		}
	}
	for round := 1; round <= 8; round++ {
		if perRound[round] != 12 {
			t.Errorf("initial round %d stored %d results, want all 12 cells", round, perRound[round])
		}
	}
	for round := 9; round <= 11; round++ {
		if perRound[round] != 2 {
			t.Errorf("sequential round %d stored %d results, want the 2 open cells", round, perRound[round])
		}
	}
	if unit == UnitCPU && cpu == 0 {
		t.Errorf("no %s values stored", UnitCPU)
	}
	if unit == UnitCPU && !noTimer && cpuRound1 != perRound[1] {
		t.Errorf("round 1 has %s in %d of %d results; the CPU timer reports it in every one", UnitCPU, cpuRound1, perRound[1])
	}
}

// TestSequentialStopsWhenDecided: once the judge decides everything, the
// run stops and says why, and the caller's env keys (Options.Env) are
// stored with it; a sequential run without a judge is refused before
// anything is stored.
func TestSequentialStopsWhenDecided(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	db := openStore(t)
	cell := []plan.Cell{{Bench: "BenchmarkWork", Levels: []string{"variant=a", "n=1"}, Config: "default"}}
	j := &scriptJudge{db: db, initial: 6, sequential: func(rounds int) Status {
		return Status{Items: []Item{{Label: "x", Cells: cell, Decided: rounds >= 7, More: -1, Line: "x open"}}}
	}}
	var progress bytes.Buffer
	res, err := Run(context.Background(), Options{Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 2, NoiseRuns: 3, Progress: &progress, Sequential: true, NoProfile: true, Judge: j,
		Env: []store.KV{{Key: "part-of", Value: "a bisect"}}})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if env, err := db.Env(context.Background(), res.RunID); err != nil || !slices.Contains(env, store.KV{Key: "part-of", Value: "a bisect"}) {
		t.Errorf("the run's env lacks Options.Env's key (%v): %v", err, env)
	}
	run, err := db.GetRun(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if res.RoundsDone != 7 || run.Plan.Stop.Round != 7 || run.Plan.Stop.Reason != store.StopDecided {
		t.Errorf("rounds %d, stop %+v; want a stop after round 7, every item decided\n%s", res.RoundsDone, run.Plan.Stop, progress.String())
	}
	if run.Plan.Decide == nil || run.Plan.Decide.Repeats != 1 {
		t.Errorf("decide = %+v; without Options.Repeat a process runs one repetition", run.Plan.Decide)
	}

	runs, _ := db.Runs(context.Background())
	_, err = Run(context.Background(), Options{Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 2, NoiseRuns: 3, Progress: io.Discard, Precision: 0.01, NoProfile: true})
	if err == nil || !strings.Contains(err.Error(), "needs a judge") {
		t.Errorf("a sequential run without a judge: %v, want refused", err)
	}
	if after, _ := db.Runs(context.Background()); len(after) != len(runs) {
		t.Errorf("the refused run was stored (%d runs, had %d)", len(after), len(runs))
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
		{"10ms", 0, 3, cpuProcessTime},                           // no budget: the full process time
		{"10ms", 60 * time.Second, 3, cpuProcessTime},            // 3 cells × 12 rounds × 0.1s fit in 60s
		{"10ms", 60 * time.Second, 100, 50 * time.Millisecond},   // 60s / (100 × 12)
		{"10ms", 2 * time.Second, 20, cpuMinProcessTime},         // never below the floor
		{"100ms", 60 * time.Second, 100, 100 * time.Millisecond}, // nor below the benchtime
		{"3s", 60 * time.Second, 3, 3 * time.Second},             // a longer benchtime asked for
		{"", 0, 3, time.Second},                                  // go test's default benchtime
		{"20000x", 60 * time.Second, 3, 0},                       // an iteration count is kept
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
	// sizedCPU: a sizing run whose wall time a neighbour inflated.
	sizedCPU := func(iters int, secPerOp, cpuPerOp float64) *benchfmt.Result {
		r := sized(iters, secPerOp)
		r.Values = append(r.Values, benchfmt.Value{Value: cpuPerOp, Unit: UnitCPU})
		return r
	}
	for _, tc := range []struct {
		name  string
		unit  string
		timed time.Duration
		in    *benchfmt.Result
		want  int
	}{
		// sec/op: 5 repetitions of 20 ms each at the sizing run's speed,
		// whatever count go test chose to size it.
		{"sec/op: repetitions of equal time", UnitSec, 0, sized(500000, 200e-9), 5 * 100000},
		{"sec/op: the same time for a slower cell", UnitSec, 0, sized(400000, 1e-6), 5 * 20000},
		{"sec/op: a whole number of iterations per repetition", UnitSec, 0, sized(5000, 3e-6), 5 * 6667},
		{"sec/op: at least one iteration per repetition", UnitSec, 0, sized(25, 0.03), 5},
		{"cpu-sec/op fills the process time", UnitCPU, time.Second, sized(500000, 200e-9), 5000000},
		{"by CPU time per op when the sizing run has it", UnitCPU, time.Second, sizedCPU(500000, 400e-9, 250e-9), 4000000},
		{"never fewer than the sizing run", UnitCPU, 10 * time.Millisecond, sized(500000, 200e-9), 500000},
		{"an iteration count kept", UnitCPU, 0, sized(20000, 1e-6), 20000},
		{"too few iterations for a baseline", UnitCPU, time.Second, sized(10*baselineIters, 0.05), 0},
		{"no sec/op: the sizing count", UnitCPU, time.Second, &benchfmt.Result{Iters: 1000}, 1000},
		{"no overflow", UnitCPU, time.Hour, sized(1000, 1e-15), 1e12},
	} {
		s := &sequential{unit: tc.unit, timed: tc.timed, repeat: repeatTime("100ms")}
		if got := s.fixedIters(tc.in); got != tc.want {
			t.Errorf("%s: fixedIters = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSummaryHint: a sec/op run that ends with an undecided comparison
// points to cpu-sec/op; a decided one, or a cpu-sec/op run, does not.
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

// TestResize: deciding on sec/op, a cell's repetitions are re-sized by a
// run faster than any before (a neighbour only slows a process, so the
// fastest speed seen is the nearest to the cell's own), never by a slower
// one; deciding on cpu-sec/op they are not re-sized.
func TestResize(t *testing.T) {
	run := func(secPerOp float64) *benchfmt.Result {
		return &benchfmt.Result{Iters: 5000, Values: []benchfmt.Value{{Value: secPerOp, Unit: UnitSec}}}
	}
	s := &sequential{unit: UnitSec, repeat: repeatTime("100ms"), iters: map[string]int{"c": 5 * 10000}, fastest: map[string]float64{"c": 2e-6}}
	s.resize("c", run(4e-6)) // slower: kept
	if s.iters["c"] != 5*10000 || s.fastest["c"] != 2e-6 {
		t.Errorf("after a slower run: iters %d, fastest %g; want 50000 and 2e-06 kept", s.iters["c"], s.fastest["c"])
	}
	s.resize("c", run(1e-6)) // faster: 20 ms per repetition at 1µs/op
	if s.iters["c"] != 5*20000 || s.fastest["c"] != 1e-6 {
		t.Errorf("after a faster run: iters %d, fastest %g; want 100000 and 1e-06", s.iters["c"], s.fastest["c"])
	}
	cpu := &sequential{unit: UnitCPU, repeat: repeatTime("100ms"), iters: map[string]int{"c": 777}, fastest: map[string]float64{}}
	cpu.resize("c", run(1e-6))
	if cpu.iters["c"] != 777 {
		t.Errorf("deciding on cpu-sec/op: iters %d, want 777 kept", cpu.iters["c"])
	}
}
