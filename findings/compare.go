package findings

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/store"
	"github.com/perflab/perflab/unit"
)

// CompareOptions sets the statistics of a comparison of two sets.
type CompareOptions struct {
	Alpha      float64 // significance of the U test and 1−confidence of Δ's interval; default 0.05
	Confidence float64 // confidence of each median's interval; default 0.95
	// ConfigMap pairs an old config name with the new config it is
	// compared with (e.g. "default" → "go126"). When nil and each side has
	// exactly one config, those two are paired.
	ConfigMap map[string]string
}

// Stat is one side's median with its confidence interval.
type Stat struct {
	Median   float64 `json:"median"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	N        int     `json:"n"`
	Interval bool    `json:"interval"` // false: too few samples for one (Lo and Hi are infinite)
	// Spread is the interval's half-width relative to the median (0.03
	// for ±3%); NaN at a median of 0.
	Spread float64 `json:"spread"`
}

func statOf(s analysis.Summary) Stat {
	return Stat{Median: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N, Interval: s.HasInterval(), Spread: s.Spread()}
}

// CompareRow is one benchmark in one unit, old against new, unpaired
// (analysis.Options.Shift): Δ = median(new)/median(old) − 1 with its
// Hodges–Lehmann interval and the Mann-Whitney U p-value.
type CompareRow struct {
	Config    string  `json:"config,omitempty"`     // the new side's config
	OldConfig string  `json:"old_config,omitempty"` // the old side's, when a config map paired two names
	Name      string  `json:"name"`
	Unit      string  `json:"unit"`
	Old       Stat    `json:"old"`
	New       Stat    `json:"new"`
	Delta     float64 `json:"delta"`    // ±Inf when the old median is 0
	DeltaLo   float64 `json:"delta_lo"` // ±Inf without an interval
	DeltaHi   float64 `json:"delta_hi"`
	P         float64 `json:"p"`     // Mann-Whitney U p-value
	PAdj      float64 `json:"p_adj"` // Benjamini–Hochberg adjusted over the unit's rows
	Signif    bool    `json:"significant"`
	Better    bool    `json:"better"` // significant and an improvement in the unit's direction
	Worse     bool    `json:"worse"`  // significant and a regression
	NoCI      bool    `json:"no_ci"`  // too few samples for Δ's interval at this α
	AllEqual  bool    `json:"all_equal,omitempty"`
}

// CompareGeomean is the geometric mean change of one unit over the
// benchmarks common to both sets whose medians are positive.
type CompareGeomean struct {
	Unit  string  `json:"unit"`
	N     int     `json:"n"` // benchmarks averaged
	Delta float64 `json:"delta"`
}

// Unmatched counts what one side has that the other lacks, for one config.
type Unmatched struct {
	Side       string   `json:"side"` // "old" or "new"
	Config     string   `json:"config"`
	Benchmarks int      `json:"benchmarks"`
	Units      []string `json:"units"`
	Examples   []string `json:"examples"` // up to three names
}

// EnvDiff is an environment key whose value differs between two runs.
type EnvDiff struct{ Key, Old, New string }

// Calibration is a noise calibration loop that ran at a different speed
// in the new run than in the old one (by more than 10%): part of every
// difference is then the machine's. Ratio is new/old.
type Calibration struct {
	Key   string
	Ratio float64
}

// CompareResult is a comparison of two sets, benchmark by benchmark and
// unit by unit ([Compare]).
type CompareResult struct {
	Old, New *Set             `json:"-"`
	Rows     []CompareRow     `json:"rows"` // by unit (unit.Compare), config and name (natural order)
	Geomeans []CompareGeomean `json:"geomeans"`
	OnlyOld  []string         `json:"only_old"` // "name @config [unit]" present only in the old set
	OnlyNew  []string         `json:"only_new"`
	// ConfigMap is the pairing of configs used (old → new): the one given,
	// or the automatic one; nil when configs were matched by name.
	ConfigMap map[string]string `json:"config_map,omitempty"`
	// Unmatched lists, per side and config, what was in one side only.
	Unmatched  []Unmatched `json:"unmatched,omitempty"`
	Alpha      float64     `json:"alpha"`
	Confidence float64     `json:"confidence"`
	// EnvDiffs and Calibrations compare two stored runs' environments.
	EnvDiffs     []EnvDiff     `json:"-"`
	Calibrations []Calibration `json:"-"`
	// Funcs lists, for two runs that both counted instructions, the cells
	// whose instructions per op changed most and the functions behind the
	// change; FuncProblems the per-function files that could not be read.
	Funcs        *FuncChanges `json:"-"`
	FuncProblems []string     `json:"-"`
}

type cmpKey struct{ config, name, unit string }

// Compare compares new against old benchmark by benchmark: every
// (config, benchmark, unit) present in both, with configs paired by name,
// by opt.ConfigMap, or automatically when each side has one config. The
// geomean of each unit covers the benchmarks in both sets only; those in
// one set are listed, never averaged in. A unit's direction comes from
// both sets' unit metadata (the new set's word wins).
func Compare(old, new *Set, opt CompareOptions) *CompareResult {
	aopt := analysis.DefaultOptions()
	aopt.Alpha = cmp.Or(opt.Alpha, aopt.Alpha)
	aopt.Confidence = cmp.Or(opt.Confidence, aopt.Confidence)
	units := unit.New(old.Meta, new.Meta)
	res := &CompareResult{Old: old, New: new, Rows: []CompareRow{}, Geomeans: []CompareGeomean{}, OnlyOld: []string{}, OnlyNew: []string{},
		Alpha: aopt.Alpha, Confidence: aopt.Confidence}
	index := func(s *Set) (map[cmpKey]*analysis.Sample, []cmpKey) {
		m := map[cmpKey]*analysis.Sample{}
		var order []cmpKey
		for _, smp := range analysis.Collect(s.Results) {
			k := cmpKey{smp.Config, smp.Name.Full, smp.Unit}
			m[k] = smp
			order = append(order, k)
		}
		return m, order
	}
	om, oorder := index(old)
	nm, norder := index(new)
	res.ConfigMap = pairConfigs(oorder, norder, opt.ConfigMap)
	om, oorder = renameOld(om, oorder, res.ConfigMap)
	for _, k := range oorder {
		ns, ok := nm[k]
		if !ok {
			res.OnlyOld = append(res.OnlyOld, label(k))
			continue
		}
		sh := aopt.Shift(om[k].Values, ns.Values)
		row := CompareRow{Config: k.config, Name: k.name, Unit: k.unit, Old: statOf(sh.Old), New: statOf(sh.New),
			Delta: sh.Delta, DeltaLo: sh.Lo, DeltaHi: sh.Hi, NoCI: !sh.Interval, P: sh.P, Signif: sh.Significant, AllEqual: sh.AllEqual}
		if row.Signif {
			row.Better = (row.Delta > 0) == units.HigherIsBetter(k.unit)
			row.Worse = !row.Better
		}
		if oc := om[k].Config; oc != k.config {
			row.OldConfig = oc
		}
		res.Rows = append(res.Rows, row)
	}
	res.Unmatched = tallyUnmatched(om, oorder, nm, norder)
	for _, k := range norder {
		if _, ok := om[k]; !ok {
			res.OnlyNew = append(res.OnlyNew, label(k))
		}
	}
	slices.SortStableFunc(res.Rows, func(a, b CompareRow) int {
		return cmp.Or(unit.Compare(a.Unit, b.Unit), cmp.Compare(a.Config, b.Config), analysis.CompareNames(a.Name, b.Name))
	})
	for _, u := range rowUnits(res.Rows, func(r CompareRow) string { return r.Unit }) {
		var pairs [][2]float64
		var ps []float64
		var idx []int
		for i, r := range res.Rows {
			if r.Unit == u {
				pairs = append(pairs, [2]float64{r.Old.Median, r.New.Median})
				ps, idx = append(ps, r.P), append(idx, i)
			}
		}
		for j, p := range adjust(ps) {
			res.Rows[idx[j]].PAdj = p
		}
		if d, n := analysis.GeomeanChange(pairs); n > 0 {
			res.Geomeans = append(res.Geomeans, CompareGeomean{Unit: u, N: n, Delta: d})
		}
	}
	if old.Run != nil && new.Run != nil {
		res.EnvDiffs, res.Calibrations = envDiffs(old.Env, new.Env)
	}
	res.Funcs, res.FuncProblems = funcChanges(old.Artifacts, new.Artifacts)
	return res
}

// adjust is Benjamini–Hochberg over the p-values that are numbers; a NaN
// stays NaN (never a discovery).
func adjust(ps []float64) []float64 {
	out := make([]float64, len(ps))
	var finite []float64
	var at []int
	for i, p := range ps {
		out[i] = math.NaN()
		if !math.IsNaN(p) {
			finite, at = append(finite, p), append(at, i)
		}
	}
	for j, q := range analysis.BH(finite) {
		out[at[j]] = q
	}
	return out
}

// rowUnits lists the distinct units of rows in order.
func rowUnits[R any](rows []R, unitOf func(R) string) []string {
	var out []string
	for _, r := range rows {
		if u := unitOf(r); !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// Gate returns the rows as the gate rules read them.
func (r *CompareResult) Gate() []compare.Row {
	out := make([]compare.Row, len(r.Rows))
	for i, row := range r.Rows {
		out[i] = compare.Row{Config: row.Config, Name: row.Name, Unit: row.Unit, Delta: row.Delta, Lo: row.DeltaLo, Hi: row.DeltaHi,
			P: row.P, PAdj: row.PAdj, Signif: row.Signif, Interval: !row.NoCI, Same: row.AllEqual, HalfWidth: math.Inf(1)}
		if out[i].Interval && row.DeltaLo > -1 {
			out[i].HalfWidth = (math.Log1p(row.DeltaHi) - math.Log1p(row.DeltaLo)) / 2
		}
	}
	return out
}

func label(k cmpKey) string {
	s := k.name
	if k.config != "" {
		s += " @" + k.config
	}
	return s + " [" + k.unit + "]"
}

// pairConfigs returns the config pairing to use: the given map, or, when
// each side has exactly one config and they differ, those two.
func pairConfigs(oorder, norder []cmpKey, given map[string]string) map[string]string {
	if given != nil {
		return given
	}
	configs := func(ks []cmpKey) []string {
		var out []string
		for _, k := range ks {
			if !slices.Contains(out, k.config) {
				out = append(out, k.config)
			}
		}
		return out
	}
	oc, nc := configs(oorder), configs(norder)
	if len(oc) == 1 && len(nc) == 1 && oc[0] != nc[0] {
		return map[string]string{oc[0]: nc[0]}
	}
	return nil
}

// renameOld re-keys the old side's samples by the config they are compared
// with. Each sample keeps its own Config, which names the old config.
func renameOld(om map[cmpKey]*analysis.Sample, order []cmpKey, m map[string]string) (map[cmpKey]*analysis.Sample, []cmpKey) {
	if m == nil {
		return om, order
	}
	out := make(map[cmpKey]*analysis.Sample, len(om))
	var ord []cmpKey
	for _, k := range order {
		s := om[k]
		if n, ok := m[k.config]; ok {
			k.config = n
		}
		out[k] = s
		ord = append(ord, k)
	}
	return out, ord
}

func tallyUnmatched(om map[cmpKey]*analysis.Sample, oorder []cmpKey, nm map[cmpKey]*analysis.Sample, norder []cmpKey) []Unmatched {
	var out []Unmatched
	tally := func(side string, order []cmpKey, self, other map[cmpKey]*analysis.Sample) {
		idx := map[string]int{}
		names := map[string]map[string]bool{}
		for _, k := range order {
			if _, ok := other[k]; ok {
				continue
			}
			cfg := self[k].Config // the side's own config name
			i, ok := idx[cfg]
			if !ok {
				i = len(out)
				idx[cfg] = i
				out = append(out, Unmatched{Side: side, Config: cfg})
				names[cfg] = map[string]bool{}
			}
			u := &out[i]
			if !names[cfg][k.name] {
				names[cfg][k.name] = true
				u.Benchmarks++
				if len(u.Examples) < 3 {
					u.Examples = append(u.Examples, k.name)
				}
			}
			if !slices.Contains(u.Units, k.unit) {
				u.Units = append(u.Units, k.unit)
			}
		}
	}
	tally("old", oorder, om, nm)
	tally("new", norder, nm, om)
	return out
}

// envDiffs lists the environment keys whose values differ between two
// runs (the start time aside) and the calibration loops whose median
// differs by more than 10%.
func envDiffs(old, new []store.KV) ([]EnvDiff, []Calibration) {
	ov := map[string]string{}
	for _, kv := range old {
		ov[kv.Key] = kv.Value
	}
	nv := map[string]string{}
	var diffs []EnvDiff
	for _, kv := range new {
		nv[kv.Key] = kv.Value
		if o, ok := ov[kv.Key]; ok && o != kv.Value && kv.Key != "time" {
			diffs = append(diffs, EnvDiff{Key: kv.Key, Old: o, New: kv.Value})
		}
	}
	var cals []Calibration
	for _, k := range []string{"noise-before", "noise-after"} {
		o, n := calibration(ov[k]), calibration(nv[k])
		if o > 0 && n > 0 && (n/o > 1.1 || o/n > 1.1) {
			cals = append(cals, Calibration{Key: k, Ratio: n / o})
		}
	}
	return diffs, cals
}

var calibrationRE = regexp.MustCompile(`median ([0-9.]+(?:ns|us|µs|ms|s))`)

// calibration reads the median of a noise estimate such as
// "cv=3.6% (n=30, median 1.07ms)", in seconds; 0 when absent.
func calibration(s string) float64 {
	m := calibrationRE.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		return 0
	}
	return d.Seconds()
}
