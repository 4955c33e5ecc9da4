package findings

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/bisect"
)

// stepText is benchmark-format text of a bisect step's run: rounds
// from..to, each with every role in levels (per benchmark; the midpoint's
// second process at the midpoint's level), and a common drift per round,
// as the engine stores them.
func stepText(from, to int, levels map[string]map[string]float64, noise func(r int, role, bench string) float64) string {
	var b strings.Builder
	for r := from; r <= to; r++ {
		drift := 1 + 0.2*math.Sin(float64(r))
		for _, role := range []string{BisectGood, BisectMid, BisectMidAgain, BisectBad} {
			for _, bench := range []string{"Get", "Set"} {
				l, ok := levels[bench][role]
				if role == BisectMidAgain {
					l, ok = levels[bench][BisectMid]
				}
				if !ok {
					continue
				}
				fmt.Fprintf(&b, "config: %s\nround: %d\nBenchmark%s-2 1000 %g ns/op\n", role, r, bench, l*drift*noise(r, role, bench))
			}
		}
	}
	return b.String()
}

// wobble is a deterministic ±0.3% per-sample noise.
func wobble(r int, role, bench string) float64 {
	return 1 + 0.003*math.Sin(float64(7*r+len(role)*3+len(bench)))
}

func TestBisectStepOf(t *testing.T) {
	same := map[string]float64{BisectGood: 100, BisectBad: 100}
	tests := []struct {
		name    string
		kind    bisect.Kind
		levels  map[string]map[string]float64
		rule    BisectRule
		rounds  int
		want    bisect.Verdict
		pos     float64 // midpoint position, NaN for none
		benches int
		once    bool // the midpoint ran once a round (instructions/op)
	}{
		{name: "endpoints differ", kind: bisect.Endpoints, rounds: 10, rule: BisectRule{MinEffect: 0.02},
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectBad: 110}, "Set": {BisectGood: 50, BisectBad: 55}}, want: bisect.Differ, benches: 2},
		{name: "endpoints within the minimum effect", kind: bisect.Endpoints, rounds: 10, rule: BisectRule{MinEffect: 0.02},
			levels: map[string]map[string]float64{"Get": same, "Set": same}, want: bisect.Same, benches: 2},
		{name: "endpoints too few rounds", kind: bisect.Endpoints, rounds: 5, rule: BisectRule{MinEffect: 0.02},
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectBad: 200}}, want: bisect.Undecided, benches: 1},
		{name: "midpoint like bad", kind: bisect.Midpoint, rounds: 10, rule: BisectRule{Up: true},
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectMid: 110, BisectBad: 110}}, want: bisect.LikeBad, pos: 1, benches: 1},
		{name: "midpoint like good", kind: bisect.Midpoint, rounds: 10, rule: BisectRule{Up: true},
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectMid: 100.5, BisectBad: 110}}, want: bisect.LikeGood, pos: math.Log(1.005) / math.Log(1.1), benches: 1},
		{name: "a speed-up, midpoint like bad", kind: bisect.Midpoint, rounds: 10, rule: BisectRule{Up: false},
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectMid: 80, BisectBad: 80}}, want: bisect.LikeBad, pos: 1, benches: 1},
		{name: "midpoint at halfway", kind: bisect.Midpoint, rounds: 10, rule: BisectRule{Up: true},
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectMid: 110, BisectBad: 121}}, want: bisect.Undecided, pos: 0.5, benches: 1},
		{name: "geomean: one benchmark changed", kind: bisect.Midpoint, rounds: 10, rule: BisectRule{Up: true},
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectMid: 120, BisectBad: 120}, "Set": {BisectGood: 50, BisectMid: 50, BisectBad: 50}}, want: bisect.LikeBad, pos: 1, benches: 2},
		{name: "midpoint measured once", kind: bisect.Midpoint, rounds: 10, rule: BisectRule{Up: true}, once: true,
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectMid: 110, BisectBad: 110}}, want: bisect.LikeBad, pos: 1, benches: 1},
		{name: "decided on the unchanged benchmark", kind: bisect.Midpoint, rounds: 10, rule: BisectRule{Up: true, Bench: "BenchmarkSet"},
			levels: map[string]map[string]float64{"Get": {BisectGood: 100, BisectMid: 120, BisectBad: 120}, "Set": {BisectGood: 50, BisectMid: 50, BisectBad: 50}}, want: bisect.Undecided, benches: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.rule.Unit = "sec/op"
			s := bisect.Step{Number: 2, Kind: tc.kind, Lo: 0, Mid: 4, Hi: 8, Alpha: 0.05 / 5}
			if tc.kind == bisect.Endpoints {
				s.Mid = -1
			}
			rs := results(stepText(1, tc.rounds, tc.levels, wobble))
			if tc.once {
				rs = slices.DeleteFunc(rs, func(r *benchfmt.Result) bool { return r.GetConfig("config") == BisectMidAgain })
			}
			st := BisectStepOf(s, []int64{7}, [][]*benchfmt.Result{rs}, tc.rule, nil)
			if st.Verdict != tc.want || len(st.Benches) != tc.benches || st.Confidence != 0.98 {
				t.Fatalf("verdict %q with %d benchmarks at %v (decisive %+v); want %q with %d at 0.98", st.Verdict, len(st.Benches), st.Confidence, st.Decisive, tc.want, tc.benches)
			}
			if tc.kind == bisect.Midpoint && tc.rule.Bench == "" && math.Abs(st.Position-tc.pos) > 0.05 {
				t.Errorf("position %v, want %v", st.Position, tc.pos)
			}
			if tc.kind == bisect.Endpoints && !math.IsNaN(st.Position) {
				t.Errorf("endpoints have a position %v", st.Position)
			}
			if tc.rounds >= analysis.AnytimeMinRounds && st.Rounds != tc.rounds {
				t.Errorf("%d rounds counted, want %d", st.Rounds, tc.rounds)
			}
			if tc.rule.Bench != "" && st.Decisive.HasInterval() && math.Abs(math.Log(st.Decisive.Ratio)) > 0.01 {
				t.Errorf("deciding on %s: contrast %v, want ≈1 (its levels do not change)", tc.rule.Bench, st.Decisive.Ratio)
			}
		})
	}
}

