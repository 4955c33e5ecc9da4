package findings

import (
	"cmp"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/unit"
)

// SummaryRow is one benchmark's median in one unit with its interval.
type SummaryRow struct {
	Name   string `json:"name"`
	Config string `json:"config,omitempty"`
	Unit   string `json:"unit"`
	Stat
}

// summaryRows lists the samples' summaries, by name (natural order) and
// config.
func summaryRows(samples []*analysis.Sample, sum func(*analysis.Sample) analysis.Summary) []SummaryRow {
	rows := make([]SummaryRow, 0, len(samples))
	for _, s := range samples {
		rows = append(rows, SummaryRow{Name: s.Name.Full, Config: s.Config, Unit: s.Unit, Stat: statOf(sum(s))})
	}
	slices.SortStableFunc(rows, func(a, b SummaryRow) int {
		return cmp.Or(benchname.Compare(a.Name, b.Name), strings.Compare(a.Config, b.Config))
	})
	return rows
}

// SummaryRows lists every cell's summary in every unit, as computed by
// [Of]: the results table of a run without claims.
func (f *Run) SummaryRows() []SummaryRow { return summaryRows(f.Samples, f.Summary) }

// AnalyzeOptions says what [AnalyzeRun] and [AnalyzeSets] look at.
type AnalyzeOptions struct {
	Axis     string // numeric key to judge knees along; for a run, default the spec's
	By       string // key whose values are compared; for a run, default the spec's
	Baseline string // the By value others are divided by; default as the run's report chooses it
	Unit     string // only this unit; "" for all
}

// Analysis is what "perflab analyze" shows: every benchmark's summary,
// every series' knee fit along Axis, every comparison of two series that
// differ in By along Axis (per-point paired ratios and crossovers), and
// each By value's per-point ratio to the baseline with geomeans, in every
// unit.
type Analysis struct {
	Axis        string                      `json:"axis,omitempty"`
	By          string                      `json:"by,omitempty"`
	Baseline    string                      `json:"baseline,omitempty"`
	Confidence  float64                     `json:"confidence"`
	Summaries   []SummaryRow                `json:"summaries"`
	Knees       []analysis.SeriesKnee       `json:"knees"`     // the knee fits that found a knee
	KneeFits    []analysis.SeriesKnee       `json:"knee_fits"` // every series with four points or more
	Crossovers  []analysis.SeriesCrossover  `json:"crossovers"`
	Comparisons []analysis.SeriesComparison `json:"comparisons"`
	Ratios      []Comparison                `json:"ratios"`
	Geomeans    []GeomeanRow                `json:"geomeans"`
	// Keys are the sub-benchmark keys (/key=value) of the names analysed,
	// in order of first appearance: what --axis and --by may name.
	Keys []string `json:"-"`
}

// AnalyzeRun analyses a stored run as its report does: its planned
// rounds, under the rule its sampling calls for (anytime-valid intervals
// for a sequential run), with its unit directions; Axis, By and Baseline
// default to the spec's analysis, the baseline to the report's choice, so
// the ratios of the spec's unit are the numbers of the report's tables.
func AnalyzeRun(in Input, opt AnalyzeOptions) *Analysis {
	in.Opt = withDefaults(in.Opt)
	samples := analysis.Collect(in.Results)
	if n := plannedRounds(in.Opt); n > 0 {
		samples = analysis.UpToRound(samples, n)
	}
	if s := in.Spec; s != nil {
		a := s.Analysis
		opt.Axis = cmp.Or(opt.Axis, a.Axis)
		if opt.By == "" {
			opt.By, opt.Baseline = a.By, cmp.Or(opt.Baseline, a.Baseline)
		} else if opt.By == a.By {
			opt.Baseline = cmp.Or(opt.Baseline, a.Baseline)
		}
	}
	opt.Baseline = baselineOf(in.Spec, samples, opt.By, opt.Baseline)
	return analyze(samples, opt, in.Opt, unit.New(runMeta(in.UnitMeta, in.Spec)))
}

// AnalyzeSets analyses the results of benchmark files together; the
// baseline defaults to the first By value seen.
func AnalyzeSets(sets []*Set, opt AnalyzeOptions, stats analysis.Options) *Analysis {
	stats = withDefaults(stats)
	var results []*benchfmt.Result
	var meta []benchfmt.UnitMetadata
	for _, s := range sets {
		results = append(results, s.Results...)
		meta = append(meta, s.Meta...)
	}
	samples := analysis.Collect(results)
	opt.Baseline = baselineOf(nil, samples, opt.By, opt.Baseline)
	return analyze(samples, opt, stats, unit.New(meta))
}

func analyze(samples []*analysis.Sample, opt AnalyzeOptions, stats analysis.Options, units *unit.Table) *Analysis {
	if opt.Unit != "" {
		samples = slices.DeleteFunc(slices.Clone(samples), func(s *analysis.Sample) bool { return s.Unit != opt.Unit })
	}
	a := &Analysis{Axis: opt.Axis, By: opt.By, Baseline: opt.Baseline, Confidence: stats.Confidence,
		Knees: []analysis.SeriesKnee{}, KneeFits: []analysis.SeriesKnee{}, Crossovers: []analysis.SeriesCrossover{},
		Comparisons: []analysis.SeriesComparison{}, Ratios: []Comparison{}, Geomeans: []GeomeanRow{}}
	a.Summaries = summaryRows(samples, func(s *analysis.Sample) analysis.Summary { return analysis.Summarize(s.Values, stats) })
	for _, s := range samples {
		for _, p := range s.Name.Parts {
			if p.Key != "" && !slices.Contains(a.Keys, p.Key) {
				a.Keys = append(a.Keys, p.Key)
			}
		}
	}
	if opt.Axis != "" {
		a.KneeFits = analysis.KneeFits(samples, opt.Axis, stats)
		a.Knees = analysis.FoundKnees(a.KneeFits)
		if opt.By != "" {
			a.Comparisons = analysis.Comparisons(samples, opt.Axis, opt.By, stats)
			a.Crossovers = analysis.CrossoversOf(a.Comparisons)
		}
	}
	if opt.By != "" {
		for _, u := range UnitsOf(samples) {
			rs := RatioSpec{Axis: opt.Axis, By: opt.By, Baseline: opt.Baseline, Unit: u}
			a.Ratios = append(a.Ratios, Ratios(samples, rs, stats)...)
			a.Geomeans = append(a.Geomeans, Geomeans(samples, rs, stats)...)
		}
		judgeRatios(a.Ratios, a.Geomeans, units)
	}
	return a
}

// withDefaults fills an unset α or confidence with analysis's defaults.
func withDefaults(opt analysis.Options) analysis.Options {
	def := analysis.DefaultOptions()
	opt.Alpha = cmp.Or(opt.Alpha, def.Alpha)
	opt.Confidence = cmp.Or(opt.Confidence, def.Confidence)
	return opt
}

// judgeRatios marks each comparison's and geomean's change as better or
// worse in its unit's direction, where its geomean interval excludes 1.
func judgeRatios(cs []Comparison, gs []GeomeanRow, units *unit.Table) {
	judge := func(u string, r analysis.Ratio) (better, worse bool) {
		if !r.Excludes(1) {
			return false, false
		}
		better = (r.Lo > 1) == units.HigherIsBetter(u)
		return better, !better
	}
	for i := range cs {
		cs[i].Better, cs[i].Worse = judge(cs[i].Unit, cs[i].Geomean.Ratio)
	}
	for i := range gs {
		gs[i].Better, gs[i].Worse = judge(gs[i].Unit, gs[i].Geomean.Ratio)
	}
}
