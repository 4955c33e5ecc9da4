package analysis

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/noisetest"
)

// Calibration of the paired rules on data with known answers.
//
// Every rule decides "the two cells differ" when its two-sided interval at
// 1 − α (α = 5%) excludes a ratio of 1, and prints the median's interval:
//
//   - fixed: 12 rounds, one look;
//   - two looks: 8 rounds at 1 − α/3, and when undecided 24 rounds in all
//     at 1 − 2α/3 (Bonferroni, as claim.LookOptions splits α);
//   - sequential: a look after every round from round 8 to round 200,
//     stopping at the first decision, as a run does.
//
// Each rule runs on worlds whose truth is known: simulated noise
// (internal/noisetest; truth 1 for A/A, 1.02 for the planted effect) and
// rounds resampled from the noise corpus (analysis/testdata/noise: the A/A
// pair c/a, each drawn round's log-ratio negated with probability ½ — a
// and c are the same function, so swapping them gives an equally likely
// round and makes the world's median exactly 1 — and the planted pair b/a,
// whose world's truth is the median of its 200 recorded rounds; beside it
// the instruction ratio 1.0199). Each process's value is the median of its
// five repetitions (RepeatEstimate), as a sequential run measures it.
//
// For the median's rules the test asserts, per world and rule: A/A false
// decisions ≤ α + 3 SE; the planted effect decided with the wrong sign ≤
// α/2 + 3 SE; and coverage of the world's truth by the printed interval ≥
// 1 − α − 3 SE. The rules perflab used before (Hodges–Lehmann with the
// signed-rank interval; the asymptotic confidence sequence of the mean,
// baseline_test.go) run on the same draws and are reported beside them.
//
// `go test ./analysis -run TestCalibration -v -calibrate` runs 2000
// sequences per cell (the figures quoted in docs/calibration.md) instead of
// the default 400 sequential and 2000 fixed ones.

var calibrate = flag.Bool("calibrate", false, "run the paired rules' calibration with 2000 sequential runs per cell and print the full table")

const calAlpha = 0.05

// calWorld is a source of per-round log-ratios with known truths.
type calWorld struct {
	name    string
	aa      func(*rand.Rand) float64 // one A/A round; the median is 0
	planted func(*rand.Rand) float64 // one round of the planted effect
	truth   float64                  // log of the planted effect's median
	nominal float64                  // log of the planted ratio by construction (1.02, or 1.0199 measured)
	assert  bool                     // false: reported only (a truth the median does not estimate)
}

// calRule runs one decision rule on a stream of log-ratios.
type calRule struct {
	name string
	run  func(m calMethod, draw func() float64) (r Ratio, rounds int)
}

// calMethod is a pair of interval rules: fixed rounds and sequential.
type calMethod struct {
	name       string
	fixed, seq func(d []float64, confidence float64) Ratio
}

var (
	medianMethod = calMethod{"median", PairedLogs, func(d []float64, c float64) Ratio { return AnytimeLogs(d, c, 0) }}
	oldMethod    = calMethod{"old: HL / mean CS", hodgesLehmann, func(d []float64, c float64) Ratio { return asymptoticLogs(d, c, 0) }}
)

const (
	calFixedRounds = 12
	calFirstLook   = 8
	calSecondLook  = 24
	calSeqMax      = 200
)

var calRules = []calRule{
	{"fixed 12", func(m calMethod, draw func() float64) (Ratio, int) {
		d := make([]float64, calFixedRounds)
		for i := range d {
			d[i] = draw()
		}
		return m.fixed(d, 1-calAlpha), len(d)
	}},
	{"two looks 8+16", func(m calMethod, draw func() float64) (Ratio, int) {
		d := make([]float64, 0, calSecondLook)
		for range calFirstLook {
			d = append(d, draw())
		}
		if r := m.fixed(d, 1-calAlpha/3); r.Excludes(1) {
			return r, len(d)
		}
		for len(d) < calSecondLook {
			d = append(d, draw())
		}
		return m.fixed(d, 1-2*calAlpha/3), len(d)
	}},
	{"sequential 8..200", func(m calMethod, draw func() float64) (Ratio, int) {
		d := make([]float64, 0, calSeqMax)
		var r Ratio
		for len(d) < calSeqMax {
			d = append(d, draw())
			if len(d) < AnytimeMinRounds {
				continue
			}
			if r = m.seq(d, 1-calAlpha); r.Excludes(1) {
				break
			}
		}
		return r, len(d)
	}},
}

