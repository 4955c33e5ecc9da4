// Package history follows one benchmark's metric across the stored runs
// and finds where it changed: change points by E-divisive means
// (Matteson and James, 2014, the method MongoDB's performance
// signal-processing uses), each confirmed by a permutation test, with the
// runs on each side.
package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// Point is one run's value of the benchmark: the median of the run's
// samples with its confidence interval.
type Point struct {
	RunID      int64     `json:"run"`
	Experiment string    `json:"experiment"`
	Started    time.Time `json:"started"`
	Config     string    `json:"config"` // the run's config the value comes from
	Median     float64   `json:"median"`
	Lo         float64   `json:"lo"`
	Hi         float64   `json:"hi"`
	N          int       `json:"n"`
}

// Series is a benchmark's history.
type Series struct {
	Benchmark string           `json:"benchmark"`
	Unit      string           `json:"unit"`
	Config    string           `json:"config"`
	Points    []Point          `json:"points"` // oldest run first
	Changes   []ChangePoint    `json:"changes"`
	Opt       EDivisiveOptions `json:"-"`
}

// LoadOptions selects what Load reads.
type LoadOptions struct {
	Unit   string // default "sec/op"
	Config string // default: the only config the benchmark has, else "default"
	Stats  analysis.Options
}

// ErrNoData is wrapped by Load's error when no stored run has the benchmark.
var ErrNoData = errors.New("no data")

// Load reads the benchmark's value in every stored run that measured it,
// oldest first. The benchmark may be given with or without its
// "Benchmark" prefix, and with or without its GOMAXPROCS suffix (-N).
func Load(ctx context.Context, db *store.DB, benchmark string, opt LoadOptions) (*Series, error) {
	unit := cmp.Or(opt.Unit, "sec/op")
	name := benchmark
	if !strings.HasPrefix(name, "Benchmark") {
		name = "Benchmark" + name
	}
	if opt.Stats.Alpha == 0 {
		opt.Stats = analysis.DefaultOptions()
	}
	runs, err := db.Runs(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(runs, func(a, b store.Run) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), cmp.Compare(a.ID, b.ID))
	})
	type found struct {
		run     store.Run
		samples map[string]*analysis.Sample // by config
	}
	var hits []found
	configs := map[string]bool{}
	units := map[string]bool{}
	fulls := map[string]bool{} // the names as stored that matched
	for _, r := range runs {
		results, err := db.Results(ctx, r.ID)
		if err != nil {
			return nil, fmt.Errorf("reading run %d: %w", r.ID, err)
		}
		results = findings.SamplingOf(&r).Planned(results)
		f := found{run: r, samples: map[string]*analysis.Sample{}}
		for _, s := range analysis.Collect(results) {
			if s.Name.Full != name && WithoutProcs(s.Name.Full) != name {
				continue
			}
			fulls[s.Name.Full] = true
			units[s.Unit] = true
			if s.Unit == unit {
				f.samples[s.Config] = s
				configs[s.Config] = true
			}
		}
		if len(f.samples) > 0 {
			hits = append(hits, f)
		}
	}
	if len(hits) == 0 {
		if len(units) > 0 {
			return nil, fmt.Errorf("%s has no %s values (it has %s); pass --unit: %w", name, unit, strings.Join(sortedKeys(units), ", "), ErrNoData)
		}
		return nil, fmt.Errorf("no stored run in %s measured %s (names are as in \"perflab export\", e.g. BenchmarkPool/size=64/reuse=25-2): %w", db.Path(), name, ErrNoData)
	}
	if len(fulls) > 1 {
		return nil, fmt.Errorf("%s was measured at several GOMAXPROCS values (%s); give the name with its -N suffix", name, strings.Join(sortedKeys(fulls), ", "))
	}
	name = sortedKeys(fulls)[0]
	config := opt.Config
	// One config per run, named differently across runs (a run's "default"
	// and a later run's "go126"): follow it, as compare pairs one config
	// with one. --config a,b names such a sequence explicitly.
	if config == "" && len(configs) > 1 && onePerRun(hits, func(f found) int { return len(f.samples) }) {
		config = strings.Join(sortedKeys(configs), ",")
	}
	if names := strings.Split(config, ","); len(names) > 1 {
		out := &Series{Benchmark: name, Unit: unit, Config: config, Points: []Point{}, Changes: []ChangePoint{}}
		for _, h := range hits {
			var s *analysis.Sample
			for _, n := range names {
				if c := h.samples[strings.TrimSpace(n)]; c != nil {
					if s != nil {
						return nil, fmt.Errorf("run %d measured %s under both %s and %s; pass one --config", h.run.ID, name, s.Config, c.Config)
					}
					s = c
				}
			}
			if s == nil {
				continue
			}
			sum := analysis.Summarize(s.Values, opt.Stats)
			out.Points = append(out.Points, Point{RunID: h.run.ID, Experiment: h.run.Experiment, Started: h.run.StartedAt, Config: s.Config, Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: sum.N})
		}
		if len(out.Points) == 0 {
			return nil, fmt.Errorf("%s has no %s values under configs %s (configs: %s): %w", name, unit, config, strings.Join(sortedKeys(configs), ", "), ErrNoData)
		}
		return out, nil
	}
	if config == "" {
		switch {
		case len(configs) == 1:
			config = sortedKeys(configs)[0]
		case configs["default"]:
			config = "default"
		default:
			return nil, fmt.Errorf("%s was measured under several configs (%s); pick one with --config", name, strings.Join(sortedKeys(configs), ", "))
		}
	}
	out := &Series{Benchmark: name, Unit: unit, Config: config, Points: []Point{}, Changes: []ChangePoint{}}
	for _, h := range hits {
		s := h.samples[config]
		if s == nil {
			continue
		}
		sum := analysis.Summarize(s.Values, opt.Stats)
		out.Points = append(out.Points, Point{RunID: h.run.ID, Experiment: h.run.Experiment, Started: h.run.StartedAt, Config: config, Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: sum.N})
	}
	if len(out.Points) == 0 {
		return nil, fmt.Errorf("%s has no %s values under config %q (configs: %s): %w", name, unit, config, strings.Join(sortedKeys(configs), ", "), ErrNoData)
	}
	return out, nil
}

