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

// looksRun is a simulated run of cells v=a (the denominator) and v=b, v=c,
// v=d, whose per-round log-ratios to a are log(truth) plus noise.
type looksRun struct {
	rng   *rand.Rand
	noise func(*rand.Rand, float64) float64
	sd    float64
	truth map[string]float64
	cells map[string]*analysis.Sample
	round int
}

func newLooksRun(rng *rand.Rand, noise func(*rand.Rand, float64) float64, sd float64, truth map[string]float64) *looksRun {
	r := &looksRun{rng: rng, noise: noise, sd: sd, truth: truth, cells: map[string]*analysis.Sample{}}
	for _, v := range []string{"a", "b", "c", "d"} {
		r.cells[v] = &analysis.Sample{Name: benchname.Parse("BenchmarkE/v=" + v), Unit: "sec/op"}
	}
	return r
}

// addRound runs one round of the given cells (a always: every check reads it).
func (r *looksRun) addRound(cells ...string) {
	r.round++
	base := 100 * (1 + 0.05*r.rng.Float64()) // drift that pairing removes
	add := func(v string, x float64) {
		s := r.cells[v]
		s.Values, s.Rounds = append(s.Values, x), append(s.Rounds, r.round)
	}
	add("a", base)
	for _, v := range cells {
		add(v, base*r.truth[v]*math.Exp(r.noise(r.rng, r.sd)))
	}
}

func (r *looksRun) samples() []*analysis.Sample {
	return []*analysis.Sample{r.cells["a"], r.cells["b"], r.cells["c"], r.cells["d"]}
}

// threeChecks is a claim of three checks, b/a, c/a and d/a each > 1.1.
var threeChecks = []spec.Claim{{ID: "E", Checks: []spec.Check{
	{Kind: "ratio", Num: "v=b", Den: "v=a", Op: ">", Value: 1.1},
	{Kind: "ratio", Num: "v=c", Den: "v=a", Op: ">", Value: 1.1},
	{Kind: "ratio", Num: "v=d", Den: "v=a", Op: ">", Value: 1.1},
}}}

// twoLooks simulates a run judged at two looks, as the engine runs it: 6
// planned rounds of every cell, a first look, then follow-up rounds of only
// the cells of the checks still undecided, each check its own number of
// rounds shared out of a time allowance as the engine does (max-min fair):
// b's cell costs 1 unit a round, c's 2 and d's 3, the allowance is 24 units
// and no check gets more than four times the planned rounds. So a check's
// rounds depend on the data through which checks are open (b alone gets
// 24; b, c and d get 4 each), the way they do in a real run.
func twoLooks(r *looksRun, claims []spec.Claim) Result {
	const first = 6
	for range first {
		r.addRound("b", "c", "d")
	}
	opt := analysis.DefaultOptions()
	opt.FirstLook = first
	res := Evaluate(claims, analysis.UpToRound(r.samples(), first), opt)[0]
	cost := map[string]int{"b": 1, "c": 2, "d": 3}
	rounds := map[string]int{}
	var open []string
	for i, cr := range res.Checks {
		if cr.Look != 1 && cr.Verdict != NotTestable {
			open = append(open, []string{"b", "c", "d"}[i])
		}
	}
	done := map[string]bool{}
	for spent := 0; ; {
		next := ""
		for _, v := range open {
			if !done[v] && (next == "" || rounds[v] < rounds[next]) {
				next = v
			}
		}
		if next == "" {
			break
		}
		if spent+cost[next] > 24 {
			done[next] = true
			continue
		}
		spent += cost[next]
		rounds[next]++
		done[next] = rounds[next] >= 4*first
	}
	for k := 1; k <= 4*first; k++ {
		var cells []string
		for _, v := range open {
			if rounds[v] >= k {
				cells = append(cells, v)
			}
		}
		if len(cells) == 0 {
			break
		}
		r.addRound(cells...)
	}
	return Evaluate(claims, r.samples(), opt)[0]
}