// TestBisectStepPooled joins two runs of one step (an interrupted run and
// its continuation, both numbering rounds from 1): their rounds add up,
// and a round of one run is never paired with a round of the other.
func TestBisectStepPooled(t *testing.T) {
	levels := map[string]map[string]float64{"Get": {BisectGood: 100, BisectMid: 130, BisectBad: 130}}
	first := results(stepText(1, 5, levels, wobble))
	// The continuation runs on a machine twice as slow: pairing its rounds
	// with the first run's would read a change of ×2.
	second := results(stepText(1, 5, map[string]map[string]float64{"Get": {BisectGood: 200, BisectMid: 260, BisectBad: 260}}, wobble))
	s := bisect.Step{Number: 2, Kind: bisect.Midpoint, Lo: 0, Mid: 1, Hi: 2, Alpha: 0.01}
	st := BisectStepOf(s, []int64{3, 4}, [][]*benchfmt.Result{first, second}, BisectRule{Unit: "sec/op", Up: true}, nil)
	if st.Rounds != 10 || st.Verdict != bisect.LikeBad || math.Abs(st.MidGood.Ratio-1.3) > 0.01 {
		t.Errorf("pooled step: %d rounds, %q, mid/good %v; want 10 rounds, like bad, 1.3", st.Rounds, st.Verdict, st.MidGood.Ratio)
	}
	if len(first[0].Config) == 0 || first[0].GetConfig("round") != "1" {
		t.Error("pooling changed the first run's results")
	}
}

func TestBisectOf(t *testing.T) {
	r := func(x float64) analysis.Ratio { return analysis.Ratio{N: 8, Ratio: x, Lo: x - 0.01, Hi: x + 0.01} }
	steps := []BisectStep{
		{Step: bisect.Step{Number: 1, Kind: bisect.Endpoints, Lo: 0, Mid: -1, Hi: 4}, BadGood: r(1.3), Verdict: bisect.Differ},
		{Step: bisect.Step{Number: 2, Kind: bisect.Midpoint, Lo: 0, Mid: 2, Hi: 4}, BadGood: r(1.3), MidGood: r(1.0), BadMid: r(1.3), Verdict: bisect.LikeGood},
		{Step: bisect.Step{Number: 3, Kind: bisect.Midpoint, Lo: 2, Mid: 3, Hi: 4}, BadGood: r(1.3), MidGood: r(1.3), BadMid: r(1.0), Verdict: bisect.LikeBad,
			Benches: []BisectBench{{Name: "BenchmarkGet", MidGood: r(1.5)}, {Name: "BenchmarkSet", MidGood: r(1.1)}}},
	}
	res := bisect.Result{N: 4, Alpha: 0.05, Planned: 3, Lo: 2, Hi: 3, Stop: bisect.Found, Records: []bisect.Record{
		{Step: steps[0].Step, Outcome: bisect.Outcome{Verdict: bisect.Differ}},
		{Step: steps[1].Step, Outcome: bisect.Outcome{Verdict: bisect.LikeGood}},
		{Step: bisect.Step{Number: 3, Kind: bisect.Midpoint, Lo: 2, Mid: 3, Hi: 4}, Outcome: bisect.Outcome{Verdict: bisect.Skip, Why: bisect.Reason{Cause: bisect.NotBuilt, Detail: "no"}}},
		{Step: steps[2].Step, Outcome: bisect.Outcome{Verdict: bisect.LikeBad}},
	}}
	b := BisectOf(Bisect{ID: "x"}, res, steps)
	if b.Culprit != 3 || b.EffectStep != 3 || b.Effect.Ratio != 1.3 || len(b.Others) != 2 || b.Others[0].Ratio.Ratio != 1.5 || len(b.Skips) != 1 {
		t.Errorf("bisect = culprit %d, effect %v from step %d, others %+v, skips %+v", b.Culprit, b.Effect.Ratio, b.EffectStep, b.Others, b.Skips)
	}
	res.Stop, res.Lo, res.Hi = bisect.StepUndecided, 0, 4
	b = BisectOf(Bisect{}, res, steps[:1])
	if b.Culprit != -1 || b.EffectStep != 1 || b.Effect.Ratio != 1.3 {
		t.Errorf("undecided: culprit %d, effect %v from step %d; want none, 1.3 from the endpoints", b.Culprit, b.Effect.Ratio, b.EffectStep)
	}
}

