package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Busy spells in time.
//
// A neighbour takes the CPU in spells over the wall clock, whatever the
// benchmark is doing: while a spell lasts the process runs at half speed
// (two runnable threads share its core). A repetition's time is the wall
// time its fixed work takes through the spells it meets, so a long
// repetition meets more spells than a short one, and the spells that
// spoil a repetition depend on its length. Three kinds of neighbour:
//
//	poisson     spells of 10–300 ms starting at random (a Poisson process), busy 5% of the time
//	neighbour   busy 10–300 ms, idle 10–300 ms, alternating (../shared/tools/noisy-neighbour)
//	bursts      busy 1–5 ms, idle 5–50 ms, alternating (the corpus's "bursts")

type spellKind struct {
	name string
	next func(rng *rand.Rand) (idle, busy float64) // seconds
}

var spellKinds = []spellKind{
	{"poisson", func(rng *rand.Rand) (float64, float64) {
		const busyShare, meanSpell = 0.05, 0.155
		return rng.ExpFloat64() * meanSpell * (1 - busyShare) / busyShare, 0.01 + 0.29*rng.Float64()
	}},
	{"neighbour", func(rng *rand.Rand) (float64, float64) {
		return 0.01 + 0.29*rng.Float64(), 0.01 + 0.29*rng.Float64()
	}},
	{"bursts", func(rng *rand.Rand) (float64, float64) {
		return 0.005 + 0.045*rng.Float64(), 0.001 + 0.004*rng.Float64()
	}},
}

// spellClock is one process's view of the neighbour: alternating idle and
// busy stretches from a random phase.
type spellClock struct {
	rng   *rand.Rand
	kind  spellKind
	busy  bool
	until float64 // end of the current stretch
	now   float64
}

func newSpellClock(rng *rand.Rand, kind spellKind) *spellClock {
	c := &spellClock{rng: rng, kind: kind}
	idle, busy := kind.next(rng)
	// Start at a uniformly random point of one idle+busy cycle.
	at := rng.Float64() * (idle + busy)
	if at < idle {
		c.until = idle - at
	} else {
		c.busy, c.until = true, idle+busy-at
	}
	return c
}

// work returns the wall time that w seconds of work take from now on.
func (c *spellClock) work(w float64) float64 {
	start := c.now
	for w > 0 {
		speed := 1.0
		if c.busy {
			speed = 0.5
		}
		if left := c.until - c.now; left*speed >= w {
			c.now += w / speed
			break
		} else {
			w -= left * speed
			c.now = c.until
		}
		if c.busy {
			idle, _ := c.kind.next(c.rng)
			c.busy, c.until = false, c.now+idle
		} else {
			_, busy := c.kind.next(c.rng)
			c.busy, c.until = true, c.now+busy
		}
	}
	return c.now - start
}

// spellProcess is one process of 5 repetitions of length rep seconds
// (clean), each with 0.3% timer noise; it returns each repetition's
// slowdown (wall time over clean time).
func spellProcess(rng *rand.Rand, kind spellKind, rep float64) []float64 {
	c := newSpellClock(rng, kind)
	xs := make([]float64, 5)
	for i := range xs {
		w := rep * (1 + 0.003*rng.NormFloat64())
		xs[i] = c.work(w) / rep
	}
	return xs
}

// spellRatios simulates rounds of two cells of equal true cost whose
// repetitions last rep and ratio·rep seconds, and returns each round's
// log-ratio of their RepeatEstimate values: the truth is 0.
func spellRatios(rng *rand.Rand, kind spellKind, rep, ratio float64, rounds int) []float64 {
	d := make([]float64, rounds)
	for i := range d {
		a := RepeatEstimate(spellProcess(rng, kind, rep))
		b := RepeatEstimate(spellProcess(rng, kind, ratio*rep))
		d[i] = math.Log(b) - math.Log(a)
	}
	return d
}