// TestTwoLookErrorRates simulates the two-look rule where its error rates
// are highest: every true ratio exactly at its threshold, so that each
// decided verdict is wrong. A check gets a wrong verdict at the first look
// with probability ≤ α/3 and at the second with ≤ 2α/3, so "reproduced"
// and "contradicted" must each stay within α (plus three standard errors
// of the simulation), per check, under Gaussian and heavy-tailed noise,
// with each check's number of follow-up rounds depending on which checks
// are open.
func TestTwoLookErrorRates(t *testing.T) {
	const runs, alpha, sd = 1500, 0.05, 0.02
	limit := alpha + 3*math.Sqrt(alpha*(1-alpha)/runs)
	for ni, nz := range noiseGens {
		t.Run(nz.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ni), 7))
			count := make([]map[Verdict]int, 3)
			for i := range count {
				count[i] = map[Verdict]int{}
			}
			looks := map[int]int{}
			for range runs {
				r := newLooksRun(rng, nz.gen, sd, map[string]float64{"b": 1.1, "c": 1.1, "d": 1.1})
				res := twoLooks(r, threeChecks)
				for i, cr := range res.Checks {
					count[i][cr.Verdict]++
					if cr.Verdict == Reproduced || cr.Verdict == Contradicted {
						looks[cr.Look]++
					}
				}
			}
			for i := range count {
				for _, v := range []Verdict{Reproduced, Contradicted} {
					rate := float64(count[i][v]) / runs
					if rate > limit {
						t.Errorf("check %d, truth at the threshold: %s in %d of %d runs (%.1f%% > %.1f%%)", i+1, v, count[i][v], runs, 100*rate, 100*limit)
					}
				}
			}
			t.Logf("truth at the threshold, wrong verdicts per check: %v; decided at look 1: %d, look 2: %d", count, looks[1], looks[2])
		})
	}
}

// TestTwoLookAgreement measures what the second look is for: two runs of
// the same code agreeing on a check whose truth lies near its threshold.
// With the true ratio 2.5 standard errors (of a 6-round mean) above the
// threshold, a single look at 6 rounds decides in about two runs of three,
// so two runs disagree often; at two looks the undecided check gets 24
// follow-up rounds and two runs must agree in ≥ 85% of pairs, and more
// often than at one look. The true value must also be reproduced, never
// contradicted.
func TestTwoLookAgreement(t *testing.T) {
	const pairs, sd = 600, 0.02
	truth := 1.1 * math.Exp(2.5*sd/math.Sqrt(6))
	claims := []spec.Claim{{ID: "E", Checks: []spec.Check{{Kind: "ratio", Num: "v=b", Den: "v=a", Op: ">", Value: 1.1}}}}
	rng := rand.New(rand.NewPCG(3, 4))
	noise := noiseGens[0].gen
	oneLook := func() Verdict {
		r := newLooksRun(rng, noise, sd, map[string]float64{"b": truth, "c": 1, "d": 1})
		for range 6 {
			r.addRound("b")
		}
		return Evaluate(claims, r.samples(), analysis.DefaultOptions())[0].Checks[0].Verdict
	}
	looked := func() Verdict {
		r := newLooksRun(rng, noise, sd, map[string]float64{"b": truth, "c": 1, "d": 1})
		return twoLooks(r, claims).Checks[0].Verdict
	}
	agree := func(f func() Verdict) (float64, map[Verdict]int) {
		same, count := 0, map[Verdict]int{}
		for range pairs {
			a, b := f(), f()
			count[a]++
			count[b]++
			if a == b {
				same++
			}
		}
		return float64(same) / pairs, count
	}
	one, oneCount := agree(oneLook)
	two, twoCount := agree(looked)
	t.Logf("true ratio %.4f against > 1.1 (σ=%.0f%% per round): agreement one look at 6 rounds %.1f%% %v; two looks %.1f%% %v", truth, 100*sd, 100*one, oneCount, 100*two, twoCount)
	if two < 0.85 || two <= one {
		t.Errorf("two runs agreed in %.1f%% of pairs at two looks (one look: %.1f%%); want ≥ 85%% and more than one look", 100*two, 100*one)
	}
	if twoCount[Contradicted] > 0 {
		t.Errorf("a true ratio above the threshold was contradicted %d times", twoCount[Contradicted])
	}
}

