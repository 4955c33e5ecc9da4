package analysis

// MinSamples is the fewest values whose median has a finite
// distribution-free confidence interval at the given confidence (6 at
// 95%), as [Summarize] computes it; 0 when fifty do not suffice.
func MinSamples(confidence float64) int {
	var vals []float64
	for n := 1; n <= 50; n++ {
		vals = append(vals, float64(n))
		if n > 1 && Summarize(vals, Options{Alpha: 1 - confidence, Confidence: confidence}).HasInterval() {
			return n
		}
	}
	return 0
}
