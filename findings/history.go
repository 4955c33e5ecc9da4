package findings

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/store"
)

// Point is one run's value of a benchmark: the median of the run's
// samples (its planned rounds) with its confidence interval.
type Point struct {
	RunID      int64     `json:"run"`
	Experiment string    `json:"experiment"`
	Started    time.Time `json:"started"`
	Config     string    `json:"config"` // the run's config the value comes from
	Median     float64   `json:"median"`
	Lo         float64   `json:"lo"`
	Hi         float64   `json:"hi"`
	N          int       `json:"n"`
	Interval   bool      `json:"interval"` // false: too few samples for one
}

// History is one benchmark's metric across the stored runs, oldest first,
// with the change points of its medians (analysis.EDivisive).
type History struct {
	Benchmark string                 `json:"benchmark"`
	Unit      string                 `json:"unit"`
	Config    string                 `json:"config"`
	Points    []Point                `json:"points"`
	Changes   []analysis.ChangePoint `json:"changes"`
	// Confidence is the level of the points' intervals.
	Confidence float64                   `json:"confidence"`
	Opt        analysis.EDivisiveOptions `json:"-"` // with its defaults filled in
}

// HistoryOptions selects what LoadHistory reads and how it finds changes.
type HistoryOptions struct {
	Unit    string // default "sec/op"
	Config  string // default: the only config the benchmark has, else "default"; "a,b" follows a, then b
	Stats   analysis.Options
	Changes analysis.EDivisiveOptions
}

// ErrNoData is wrapped by LoadHistory's error when no stored run has the
// benchmark.
var ErrNoData = errors.New("no data")

// LoadHistory reads the benchmark's value in every stored run that
// measured it, oldest first, and finds its change points. The benchmark
// may be given with or without its "Benchmark" prefix, and with or
// without its GOMAXPROCS suffix (-N).
func LoadHistory(ctx context.Context, db *store.DB, benchmark string, opt HistoryOptions) (*History, error) {
	h, err := loadHistory(ctx, db, benchmark, opt)
	if err != nil {
		return nil, err
	}
	xs := make([]float64, len(h.Points))
	for i, p := range h.Points {
		xs[i] = p.Median
	}
	h.Opt = opt.Changes.WithDefaults()
	h.Changes = analysis.EDivisive(xs, h.Opt)
	return h, nil
}

func loadHistory(ctx context.Context, db *store.DB, benchmark string, opt HistoryOptions) (*History, error) {
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
		results = SamplingOf(&r).Planned(results)
		f := found{run: r, samples: map[string]*analysis.Sample{}}
		for _, s := range analysis.Collect(results) {
			if s.Name.Full != name && s.Name.Cell() != name {
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
	if config == "" && len(configs) > 1 && !slices.ContainsFunc(hits, func(f found) bool { return len(f.samples) != 1 }) {
		config = strings.Join(sortedKeys(configs), ",")
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
	names := strings.Split(config, ",")
	h := &History{Benchmark: name, Unit: unit, Config: config, Points: []Point{}, Changes: []analysis.ChangePoint{}, Confidence: opt.Stats.Confidence}
	for _, f := range hits {
		var s *analysis.Sample
		for _, n := range names {
			if c := f.samples[strings.TrimSpace(n)]; c != nil {
				if s != nil {
					return nil, fmt.Errorf("run %d measured %s under both %s and %s; pass one --config", f.run.ID, name, s.Config, c.Config)
				}
				s = c
			}
		}
		if s == nil {
			continue
		}
		sum := analysis.Summarize(s.Values, opt.Stats)
		h.Points = append(h.Points, Point{RunID: f.run.ID, Experiment: f.run.Experiment, Started: f.run.StartedAt, Config: s.Config,
			Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: sum.N, Interval: sum.HasInterval()})
	}
	if len(h.Points) == 0 {
		what := fmt.Sprintf("config %q", config)
		if len(names) > 1 {
			what = "configs " + config
		}
		return nil, fmt.Errorf("%s has no %s values under %s (configs: %s): %w", name, unit, what, strings.Join(sortedKeys(configs), ", "), ErrNoData)
	}
	return h, nil
}

// Several reports whether the history follows several configs across runs.
func (h *History) Several() bool { return strings.Contains(h.Config, ",") }

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
