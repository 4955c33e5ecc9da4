package analysis

// inRounds appends to buf the value of byRound for each drawn round that
// has one.
func inRounds(byRound map[int]float64, draw []int, buf []float64) []float64 {
	for _, r := range draw {
		if v, ok := byRound[r]; ok {
			buf = append(buf, v)
		}
	}
	return buf
}