// TestLooksMeasuredSaysWhichLook checks that each check of a two-look run
// says which look decided it, at which α.
func TestLooksMeasuredSaysWhichLook(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := newLooksRun(rng, noiseGens[0].gen, 0.001, map[string]float64{"b": 1.5, "c": 1.1, "d": 1.1})
	res := twoLooks(r, threeChecks)
	if c := res.Checks[0]; c.Look != 1 || c.Verdict != Reproduced || !strings.Contains(report.CheckMeasured(c), "first look (rounds 1–6, α=0.0167)") {
		t.Errorf("b/a = 1.5 against > 1.1 at σ=0.1%%: got look %d %s %q, want reproduced at the first look", c.Look, c.Verdict, report.CheckMeasured(c))
	}
	for _, c := range res.Checks[1:] {
		if c.Look != 2 || !strings.Contains(report.CheckMeasured(c), "second look (all rounds, α=0.0333)") {
			t.Errorf("a ratio at its threshold: got look %d %q, want the second look", c.Look, report.CheckMeasured(c))
		}
	}
	rule := LookRule(analysis.Options{Alpha: 0.05, Confidence: 0.95, FirstLook: 6})
	if want := fmt.Sprintf("at one-sided α=%.3g", 0.05/3); !strings.Contains(rule, want) {
		t.Errorf("LookRule does not state the first look's α: %s", rule)
	}
}

// TestSequenceByKind: in a sequential run (Options.Anytime, first look
// after the initial pass), a check is judged on a confidence sequence,
// once on all rounds, exactly when it compares cells paired by round: a
// ratio or a contrast. A ratio on a fallback (zero values, cells without
// rounds), a value, a correlation, a crossover and a knee have fixed-n
// intervals and are judged at two looks. Without Anytime nothing is a
// sequence.
func TestSequenceByKind(t *testing.T) {
	const rounds = 20
	var samples []*analysis.Sample
	for n := 1; n <= 8; n++ {
		samples = append(samples,
			paired(fmt.Sprintf("BenchmarkQ/v=x/n=%d", n), "sec/op", 100*float64(n), rounds, 0.002),
			paired(fmt.Sprintf("BenchmarkQ/v=y/n=%d", n), "sec/op", 150+20*float64(n), rounds, 0.002))
	}
	zero := paired("BenchmarkQ/v=x/n=6", "allocs/op", 1, rounds, 0)
	for i := range zero.Values {
		zero.Values[i] = 0
	}
	var r []float64
	for i := range rounds {
		r = append(r, 0.6+0.01*float64(i%5))
	}
	samples = append(samples, zero, paired("BenchmarkQ/v=y/n=6", "allocs/op", 5, rounds, 0),
		sample("BenchmarkU/v=x", "sec/op", around(100)), sample("BenchmarkU/v=y", "sec/op", around(200)),
		&analysis.Sample{Name: benchname.Parse("BenchmarkC/v=x"), Unit: "r", Values: r})
	tests := []struct {
		name     string
		check    spec.Check
		sequence bool
	}{
		{"ratio paired by round", spec.Check{Kind: "ratio", Where: "n=6", Num: "v=y", Den: "v=x", Op: "<", Value: 0.9}, true},
		{"contrast", spec.Check{Kind: "contrast", Where: "bench=BenchmarkQ", Num: "n=6", Den: "n=1", A: "v=y", B: "v=x", Op: "<", Value: 0.8}, true},
		{"ratio on zero values", spec.Check{Kind: "ratio", Unit: "allocs/op", Where: "n=6", Num: "v=x", Den: "v=y", Op: "<", Value: 0.5}, false},
		{"ratio of cells without rounds", spec.Check{Kind: "ratio", Where: "bench=BenchmarkU", Num: "v=y", Den: "v=x", Op: ">", Value: 1.5}, false},
		{"value", spec.Check{Kind: "value", Num: "v=x,n=1", Op: "<", Value: 200}, false},
		{"correlation", spec.Check{Kind: "correlation", Unit: "r", Num: "v=x", Effect: 0.6}, false},
		{"crossover", spec.Check{Kind: "crossover", A: "v=y", B: "v=x", Axis: "n", WinsAbove: "a", Min: 1, Max: 3}, false},
		{"knee", spec.Check{Kind: "knee", A: "v=x", Axis: "n", Min: 3, Max: 4}, false},
	}
	sequential := analysis.Options{Alpha: 0.05, Confidence: 0.95, Anytime: true, FirstLook: 8}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			claims := []spec.Claim{{ID: "Q", Checks: []spec.Check{tc.check}}}
			cr := Evaluate(claims, samples, sequential)[0].Checks[0]
			if cr.Verdict == NotTestable {
				t.Fatalf("not testable: %s", report.CheckReason(cr))
			}
			if cr.Sequence != tc.sequence {
				t.Errorf("sequence %v, want %v (%s)", cr.Sequence, tc.sequence, report.CheckMeasured(cr))
			}
			if onSequence := strings.Contains(report.CheckMeasured(cr), "confidence sequence over all rounds"); tc.sequence && (cr.Look != 0 || !onSequence) {
				t.Errorf("look %d, %q: want judged once on its confidence sequence", cr.Look, report.CheckMeasured(cr))
			} else if !tc.sequence && (cr.Look == 0 || onSequence) {
				t.Errorf("look %d, %q: want judged at two looks", cr.Look, report.CheckMeasured(cr))
			}
			if fixed := Evaluate(claims, samples, analysis.DefaultOptions())[0].Checks[0]; fixed.Sequence {
				t.Errorf("a run of fixed rounds judged %s on a sequence", tc.name)
			}
		})
	}
	rule := LookRule(sequential)
	for _, want := range []string{"initial pass of 8 rounds", "on the initial pass (rounds 1–8) at one-sided α=0.0167", "on all its rounds at α=0.0333", "at one-sided α=0.05, whatever round sampling stopped at"} {
		if !strings.Contains(rule, want) {
			t.Errorf("the sequential rule lacks %q: %s", want, rule)
		}
	}
}

