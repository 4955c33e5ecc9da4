package analysis

import (
	"cmp"
	"slices"
	"strconv"
)

// NaturalOrder returns the values sorted as every output lists axis
// values, points and series: by value when all are numbers (so 64 comes
// before 1024 and −3 before −1), otherwise by [CompareNames]. vals is not
// changed.
func NaturalOrder(vals []string) []string {
	out := slices.Clone(vals)
	nums := make(map[string]float64, len(out))
	for _, v := range out {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			slices.SortStableFunc(out, CompareNames)
			return out
		}
		nums[v] = x
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(nums[a], nums[b]) })
	return out
}

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
