package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPairedLogsSmall(t *testing.T) {
	tests := []struct {
		name     string
		d        []float64
		interval bool
		conf     float64
	}{
		{"five rounds: no 95% interval", []float64{.1, .2, .3, .4, .5}, false, 0},
		{"six rounds: extremes, 96.9%", []float64{.1, .2, .3, .4, .5, .6}, true, 1 - 2.0/64},
		{"none", nil, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := PairedLogs(tt.d, 0.95)
			if r.HasInterval() != tt.interval {
				t.Fatalf("HasInterval = %v, want %v (%+v)", r.HasInterval(), tt.interval, r)
			}
			if tt.interval {
				if math.Abs(r.Conf-tt.conf) > 1e-12 {
					t.Errorf("Conf = %v, want %v", r.Conf, tt.conf)
				}
				// With six rounds the interval is [min, max] of the Walsh averages.
				if math.Abs(math.Log(r.Lo)-tt.d[0]) > 1e-12 || math.Abs(math.Log(r.Hi)-tt.d[len(tt.d)-1]) > 1e-12 {
					t.Errorf("interval [%v, %v], want exp of [%v, %v]", r.Lo, r.Hi, tt.d[0], tt.d[len(tt.d)-1])
				}
			}
		})
	}
}

func TestSignedRankP(t *testing.T) {
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
		if got := SignedRankP(tt.d); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("SignedRankP(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
}

func TestAdjust(t *testing.T) {
	ps := []float64{0.01, 0.04, 0.03, 0.005}
	holm := []float64{0.03, 0.06, 0.06, 0.02}
	bh := []float64{0.02, 0.04, 0.04, 0.02}
	for i, got := range Holm(ps) {
		if math.Abs(got-holm[i]) > 1e-12 {
			t.Errorf("Holm[%d] = %v, want %v", i, got, holm[i])
		}
	}
	for i, got := range BH(ps) {
		if math.Abs(got-bh[i]) > 1e-12 {
			t.Errorf("BH[%d] = %v, want %v", i, got, bh[i])
		}
	}
}

// Coverage by simulation: the interval holds the true ratio about as often
// as it claims, under Gaussian and heavy-tailed (Student t, 2 df) noise,
// and a planted 2% effect at 1% noise is detected.
func TestPairedCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	studentT2 := func() float64 {
		z := rng.NormFloat64()
		chi2 := math.Pow(rng.NormFloat64(), 2) + math.Pow(rng.NormFloat64(), 2)
		return z / math.Sqrt(chi2/2)
	}
	noises := map[string]func() float64{"gaussian": rng.NormFloat64, "t2": studentT2}
	for name, noise := range noises {
		for _, effect := range []float64{1, 1.02} {
			const runs, rounds = 1000, 12
			cover, detect := 0, 0
			for i := 0; i < runs; i++ {
				num, den := map[int]float64{}, map[int]float64{}
				for r := 0; r < rounds; r++ {
					drift := 100 * math.Exp(0.05*rng.NormFloat64()) // shared by the round
					num[r] = effect * drift * math.Exp(0.005*noise())
					den[r] = drift * math.Exp(0.005*noise())
				}
				p := PairedRatio(num, den, 0.95)
				if p.Lo <= effect && effect <= p.Hi {
					cover++
				}
				if p.Excludes(1) {
					detect++
				}
			}
			c := float64(cover) / runs
			if c < 0.93 || c > 0.995 {
				t.Errorf("%s effect %v: coverage %.3f, want ≈ 0.95–0.97", name, effect, c)
			}
			if effect != 1 && float64(detect)/runs < 0.9 {
				t.Errorf("%s: planted 2%% effect detected in %d of %d", name, detect, runs)
			}
		}
	}
}

func TestGeomeanRatio(t *testing.T) {
	a := map[int]float64{0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2}
	one := map[int]float64{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
	b := map[int]float64{0: 8, 1: 8, 2: 8, 3: 8, 4: 8, 5: 8}
	g := GeomeanRatio([][2]map[int]float64{{a, one}, {b, one}}, 0.95)
	if math.Abs(g.Ratio-4) > 1e-9 || g.N != 6 {
		t.Fatalf("geomean of ×2 and ×8 = %+v, want 4 over 6 rounds", g)
	}
}
