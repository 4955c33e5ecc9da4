package noisetest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNoiseTruth draws 40,000 rounds of every kind of noise at a true
// ratio of 1.02 and checks the stated centres of the log-ratio: its median
// is log(1.02) (or, for OneCell, log(1.02) plus the stated shift), within
// four standard errors of a sample median; Skewed's mean lies 0.31·sd
// above its median, OneCell's mean 2.4% above the truth.
func TestNoiseTruth(t *testing.T) {
	const n, sd, truth = 40000, 0.02, 1.02
	tests := []struct {
		noise     Noise
		median    float64 // expected median of the log-ratio less log(truth)
		meanShift float64 // expected mean less log(truth); NaN: not checked
	}{
		{Gaussian(sd), 0, 0},
		{StudentT3(sd), 0, 0},
		{Skewed(sd), 0, sd * (1 - math.Ln2)},
		{Bursts(0.05, sd), 0, 0},
		{Bursts(0.3, sd), 0, 0},
		{OneCell(0.05, sd), OneCellMedianShift(0.05, sd), 0.05 * (2*math.Log(2) - 1.2*math.Log(1.2) - 0.8) / 0.8},
		{Drift(0.01, sd), 0, 0},
	}
	for i, tt := range tests {
		t.Run(tt.noise.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(i)))
			d := make([]float64, n)
			sum := 0.0
			for k := range d {
				d[k] = tt.noise.LogRatio(rng, truth) - math.Log(truth)
				sum += d[k]
			}
			slices.Sort(d)
			med := (d[n/2-1] + d[n/2]) / 2
			// The standard error of a sample median is 1/(2 f(m) √n); the
			// interquartile range bounds 1/f(m) for these unimodal shapes.
			iqr := d[3*n/4] - d[n/4]
			se := 2 * iqr / (2 * math.Sqrt(n))
			if math.Abs(med-tt.median) > 4*se {
				t.Errorf("median of the log-ratio less log(truth) = %.5f, want %.5f ± %.5f", med, tt.median, 4*se)
			}
			if mean := sum / n; math.Abs(mean-tt.meanShift) > 0.0015 {
				t.Errorf("mean of the log-ratio less log(truth) = %.5f, want %.5f", mean, tt.meanShift)
			}
		})
	}
}