// calCell is the outcome of one rule and method in one world.
type calCell struct {
	runs                       int
	aaFalse, wrongSign, covers int
	coversNominal              int
	decided, decidedRounds     int
}

func (c calCell) rate(k int) float64 { return float64(k) / float64(c.runs) }

// se is the standard error of a rate p estimated from the cell's runs.
func (c calCell) se(p float64) float64 { return math.Sqrt(p * (1 - p) / float64(c.runs)) }

func runCell(w calWorld, rule calRule, m calMethod, runs int, seed uint64) calCell {
	c := calCell{runs: runs}
	rng := rand.New(rand.NewPCG(seed, 1))
	aa := func() float64 { return w.aa(rng) }
	pl := func() float64 { return w.planted(rng) }
	for range runs {
		if r, _ := rule.run(m, aa); r.Excludes(1) {
			c.aaFalse++
		}
	}
	rng = rand.New(rand.NewPCG(seed, 2))
	for range runs {
		r, n := rule.run(m, pl)
		switch {
		case r.HasInterval() && r.Hi < 1:
			c.wrongSign++
		case r.HasInterval() && r.Lo > 1:
			c.decided++
			c.decidedRounds += n
		}
		if r.HasInterval() && math.Log(r.Lo) <= w.truth && w.truth <= math.Log(r.Hi) {
			c.covers++
		}
		if r.HasInterval() && math.Log(r.Lo) <= w.nominal && w.nominal <= math.Log(r.Hi) {
			c.coversNominal++
		}
	}
	return c
}

// simWorlds are the simulated kinds of noise, per-round standard
// deviation 2% (1% under the bursts, which add their own spread).
func simWorlds() []calWorld {
	const sd = 0.02
	planted := math.Log(1.02)
	sim := func(n noisetest.Noise, assert bool, truthShift float64) calWorld {
		return calWorld{
			name:    n.Name,
			aa:      func(rng *rand.Rand) float64 { return n.LogRatio(rng, 1) - truthShift },
			planted: func(rng *rand.Rand) float64 { return n.LogRatio(rng, 1.02) },
			truth:   planted + truthShift, nominal: planted, assert: assert,
		}
	}
	return []calWorld{
		sim(noisetest.Gaussian(sd), true, 0),
		sim(noisetest.StudentT3(sd), true, 0),
		sim(noisetest.Skewed(sd), true, 0),
		sim(noisetest.Bursts(0.05, sd/2), true, 0),
		sim(noisetest.Bursts(0.20, sd/2), true, 0),
		sim(noisetest.Drift(0.01, sd), true, 0),
		// Spells in one cell only move the median itself (by 0.066·σ at
		// 5%): its A/A world is centred on the median, and its coverage
		// is of the shifted median; "nominal" is the clean 1.02.
		sim(noisetest.OneCell(0.05, sd), false, noisetest.OneCellMedianShift(0.05, sd)),
	}
}

// corpusWorlds resamples the recorded rounds of every condition.
func corpusWorlds(t testing.TB) []calWorld {
	var out []calWorld
	value := func(p noisetest.Process) float64 { return RepeatEstimate(p.Reps) }
	for _, cond := range []string{"quiet", "noisy", "onecore", "membw", "bursts"} {
		c, err := noisetest.LoadCorpus(filepath.Join("testdata", "noise", cond+".csv.gz"))
		if err != nil {
			t.Fatal(err)
		}
		ca := c.LogRatios("c", "a", value)
		ba := c.LogRatios("b", "a", value)
		out = append(out, calWorld{
			name: "corpus " + cond,
			aa: func(rng *rand.Rand) float64 {
				d := ca[rng.IntN(len(ca))]
				if rng.IntN(2) == 0 {
					return -d
				}
				return d
			},
			planted: func(rng *rand.Rand) float64 { return ba[rng.IntN(len(ba))] },
			truth:   PairedLogs(ba, 0.95).logEstimate(),
			nominal: math.Log(noisetest.PlantedRatio),
			assert:  true,
		})
	}
	return out
}

// logEstimate is log(r.Ratio).
func (r Ratio) logEstimate() float64 { return math.Log(r.Ratio) }

