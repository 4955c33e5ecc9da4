package claim_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/report"
)

// genRounds draws, for each named curve, one sample per axis value and
// round: a lognormal factor with σ = cv per sample and a per-round factor
// with σ = cv/2 that every cell of the round shares. names maps a
// benchmark name prefix (e.g. "BenchmarkDepth/lib=a") to its curve.
func genRounds(axis string, xs []float64, curves map[string]func(float64) float64, rounds int, cv float64, rng *rand.Rand) []*analysis.Sample {
	var names []string
	for n := range curves {
		names = append(names, n)
	}
	// a fixed order, so the draws are deterministic for a seed
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if names[j] < names[i] {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	cells := map[string]*analysis.Sample{}
	var out []*analysis.Sample
	for _, n := range names {
		for _, x := range xs {
			s := &analysis.Sample{Name: benchname.Parse(fmt.Sprintf("%s/%s=%g", n, axis, x)), Unit: "sec/op"}
			cells[fmt.Sprint(n, x)] = s
			out = append(out, s)
		}
	}
	for r := 1; r <= rounds; r++ {
		rf := math.Exp(rng.NormFloat64() * cv / 2)
		for _, n := range names {
			for _, x := range xs {
				s := cells[fmt.Sprint(n, x)]
				s.Values = append(s.Values, curves[n](x)*rf*math.Exp(rng.NormFloat64()*cv))
				s.Rounds = append(s.Rounds, r)
			}
		}
	}
	return out
}

func hinge(k, ratio float64) func(float64) float64 {
	return func(x float64) float64 {
		if x <= k {
			return 10 + x
		}
		return 10 + k + ratio*(x-k)
	}
}

func kneeCheck(a string, lo, hi float64) spec.Check {
	return spec.Check{Kind: "knee", A: a, Axis: "depth", Min: lo, Max: hi}
}

func bend(c spec.Check, way string) spec.Check { c.Bend = way; return c }

func TestKneeCheck(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	rng := rand.New(rand.NewPCG(1, 1))
	samples := genRounds("depth", xs, map[string]func(float64) float64{
		"BenchmarkDepth/lib=bent":   hinge(6, 6),
		"BenchmarkDepth/lib=smooth": func(x float64) float64 { return math.Pow(x, 1.5) },
		"BenchmarkDepth/lib=levels": func(x float64) float64 { return 10 * hinge(6, 0.1)(x) },
	}, 8, 0.03, rng)
	samples = append(samples, genRounds("depth", xs, map[string]func(float64) float64{
		"BenchmarkDepth/lib=flat": func(float64) float64 { return 100 },
	}, 8, 0.1, rng)...)
	samples = append(samples, genRounds("depth", xs[:3], map[string]func(float64) float64{
		"BenchmarkDepth/lib=short": func(x float64) float64 { return x },
	}, 8, 0.03, rng)...)
	samples = append(samples, genRounds("depth", xs, map[string]func(float64) float64{
		"BenchmarkDepth/lib=few": hinge(6, 6),
	}, 3, 0.03, rng)...)
	tests := []struct {
		name    string
		check   spec.Check
		verdict Verdict
		measure string
		reason  string
	}{
		{"knee at the claim", kneeCheck("lib=bent", 6, 6), Reproduced, "knee at x=6", ""},
		{"knee interval reaching beyond the window", kneeCheck("lib=bent", 7, 7), Inconclusive, "knee at x=6", "reaches beyond [6, 8]"},
		{"knee elsewhere", kneeCheck("lib=bent", 9, 10), Contradicted, "knee at x=6", "lies elsewhere"},
		{"bends up as claimed", bend(kneeCheck("lib=bent", 6, 6), "up"), Reproduced, "knee at x=6", ""},
		{"bends down, claimed up", bend(kneeCheck("lib=levels", 6, 6), "up"), Contradicted, "knee at x=6", "bends down (slope"},
		{"bends down as claimed", bend(kneeCheck("lib=levels", 6, 6), "down"), Inconclusive, "knee at x=6", "reaches beyond"},
		{"bends up, claimed down elsewhere", bend(kneeCheck("lib=bent", 9, 10), "down"), Contradicted, "knee at x=6", "bends up"},
		{"smooth growth", kneeCheck("lib=smooth", 6, 6), Contradicted, "smooth growth, exponent k=1.5", "grows smoothly"},
		{"noise", kneeCheck("lib=flat", 6, 6), Inconclusive, "undecided", "neither a knee nor smooth growth"},
		{"beyond the sweep", kneeCheck("lib=smooth", 14, 16), Inconclusive, "", "no interior point"},
		{"few samples", kneeCheck("lib=few", 6, 6), Inconclusive, "", "fewer than 6 samples"},
		{"too few points", kneeCheck("lib=short", 2, 2), NotTestable, "", "at least 4"},
		{"two series", spec.Check{Kind: "knee", A: "bench=BenchmarkDepth", Axis: "depth", Min: 5, Max: 7}, NotTestable, "", "series along"},
		{"unmeasured", kneeCheck("lib=missing", 6, 6), NotTestable, "", "no sec/op cell matches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Knee(tt.check, samples, analysis.DefaultOptions())
			if got.Verdict != tt.verdict || !strings.Contains(report.CheckMeasured(got), tt.measure) || !strings.Contains(report.CheckReason(got), tt.reason) {
				t.Errorf("verdict %s, measured %q, reason %q; want %s, %q, %q", got.Verdict, report.CheckMeasured(got), report.CheckReason(got), tt.verdict, tt.measure, tt.reason)
			}
			checkFields(t, got)
			if got.Verdict == Reproduced && !(got.Lo <= got.Estimate && got.Estimate <= got.Hi && got.Lo >= got.BandLo && got.Hi <= got.BandHi) {
				t.Errorf("reproduced, but the interval [%g, %g] is not inside the window [%g, %g]", got.Lo, got.Hi, got.BandLo, got.BandHi)
			}
			if got.Verdict == Contradicted && got.Why.Why != BendsOtherWay && got.Lo <= got.BandHi && got.Hi >= got.BandLo {
				t.Errorf("contradicted, but the interval [%g, %g] reaches the window [%g, %g]", got.Lo, got.Hi, got.BandLo, got.BandHi)
			}
		})
	}
}

