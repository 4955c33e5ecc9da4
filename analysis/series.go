package analysis

import (
	"math"
	"slices"
	"strconv"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/perflab/perflab/benchname"
)

// Options sets the statistical levels. The zero value is not valid; use
// [DefaultOptions].
type Options struct {
	Alpha      float64 // significance level of Mann-Whitney U tests
	Confidence float64 // confidence level of median intervals

	// Anytime makes the paired comparisons ([Options.Paired],
	// [Options.PairedLogs], [Options.Geomean]) anytime-valid confidence
	// sequences ([AnytimeLogs]) instead of fixed-n intervals: set it for a
	// run whose rounds were sampled until its checks were decided.
	Anytime bool
	// AnytimeTarget is the round the confidence sequence is tuned for; 0
	// → [DefaultAnytimeTarget].
	AnytimeTarget int
	// FirstLook, when > 0, is the round after which a run of fixed rounds
	// judged its claim checks and ran follow-up rounds of the cells of
	// the undecided ones: package claim then judges each check at two
	// looks, each at its share of α (claim.LookRule), and every other
	// finding reads only rounds 1..FirstLook ([UpToRound]). With Anytime
	// it is a sequential run's initial pass: claim judges there the first
	// look of each check without a confidence sequence.
	FirstLook int
	// The independent unit. Rounds that share a random link layout of
	// every build (a run relinked with -randlayout; engine's layout.go),
	// or a machine, are not independent: they form a cluster, and every
	// statistic that pairs or resamples rounds summarises each cluster
	// first (the median of its log-ratios, [Options.LogRatios]) or
	// resamples whole clusters, so that intervals count clusters, not
	// rounds ([Options.Clusters]).
	//
	// PerLayout, when > 1, makes clusters of PerLayout consecutive
	// rounds. ClusterOf, when set, maps a round to its cluster instead:
	// any numbering, contiguous or not (a run whose rounds per layout
	// changed, shards that each relinked their own layouts, rounds pooled
	// from several runs). Without either, each round is its own unit.
	PerLayout int
	ClusterOf func(round int) int
}

// DefaultOptions returns alpha 0.05 and 95% confidence, benchstat's defaults.
func DefaultOptions() Options { return Options{Alpha: DefaultAlpha, Confidence: DefaultConfidence} }

// The statistical levels of [DefaultOptions].
const (
	DefaultAlpha      = 0.05
	DefaultConfidence = 0.95
)

// Sample holds every value measured for one (config, name, unit).
type Sample struct {
	Config  string // the result's "config" key; "" when absent
	Package string // the result's "package" key: set in a run over several packages
	Name    benchname.Name
	Unit    string
	Values  []float64
	Rounds  []int // the round of each value (its "round" key); 0 when unknown
}

// ByRound returns the sample's values keyed by round, or nil when any value
// has no round (as in plain go test output) or a round appears twice.
func (s *Sample) ByRound() map[int]float64 {
	if len(s.Rounds) != len(s.Values) {
		return nil
	}
	m := make(map[int]float64, len(s.Values))
	for i, v := range s.Values {
		r := s.Rounds[i]
		if _, dup := m[r]; r <= 0 || dup {
			return nil
		}
		m[r] = v
	}
	return m
}

// UpToRound returns the samples restricted to rounds 1..n, leaving out
// those with no value there. A value without a round (plain go test
// output) is kept. The samples are copies; the input is not changed.
func UpToRound(samples []*Sample, n int) []*Sample {
	out := make([]*Sample, 0, len(samples))
	for _, s := range samples {
		c := &Sample{Config: s.Config, Name: s.Name, Unit: s.Unit}
		for i, v := range s.Values {
			r := 0
			if i < len(s.Rounds) {
				r = s.Rounds[i]
			}
			if r > n {
				continue
			}
			c.Values = append(c.Values, v)
			if i < len(s.Rounds) {
				c.Rounds = append(c.Rounds, r)
			}
		}
		if len(c.Values) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Value returns a key of the sample: a name key, "bench", "procs" or "config".
func (s *Sample) Value(key string) (string, bool) {
	if key == "config" {
		return s.Config, true
	}
	return s.Name.Value(key)
}

// Matches reports whether every key=value pair of sel holds for s.
func (s *Sample) Matches(sel [][2]string) bool {
	for _, kv := range sel {
		if v, ok := s.Value(kv[0]); !ok || v != kv[1] {
			return false
		}
	}
	return true
}

// Num returns the value of key as a number.
func (s *Sample) Num(key string) (float64, bool) {
	v, ok := s.Value(key)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Collect groups results into samples keyed by (config, package, full
// name, unit), in first-seen order. The package is the run's "package"
// key, set only in a run over several packages.
func Collect(results []*benchfmt.Result) []*Sample {
	type key struct{ config, pkg, name, unit string }
	index := map[key]*Sample{}
	var out []*Sample
	for _, r := range results {
		cfg, pkg := r.GetConfig("config"), r.GetConfig("package")
		round, _ := strconv.Atoi(r.GetConfig("round"))
		name := "Benchmark" + string(r.Name.Full()) // benchfmt drops the prefix
		for _, v := range r.Values {
			k := key{cfg, pkg, name, v.Unit}
			s := index[k]
			if s == nil {
				s = &Sample{Config: cfg, Package: pkg, Name: benchname.Parse(name), Unit: v.Unit}
				index[k] = s
				out = append(out, s)
			}
			s.Values = append(s.Values, v.Value)
			s.Rounds = append(s.Rounds, round)
		}
	}
	return out
}

// Summary is a median with its confidence interval.
type Summary struct {
	Center, Lo, Hi float64
	N              int
	Warnings       []string
}

// Summarize computes the median of the finite values and its confidence
// interval with benchmath's distribution-free method, as benchstat does.
func Summarize(values []float64, opt Options) Summary {
	values = finiteValues(values)
	if len(values) == 0 {
		return Summary{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	s := benchmath.AssumeNothing.Summary(newSample(values, opt), opt.Confidence)
	out := Summary{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: len(values)}
	for _, w := range s.Warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	return out
}

// Compare returns the Mann-Whitney U test p-value of a against b, on
// their finite values (a NaN would never end the test's ranking of ties).
func Compare(a, b []float64, opt Options) float64 {
	a, b = finiteValues(a), finiteValues(b)
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	return benchmath.AssumeNothing.Compare(newSample(a, opt), newSample(b, opt)).P
}

func newSample(values []float64, opt Options) *benchmath.Sample {
	th := benchmath.DefaultThresholds
	th.CompareAlpha = opt.Alpha
	return benchmath.NewSample(slices.Clone(values), &th) // NewSample sorts in place
}

// HasInterval reports whether the summary has a confidence interval: a
// sample too small for one at its confidence (fewer than [MinSamples])
// gets infinite bounds from benchmath, and an empty one none.
func (s Summary) HasInterval() bool {
	return s.N > 0 && !math.IsNaN(s.Lo) && !math.IsNaN(s.Hi) && !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0)
}

// Spread returns the half-width of the interval relative to the center, a
// quick noise figure (0.03 means ±3%).
func (s Summary) Spread() float64 {
	if s.Center == 0 || math.IsNaN(s.Center) {
		return math.NaN()
	}
	return math.Max(s.Hi-s.Center, s.Center-s.Lo) / math.Abs(s.Center)
}