// noiseModel draws one sample's multiplicative noise on the log scale.
type noiseModel struct {
	name   string
	draw   func(rng *rand.Rand) float64
	effect float64 // the planted change, large enough to decide in a test
}

var bisectNoise = []noiseModel{
	{name: "gaussian 1%", effect: 1.03, draw: func(rng *rand.Rand) float64 { return 0.01 * rng.NormFloat64() }},
	{name: "t3 1%", effect: 1.03, draw: func(rng *rand.Rand) float64 {
		z, c := rng.NormFloat64(), 0.0
		for range 3 {
			x := rng.NormFloat64()
			c += x * x
		}
		return 0.01 * z / math.Sqrt(c/3)
	}},
	// Interference only slows a sample: skewed (exponential) noise.
	{name: "skewed one-sided 2%", effect: 1.03, draw: func(rng *rand.Rand) float64 { return 0.02 * rng.ExpFloat64() }},
	// One-sided bursts: a spell adds +20…+100% to a sample, hitting each
	// cell of a round on its own, in 20% of samples.
	{name: "bursts 20%", effect: 1.3, draw: func(rng *rand.Rand) float64 {
		x := 0.005 * rng.NormFloat64()
		if rng.Float64() < 0.2 {
			x += math.Log(1.2 + 0.8*rng.Float64())
		}
		return x
	}},
}

// simStepper measures steps of a synthetic history: each round draws
// every role's value (the commit's level × a drift common to the round ×
// the sample's own noise) and the step is judged after every round from
// the first with an interval, as a sequential run is, up to maxRounds.
type simStepper struct {
	level     []float64
	noise     noiseModel
	rng       *rand.Rand
	rule      BisectRule
	maxRounds int
	rounds    int // all rounds of all steps
}

func (s *simStepper) Step(_ context.Context, st bisect.Step) (bisect.Outcome, error) {
	rm := roleMaps{name: "BenchmarkX", good: map[int]float64{}, bad: map[int]float64{}}
	if st.Kind == bisect.Midpoint {
		rm.mid, rm.again = map[int]float64{}, map[int]float64{}
	}
	v := func(commit int, drift float64) float64 {
		return s.level[commit] * drift * math.Exp(s.noise.draw(s.rng))
	}
	for r := 1; r <= s.maxRounds; r++ {
		s.rounds++
		drift := math.Exp(0.05 * s.rng.NormFloat64())
		rm.good[r], rm.bad[r] = v(st.Lo, drift), v(st.Hi, drift)
		if rm.mid != nil {
			rm.mid[r], rm.again[r] = v(st.Mid, drift), v(st.Mid, drift)
		}
		if r < analysis.AnytimeMinRounds {
			continue
		}
		out := stepOf(st, []roleMaps{rm}, s.rule, nil)
		if out.Verdict != bisect.Undecided {
			if st.Kind == bisect.Endpoints {
				s.rule.Up = out.BadGood.Ratio > 1
			}
			return bisect.Outcome{Verdict: out.Verdict}, nil
		}
	}
	return bisect.Outcome{Verdict: bisect.Undecided, Why: bisect.Reason{Cause: bisect.RoundsSpent, Rounds: 3}}, nil
}