func onePerRun[T any](hits []T, n func(T) int) bool {
	for _, h := range hits {
		if n(h) != 1 {
			return false
		}
	}
	return true
}

// WithoutProcs drops the GOMAXPROCS suffix go test appends to a
// benchmark's name ("BenchmarkX/size=64-8" → "BenchmarkX/size=64"); a
// negative level value ("/n=-3") is not a suffix.
func WithoutProcs(full string) string {
	i := strings.LastIndexByte(full, '-')
	if i <= 0 || i == len(full)-1 || full[i-1] == '=' || full[i-1] == '/' {
		return full
	}
	for _, r := range full[i+1:] {
		if r < '0' || r > '9' {
			return full
		}
	}
	return full[:i]
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Detect finds the series' change points and stores them in s.Changes.
func (s *Series) Detect(opt EDivisiveOptions) {
	xs := make([]float64, len(s.Points))
	for i, p := range s.Points {
		xs[i] = p.Median
	}
	s.Opt = opt
	s.Changes = EDivisive(xs, opt)
}

// ChangePoint is where a series' distribution changes: Index is the first
// point of the new segment.
type ChangePoint struct {
	Index  int     `json:"index"`
	Before float64 `json:"before"` // median of the segment before
	After  float64 `json:"after"`  // median of the segment after
	Q      float64 `json:"q"`      // the E-divisive statistic
	P      float64 `json:"p"`      // permutation-test p-value
	// The segment on each side, as point indexes [From, To).
	BeforeFrom, BeforeTo int `json:"-"`
	AfterFrom, AfterTo   int `json:"-"`
}

// EDivisiveOptions tunes EDivisive.
type EDivisiveOptions struct {
	Alpha        float64 // significance of the permutation test; default 0.05
	Permutations int     // per test; default 199
	MinSize      int     // smallest segment; default 3
	Seed         uint64  // permutation seed; default 1 (results are reproducible)
}

func (o EDivisiveOptions) withDefaults() EDivisiveOptions {
	if !(o.Alpha > 0 && o.Alpha < 1) {
		o.Alpha = 0.05
	}
	if o.Permutations <= 0 {
		o.Permutations = 199
	}
	if o.MinSize < 2 {
		o.MinSize = 3
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// EDivisive finds change points in xs by E-divisive means with exponent
// 1: it repeatedly splits the segment whose best split has the largest
// energy statistic q̂, and keeps the split when a permutation test (the
// values permuted within each current segment) finds q̂ significant at
// Alpha. It stops at the first split that is not significant. Non-finite
// values are ignored for the statistic but keep their places. Change
// points are returned in order of Index.
func EDivisive(xs []float64, opt EDivisiveOptions) []ChangePoint {
	opt = opt.withDefaults()
	// Work on the finite values; map indexes back at the end.
	var vals []float64
	var at []int
	for i, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			vals = append(vals, x)
			at = append(at, i)
		}
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	bounds := []int{0, len(vals)} // segment edges, sorted
	type found struct{ p, q float64 }
	cuts := map[int]found{}
	for {
		best, bestQ := -1, 0.0
		for si := 0; si+1 < len(bounds); si++ {
			tau, q := bestSplit(vals[bounds[si]:bounds[si+1]], opt.MinSize)
			if tau >= 0 && q > bestQ {
				best, bestQ = bounds[si]+tau, q
			}
		}
		if best < 0 {
			break
		}
		// Permutation test: shuffle within every current segment and
		// take the largest statistic over all of them.
		exceed := 0
		perm := slices.Clone(vals)
		for r := 0; r < opt.Permutations; r++ {
			maxQ := 0.0
			for si := 0; si+1 < len(bounds); si++ {
				seg := perm[bounds[si]:bounds[si+1]]
				rng.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
				if _, q := bestSplit(seg, opt.MinSize); q > maxQ {
					maxQ = q
				}
			}
			if maxQ >= bestQ {
				exceed++
			}
		}
		p := float64(exceed+1) / float64(opt.Permutations+1)
		if p >= opt.Alpha {
			break
		}
		cuts[best] = found{p, bestQ}
		bounds = append(bounds, best)
		slices.Sort(bounds)
	}
	out := []ChangePoint{}
	for bi := 1; bi+1 < len(bounds); bi++ {
		c := bounds[bi]
		prev, next := bounds[bi-1], bounds[bi+1]
		cp := ChangePoint{
			Index:  at[c],
			Before: median(vals[prev:c]),
			After:  median(vals[c:next]),
			Q:      cuts[c].q,
			P:      cuts[c].p,
		}
		cp.BeforeFrom, cp.BeforeTo = at[prev], at[c]
		cp.AfterFrom, cp.AfterTo = at[c], len(xs)
		if next < len(vals) {
			cp.AfterTo = at[next]
		}
		out = append(out, cp)
	}
	return out
}

// bestSplit returns the split τ of z (the first index of the second part,
// each part at least minSize long) that maximises the E-divisive
// statistic
//
//	q̂(τ) = τ(n−τ)/n · [ 2/(τ(n−τ)) Σ|xᵢ−yⱼ| − 1/C(τ,2) Σ|xᵢ−xₖ| − 1/C(n−τ,2) Σ|yⱼ−yₖ| ]
//
// and that maximum; τ is −1 when z is too short to split. It runs in
// O(n²) by updating the three sums as τ moves.
func bestSplit(z []float64, minSize int) (int, float64) {
	n := len(z)
	if n < 2*minSize {
		return -1, 0
	}
	// Start with τ = 0: every pair is within the right part.
	var within, left, between float64
	for j := 0; j < n; j++ {
		for k := j + 1; k < n; k++ {
			within += math.Abs(z[j] - z[k])
		}
	}
	best, bestQ := -1, math.Inf(-1)
	for tau := 1; tau <= n-minSize; tau++ {
		// Move point t = tau−1 from the right part to the left one.
		t := tau - 1
		var toLeft, toRight float64
		for i := 0; i < t; i++ {
			toLeft += math.Abs(z[i] - z[t])
		}
		for k := t + 1; k < n; k++ {
			toRight += math.Abs(z[t] - z[k])
		}
		left += toLeft
		within -= toRight
		between += toRight - toLeft
		if tau < minSize {
			continue
		}
		a, b := float64(tau), float64(n-tau)
		e := 2/(a*b)*between - left/(a*(a-1)/2) - within/(b*(b-1)/2)
		q := a * b / float64(n) * e
		if q > bestQ {
			best, bestQ = tau, q
		}
	}
	if best < 0 {
		return -1, 0
	}
	return best, bestQ
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
