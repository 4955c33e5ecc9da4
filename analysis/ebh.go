package analysis

import "slices"

// EBH is the e-BH procedure (Wang & Ramdas, "False discovery rate control
// with e-values", JRSS-B 2022): given e-values e for m hypotheses, it
// returns k*, the number of discoveries at false discovery rate alpha —
// the hypotheses with the k* largest e-values, each ≥ m/(alpha·k*). It
// holds under any dependence between the e-values, and each may be an
// e-process stopped at its own stopping time.
func EBH(e []float64, alpha float64) int {
	m := len(e)
	s := slices.Clone(e)
	slices.SortFunc(s, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	k := 0
	for i, v := range s {
		if v >= float64(m)/(alpha*float64(i+1)) {
			k = i + 1
		}
	}
	return k
}
