package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/perflab/perflab/benchname"
)

// The knee calibration: how often curves outside the competing smooth
// families get a knee (they must not), and how often planted hinges are
// found within one grid step, under Gaussian, one-sided-burst and skewed
// noise. The default run asserts on a moderate number of series; with
// PERFLAB_CALIBRATE=1 (or -calibrate-knees below) it runs the full tables
// quoted in docs/knees.md and prints them.
//
//	PERFLAB_CALIBRATE=1 go test ./analysis -run 'TestKnee(OutsideFamilies|HingeRecovery)' -v
//
// The file uses only FitKnee, KneeOptions and the helpers of
// knee_gen_test.go, so copied into an older checkout it measures that
// code the same way.

// noise is a kind of per-sample benchmark noise, multiplicative.
type noise struct {
	name string
	// burst is the share of samples a one-sided burst slows by 20–100%
	// (a neighbour or a GC spell only ever adds time), each sample hit
	// independently.
	burst float64
	// skew draws the log-factor as cv·(E − 1), E exponential: a long
	// right tail, standard deviation cv.
	skew bool
}

var (
	gaussian  = noise{name: "gaussian"}
	bursts5   = noise{name: "bursts 5%", burst: 0.05}
	bursts20  = noise{name: "bursts 20%", burst: 0.2}
	skewed    = noise{name: "skewed", skew: true}
	allNoises = []noise{gaussian, bursts5, bursts20, skewed}
)

// factor draws one sample's multiplicative noise at coefficient of
// variation cv.
func (nz noise) factor(cv float64, rng *rand.Rand) float64 {
	f := math.Exp(cv * rng.NormFloat64())
	if nz.skew {
		f = math.Exp(cv * (rng.ExpFloat64() - 1))
	}
	if nz.burst > 0 && rng.Float64() < nz.burst {
		f *= 1.2 + 0.8*rng.Float64()
	}
	return f
}

// noisySeries draws rounds × len(xs) samples of f(x): a per-round factor
// (lognormal, σ = cv/2) that every cell of the round shares, times each
// sample's own noise.
func noisySeries(xs []float64, f func(float64) float64, rounds int, cv float64, nz noise, rng *rand.Rand) []*Sample {
	out := make([]*Sample, len(xs))
	for i, x := range xs {
		out[i] = &Sample{Name: benchname.Parse(fmt.Sprintf("N/x=%g", x)), Unit: "sec/op"}
	}
	for r := 1; r <= rounds; r++ {
		rf := math.Exp(rng.NormFloat64() * cv / 2)
		for i, x := range xs {
			out[i].Values = append(out[i].Values, f(x)*rf*nz.factor(cv, rng))
			out[i].Rounds = append(out[i].Rounds, r)
		}
	}
	return out
}

// calibrating reports whether the full calibration tables were asked for.
func calibrating() bool { return os.Getenv("PERFLAB_CALIBRATE") != "" }

// calibrationSeeds is the number of series per CV of a knee calibration
// table: 10, 40 when calibrating, 4 under -short.
func calibrationSeeds() int {
	switch {
	case testing.Short():
		return 4
	case calibrating():
		return 40
	}
	return 10
}

// sizes4to4096 is the two-decade grid of the built-in suite's size axes.
func sizes4to4096() []float64 {
	var xs []float64
	for s := 4.0; s <= 4096; s *= 2 {
		xs = append(xs, s)
	}
	return xs
}

// curve is a cost along an axis.
type curve struct {
	name string
	f    func(float64) float64
}

// outsideFamilies are smooth costs that none of the original smooth
// models (line, quadratic, power law with a constant, exponential with a
// constant, log-log quadratic) holds: an inflection, sums of powers,
// n·log n, a logistic rise.
func outsideFamilies(logAxis bool) []curve {
	cs := []curve{
		{"x + x^1.5", func(x float64) float64 { return x + math.Pow(x, 1.5) }},
		{"x·ln x + x", func(x float64) float64 { return x*math.Log(x) + x }},
		{"5√x + x", func(x float64) float64 { return 5*math.Sqrt(x) + x }},
		{"√x + x²/10", func(x float64) float64 { return math.Sqrt(x) + x*x/10 }},
		{"1 + x + x³/50", func(x float64) float64 { return 1 + x + x*x*x/50 }},
	}
	if logAxis {
		return append(cs,
			curve{"logistic rise in log x", func(x float64) float64 { return 10 + 20/(1+math.Exp(-(math.Log2(x)-7)/1.2)) }},
			curve{"x + x²/100", func(x float64) float64 { return x + x*x/100 }},
		)
	}
	return append(cs,
		curve{"20 + x² − 0.05x³", func(x float64) float64 { return 20 + x*x - 0.05*x*x*x }},
		curve{"logistic rise", func(x float64) float64 { return 10 + 20/(1+math.Exp(-(x-6.5)/1.5)) }},
	)
}

