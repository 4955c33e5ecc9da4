package findings

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/store"
)

// NoiseKey is the run environment key under which older versions recorded
// the noise measured before each round of a sequential run:
// "ROUND:CV%/LOAD" entries separated by spaces, with a trailing "*" on a
// round flagged as a noise burst. Runs stored since keep it with each
// round (store.RoundInfo.Noise).
const NoiseKey = "noise-per-round"

// BurstRounds are the rounds of a run flagged as noise bursts, sorted:
// each round measured with noise (rounds) is judged by [IsBurst] against
// the rounds before it; a run stored by an older version keeps the flags
// it recorded under [NoiseKey] in env. The flag depends only on the
// calibration loop measured before the round, never on benchmark values.
// Flagged rounds are reported and kept in every statistic.
func BurstRounds(env []store.KV, rounds []store.RoundInfo) []int {
	var cvs []float64
	var flagged []int
	for _, r := range rounds {
		if r.Noise == nil {
			continue
		}
		if IsBurst(r.Noise.CV, cvs) {
			flagged = append(flagged, r.Round)
		}
		cvs = append(cvs, r.Noise.CV)
	}
	if cvs != nil {
		return flagged
	}
	return recordedBursts(env)
}

// recordedBursts reads the flags an older version recorded under NoiseKey.
func recordedBursts(env []store.KV) []int {
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

// The noise-burst rule: a round whose calibration CV exceeds both
// BurstFactor × the median CV of the run's earlier rounds and BurstFloor
// was taken during a burst.
const (
	BurstFactor = 3.0
	BurstFloor  = 0.05
)

// IsBurst applies the noise-burst rule to a round's calibration CV, given
// the CVs of the earlier rounds. Without at least three earlier rounds only
// the floor applies.
func IsBurst(cv float64, earlier []float64) bool {
	if cv <= BurstFloor {
		return false
	}
	if len(earlier) < 3 {
		return true
	}
	return cv > BurstFactor*analysis.Median(earlier)
}

// burstWarning is the run's note on its flagged rounds.
func burstWarning(rounds []int) string {
	return fmt.Sprintf("%d round(s) were flagged as noise bursts (the calibration loop's CV before the round above %g× the run's median and above %g%%) and are kept in every statistic, since flagged rounds were measured no more variable than the others: rounds %s",
		len(rounds), BurstFactor, 100*BurstFloor, strings.ReplaceAll(strings.Trim(fmt.Sprint(rounds), "[]"), " ", ", "))
}
