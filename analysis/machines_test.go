package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// synthetic builds two cells measured in rounds spread over machines: on
// machine i, num/den has ratio effect[i] and the machine's own speed scales
// both cells of a round alike.
func synthetic(effect []float64, rounds int, seed uint64) (num, den map[int]float64, machine map[int]string) {
	rng := rand.New(rand.NewPCG(seed, 1))
	num, den, machine = map[int]float64{}, map[int]float64{}, map[int]string{}
	for r := 1; r <= rounds; r++ {
		m := (r - 1) % len(effect)
		speed := []float64{1, 3.5, 0.4, 2}[m%4] // machines differ wildly in speed
		noise := func() float64 { return math.Exp(rng.NormFloat64() * 0.02) }
		den[r] = 100 * speed * noise()
		num[r] = 100 * speed * effect[m] * noise()
		machine[r] = string(rune('A' + m))
	}
	return num, den, machine
}

func TestAcrossMachines(t *testing.T) {
	opt := DefaultOptions()
	for _, tc := range []struct {
		name   string
		effect []float64
		hetero bool
	}{
		{"same effect on two machines", []float64{0.8, 0.8}, false},
		{"same effect on three machines", []float64{1.1, 1.1, 1.1}, false},
		{"effect differs by machine", []float64{0.8, 1.2}, true},
		{"one machine of three differs", []float64{0.9, 0.9, 1.3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			num, den, machine := synthetic(tc.effect, 12*len(tc.effect), 7)
			got := opt.AcrossMachines(num, den, machine)
			if got.Pooled.N != len(num) {
				t.Errorf("pooled N = %d, want every round (%d)", got.Pooled.N, len(num))
			}
			if len(got.PerMachine) != len(tc.effect) {
				t.Fatalf("%d machines, want %d", len(got.PerMachine), len(tc.effect))
			}
			for i, m := range got.PerMachine {
				if m.Machine != string(rune('A'+i)) || m.N != 12 {
					t.Errorf("machine %d = %s with %d rounds, want %c with 12", i, m.Machine, m.N, 'A'+i)
				}
				if math.Abs(math.Log(m.Ratio.Ratio/tc.effect[i])) > 0.03 {
					t.Errorf("machine %s ratio %.3f, want ≈ %.3f", m.Machine, m.Ratio.Ratio, tc.effect[i])
				}
			}
			if got.Heterogeneous(0.01) != tc.hetero {
				t.Errorf("heterogeneous = %v (H %.2f, p %.3g, spread %.3f), want %v", !tc.hetero, got.H, got.HeteroP, got.Spread, tc.hetero)
			}
			if !tc.hetero && !got.Pooled.Excludes(1) {
				t.Errorf("pooled ratio %.3f [%.3f, %.3f] does not exclude 1 for a common effect", got.Pooled.Ratio, got.Pooled.Lo, got.Pooled.Hi)
			}
		})
	}
}

func TestAcrossMachinesOneMachine(t *testing.T) {
	num, den, machine := synthetic([]float64{0.9}, 10, 3)
	got := DefaultOptions().AcrossMachines(num, den, machine)
	if !math.IsNaN(got.HeteroP) || !math.IsNaN(got.Spread) || got.Heterogeneous(0.05) {
		t.Errorf("one machine: H %v p %v spread %v, want NaN (no heterogeneity to test)", got.H, got.HeteroP, got.Spread)
	}
	if got.Pooled != got.PerMachine[0].Ratio {
		t.Errorf("one machine: pooled %+v differs from the machine's %+v", got.Pooled, got.PerMachine[0].Ratio)
	}
}

func TestChiSquareSurvival(t *testing.T) {
	for _, tc := range []struct{ x, k, want float64 }{
		{3.841459, 1, 0.05}, // textbook critical values
		{5.991465, 2, 0.05},
		{9.210340, 2, 0.01},
		{1.386294, 2, 0.5},
		{0, 3, 1},
		{30, 3, 1.3800570e-06},
	} {
		if got := chiSquareSurvival(tc.x, tc.k); math.Abs(got-tc.want) > 1e-6*math.Max(1, tc.want*1e3) {
			t.Errorf("chiSquareSurvival(%v, %v) = %.8g, want %.8g", tc.x, tc.k, got, tc.want)
		}
	}
}