// TestSequentialLooksHolm: in a claim with a ratio on its confidence
// sequence and a value check at two looks, Holm's correction applies to
// each check's whole two-look test. The value check's cell holds 1…60 in
// a shuffled order, so the first look (its first 8 rounds) cannot
// contradict a threshold near the median, and the second look's upper
// bounds at 2α/3 and at α/3 are different samples: a threshold between
// them is contradicted by the check alone and, beside a second counted
// check, not after Holm (its test at α/2).
func TestSequentialLooksHolm(t *testing.T) {
	const rounds = 60
	v := &analysis.Sample{Name: benchname.Parse("BenchmarkH/v=v"), Unit: "sec/op"}
	for r := 1; r <= rounds; r++ {
		v.Values, v.Rounds = append(v.Values, float64((r*37)%rounds+1)), append(v.Rounds, r)
	}
	samples := []*analysis.Sample{v, paired("BenchmarkH/v=b", "sec/op", 200, rounds, 0.002), paired("BenchmarkH/v=a", "sec/op", 100, rounds, 0.002)}
	opt := analysis.Options{Alpha: 0.05, Confidence: 0.95, Anytime: true, FirstLook: 8}
	value := func(th float64) spec.Check { return spec.Check{Kind: "value", Num: "v=v", Op: ">", Value: th} }
	ratio := spec.Check{Kind: "ratio", Num: "v=b", Den: "v=a", Op: ">", Value: 1.5}
	_, second := LookOptions(opt)
	halved := second
	halved.Alpha, halved.Confidence = second.Alpha/2, 1-(1-second.Confidence)/2
	hi, hiHalved := analysis.Summarize(v.Values, OneSided(second)).Hi, analysis.Summarize(v.Values, OneSided(halved)).Hi
	if !(hiHalved > hi) {
		t.Fatalf("upper bounds at 2α/3 (%g) and α/3 (%g) are the same sample", hi, hiHalved)
	}
	th := (hi + hiHalved) / 2
	alone := Evaluate([]spec.Claim{{ID: "H", Checks: []spec.Check{value(th)}}}, samples, opt)[0].Checks[0]
	if alone.Verdict != Contradicted || alone.Look != 2 {
		t.Errorf("value > %g alone: %s at look %d (%s), want contradicted at the second look", th, alone.Verdict, alone.Look, report.CheckMeasured(alone))
	}
	both := Evaluate([]spec.Claim{{ID: "H", Checks: []spec.Check{ratio, value(th)}}}, samples, opt)[0]
	if r, c := both.Checks[0], both.Checks[1]; r.Verdict != Reproduced || !r.Sequence || c.Verdict != Inconclusive || !strings.Contains(report.CheckReason(c), "Holm") {
		t.Errorf("beside a reproduced ratio: ratio %s (sequence %v), value %s (%s); want the value inconclusive after Holm", r.Verdict, r.Sequence, c.Verdict, report.CheckReason(c))
	}
	if c := Evaluate([]spec.Claim{{ID: "H", Checks: []spec.Check{ratio, value(hiHalved * 1.01)}}}, samples, opt)[0].Checks[1]; c.Verdict != Contradicted {
		t.Errorf("value > %g beside a ratio: %s (%s), want contradicted at α/2", hiHalved*1.01, c.Verdict, report.CheckReason(c))
	}
}

