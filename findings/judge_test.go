package findings

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
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

// planted is a sequential run's stored rounds with a known truth: v=b
// costs 10% more than v=a, v=c exactly as much. Every round has its own
// machine speed, which all cells of the round share, small independent
// noise, and in spells interference that only slows the cells it hits
// (one-sided, 20–50%), in the rounds burst lists. A unit other than
// sec/op gets values only when withUnit is set.
func planted(rounds int, burst map[int]bool, seed uint64) [][]*benchfmt.Result {
	rng := rand.New(rand.NewPCG(seed, 1))
	cost := map[string]float64{"a": 100e-9, "b": 110e-9, "c": 100e-9}
	out := make([][]*benchfmt.Result, rounds)
	for r := 1; r <= rounds; r++ {
		speed := math.Exp(0.1 * rng.NormFloat64()) // drift between rounds, shared within one
		for _, v := range []string{"a", "b", "c"} {
			x := cost[v] * speed * math.Exp(0.003*rng.NormFloat64())
			if burst[r] && rng.IntN(2) == 0 {
				x *= 1.2 + 0.3*rng.Float64()
			}
			out[r-1] = append(out[r-1], &benchfmt.Result{
				Name: benchfmt.Name("W/v=" + v), Iters: 1000,
				Config: []benchfmt.Config{{Key: "config", Value: []byte("default"), File: true}, {Key: "round", Value: []byte(strconv.Itoa(r))}},
				Values: []benchfmt.Value{{Value: x, Unit: "sec/op"}},
			})
		}
	}
	return out
}

// plantedSpec is the spec of the planted run, with extra claims.
func plantedSpec(claims string) string {
	return `name = "planted"
driver = "gotest"
benchmarks = ["BenchmarkW"]

[[axis]]
key = "v"
quick = ["a", "b", "c"]

[mode.quick]
rounds = 8
benchtime = "1000x"

[mode.full]
rounds = 8
benchtime = "1000x"

[[config]]
name = "default"
` + claims
}

// ratioClaim is a claim's TOML with the given checks.
func ratioClaim(id string, checks ...string) string {
	return "\n[[claim]]\nid = \"" + id + "\"\ntext = \"b costs more than a\"\n" + strings.Join(checks, "")
}

// ratioCheck is a check that num costs more than a by a factor of value,
// with an extra line.
func ratioCheck(num, value, extra string) string {
	return "[[claim.check]]\nkind = \"ratio\"\nnum = \"" + num + "\"\nden = \"v=a\"\nop = \">\"\nvalue = " + value + "\n" + extra + "\n"
}

// storePlanted stores the planted run with the given plan and returns its ID.
func storePlanted(t *testing.T, db *store.DB, specText string, p store.Plan, rounds [][]*benchfmt.Result) int64 {
	t.Helper()
	ctx := context.Background()
	run := &store.Run{Experiment: "planted", Mode: "quick", SpecPath: "/x/spec.toml", SpecText: specText, RoundsPlanned: p.Rounds, Plan: p}
	if _, err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	for i, rs := range rounds {
		if err := db.AddRound(ctx, run.ID, i+1, rs); err != nil {
			t.Fatal(err)
		}
	}
	return run.ID
}

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func byLabel(items []Judged) map[string]Judged {
	m := map[string]Judged{}
	for _, it := range items {
		m[it.Label] = it
	}
	return m
}