// TestKneeCheckRates: a knee claimed at 6 is reproduced by planted hinges
// at 6 (slope ×6, CV 2–6%) in at least 95% of seeds, and by smooth curves
// (x^1.5, x², 1.25^x) in none.
func TestKneeCheckRates(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	curves := map[string]func(float64) float64{
		"BenchmarkD/lib=hinge": hinge(6, 6),
		"BenchmarkD/lib=pow":   func(x float64) float64 { return math.Pow(x, 1.5) },
		"BenchmarkD/lib=sq":    func(x float64) float64 { return 5 + x*x },
		"BenchmarkD/lib=exp":   func(x float64) float64 { return math.Pow(1.25, x) },
	}
	reproduced := map[string]int{}
	const seeds = 20
	for s := 0; s < seeds; s++ {
		rng := rand.New(rand.NewPCG(uint64(s), 9))
		samples := genRounds("depth", xs, curves, 8, 0.02+0.04*float64(s%3)/2, rng)
		for name := range curves {
			lib := strings.TrimPrefix(name, "BenchmarkD/")
			if Knee(kneeCheck(lib, 6, 6), samples, analysis.DefaultOptions()).Verdict == Reproduced {
				reproduced[lib]++
			}
		}
	}
	t.Logf("knee claimed at 6, reproduced in %d seeds: %v", seeds, reproduced)
	if reproduced["lib=hinge"] < seeds*95/100 {
		t.Errorf("planted hinge at 6 reproduced in %d of %d seeds, want at least 95%%", reproduced["lib=hinge"], seeds)
	}
	for _, lib := range []string{"lib=pow", "lib=sq", "lib=exp"} {
		if reproduced[lib] > 0 {
			t.Errorf("smooth curve %s reproduced a knee in %d of %d seeds, want none", lib, reproduced[lib], seeds)
		}
	}
}

// crossCheck claims that series a and b cross along reuse in [lo, hi],
// the series wins ("a" or "b") lower above the crossing.
func crossCheck(a, b, wins string, lo, hi float64) spec.Check {
	return spec.Check{Kind: "crossover", A: a, B: b, Axis: "reuse", WinsAbove: wins, Min: lo, Max: hi}
}