// TestLooksHolmNamesTheDecidingLook: two checks of one claim, both far
// on the wrong side of their thresholds. At six rounds each is
// contradicted at the first look's α/3 alone, but Holm's correction asks
// α/6, which six rounds cannot give (1/64): the first look leaves both
// open, as the run's judge sees it, and the second look, at α/3 on all
// rounds, contradicts both. Each says the second look decided it.
func TestLooksHolmNamesTheDecidingLook(t *testing.T) {
	claims := []spec.Claim{{ID: "E", Checks: threeChecks[0].Checks[:2]}}
	r := newLooksRun(rand.New(rand.NewPCG(8, 9)), noiseGens[0].gen, 0.01, map[string]float64{"b": 0.5, "c": 0.5})
	for range 6 {
		r.addRound("b", "c")
	}
	first, _ := LookOptions(analysis.Options{Alpha: 0.05, Confidence: 0.95})
	for i, c := range Evaluate(claims, r.samples(), first)[0].Checks {
		if c.Verdict != Inconclusive {
			t.Errorf("first look, check %d: %s, want open after Holm", i+1, c.Verdict)
		}
	}
	for range 18 {
		r.addRound("b", "c")
	}
	opt := analysis.Options{Alpha: 0.05, Confidence: 0.95, FirstLook: 6}
	for i, c := range Evaluate(claims, r.samples(), opt)[0].Checks {
		if c.Verdict != Contradicted || c.Look != 2 || !strings.Contains(report.CheckMeasured(c), "second look (all rounds, α=0.0167)") {
			t.Errorf("check %d: %s at look %d (%s), want contradicted at the second look at α/3", i+1, c.Verdict, c.Look, report.CheckMeasured(c))
		}
	}
}

// TestFirstLookAttainable: the first look spends α/3, one-sided, and the
// sign-test interval's finest one-sided level at n rounds is 2^−n, so at
// any planned 6–10 rounds a check whose every per-round ratio lies beyond
// its threshold is decided at the first look. One round on the wrong side
// leaves it open at 6–9 rounds (the next level, (n+1)/2^n, exceeds α/3)
// and not at 10 (11/1024 ≤ α/3).
func TestFirstLookAttainable(t *testing.T) {
	claims := []spec.Claim{{ID: "E", Checks: []spec.Check{{Kind: "ratio", Num: "v=b", Den: "v=a", Op: ">", Value: 1.1}}}}
	for n := 6; n <= 10; n++ {
		for _, below := range []int{0, 1} {
			d := make([]float64, n)
			for i := range d {
				d[i] = math.Log(1.3) + 0.01*float64(i%3)
			}
			for i := range below {
				d[i] = math.Log(1.05)
			}
			opt := analysis.DefaultOptions()
			opt.FirstLook = n
			c := Evaluate(claims, roundsOf(d, 1), opt)[0].Checks[0]
			decided := c.Look == 1 && c.Verdict == Reproduced
			if want := below == 0 || n == 10; decided != want {
				t.Errorf("%d rounds, %d below the threshold: look %d %s, want decided at the first look = %v (%s)", n, below, c.Look, c.Verdict, want, report.CheckMeasured(c))
			}
		}
	}
}