// TestJudgeSequential judges the planted run's compared ratios (its spec
// has no claims) as a sequential run does, at 8, 16 and 40 rounds with
// one-sided bursts in five of them: b/a, 10% apart, has an interval
// holding 1.10 at every look and is decided to differ from 1 once 40
// rounds outweigh the bursts; c/a, equal, is never decided to differ, and
// while open says how many more rounds it needs. Each item names the two
// cells it reads.
func TestJudgeSequential(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	burst := map[int]bool{5: true, 13: true, 14: true, 15: true, 27: true}
	decide := store.Decide{Unit: "sec/op", MaxRounds: 500, Repeats: 5}
	for _, n := range []int{8, 16, 40} {
		id := storePlanted(t, db, plantedSpec(""), store.Plan{Mode: "quick", Rounds: 8, Sequential: true, Decide: &decide}, planted(n, burst, 7))
		items, err := Judge{DB: db}.Sequential(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		m := byLabel(items)
		ba, ca := m["BenchmarkW v=b/a (sec/op)"], m["BenchmarkW v=c/a (sec/op)"]
		if len(items) != 2 || !ba.Samples || !ca.Samples {
			t.Fatalf("%d rounds: items %+v, want the two compared ratios with samples", n, items)
		}
		if ba.N != n || !ba.HasInterval || !(ba.Lo <= 1.10 && 1.10 <= ba.Hi) {
			t.Errorf("%d rounds: b/a = %g [%g, %g] over %d rounds, want an interval holding 1.10 over %d", n, ba.Ratio, ba.Lo, ba.Hi, ba.N, n)
		}
		if n == 40 && (ba.Decision != RatioDiffers || !ba.Decided || !ba.Excludes) {
			t.Errorf("%d rounds: b/a decision %v, want decided: differs from 1 (%g [%g, %g])", n, ba.Decision, ba.Ratio, ba.Lo, ba.Hi)
		}
		if ca.Decision == RatioDiffers || ca.Excludes {
			t.Errorf("%d rounds: c/a = %g [%g, %g] decided to differ from 1; the truth is 1", n, ca.Ratio, ca.Lo, ca.Hi)
		}
		if !ca.Decided && ca.More < 1 {
			t.Errorf("%d rounds: open c/a needs %d more rounds, want an estimate ≥ 1", n, ca.More)
		}
		want := []plan.Cell{{Bench: "BenchmarkW", Levels: []string{"v=b"}, Config: "default"}, {Bench: "BenchmarkW", Levels: []string{"v=a"}, Config: "default"}}
		if !reflect.DeepEqual(ba.Cells, want) {
			t.Errorf("b/a reads %v, want %v", ba.Cells, want)
		}
	}
}

// TestJudgeSequentialRules: a precision decides every ratio once its
// half-width reaches it; a gate limit inside the interval keeps a ratio
// open; a ratio without samples in the unit decided on is open until the
// initial pass is done, and falls back to sec/op unless the unit was
// chosen; a spec with counted checks is judged on them alone.
func TestJudgeSequentialRules(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	data := planted(20, nil, 3)
	judge := func(spec string, d store.Decide, rounds [][]*benchfmt.Result) map[string]Judged {
		t.Helper()
		id := storePlanted(t, db, spec, store.Plan{Mode: "quick", Rounds: 8, Sequential: true, Decide: &d}, rounds)
		items, err := Judge{DB: db}.Sequential(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return byLabel(items)
	}
	m := judge(plantedSpec(""), store.Decide{Unit: "sec/op", Precision: 0.5, MaxRounds: 50}, data)
	for _, l := range []string{"BenchmarkW v=b/a (sec/op)", "BenchmarkW v=c/a (sec/op)"} {
		if it := m[l]; it.Decision != RatioWithin || it.Precision != 0.5 || !it.Decided {
			t.Errorf("precision ±50%%: %s = %+v, want decided within it", l, it)
		}
	}
	m = judge(plantedSpec(""), store.Decide{Unit: "sec/op", GateRatios: []float64{1.10}, MaxRounds: 50}, data)
	if it := m["BenchmarkW v=b/a (sec/op)"]; it.Decided || it.Lo > 1.10 || it.Hi < 1.10 {
		t.Errorf("gate at +10%%: b/a = %+v, want open while 1.10 is inside its interval", it)
	}
	m = judge(plantedSpec(""), store.Decide{Unit: "instructions/op", MaxRounds: 50}, data[:6])
	if it, ok := m["BenchmarkW v=b/a (instructions/op)"]; !ok || it.Samples || it.Decided {
		t.Errorf("no instructions in 6 rounds: %v, want the ratio open without samples", m)
	}
	m = judge(plantedSpec(""), store.Decide{Unit: "instructions/op", MaxRounds: 50}, data)
	if it, ok := m["BenchmarkW v=b/a (sec/op)"]; !ok || !it.Decided {
		t.Errorf("no instructions in 20 rounds: %v, want b/a decided on sec/op", m)
	}
	m = judge(plantedSpec(""), store.Decide{Unit: "instructions/op", UnitChosen: true, MaxRounds: 50}, data)
	if it, ok := m["BenchmarkW v=b/a (instructions/op)"]; !ok || it.Samples {
		t.Errorf("instructions/op chosen: %v, want b/a open without samples, never on sec/op", m)
	}
	claims := ratioClaim("P1", ratioCheck("v=b", "1.02", ""))
	m = judge(plantedSpec(claims), store.Decide{Unit: "sec/op", MaxRounds: 50}, data)
	it, ok := m["P1 check 1"]
	if len(m) != 1 || !ok || it.Check == nil || it.Check.Verdict != claim.Reproduced || !it.Decided || len(it.Cells) != 2 {
		t.Errorf("a counted check: %+v, want P1 check 1 alone, reproduced, reading 2 cells", m)
	}
}

// TestJudgeFirstLook judges the counted checks of a fixed run after its
// planned rounds: a check its 6 rounds decide is decided, one near its
// threshold is open with the cells it reads, and a context check is not
// counted.
func TestJudgeFirstLook(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	claims := ratioClaim("F1", ratioCheck("v=b", "1.02", ""), ratioCheck("v=c", "1.0", `why = "at the truth: undecidable"`), ratioCheck("v=b", "1", "context = true"))
	id := storePlanted(t, db, plantedSpec(claims), store.Plan{Mode: "quick", Rounds: 6, FirstLook: 6}, planted(6, nil, 5))
	items, err := Judge{DB: db}.FirstLook(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	m := byLabel(items)
	if len(items) != 2 {
		t.Fatalf("items %+v, want F1.1 and F1.2 (the context check is not counted)", items)
	}
	if it := m["F1.1"]; !it.Decided || it.Cells != nil {
		t.Errorf("F1.1 (b/a = 1.10 > 1.02, six rounds) = %+v, want decided at the first look", it)
	}
	if it := m["F1.2"]; it.Decided || len(it.Cells) != 2 {
		t.Errorf("F1.2 (c/a = 1 against 1) = %+v, want open, reading c and a", it)
	}
}

// TestRunSequential: the findings of a stopped sequential run hold what
// its judge decided at the stop, from the same stored rounds; a run that
// has not stopped, or was not sequential, has none.
func TestRunSequential(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	d := store.Decide{Unit: "sec/op", MaxRounds: 20, Repeats: 5}
	id := storePlanted(t, db, plantedSpec(""), store.Plan{Mode: "quick", Rounds: 8, Sequential: true, Decide: &d}, planted(20, map[int]bool{9: true}, 11))
	f, err := Load(ctx, db, id, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f.Sequential != nil {
		t.Errorf("a run still sampling has a sequential summary: %+v", f.Sequential)
	}
	stop := store.Stop{Round: 20, Reason: store.StopMaxRounds, Elapsed: time.Minute, CellCost: 50 * time.Millisecond}
	if err := db.SetStop(ctx, id, stop); err != nil {
		t.Fatal(err)
	}
	judged, err := Judge{DB: db}.Sequential(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	f, err = Load(ctx, db, id, analysis.Options{Alpha: 0.01, Confidence: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	if f.Sequential == nil || f.Sequential.Stop != stop || !reflect.DeepEqual(f.Sequential.Decide, d) || !reflect.DeepEqual(f.Sequential.Items, judged) {
		t.Fatalf("findings' sequential summary = %+v, want the stop and what the judge decides from the same rounds (%+v)", f.Sequential, judged)
	}
	fixed := storePlanted(t, db, plantedSpec(""), store.Plan{Mode: "quick", Rounds: 8}, planted(8, nil, 1))
	if err := db.SetStop(ctx, fixed, stop); err != nil {
		t.Fatal(err)
	}
	if f, err := Load(ctx, db, fixed, analysis.DefaultOptions()); err != nil || f.Sequential != nil {
		t.Errorf("a fixed run: sequential %+v (%v), want none", f.Sequential, err)
	}
}

// TestJudgeErrors: a run that is not sequential, or whose stored spec does
// not parse, cannot be judged; the error says which run.
func TestJudgeErrors(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	fixed := storePlanted(t, db, plantedSpec(""), store.Plan{Mode: "quick", Rounds: 8}, planted(8, nil, 1))
	if _, err := (Judge{DB: db}).Sequential(ctx, fixed); err == nil {
		t.Error("judged a fixed run sequentially")
	}
	bad := storePlanted(t, db, "name = ", store.Plan{Mode: "quick", Rounds: 8, Sequential: true, Decide: &store.Decide{Unit: "sec/op"}}, nil)
	_, err := Judge{DB: db}.Sequential(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("run %d", bad)) {
		t.Errorf("a run whose spec does not parse: %v, want an error naming it", err)
	}
}
