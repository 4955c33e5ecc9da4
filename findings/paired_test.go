package findings

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/store"
	"github.com/perflab/perflab/unit"
)

// pairedRun makes one run's results: rounds × {old, new}, where each round
// shares a drift factor (as interleaved rounds do) and new = old × factor.
// testdata/paired.txt is pairedText(12, {A: 1.03, B: 1}, "BenchmarkGone", 7).
func pairedRun(t *testing.T, rounds int, factors map[string]float64, onlyOld string, seed uint64) []*benchfmt.Result {
	t.Helper()
	rs, err := gotest.Parse(strings.NewReader(pairedText(rounds, factors, onlyOld, seed)), "run")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func pairedText(rounds int, factors map[string]float64, onlyOld string, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for r := 1; r <= rounds; r++ {
		drift := 1 + 0.2*rng.Float64() // a slow round slows both sides alike
		for _, cfg := range []string{"old", "new"} {
			fmt.Fprintf(&b, "config: %s\nround: %d\n", cfg, r)
			for _, name := range []string{"BenchmarkA", "BenchmarkB"} {
				v := 1000 * drift * (1 + 0.005*rng.NormFloat64())
				if cfg == "new" {
					v *= factors[name]
				}
				fmt.Fprintf(&b, "%s 1000 %.3f ns/op 64 B/op 1 allocs/op %.0f x-sec/op %.0f a-sec/op\n", name, v, v, v)
			}
			if cfg == "old" && onlyOld != "" {
				fmt.Fprintf(&b, "%s 1000 5 ns/op\n", onlyOld)
			}
		}
	}
	return b.String()
}

func TestPaired(t *testing.T) {
	if data, err := os.ReadFile(filepath.Join("testdata", "paired.txt")); err != nil || string(data) != pairedText(12, map[string]float64{"BenchmarkA": 1.03, "BenchmarkB": 1}, "BenchmarkGone", 7) {
		t.Fatalf("testdata/paired.txt is missing or differs from pairedText (err %v); write it again from pairedText", err)
	}
	file := readSet(t, "paired.txt")
	res := Paired(file.Results, "old", "new", analysis.DefaultOptions(), nil)
	rows := map[string]PairedRow{}
	for _, r := range res.Rows {
		rows[r.Name+" "+r.Unit] = r
	}
	a, b := rows["BenchmarkA sec/op"], rows["BenchmarkB sec/op"]
	// Two rows: each interval at 97.5%, so that both hold at 95%.
	if lv := res.Levels["sec/op"]; math.Abs(lv-0.975) > 1e-12 || a.Ratio.Conf < 0.975 {
		t.Errorf("sec/op level %g, A's interval at %g; want 0.975 for two rows", lv, a.Ratio.Conf)
	}
	if a.Verdict != Slower || !(a.Ratio.Lo > 1.015 && a.Ratio.Hi < 1.045) || math.Abs(a.Ratio.Ratio-1.03) > 0.005 || a.PAdj != math.Min(1, 2*a.Ratio.P) {
		t.Errorf("A = %+v, want slower by about 3%% with an interval inside [+1.5%%, +4.5%%] and p doubled", a)
	}
	// 12 rounds of 0.5% noise: B's interval holds 1 but reaches past
	// ±1%, so it is undecided, not "no difference".
	if b.Verdict != Undecided || !b.Ratio.HasInterval() || b.Ratio.Excludes(1) {
		t.Errorf("B = %+v, want undecided", b)
	}
	long := Paired(pairedRun(t, 60, map[string]float64{"BenchmarkA": 1.03, "BenchmarkB": 1}, "", 7), "old", "new", analysis.DefaultOptions(), nil)
	for _, r := range long.Rows {
		if r.Name == "BenchmarkB" && r.Unit == "sec/op" && (r.Verdict != NoDifference || r.Ratio.Lo < 1/1.01 || r.Ratio.Hi > 1.01) {
			t.Errorf("B over 60 rounds = %+v, want no difference within ±1%%", r)
		}
	}
	if c := rows["BenchmarkA allocs/op"]; c.Verdict != NoDifference || !c.Same {
		t.Errorf("allocs/op = %+v, want no difference at ratio 1", c)
	}
	if len(res.OnlyOld) != 1 || !strings.Contains(res.OnlyOld[0], "BenchmarkGone") || len(res.OnlyNew) != 0 {
		t.Errorf("only old %v, only new %v; want BenchmarkGone in old only", res.OnlyOld, res.OnlyNew)
	}
	g, ok := res.GeomeanFor("sec/op")
	if !ok || g.N != 2 || math.Abs(g.Ratio.Ratio-math.Sqrt(1.03)) > 0.005 {
		t.Errorf("geomean = %+v, want about +1.5%% over 2 benchmarks", g)
	}
	if res.Rounds != 12 {
		t.Errorf("rounds %d, want 12", res.Rounds)
	}

	tests := []struct {
		rules string
		fails []string // "name unit" of the failing rows
	}{
		{"sec/op>+1%", []string{"BenchmarkA sec/op"}},
		{"sec/op>+5%", nil}, // the interval does not lie beyond 5%
		{"sec/op<-1%", nil}, // the change is a slow-down
		{"B/op>+0%", nil},   // no change at all
		{"sec/op>+0%,B/op>+1%", []string{"BenchmarkA sec/op"}},
	}
	for _, tt := range tests {
		ths, err := compare.ParseThresholds(tt.rules)
		if err != nil {
			t.Fatal(err)
		}
		g := compare.Check(res.Gate(), res.Alpha, ths)
		var got []string
		for _, f := range g.Fails() {
			got = append(got, f.Row.Name+" "+f.Row.Unit)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.fails) || len(g.Unmatched) != 0 {
			t.Errorf("%s: fails %v, unmatched %v; want %v", tt.rules, got, g.Unmatched, tt.fails)
		}
	}
	ths, _ := compare.ParseThresholds("req/s<-5%")
	if g := compare.Check(res.Gate(), res.Alpha, ths); len(g.Unmatched) != 1 {
		t.Errorf("a rule on an absent unit must be reported as unmatched")
	}

	// Rows come grouped by unit: sec/op first, then the others by name.
	var units []string
	for _, r := range res.Rows {
		if len(units) == 0 || units[len(units)-1] != r.Unit {
			units = append(units, r.Unit)
		}
	}
	if fmt.Sprint(units) != "[sec/op a-sec/op x-sec/op B/op allocs/op]" {
		t.Errorf("row units in order %v, want each unit once, sec/op first", units)
	}
	if !res.SameUnit("B/op") || res.SameUnit("sec/op") {
		t.Errorf("SameUnit: B/op %v, sec/op %v; want true, false", res.SameUnit("B/op"), res.SameUnit("sec/op"))
	}
}

// TestPairedAA: identical sides compared many times must rarely fail a
// gate; with BH across rows, a 20-benchmark A/A passes.
func TestPairedAA(t *testing.T) {
	ths, _ := compare.ParseThresholds("sec/op>+0%")
	failed := 0
	for seed := uint64(1); seed <= 20; seed++ {
		rs := pairedRun(t, 10, map[string]float64{"BenchmarkA": 1, "BenchmarkB": 1}, "", seed)
		res := Paired(rs, "old", "new", analysis.DefaultOptions(), nil)
		if fails := compare.Check(res.Gate(), res.Alpha, ths).Fails(); len(fails) > 0 {
			failed++
		}
	}
	if failed > 3 {
		t.Errorf("%d of 20 A/A comparisons failed the gate; want about α = 5%%", failed)
	}
}

// TestPairedUndecided: the gate rules on paired rows as they come from
// the rounds. Three rounds give no interval, so every gated row is
// undecided; eight rounds whose new/old ratios spread symmetrically about
// 1.03 (±0.5% to ±2%) hold a +3% limit, clear a +10% one, and lie beyond
// a +0.1% one.
func TestPairedUndecided(t *testing.T) {
	few := Paired(pairedRun(t, 3, map[string]float64{"BenchmarkA": 1.03, "BenchmarkB": 1}, "", 3), "old", "new", analysis.DefaultOptions(), nil)
	ths, _ := compare.ParseThresholds("sec/op>+1%")
	g := compare.Check(few.Gate(), few.Alpha, ths)
	if u := g.Undecided(); len(u) != 2 || u[0].Why != compare.NoInterval || u[1].Why != compare.NoInterval {
		t.Errorf("3 rounds: undecided %+v, want both sec/op rows without an interval", u)
	}

	var b strings.Builder
	spread := []float64{-0.02, 0.02, -0.01, 0.01, -0.015, 0.015, -0.005, 0.005}
	for r, e := range spread {
		drift := 1 + 0.1*float64(r%3)
		fmt.Fprintf(&b, "config: old\nround: %d\nBenchmarkA 1000 %.4f ns/op\n", r+1, 1000*drift)
		fmt.Fprintf(&b, "config: new\nround: %d\nBenchmarkA 1000 %.4f ns/op\n", r+1, 1000*drift*1.03*math.Exp(e))
	}
	rs, err := gotest.Parse(strings.NewReader(b.String()), "run")
	if err != nil {
		t.Fatal(err)
	}
	res := Paired(rs, "old", "new", analysis.DefaultOptions(), nil)
	for _, tc := range []struct {
		rule string
		want compare.Decision
		why  compare.Why
	}{
		{"sec/op>+3%", compare.Undecided, compare.HoldsLimit},
		{"sec/op>+10%", compare.Within, compare.Decided},
		{"sec/op>+0.1%", compare.Beyond, compare.Decided},
	} {
		ths, _ := compare.ParseThresholds(tc.rule)
		g := compare.Check(res.Gate(), res.Alpha, ths)
		if len(g.Rulings) != 1 || g.Rulings[0].Decision != tc.want || g.Rulings[0].Why != tc.why {
			t.Errorf("%s on %+v: rulings %+v, want %v (%v)", tc.rule, res.Rows[0].Ratio, g.Rulings, tc.want, tc.why)
		}
	}
}

// TestPairedDirections: in ab's paired table, B/s rising is better
// whether a file declares "Unit B/s better=higher" or not; sec/op rising
// is slower. testdata/rates.txt: 8 rounds, new 10% up in both units.
func TestPairedDirections(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "rates.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, meta := range []string{"", "Unit B/s better=higher\n"} {
		s, _, err := ParseSet(strings.NewReader(meta+string(data)), "ab")
		if err != nil {
			t.Fatal(err)
		}
		res := Paired(s.Results, "old", "new", analysis.DefaultOptions(), unit.New(s.Meta))
		for _, r := range res.Rows {
			want := map[string]Change{"B/s": Better, "sec/op": Slower}[r.Unit]
			if r.Verdict != want {
				t.Errorf("metadata %q: %s ratio %.3f verdict %q, want %q", meta, r.Unit, r.Ratio.Ratio, r.Verdict, want)
			}
		}
		if len(res.Rows) != 2 {
			t.Errorf("metadata %q: %d rows, want sec/op and B/s", meta, len(res.Rows))
		}
	}
}

