package findings

import (
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/store"
)

// NoiseKey is the run environment key under which a sequential run
// records the noise measured before each of its rounds:
// "ROUND:CV%/LOAD" entries separated by spaces, with a trailing "*" on a
// round flagged as a noise burst.
const NoiseKey = "noise-per-round"

// BurstRounds are the rounds of a run flagged as noise bursts (see
// NoiseKey), sorted. The flag depends only on the calibration loop
// measured before the round, never on benchmark values. Flagged rounds are
// reported and kept in every statistic.
func BurstRounds(env []store.KV) []int {
	var out []int
	for _, kv := range env {
		if kv.Key != NoiseKey {
			continue
		}
		for _, f := range strings.Fields(kv.Value) {
			if !strings.HasSuffix(f, "*") {
				continue
			}
			r, _, ok := strings.Cut(f, ":")
			if n, err := strconv.Atoi(r); ok && err == nil && n > 0 {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}