// TestBisectSearchUnderNoise runs whole searches over 16 commits with a
// change planted at a random commit, judged by the step rule on simulated
// rounds under Gaussian, heavy-tailed, skewed one-sided and bursty
// one-sided noise: a search names a wrong culprit, or stops with a range
// that does not hold the culprit, in at most α of searches (+3 SE), and
// finds the culprit in most. A history without a change is said to
// differ by more than the minimum effect in at most α of searches.
func TestBisectSearchUnderNoise(t *testing.T) {
	const (
		n     = 16
		alpha = 0.05
	)
	searches, se := trials(200, 60, alpha)
	for i, nm := range bisectNoise {
		t.Run(nm.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i)+1, 99))
			wrong, found, rounds := 0, 0, 0
			for k := 0; k < searches; k++ {
				at := 1 + rng.IntN(n)
				level := make([]float64, n+1)
				for c := range level {
					level[c] = 1
					if c >= at {
						level[c] = nm.effect
					}
				}
				sim := &simStepper{level: level, noise: nm, rng: rng, rule: BisectRule{Unit: "sec/op", MinEffect: 0.01}, maxRounds: 300}
				res, err := bisect.Search(context.Background(), n, alpha, sim)
				if err != nil {
					t.Fatal(err)
				}
				rounds += sim.rounds
				switch {
				case res.Stop == bisect.Found && res.Culprit() == at:
					found++
				case res.Stop == bisect.Found, at <= res.Lo || at > res.Hi, res.Stop == bisect.NothingToBisect:
					wrong++
				}
			}
			t.Logf("%s: %d of %d searches found the culprit, %d wrong; %.0f rounds per search", nm.name, found, searches, wrong, float64(rounds)/float64(searches))
			if float64(wrong)/float64(searches) > alpha+3*se {
				t.Errorf("%d of %d searches wrong: more than α = %v + 3 SE", wrong, searches, alpha)
			}
			if found < searches*8/10 {
				t.Errorf("only %d of %d searches found the culprit", found, searches)
			}
			// No change: GOOD and BAD must not be said to differ.
			differ := 0
			for k := 0; k < searches; k++ {
				sim := &simStepper{level: make([]float64, n+1), noise: nm, rng: rng, rule: BisectRule{Unit: "sec/op", MinEffect: 0.01}, maxRounds: 60}
				for c := range sim.level {
					sim.level[c] = 1
				}
				res, err := bisect.Search(context.Background(), n, alpha, sim)
				if err != nil {
					t.Fatal(err)
				}
				if res.Stop != bisect.NothingToBisect && res.Stop != bisect.EndsUndecided {
					differ++
				}
			}
			if float64(differ)/float64(searches) > alpha+3*se {
				t.Errorf("no change: %d of %d searches found GOOD and BAD to differ", differ, searches)
			}
		})
	}
}

// TestBisectStepAtHalfway judges midpoints that lie exactly at the
// geometric middle of their ends, sampled until decided or 100 rounds,
// under each noise model: each wrong verdict (like good, like bad) comes
// at most α_k of the time (+3 SE) — the step's error bound, with the
// truth where an error is likeliest.
func TestBisectStepAtHalfway(t *testing.T) {
	const alphaK = 0.01
	steps, se := trials(300, 100, alphaK)
	for i, nm := range bisectNoise {
		t.Run(nm.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i)+7, 3))
			verdicts := map[bisect.Verdict]int{}
			for k := 0; k < steps; k++ {
				sim := &simStepper{level: []float64{1, math.Sqrt(nm.effect), nm.effect}, noise: nm, rng: rng, rule: BisectRule{Unit: "sec/op", Up: true}, maxRounds: 100}
				out, err := sim.Step(context.Background(), bisect.Step{Number: 2, Kind: bisect.Midpoint, Lo: 0, Mid: 1, Hi: 2, Alpha: alphaK})
				if err != nil {
					t.Fatal(err)
				}
				verdicts[out.Verdict]++
			}
			t.Logf("%s: %v of %d steps", nm.name, verdicts, steps)
			for _, v := range []bisect.Verdict{bisect.LikeGood, bisect.LikeBad} {
				if float64(verdicts[v])/float64(steps) > alphaK+3*se {
					t.Errorf("%q in %d of %d steps at halfway: more than α_k = %v + 3 SE", v, verdicts[v], steps, alphaK)
				}
			}
		})
	}
}

// trials is how many simulated trials a test runs (fewer with -short)
// and the standard error of a rate near p over that many.
func trials(full, short int, p float64) (int, float64) {
	n := full
	if testing.Short() {
		n = short
	}
	return n, math.Sqrt(p * (1 - p) / float64(n))
}