func TestCrossoverCheck(t *testing.T) {
	xs := []float64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	rng := rand.New(rand.NewPCG(3, 3))
	// pool/plain = exp(g·(x − 43.7)): 35% apart at the ends, crossing at 43.7.
	g := math.Log(1.35) / 50
	samples := genRounds("reuse", xs, map[string]func(float64) float64{
		"BenchmarkPool/variant=plain": func(float64) float64 { return 100 },
		"BenchmarkPool/variant=pool":  func(x float64) float64 { return 100 * math.Exp(g*(x-43.7)) },
		"BenchmarkPool/variant=slow":  func(float64) float64 { return 130 },
		"BenchmarkPool/variant=same":  func(float64) float64 { return 100 },
	}, 8, 0.04, rng)
	tests := []struct {
		name    string
		check   spec.Check
		verdict Verdict
		measure string
		reason  string
	}{
		// The pool is faster below 43.7 and slower above: plain (b) wins above.
		{"crossing inside the range", crossCheck("variant=pool", "variant=plain", "b", 20, 70), Reproduced, "crossover at 4", ""},
		{"the same crossing, series swapped", crossCheck("variant=plain", "variant=pool", "a", 20, 70), Reproduced, "crossover at 4", ""},
		{"crossing the other way in the range", crossCheck("variant=pool", "variant=plain", "a", 20, 70), Contradicted, "plain better above", "cross the other way there"},
		{"crossing the other way outside the range", crossCheck("variant=pool", "variant=plain", "a", 70, 100), Contradicted, "crossover at", "the only crossings go the other way"},
		{"higher is better: the pool wins above", func() spec.Check {
			c := crossCheck("variant=pool", "variant=plain", "a", 20, 70)
			c.HigherIsBetter = true
			return c
		}(), Reproduced, "pool better above", ""},
		{"crossing outside the range", crossCheck("variant=pool", "variant=plain", "b", 70, 100), Contradicted, "crossover at", "lies outside"},
		{"range narrower than the interval", crossCheck("variant=pool", "variant=plain", "b", 43, 45), Inconclusive, "crossover at", "does not lie inside"},
		{"never crosses", crossCheck("variant=slow", "variant=plain", "b", 30, 60), Contradicted, "no crossover", "expected a crossover"},
		{"never differs", crossCheck("variant=same", "variant=plain", "b", 30, 60), Inconclusive, "no crossover", "too few points"},
		{"range beyond the axis", crossCheck("variant=slow", "variant=plain", "b", 120, 150), Inconclusive, "no crossover", "too few points"},
		{"unmeasured", crossCheck("variant=none", "variant=plain", "b", 30, 60), NotTestable, "", "no sec/op cell"},
		{"direction not stated", crossCheck("variant=pool", "variant=plain", "", 20, 70), NotTestable, "", "set wins_above"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Crossover(tt.check, samples, analysis.DefaultOptions())
			if got.Verdict != tt.verdict || !strings.Contains(report.CheckMeasured(got), tt.measure) || !strings.Contains(report.CheckReason(got), tt.reason) {
				t.Errorf("verdict %s, measured %q, reason %q; want %s, %q, %q", got.Verdict, report.CheckMeasured(got), report.CheckReason(got), tt.verdict, tt.measure, tt.reason)
			}
			checkFields(t, got)
			if got.Verdict != NotTestable && !strings.Contains(report.CheckMeasured(got), "paired over 8 rounds, "+analysis.CrossCorrection+"-corrected") {
				t.Errorf("measured %q does not say how points were compared", report.CheckMeasured(got))
			}
		})
	}
}

// checkFields checks the fields every knee and crossover check fills.
func checkFields(t *testing.T, got CheckResult) {
	t.Helper()
	if !math.IsNaN(got.Claimed) || !math.IsNaN(got.Threshold) {
		t.Errorf("Claimed %g and Threshold %g: want NaN (a location range is judged, not a threshold)", got.Claimed, got.Threshold)
	}
	if got.Verdict != NotTestable || strings.Contains(report.CheckReason(got), "series along") == false && report.CheckPredicate(got) != "" {
		if report.CheckPredicate(got) == "" && got.Verdict != NotTestable {
			t.Errorf("empty Predicate")
		}
	}
	if got.Verdict == Reproduced || got.Verdict == Contradicted && !math.IsNaN(got.Estimate) {
		if !(got.Lo <= got.Estimate && got.Estimate <= got.Hi) || got.Unit == "" {
			t.Errorf("estimate %g outside [%g, %g] or no unit %q", got.Estimate, got.Lo, got.Hi, got.Unit)
		}
	}
}