// TestKneeOutsideFamilies: smooth curves outside the competing families,
// 12 points (1…12) or sizes 4…4096, 8 rounds, CV 2–4%, get a knee in at
// most 1 series in 20 per curve, over the four kinds of noise together
// (the table shows each).
func TestKneeOutsideFamilies(t *testing.T) {
	seeds := calibrationSeeds() // per CV: 30 series per curve and noise
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %-24s", "axis", "curve")
	for _, nz := range allNoises {
		fmt.Fprintf(&table, " %12s", nz.name)
	}
	table.WriteString("\n")
	for _, logAxis := range []bool{false, true} {
		xs, axis := axis1to(12), "1…12"
		if logAxis {
			xs, axis = sizes4to4096(), "4…4096"
		}
		for ci, c := range outsideFamilies(logAxis) {
			fmt.Fprintf(&table, "%-8s %-24s", axis, c.name)
			curveKnees, curveTotal := 0, 0
			for ni, nz := range allNoises {
				rng := rand.New(rand.NewPCG(uint64(ci+1), uint64(ni+1)<<8|boolBit(logAxis)))
				knees, total := 0, 0
				for _, cv := range []float64{0.02, 0.03, 0.04} {
					for s := 0; s < seeds; s++ {
						r := FitKnee(xs, noisySeries(xs, c.f, 8, cv, nz, rng), KneeOptions{LogX: logAxis, Resamples: -1})
						total++
						if r.Found {
							knees++
						}
					}
				}
				fmt.Fprintf(&table, " %5d of %3d", knees, total)
				curveKnees += knees
				curveTotal += total
			}
			table.WriteString("\n")
			if curveKnees*20 > curveTotal {
				t.Errorf("%s on %s: a knee in %d of %d series, want at most 1 in 20", c.name, axis, curveKnees, curveTotal)
			}
		}
	}
	t.Logf("false knees (8 rounds, CV 2%%, 3%%, 4%%, %d series each):\n%s", seeds, table.String())
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// TestKneeHingeRecovery: planted hinges whose slope changes ×2, ×4 or
// ×6 (a cost per unit that changes at the break, as when a cache
// overflows), found within one grid step: on 1…12 (breaks at 4…8) and
// on sizes 4…4096 (breaks at 64, 128, 256), 8 rounds, CV 2–4%. ×4 and ×6
// are found in at least 95% of series under Gaussian and skewed noise,
// 85% with bursts in 5% of samples and 40% with bursts in 20% (whose
// medians of 8 rounds move with the number of bursts each point drew);
// ×2, the smallest change, has a floor that only a broken fit misses.
func TestKneeHingeRecovery(t *testing.T) {
	seeds := calibrationSeeds()
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %-6s", "axis", "slope")
	for _, nz := range allNoises {
		fmt.Fprintf(&table, " %12s", nz.name)
	}
	table.WriteString("\n")
	for _, logAxis := range []bool{false, true} {
		xs, axis := axis1to(12), "1…12"
		if logAxis {
			xs, axis = sizes4to4096(), "4…4096"
		}
		for _, ratio := range []float64{2, 4, 6} {
			fmt.Fprintf(&table, "%-8s ×%-5g", axis, ratio)
			for ni, nz := range allNoises {
				rng := rand.New(rand.NewPCG(uint64(ratio), uint64(ni+1)<<8|boolBit(logAxis)))
				found, total := 0, 0
				for _, cv := range []float64{0.02, 0.03, 0.04} {
					for s := 0; s < seeds; s++ {
						k := float64(4 + s%5)
						f := hingeCurve(10, 1, k, ratio)
						lo, hi := k-1, k+1
						if logAxis {
							k = []float64{64, 128, 256}[s%3]
							f = hingeCurve(100, 1, k, ratio)
							lo, hi = k/2, 2*k
						}
						r := FitKnee(xs, noisySeries(xs, f, 8, cv, nz, rng), KneeOptions{LogX: logAxis, Resamples: -1})
						total++
						if r.Found && r.X >= lo && r.X <= hi {
							found++
						}
					}
				}
				fmt.Fprintf(&table, " %5d of %3d", found, total)
				want := 0.95
				switch {
				case ratio == 2 && nz.burst >= 0.2:
					want = 0.1
				case ratio == 2:
					want = 0.25
				case nz.burst >= 0.2:
					want = 0.4
				case nz.burst > 0:
					want = 0.85
				}
				if float64(found) < want*float64(total) {
					t.Errorf("×%g hinge on %s, %s: found within a grid step in %d of %d series, want at least %.0f%%", ratio, axis, nz.name, found, total, 100*want)
				}
			}
			table.WriteString("\n")
		}
	}
	t.Logf("planted hinges found within one grid step (8 rounds, CV 2%%, 3%%, 4%%, %d series each):\n%s", seeds, table.String())
}

// BenchmarkFitKnee is the time one series' knee fit takes, with the
// default 200 resamples of rounds: 12 points on 1…12, 11 on 4…4096.
//
//	go test ./analysis -run '^$' -bench FitKnee -count 5
func BenchmarkFitKnee(b *testing.B) {
	for _, logAxis := range []bool{false, true} {
		xs, name := axis1to(12), "1to12"
		if logAxis {
			xs, name = sizes4to4096(), "4to4096"
		}
		rng := rand.New(rand.NewPCG(1, 1))
		cells := noisySeries(xs, func(x float64) float64 { return x + math.Pow(x, 1.5) }, 8, 0.03, gaussian, rng)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				FitKnee(xs, cells, KneeOptions{LogX: logAxis})
			}
		})
	}
}