// TestCalibration runs every rule of the median and of the old methods in
// every world and checks the median's error rates and coverage (see the
// comment above).
func TestCalibration(t *testing.T) {
	fixedRuns, seqRuns := 2000, 400
	if *calibrate {
		seqRuns = 2000
	}
	worlds := append(append(simWorlds(), corpusWorlds(t)...), layoutWorlds(t)...)
	var table strings.Builder
	fmt.Fprintf(&table, "\n| world | rule | method | A/A false ±SE | wrong sign | coverage | coverage of nominal | decided 2%% | mean rounds |\n|---|---|---|---|---|---|---|---|---|\n")
	for wi, w := range worlds {
		t.Logf("%s: truth %.4f (nominal %.4f)", w.name, math.Exp(w.truth), math.Exp(w.nominal))
		for ri, rule := range calRules {
			runs := fixedRuns
			if strings.HasPrefix(rule.name, "sequential") {
				runs = seqRuns
			}
			for _, m := range []calMethod{medianMethod, oldMethod} {
				if m.name != medianMethod.name && !*calibrate && !testing.Verbose() {
					continue // the baselines are only reported
				}
				seed := uint64(100*wi + ri)
				c := runCell(w, rule, m, runs, seed)
				aa, ws, cov := c.rate(c.aaFalse), c.rate(c.wrongSign), c.rate(c.covers)
				meanRounds := math.NaN()
				if c.decided > 0 {
					meanRounds = float64(c.decidedRounds) / float64(c.decided)
				}
				fmt.Fprintf(&table, "| %s | %s | %s | %.1f%% ±%.1f | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f |\n",
					w.name, rule.name, m.name, 100*aa, 100*c.se(aa), 100*ws, 100*cov, 100*c.rate(c.coversNominal), 100*c.rate(c.decided), meanRounds)
				if m.name != medianMethod.name || !w.assert {
					continue
				}
				if limit := calAlpha + 3*c.se(calAlpha); aa > limit {
					t.Errorf("%s, %s: A/A decided a difference in %d of %d runs (%.1f%% > %.1f%%)", w.name, rule.name, c.aaFalse, runs, 100*aa, 100*limit)
				}
				if limit := calAlpha/2 + 3*c.se(calAlpha/2); ws > limit {
					t.Errorf("%s, %s: the planted effect decided with the wrong sign in %d of %d runs (%.1f%% > %.1f%%)", w.name, rule.name, c.wrongSign, runs, 100*ws, 100*limit)
				}
				if limit := 1 - calAlpha - 3*c.se(calAlpha); cov < limit {
					t.Errorf("%s, %s: the interval held the truth in %d of %d runs (%.1f%% < %.1f%%)", w.name, rule.name, c.covers, runs, 100*cov, 100*limit)
				}
			}
		}
	}
	t.Log(table.String())
}

// TestCorpusTruths checks what the corpus calibration takes as known: in
// every condition the median of c/a's 200 rounds is 1 within its sign-test
// interval (a and c run the same function), and on the quiet machine the
// sign-test interval of b/a holds the instruction ratio 1.0199.
func TestCorpusTruths(t *testing.T) {
	value := func(p noisetest.Process) float64 { return RepeatEstimate(p.Reps) }
	for _, cond := range []string{"quiet", "noisy", "onecore", "membw", "bursts"} {
		c, err := noisetest.LoadCorpus(filepath.Join("testdata", "noise", cond+".csv.gz"))
		if err != nil {
			t.Fatal(err)
		}
		ca := PairedLogs(c.LogRatios("c", "a", value), 0.95)
		ba := PairedLogs(c.LogRatios("b", "a", value), 0.95)
		t.Logf("%s: c/a %.4f [%.4f, %.4f], b/a %.4f [%.4f, %.4f] (200 rounds, 95%% sign test)", cond, ca.Ratio, ca.Lo, ca.Hi, ba.Ratio, ba.Lo, ba.Hi)
		// How widely b/a's rounds scatter with each process valued by
		// the median of its repetitions, and by their minimum.
		iqr := func(value func(noisetest.Process) float64) float64 {
			d := sortedFinite(c.LogRatios("b", "a", value))
			return quantile(d, 0.75) - quantile(d, 0.25)
		}
		minimum := func(p noisetest.Process) float64 { return sortedFinite(p.Reps)[0] }
		t.Logf("%s: interquartile range of b/a's log-ratios %.2f%% (median of 5 repetitions), %.2f%% (minimum of 5)", cond, 100*iqr(value), 100*iqr(minimum))
		if ca.Excludes(1) {
			t.Errorf("%s: c/a = %.4f [%.4f, %.4f] excludes 1, but a and c are the same function", cond, ca.Ratio, ca.Lo, ca.Hi)
		}
		if cond == "quiet" && ba.Excludes(noisetest.PlantedRatio) {
			t.Errorf("quiet: b/a = %.4f [%.4f, %.4f] excludes the instruction ratio %.4f", ba.Ratio, ba.Lo, ba.Hi, noisetest.PlantedRatio)
		}
	}
}