// TestVerdictMatchesInterval: a row's word follows the interval it prints.
func TestVerdictMatchesInterval(t *testing.T) {
	tests := []struct {
		name          string
		ratio, lo, hi float64
		same          bool
		want          Change
	}{
		{"a doubling", 1.96, 1.746, 2.311, false, Slower},
		{"faster", 0.9, 0.85, 0.95, false, Faster},
		{"inside the band", 1.001, 0.995, 1.006, false, NoDifference},
		{"holds 1, too wide", 1.1, 0.983, 1.482, false, Undecided},
		{"holds 1, one side past the band", 1.0, 0.989, 1.005, false, Undecided},
		{"no interval", 1.2, math.NaN(), math.NaN(), false, Undecided},
		{"identical", 1, 1, 1, true, NoDifference},
	}
	for _, tt := range tests {
		r := analysis.Ratio{N: 10, Ratio: tt.ratio, Lo: tt.lo, Hi: tt.hi}
		if got := judge("sec/op", r, r.Excludes(1), tt.same, nil); got != tt.want {
			t.Errorf("%s: [%g, %g] reads %q, want %q", tt.name, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// TestPairedManyRows: a suite of 100 benchmarks of which 5 change by 10%
// and 95 do not, with one-sided bursts in some rounds: across simulated
// runs, any null row decided (a family-wise error) happens in at most α of
// runs, the rows that change are decided in the right direction, and a
// null row's word is never "no difference" unless its interval lies
// within the band.
func TestPairedManyRows(t *testing.T) {
	const runs, rows, rounds, alpha = 100, 100, 24, 0.05
	rng := rand.New(rand.NewPCG(5, 6))
	familyErrors, found := 0, 0
	for range runs {
		var b strings.Builder
		for r := 1; r <= rounds; r++ {
			drift := 1 + 0.2*rng.Float64()
			for _, cfg := range []string{"old", "new"} {
				fmt.Fprintf(&b, "config: %s\nround: %d\n", cfg, r)
				for i := range rows {
					v := 1000 * drift * math.Exp(0.01*rng.NormFloat64())
					if rng.Float64() < 0.05 {
						v *= 1.1 + 0.5*rng.Float64() // a busy spell slows one sample
					}
					if cfg == "new" && i < 5 {
						v *= 1.10
					}
					fmt.Fprintf(&b, "BenchmarkRow%03d 1000 %.3f ns/op\n", i, v)
				}
			}
		}
		rs, err := gotest.Parse(strings.NewReader(b.String()), "run")
		if err != nil {
			t.Fatal(err)
		}
		res := Paired(rs, "old", "new", analysis.DefaultOptions(), nil)
		wrong := false
		for i, row := range res.Rows {
			switch {
			case i < 5 && row.Verdict == Slower:
				found++
			case i >= 5 && (row.Verdict == Slower || row.Verdict == Faster):
				wrong = true
			case row.Verdict == NoDifference && (row.Ratio.Lo < 1/(1+EquivalenceBand) || row.Ratio.Hi > 1+EquivalenceBand):
				t.Fatalf("%s reads no difference with interval [%g, %g]", row.Name, row.Ratio.Lo, row.Ratio.Hi)
			}
		}
		if wrong {
			familyErrors++
		}
	}
	rate := float64(familyErrors) / runs
	se := math.Sqrt(alpha * (1 - alpha) / runs)
	t.Logf("100 rows, 24 rounds: a null row decided in %.1f%% of runs; %d of %d changed rows decided slower", 100*rate, found, 5*runs)
	if rate > alpha+3*se {
		t.Errorf("a null row was decided in %.1f%% of runs, more than α = 5%%", 100*rate)
	}
	if found < 4*runs {
		t.Errorf("only %d of %d rows 10%% slower were decided slower", found, 5*runs)
	}
}

// TestPairedPackages: a run over two packages whose benchmarks share a
// name keeps them apart, one row each with its package, and the gate
// reads each by its package-qualified name; the geomean covers both.
func TestPairedPackages(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	var b strings.Builder
	factor := map[string]float64{"./a": 1.5, "./b": 1}
	for r := 1; r <= 12; r++ {
		drift := 1 + 0.2*rng.Float64()
		for _, cfg := range []string{"old", "new"} {
			for _, pkg := range []string{"./a", "./b"} {
				fmt.Fprintf(&b, "config: %s\nround: %d\npackage: %s\n", cfg, r, pkg)
				v := 1000 * drift * (1 + 0.002*rng.NormFloat64())
				if cfg == "new" {
					v *= factor[pkg]
				}
				fmt.Fprintf(&b, "BenchmarkX 1000 %.3f ns/op\n", v)
			}
		}
	}
	rs, err := gotest.Parse(strings.NewReader(b.String()), "run")
	if err != nil {
		t.Fatal(err)
	}
	res := Paired(rs, "old", "new", analysis.DefaultOptions(), nil)
	if len(res.Rows) != 2 {
		t.Fatalf("rows = %+v, want one per package", res.Rows)
	}
	for i, want := range []struct {
		pkg     string
		verdict Change
	}{{"./a", Slower}, {"./b", NoDifference}} {
		r := res.Rows[i]
		if r.Package != want.pkg || r.Verdict != want.verdict {
			t.Errorf("row %d = %s %s %v %s, want package %s %s", i, r.Package, r.Name, r.Ratio, r.Verdict, want.pkg, want.verdict)
		}
	}
	gate := res.Gate()
	if gate[0].Name != "BenchmarkX (./a)" || gate[1].Name != "BenchmarkX (./b)" {
		t.Errorf("gate rows named %q, %q; want each name with its package", gate[0].Name, gate[1].Name)
	}
	g, ok := res.GeomeanFor("sec/op")
	if !ok || g.N != 2 || math.Abs(g.OfRows-math.Sqrt(res.Rows[0].Ratio.Ratio*res.Rows[1].Ratio.Ratio)) > 1e-12 {
		t.Errorf("geomean = %+v (ok %v), want one over both packages whose OfRows is the rows' geometric mean", g, ok)
	}
}

// TestLeftOutRows: the rows whose cells the budget left out, found by the
// cell's name without the GOMAXPROCS suffix, are marked and kept out of
// the geomean, which pairs by round over the rounds every row ran; other
// skip rows mark none.
func TestLeftOutRows(t *testing.T) {
	left := leftOut([]store.Failure{
		{Config: "new", Cell: "BenchmarkX/a", Skip: true, Reason: store.LeftOutPrefix + "2: …"},
		{Config: "old", Cell: "BenchmarkY", Skip: true, Reason: "skipped: needs /usr/share/dict/words"},
		{Config: "old", Cell: "BenchmarkX/b", Reason: store.LeftOutPrefix + "2: not a skip row"},
	})
	var results []*benchfmt.Result
	add := func(name, config string, round int, v float64) {
		results = append(results, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1,
			Config: []benchfmt.Config{{Key: "config", Value: []byte(config), File: true}, {Key: "round", Value: []byte(fmt.Sprint(round))}},
			Values: []benchfmt.Value{{Value: v, Unit: "sec/op"}}})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 1; round <= 20; round++ {
		for _, name := range []string{"X/b-2", "Y-2"} { // benchfmt names drop "Benchmark"
			add(name, "old", round, 100*(1+0.02*rng.NormFloat64()))
			add(name, "new", round, 110*(1+0.02*rng.NormFloat64()))
		}
		if round <= 2 { // left out after round 2
			add("X/a-2", "old", round, 100)
			add("X/a-2", "new", round, 50)
		}
	}
	res := paired(results, "old", "new", analysis.DefaultOptions(), nil, left)
	for _, r := range res.Rows {
		if want := r.Name == "BenchmarkX/a-2"; r.LeftOut != want {
			t.Errorf("%s: left out %v, want %v", r.Name, r.LeftOut, want)
		}
	}
	g, ok := res.GeomeanFor("sec/op")
	if !ok || g.N != 2 || g.LeftOut != 1 || !g.Ratio.HasInterval() || g.Ratio.Ratio < 1.05 {
		t.Errorf("geomean %+v, want 2 rows (1 left out) with an interval near +10%%", g)
	}
}

// TestPairedZeroRows: a row whose medians are 0 on both sides reads "no
// difference" whatever a stray round above 0 paired (BenchmarkA's B/op:
// 17 against 16 in round 5 alone), like a row 0 throughout (BenchmarkB),
// and decides nothing, in the table or at the gate.
func TestPairedZeroRows(t *testing.T) {
	file := readSet(t, "paired-zeros.txt")
	res := Paired(file.Results, "old", "new", analysis.DefaultOptions(), nil)
	rows := map[string]PairedRow{}
	for _, r := range res.Rows {
		rows[r.Name+" "+r.Unit] = r
	}
	stray, zero, same := rows["BenchmarkA B/op"], rows["BenchmarkB B/op"], rows["BenchmarkC B/op"]
	if stray.Ratio.N != 1 || math.Abs(stray.Ratio.Ratio-16.0/17) > 1e-9 {
		t.Fatalf("BenchmarkA B/op pairs %d rounds at %g; the testdata should pair round 5 alone (16/17)", stray.Ratio.N, stray.Ratio.Ratio)
	}
	for name, r := range map[string]PairedRow{"stray": stray, "zero": zero} {
		if !r.Zero || r.Signif || r.Verdict != NoDifference {
			t.Errorf("%s row: zero %v, significant %v, verdict %s; want a zero row, not significant, no difference", name, r.Zero, r.Signif, r.Verdict)
		}
	}
	if same.Zero || !same.Same || same.Verdict != NoDifference {
		t.Errorf("64 B/op throughout: zero %v, same %v, verdict %s; want identical, not zero", same.Zero, same.Same, same.Verdict)
	}
	gate := compare.Check(res.Gate(), res.Alpha, mustRules(t, "B/op>+5%"))
	if u := gate.Undecided(); len(u) != 0 {
		t.Errorf("the gate could not rule on %d zero rows: %+v", len(u), u)
	}
}

func mustRules(t *testing.T, s string) []compare.Threshold {
	t.Helper()
	ths, err := compare.ParseThresholds(s)
	if err != nil {
		t.Fatal(err)
	}
	return ths
}
