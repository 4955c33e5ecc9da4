package findings

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/store"
)

// NoiseKey is the run environment key under which a sequential run
// records the noise measured before each of its rounds:
// "ROUND:CV%/LOAD" entries separated by spaces, with a trailing "*" on a
// round flagged as a noise burst.
const NoiseKey = "noise-per-round"

// LeftOutRounds are the rounds of a run flagged as noise bursts (see
// NoiseKey). The flag depends only on the calibration loop measured
// before the round, never on benchmark values; the sequential sampling
// leaves these rounds out of its decisions, and every statistic of the run
// leaves them out too, so what stopped the run and what is reported are
// computed on the same rounds. The rounds are sorted.
func LeftOutRounds(env []store.KV) []int {
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

// WithoutRounds returns the results whose "round" key is not among drop.
func WithoutRounds(results []*benchfmt.Result, drop []int) []*benchfmt.Result {
	if len(drop) == 0 {
		return results
	}
	out := make([]*benchfmt.Result, 0, len(results))
	for _, r := range results {
		if n, err := strconv.Atoi(roundOf(r)); err == nil && slices.Contains(drop, n) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func roundOf(r *benchfmt.Result) string {
	for _, c := range r.Config {
		if c.Key == "round" {
			return string(c.Value)
		}
	}
	return ""
}

// Results reads the results of a run that its statistics use: every
// stored result less those of rounds flagged as noise bursts, which it
// also returns.
func Results(ctx context.Context, db *store.DB, runID int64) (results []*benchfmt.Result, leftOut []int, err error) {
	results, err = db.Results(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	env, err := db.Env(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	leftOut = LeftOutRounds(env)
	return WithoutRounds(results, leftOut), leftOut, nil
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}
