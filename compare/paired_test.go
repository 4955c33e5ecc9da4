package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/gotest"
)

// pairedRun makes one run's results: rounds × {old, new}, where each round
// shares a drift factor (as interleaved rounds do) and new = old × factor.
func pairedRun(t *testing.T, rounds int, factors map[string]float64, onlyOld string, seed uint64) []*benchfmt.Result {
	t.Helper()
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
	rs, err := gotest.Parse(strings.NewReader(b.String()), "run")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestComparePaired(t *testing.T) {
	rs := pairedRun(t, 12, map[string]float64{"BenchmarkA": 1.03, "BenchmarkB": 1}, "BenchmarkGone", 7)
	res := ComparePaired(rs, "old", "new", analysis.DefaultOptions(), nil)
	rows := map[string]PairedRow{}
	for _, r := range res.Rows {
		rows[r.Name+" "+r.Unit] = r
	}
	a, b := rows["BenchmarkA sec/op"], rows["BenchmarkB sec/op"]
	if a.Verdict != "slower" || !(a.Ratio.Lo > 1.02 && a.Ratio.Hi < 1.04) || math.Abs(a.Ratio.Ratio-1.03) > 0.005 {
		t.Errorf("A = %+v, want slower by about 3%% with an interval inside [+2%%, +4%%]", a)
	}
	if b.Verdict != "no difference" || !b.Ratio.HasInterval() || b.Ratio.Excludes(1) {
		t.Errorf("B = %+v, want no difference", b)
	}
	if c := rows["BenchmarkA allocs/op"]; c.Verdict != "no difference" || !c.Same {
		t.Errorf("allocs/op = %+v, want no difference at ratio 1", c)
	}
	if len(res.OnlyOld) != 1 || !strings.Contains(res.OnlyOld[0], "BenchmarkGone") || len(res.OnlyNew) != 0 {
		t.Errorf("only old %v, only new %v; want BenchmarkGone in old only", res.OnlyOld, res.OnlyNew)
	}
	g, ok := res.geomean("sec/op")
	if !ok || g.N != 2 || math.Abs(g.Ratio.Ratio-math.Sqrt(1.03)) > 0.005 {
		t.Errorf("geomean = %+v, want about +1.5%% over 2 benchmarks", g)
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
		ths, err := ParseThresholds(tt.rules)
		if err != nil {
			t.Fatal(err)
		}
		fails, unmatched := res.Check(ths)
		var got []string
		for _, f := range fails {
			got = append(got, f.Row.Name+" "+f.Row.Unit)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.fails) || len(unmatched) != 0 {
			t.Errorf("%s: fails %v, unmatched %v; want %v", tt.rules, got, unmatched, tt.fails)
		}
	}
	ths, _ := ParseThresholds("req/s<-5%")
	if _, unmatched := res.Check(ths); len(unmatched) != 1 {
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

	var text, md strings.Builder
	ths, _ = ParseThresholds("sec/op>+1%")
	fails, _ := res.Check(ths)
	if err := res.WriteText(&text, fails); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"new/old", "slower  FAIL sec/op>+1%", "no difference (±", "geomean (2)", "only in old (not compared): BenchmarkGone", "B/op, allocs/op: every value identical"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := res.WriteMarkdown(&md, "A/B", ths, fails, []string{"12 rounds"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### A/B", "**Gate `sec/op>+1%`: failed**", "| BenchmarkA | ", "🔴 slower **FAIL**", "B/op, allocs/op: every value identical on both sides.", "Only in old"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// TestComparePairedAA: identical sides compared many times must rarely
// fail a gate; with BH across rows, a 20-benchmark A/A passes.
func TestComparePairedAA(t *testing.T) {
	ths, _ := ParseThresholds("sec/op>+0%")
	failed := 0
	for seed := uint64(1); seed <= 20; seed++ {
		rs := pairedRun(t, 10, map[string]float64{"BenchmarkA": 1, "BenchmarkB": 1}, "", seed)
		res := ComparePaired(rs, "old", "new", analysis.DefaultOptions(), nil)
		if fails, _ := res.Check(ths); len(fails) > 0 {
			failed++
		}
	}
	if failed > 3 {
		t.Errorf("%d of 20 A/A comparisons failed the gate; want about α = 5%%", failed)
	}
}

func TestPairedImprecise(t *testing.T) {
	// 6 rounds of ±5% noise and no change: the interval is wider than a 1% limit.
	rs := pairedRun(t, 6, map[string]float64{"BenchmarkA": 1, "BenchmarkB": 1}, "", 3)
	res := ComparePaired(rs, "old", "new", analysis.DefaultOptions(), nil)
	for i := range res.Rows {
		res.Rows[i].Ratio.Lo, res.Rows[i].Ratio.Hi = 0.95, 1.05
	}
	tight, _ := ParseThresholds("sec/op>+1%")
	loose, _ := ParseThresholds("sec/op>+20%")
	if got := res.Imprecise(tight); len(got) != 2 {
		t.Errorf("Imprecise(1%%) = %d rows, want both sec/op rows", len(got))
	}
	if got := res.Imprecise(loose); len(got) != 0 {
		t.Errorf("Imprecise(20%%) = %d rows, want none", len(got))
	}
	var md strings.Builder
	_ = res.WriteMarkdown(&md, "t", tight, nil, nil)
	if !strings.Contains(md.String(), "measured less precisely than the limit") {
		t.Errorf("markdown lacks the precision warning:\n%s", md.String())
	}
}
