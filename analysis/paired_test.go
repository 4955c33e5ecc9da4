package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPairedLogs checks the median's sign-test interval and p-value
// against hand-computed order statistics and binomial tails.
func TestPairedLogs(t *testing.T) {
	ten := []float64{.7, .1, .9, .3, .5, .2, .6, .4, .8, 1.0}
	tests := []struct {
		name     string
		d        []float64
		conf     float64
		estimate float64 // log of the expected ratio
		lo, hi   float64 // expected log bounds; NaN: no interval
		achieved float64 // expected Conf
		p        float64
	}{
		{"none", nil, 0.95, math.NaN(), math.NaN(), math.NaN(), 0, 1},
		{"five rounds: no 95% interval", []float64{.1, .2, .3, .4, .5}, 0.95, .3, math.NaN(), math.NaN(), 0, 2.0 / 32},
		// P(B = 0) = 1/64 ≤ 2.5%: the extremes, at 1 − 2/64.
		{"six rounds: extremes, 96.9%", []float64{.6, .1, .5, .2, .4, .3}, 0.95, .35, .1, .6, 1 - 2.0/64, 2.0 / 64},
		// P(B ≤ 1) = 11/1024 ≤ 2.5% < P(B ≤ 2) = 56/1024: the 2nd smallest and largest.
		{"ten rounds: second order statistics", ten, 0.95, .55, .2, .9, 1 - 22.0/1024, 2.0 / 1024},
		// At 90%: P(B ≤ 2) = 56/1024 > 5%, so still k = 2.
		{"ten rounds at 90%", ten, 0.90, .55, .2, .9, 1 - 22.0/1024, 2.0 / 1024},
		// Three of eight at or below 0: P = 2·P(B ≤ 3) = 2·93/256.
		{"signs mixed", []float64{-.2, -.1, 0, .1, .2, .3, .4, .5}, 0.95, .15, -.2, .5, 1 - 2.0/256, 2 * 93.0 / 256},
		// Identical log-ratios (instruction counts): a point interval, P = 1 at 0.
		{"all tied at 0", []float64{0, 0, 0, 0, 0, 0, 0, 0}, 0.95, 0, 0, 0, 1 - 2.0/256, 1},
		{"all tied at 0.1", []float64{.1, .1, .1, .1, .1, .1, .1, .1}, 0.95, .1, .1, .1, 1 - 2.0/256, 2.0 / 256},
		// Zeros count against both sides: five zeros and three positives
		// give P = 1 (dropping the zeros would give 2/8).
		{"zeros and positives", []float64{0, .3, 0, .1, 0, .2, 0, 0}, 0.95, 0, 0, .3, 1 - 2.0/256, 1},
		{"NaN ignored", []float64{math.NaN(), .6, .1, .5, .2, .4, .3}, 0.95, .35, .1, .6, 1 - 2.0/64, 2.0 / 64},
	}
	near := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := PairedLogs(tt.d, tt.conf)
			if !near(math.Log(r.Ratio), tt.estimate) || !near(math.Log(r.Lo), tt.lo) || !near(math.Log(r.Hi), tt.hi) {
				t.Errorf("got exp(%.4g) [exp(%.4g), exp(%.4g)], want exp(%.4g) [exp(%.4g), exp(%.4g)]",
					math.Log(r.Ratio), math.Log(r.Lo), math.Log(r.Hi), tt.estimate, tt.lo, tt.hi)
			}
			if !near(r.Conf, tt.achieved) || !near(r.P, tt.p) {
				t.Errorf("Conf %v P %v, want %v and %v", r.Conf, r.P, tt.achieved, tt.p)
			}
		})
	}
}

// TestPairedPAgreesWithInterval: on random, heavily tied log-ratios (as
// printed ns/op makes them), the fixed rule's P ≤ 1 − confidence exactly
// when its interval excludes 1, and likewise for the anytime rule.
func TestPairedPAgreesWithInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		n := 6 + rng.IntN(60)
		shift := float64(rng.IntN(5) - 2)
		d := make([]float64, n)
		for j := range d {
			d[j] = float64(rng.IntN(7)-3) + shift
		}
		conf := []float64{0.9, 0.95, 1 - 0.1/3}[i%3]
		for _, r := range []Ratio{PairedLogs(d, conf), AnytimeLogs(d, conf, 0)} {
			if !r.HasInterval() {
				continue
			}
			if r.Excludes(1) != (r.P <= 1-conf) {
				t.Fatalf("%v at %v: interval [%v, %v] excludes 1 = %v, but P = %v", d, conf, r.Lo, r.Hi, r.Excludes(1), r.P)
			}
		}
	}
}

// TestSignedRankPBaseline checks the old rule's test, which the
// calibration reports beside the median's.
func TestSignedRankPBaseline(t *testing.T) {
	tests := []struct {
		d    []float64
		want float64
	}{
		// All ten positive: T+ = 55, P(T ≥ 55) = 2^-10, two-sided 2^-9.
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 2.0 / 1024},
		// Symmetric about 0: no evidence at all.
		{[]float64{-3, -2, -1, 1, 2, 3}, 1},
		{nil, 1},
	}
	for _, tt := range tests {
		if got := signedRankP(tt.d); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("signedRankP(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
}

func TestBH(t *testing.T) {
	ps := []float64{0.01, 0.04, 0.03, 0.005}
	bh := []float64{0.02, 0.04, 0.04, 0.02}
	for i, got := range BH(ps) {
		if math.Abs(got-bh[i]) > 1e-12 {
			t.Errorf("BH[%d] = %v, want %v", i, got, bh[i])
		}
	}
}

func TestOptionsGeomean(t *testing.T) {
	a := map[int]float64{0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2}
	one := map[int]float64{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
	b := map[int]float64{0: 8, 1: 8, 2: 8, 3: 8, 4: 8, 5: 8}
	g := Options{Confidence: 0.95}.Geomean([][2]map[int]float64{{a, one}, {b, one}})
	if math.Abs(g.Ratio-4) > 1e-9 || g.N != 6 {
		t.Fatalf("geomean of ×2 and ×8 = %+v, want 4 over 6 rounds", g)
	}
}

func TestFixedFirstInterval(t *testing.T) {
	for _, tc := range []struct {
		conf float64
		want int
	}{{0.95, 6}, {1 - 0.05/3, 7}, {1 - 0.05/10, 9}, {0.5, 2}, {1, 0}, {math.NaN(), 0}} {
		got := FixedFirstInterval(tc.conf)
		if got != tc.want {
			t.Errorf("FixedFirstInterval(%g) = %d, want %d", tc.conf, got, tc.want)
		}
		if got > 0 {
			d := make([]float64, got)
			for i := range d {
				d[i] = float64(i)
			}
			if !PairedLogs(d, tc.conf).HasInterval() || PairedLogs(d[1:], tc.conf).HasInterval() {
				t.Errorf("confidence %g: an interval should need exactly %d values", tc.conf, got)
			}
		}
	}
}