// TestRepeatEstimateSpellsInTime measures the bias of the per-process
// median of 5 repetitions, as the median of the per-round log-ratios of
// two cells of equal cost, under busy spells in time:
//
//   - repetitions of equal wall time in both cells (the sizing rule
//     below): no bias — every kind of neighbour, 4000 rounds, the 99.9%
//     sign-test interval of the median holds 0;
//   - 2.5% apart (what rounding leaves with ≥ 20 iterations a
//     repetition): within ±0.15%;
//   - 5× apart: the median of 5 is biased under the alternating
//     neighbour by more than 1% (so this simulation can expose the
//     failure the sizing rule prevents).
//
// The sizing rule: every cell's repetitions last the same wall time T:
// n_c = max(minRepeatIters, round(T/t_c)) iterations for a cell of t_c
// per op, T the same for all cells of a run. No per-process statistic
// escapes the rule: at 20× the median, the minimum and the mean are each
// biased under some kind of neighbour (the test logs them).
func TestRepeatEstimateSpellsInTime(t *testing.T) {
	const rounds, rep = 4000, 0.02
	for ki, kind := range spellKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(13, uint64(ki)))
			for _, c := range []struct {
				ratio   float64
				maxBias float64 // NaN: only logged
			}{{1, 0}, {1.025, 0.0015}, {2, math.NaN()}, {5, math.NaN()}} {
				d := spellRatios(rng, kind, rep, c.ratio, rounds)
				r := PairedLogs(d, 0.999)
				bias := r.Ratio - 1
				t.Logf("repetitions %.3g× as long: bias of the median of 5 %+.2f%%, 99.9%% interval [%+.2f%%, %+.2f%%]", c.ratio, 100*bias, 100*(r.Lo-1), 100*(r.Hi-1))
				switch {
				case c.ratio == 1 && r.Excludes(1):
					t.Errorf("equal repetitions: the median of %d rounds %.4f [%.4f, %.4f] excludes 1", rounds, r.Ratio, r.Lo, r.Hi)
				case c.ratio != 1 && math.Abs(bias) > c.maxBias:
					t.Errorf("repetitions %.3g× as long: bias %+.2f%%, want within ±%.2f%%", c.ratio, 100*bias, 100*c.maxBias)
				}
			}
			if kind.name == "neighbour" {
				if b := PairedLogs(spellRatios(rng, kind, rep, 5, rounds), 0.999); b.Lo < 1.01 {
					t.Errorf("repetitions 5× as long under the alternating neighbour: the median of 5 gave %.4f [%.4f, %.4f]; the simulation no longer shows the length bias", b.Ratio, b.Lo, b.Hi)
				}
			}
		})
	}
}

// TestNoStatisticEscapesLength logs, at 20× longer repetitions, the bias
// of three per-process statistics under each kind of neighbour, and
// checks that each of them is biased by more than 1% under at least one:
// a choice of statistic cannot replace equal repetitions.
func TestNoStatisticEscapesLength(t *testing.T) {
	const rounds, rep = 1500, 0.02
	stats := []struct {
		name string
		f    func([]float64) float64
	}{
		{"median", RepeatEstimate},
		{"minimum", func(xs []float64) float64 { return sortedFinite(xs)[0] }},
		{"mean", func(xs []float64) float64 {
			s := 0.0
			for _, x := range xs {
				s += x
			}
			return s / float64(len(xs))
		}},
	}
	worst := make([]float64, len(stats))
	for ki, kind := range spellKinds {
		rng := rand.New(rand.NewPCG(17, uint64(ki)))
		d := make([][]float64, len(stats))
		for range rounds {
			a := spellProcess(rng, kind, rep)
			b := spellProcess(rng, kind, 20*rep)
			for i, s := range stats {
				d[i] = append(d[i], math.Log(s.f(b))-math.Log(s.f(a)))
			}
		}
		line := ""
		for i, s := range stats {
			bias := PairedLogs(d[i], 0.95).Ratio - 1
			worst[i] = math.Max(worst[i], math.Abs(bias))
			line += fmt.Sprintf(" %s %+.2f%%", s.name, 100*bias)
		}
		t.Logf("%s, repetitions 20× as long:%s", kind.name, line)
	}
	for i, s := range stats {
		if worst[i] < 0.01 {
			t.Errorf("the %s of 5 repetitions was within ±1%% under every neighbour at 20× length (worst %.2f%%): the simulation no longer shows that no statistic escapes", s.name, 100*worst[i])
		}
	}
}
