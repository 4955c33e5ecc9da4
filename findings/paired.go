package findings

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/store"
	"github.com/perflab/perflab/unit"
)

// Change is the reading of a paired change: which way it went, in the
// unit's direction, or none.
type Change string

// The readings of a paired change: sec/op is faster or slower, every
// other unit better or worse (unit.Table says which way is better).
const (
	Faster       Change = "faster"
	Slower       Change = "slower"
	Better       Change = "better"
	Worse        Change = "worse"
	NoDifference Change = "median within band" // the median change's interval lies within ±EquivalenceBand
	Undecided    Change = "undecided"          // the interval holds no change and reaches past the band
)

// EquivalenceBand is the band a paired change's interval must lie within
// for the row to read NoDifference: ±1%, the precision a sequential run
// decides "equal" at ([DecidePrecision]).
//
// What such a row says is that the median change lies within the band,
// and no more. The estimand is the median over rounds (over link layouts,
// when layouts were sampled) of the per-round change, so a change that
// slows a minority of layouts a lot and leaves the rest alone has a small
// median: 20% of layouts 30% slower moves the median by about +0.5%
// while the mean moves by +5%. A bound on an upper quantile of the
// per-layout change cannot back the row at realistic noise: each
// cluster's change is seen only through rounds with 5–20% noise, so even
// with no change at all the 80th percentile of cluster medians sits at
// 0.84 × 1.25·σ/√k for k rounds of noise σ a cluster (under 1% only
// from about 30 rounds a layout at 5% noise, 450 at 20%), and
// separating the layouts' own spread from that noise takes a model of
// both. So the row is worded as the median it is
// ("median within ±1%"), everywhere it is written.
const EquivalenceBand = DecidePrecision

// PairedRow is one benchmark in one unit, new against old within rounds.
type PairedRow struct {
	// Package is the benchmark's package, as the run named it (relative
	// to the module directory), in a run over several packages; "" in a
	// run of one.
	Package string         `json:"package,omitempty"`
	Name    string         `json:"name"`
	Unit    string         `json:"unit"`
	Old     Stat           `json:"old"`
	New     Stat           `json:"new"`
	Ratio   analysis.Ratio `json:"ratio"`       // new/old, paired by round
	PAdj    float64        `json:"p_adj"`       // adjusted for the unit's rows: Bonferroni (p × rows, at most 1); in a sequential run Benjamini–Hochberg on the anytime p-values (e-BH)
	Signif  bool           `json:"significant"` // the interval excludes 1 (equivalently PAdj ≤ α)
	Same    bool           `json:"same"`        // every value on both sides is the same (e.g. 0 allocs/op)
	// Zero marks a row whose medians are 0 on both sides, each with the
	// interval [0, 0] (what a report prints as "0"): it reads "no
	// difference", like an identical row. Its Ratio pairs only the rounds
	// where both sides were above 0, strays that are not the row's
	// change, so it decides nothing (Signif is false).
	Zero    bool   `json:"zero,omitempty"`
	Verdict Change `json:"verdict"`
	// Layout is what one side's link layout alone moves this row by
	// (analysis.Options.LayoutSpread, split evenly between the two
	// sides: every standard deviation divided by √2; the whole spread
	// when one side kept a fixed layout, PairedLayout.Fixed), when the
	// run sampled layouts and has enough clusters to tell; nil
	// otherwise.
	Layout *analysis.LayoutSpread `json:"layout,omitempty"`
	// WorkUnchanged marks a time row (sec/op, cpu-sec/op) that changed
	// decidedly while the same benchmark's instructions/op stayed within
	// ±1% (InstructionsBand): the change is not in the work executed but
	// in how fast it ran (layout, alignment, caches).
	WorkUnchanged bool `json:"work_unchanged,omitempty"`
	// LeftOut marks a row whose cells a sequential run's budget left out
	// after a few rounds (store.Failure.LeftOut): it is undecided for the
	// budget, not for its noise.
	LeftOut bool `json:"left_out,omitempty"`
}

// InstructionsBand is how far instructions/op may move for the executed
// work to count as unchanged ([PairedRow.WorkUnchanged]).
const InstructionsBand = 0.01

// PairedLayout says how a paired comparison's builds were linked when
// layouts were sampled: each side relinked with a fresh random layout
// every PerLayout rounds, Layouts of them per side — except the sides
// named in Fixed, which kept one layout.
type PairedLayout struct {
	PerLayout int `json:"per_layout"`
	Layouts   int `json:"layouts"`
	// Schedule says how many rounds each layout served, by phase
	// (store.Layout.Schedule: "every 2 rounds in rounds 1–16, then every
	// round"); "" when not read from a stored run.
	Schedule string `json:"schedule,omitempty"`
	// FuncAlign is the function alignment both sides were linked with
	// (-ldflags=-funcalign=N), pinned while layouts were sampled; 0 for
	// the linker's default.
	FuncAlign int `json:"funcalign,omitempty"`
	// Fixed names the compared configs that kept one fixed link layout
	// (the engine records layout-fixed-CONFIG in the run's environment:
	// a toolchain without -randlayout, or a relink that failed), in
	// config order; empty when both sides sampled layouts. Every cluster
	// of rounds shares such a side's one draw, so the intervals cover
	// the change plus that binary's own layout bias: the verdicts hold
	// for that binary, not for its source over layouts.
	Fixed []FixedLayout `json:"fixed,omitempty"`
}

// FixedLayout is a compared config that kept one link layout in a run
// that sampled layouts.
type FixedLayout struct {
	Config string `json:"config"`
	Why    string `json:"why"`
	// From is the first round the config ran its one default layout in:
	// 1 when it never had another, later when its relink failed during
	// the run (its results before carry their layout).
	From int `json:"from"`
}

// OneBinary reports whether config kept one fixed layout from its first
// round.
func (l *PairedLayout) OneBinary(config string) bool {
	if l == nil {
		return false
	}
	for _, f := range l.Fixed {
		if f.Config == config && f.From <= 1 {
			return true
		}
	}
	return false
}

// PairedGeomean is the paired geomean ratio of one unit.
//
// Its Ratio is paired by round like every row: the median, over rounds
// (or layout clusters), of each round's geometric mean of the N
// benchmarks' new/old ratios, with that median's interval. It is not the
// geometric mean of the rows' printed changes, which are medians of their
// own; OfRows is that geometric mean, so a reader can check the one
// against the rows and see how far the two estimands part.
type PairedGeomean struct {
	Unit   string         `json:"unit"`
	N      int            `json:"n"` // benchmarks in it
	Ratio  analysis.Ratio `json:"ratio"`
	OfRows float64        `json:"of_rows"` // geometric mean of the N rows' ratios; 0 when none has one
	// LeftOut is how many of the unit's rows are not in it: their cells
	// were left out for the budget after a few rounds (PairedRow.LeftOut),
	// and a geomean pairs by round over the rounds every row ran.
	LeftOut int `json:"left_out,omitempty"`
}

// PairedResult compares two configs of one run, measured in the same
// interleaved rounds (perflab ab's old and new).
type PairedResult struct {
	Old, New string          `json:"-"` // the config names compared
	Rows     []PairedRow     `json:"rows"`
	Geomeans []PairedGeomean `json:"geomeans"`
	OnlyOld  []string        `json:"only_old"` // "name [unit]" measured in the old config only
	OnlyNew  []string        `json:"only_new"`
	Alpha    float64         `json:"alpha"`
	// Rounds is the number of rounds the comparison read; Anytime marks
	// a run sampled sequentially, whose intervals are anytime-valid.
	Rounds  int  `json:"rounds"`
	Anytime bool `json:"anytime"`
	// Levels is each unit's confidence level: 1 − α/m for its m compared
	// rows, so every row's interval holds its change with the others'
	// (simultaneously, at 1 − α) and a row is decided exactly when its
	// printed interval excludes no change. Band is the equivalence band
	// of NoDifference.
	Levels map[string]float64 `json:"levels"`
	Band   float64            `json:"band"`
	// Layout is set when the run sampled link layouts; nil for a run that
	// linked each side once, whose verdicts hold for those two binaries.
	Layout *PairedLayout `json:"layout"`
}

// LoadPaired reads a stored run and compares its configs newCfg and
// oldCfg ([Paired]) on its planned rounds, under the rule its sampling
// calls for (anytime-valid intervals for a sequential run), with the
// run's unit directions.
func LoadPaired(ctx context.Context, db *store.DB, runID int64, oldCfg, newCfg string, opt analysis.Options) (*PairedResult, error) {
	in, err := Read(ctx, db, runID, opt)
	if err != nil {
		return nil, err
	}
	results := SamplingOf(in.Run).Planned(in.Results)
	res := paired(results, oldCfg, newCfg, in.Opt, unit.New(runMeta(in.UnitMeta, in.Spec)), leftOut(in.Failures))
	if res.Layout != nil {
		if l := in.Run.Plan.Layout; l != nil {
			res.Layout.Schedule = l.Schedule()
		}
		res.Layout.FuncAlign = funcAlign(in.Configs, oldCfg, newCfg)
		res.Layout.Fixed = fixedLayouts(in.Env, results, oldCfg, newCfg)
		if len(res.Layout.Fixed) > 0 {
			// The layout column is then what the sampled side's
			// layouts move each row by, not one side's share of both.
			for i := range res.Rows {
				if l := res.Rows[i].Layout; l != nil {
					l.SD, l.Lo, l.Hi = l.SD*math.Sqrt2, l.Lo*math.Sqrt2, l.Hi*math.Sqrt2
				}
			}
		}
	}
	return res, nil
}

// funcAlign is the -funcalign both configs' builds pinned (their build
// flags' -ldflags), or 0 when they did not both pin the same.
func funcAlign(configs []store.Config, names ...string) int {
	align := -1
	for _, name := range names {
		n := 0
		for _, c := range configs {
			if c.Name != name {
				continue
			}
			for _, f := range c.BuildFlags {
				v, ok := strings.CutPrefix(f, "-ldflags=")
				if !ok {
					continue
				}
				for _, w := range strings.Fields(v) {
					if a, ok := strings.CutPrefix(w, "-funcalign="); ok {
						n, _ = strconv.Atoi(a)
					}
				}
			}
		}
		if align >= 0 && n != align {
			return 0
		}
		align = n
	}
	return max(0, align)
}

// fixedLayouts reads which of the compared configs kept one fixed link
// layout in a run that sampled layouts: the layout-fixed-CONFIG entries
// the engine records in the run's environment, with the first round whose
// results of that config carry no layout (the rounds the config ran its
// default binary in).
func fixedLayouts(env []store.KV, results []*benchfmt.Result, configs ...string) []FixedLayout {
	var out []FixedLayout
	for _, cfg := range configs {
		for _, kv := range env {
			if kv.Key != "layout-fixed-"+cfg {
				continue
			}
			from := 0
			for _, r := range results {
				if r.GetConfig("config") != cfg || r.GetConfig("layout") != "" {
					continue
				}
				if n, err := strconv.Atoi(r.GetConfig("round")); err == nil && n > 0 && (from == 0 || n < from) {
					from = n
				}
			}
			out = append(out, FixedLayout{Config: cfg, Why: kv.Value, From: max(1, from)})
		}
	}
	return out
}

// leftOut is the cells (by name) a sequential run's budget left out.
func leftOut(failures []store.Failure) map[string]bool {
	left := map[string]bool{}
	for _, f := range failures {
		if f.LeftOut() {
			left[f.Cell] = true
		}
	}
	return left
}

// Paired compares config newCfg against oldCfg within one run's results,
// benchmark by benchmark and unit by unit: each change is the paired
// new/old ratio of analysis.Options.Paired (per-round log-ratios), so the
// drift a round saw cancels out, with its interval at the unit's level
// 1 − α/m for its m rows (Bonferroni: simultaneous, valid under optional
// stopping and any dependence between rows, as the sequential judge
// decides rows); a sequential run's rows at 1 − α·k/m instead, where k
// rows are decided by e-BH on their e-values (discoveries), at least as
// many as Bonferroni decides. A row reads faster/slower (better/worse)
// when that interval excludes 1, NoDifference (the median change within
// the band) when it lies within ±EquivalenceBand, and undecided
// otherwise. The geomean is the paired
// geomean over the benchmarks both configs ran, at 1 − α. units gives
// each unit's direction; nil follows the conventions of package unit.
func Paired(results []*benchfmt.Result, oldCfg, newCfg string, opt analysis.Options, units *unit.Table) *PairedResult {
	return paired(results, oldCfg, newCfg, opt, units, nil)
}

// paired is Paired with the cells a budget left out (by name): their rows
// are marked LeftOut and kept out of the geomeans.
func paired(results []*benchfmt.Result, oldCfg, newCfg string, opt analysis.Options, units *unit.Table, left map[string]bool) *PairedResult {
	def := analysis.DefaultOptions()
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		opt.Alpha = def.Alpha
	}
	if !(opt.Confidence > 0 && opt.Confidence < 1) {
		opt.Confidence = 1 - opt.Alpha
	}
	res := &PairedResult{Old: oldCfg, New: newCfg, Rows: []PairedRow{}, Geomeans: []PairedGeomean{}, OnlyOld: []string{}, OnlyNew: []string{},
		Alpha: opt.Alpha, Anytime: opt.Anytime, Levels: map[string]float64{}, Band: EquivalenceBand}
	type key struct{ pkg, name, unit string }
	byCfg := map[string]map[key]*analysis.Sample{oldCfg: {}, newCfg: {}}
	var order []key
	seen := map[key]bool{}
	for _, s := range analysis.Collect(results) {
		m, ok := byCfg[s.Config]
		if !ok {
			continue
		}
		k := key{s.Package, s.Name.Full, s.Unit}
		m[k] = s
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	slices.SortStableFunc(order, func(a, b key) int {
		return cmp.Or(unit.Compare(a.unit, b.unit), strings.Compare(a.pkg, b.pkg), benchname.Compare(a.name, b.name))
	})
	pairs := map[string][][2]map[int]float64{}
	var rowMaps [][2]map[int]float64 // each row's new and old values by round
	for _, k := range order {
		o, okO := byCfg[oldCfg][k]
		n, okN := byCfg[newCfg][k]
		switch {
		case !okN:
			res.OnlyOld = append(res.OnlyOld, qualified(k.pkg, k.name)+" ["+k.unit+"]")
			continue
		case !okO:
			res.OnlyNew = append(res.OnlyNew, qualified(k.pkg, k.name)+" ["+k.unit+"]")
			continue
		}
		sh := opt.Shift(o.Values, n.Values)
		om, nm := o.ByRound(), n.ByRound()
		// The ratio itself is computed below, at its unit's level.
		row := PairedRow{Package: k.pkg, Name: k.name, Unit: k.unit, Old: statOf(sh.Old), New: statOf(sh.New), Same: sh.AllEqual,
			LeftOut: left[benchname.Parse(k.name).Cell()]}
		row.Zero = row.Old.zero() && row.New.zero()
		obs := len(opt.LogRatios(nm, om)) // independent observations: rounds, or layout clusters
		if l, ok := opt.LayoutSpread(nm, om); ok {
			l.SD, l.Lo, l.Hi = l.SD/math.Sqrt2, l.Lo/math.Sqrt2, l.Hi/math.Sqrt2
			row.Layout = &l
		}
		res.Rows = append(res.Rows, row)
		rowMaps = append(rowMaps, [2]map[int]float64{nm, om})
		res.Rounds = max(res.Rounds, len(analysis.LogRatios(nm, om)))
		if opt.PerLayout > 0 { // layouts were sampled (one a round at 1)
			if res.Layout == nil {
				res.Layout = &PairedLayout{PerLayout: opt.PerLayout}
			}
			res.Layout.Layouts = max(res.Layout.Layouts, obs)
		}
		if obs > 0 && !row.LeftOut && !row.Zero { // a zero row's strays are no ratio of it
			pairs[k.unit] = append(pairs[k.unit], [2]map[int]float64{nm, om})
		}
	}
	for _, u := range rowUnits(res.Rows, func(r PairedRow) string { return r.Unit }) {
		var idx []int
		for i, r := range res.Rows {
			if r.Unit == u {
				idx = append(idx, i)
			}
		}
		uopt := opt
		uopt.Confidence = 1 - opt.Alpha/float64(len(idx))
		if opt.Anytime && len(idx) > 1 {
			uopt.Confidence = 1 - opt.Alpha*float64(max(1, discoveries(uopt, idx, rowMaps, opt.Alpha)))/float64(len(idx))
		}
		res.Levels[u] = uopt.Confidence
		for _, i := range idx {
			r := &res.Rows[i]
			r.Ratio = uopt.Paired(rowMaps[i][0], rowMaps[i][1])
			r.PAdj = math.Min(1, r.Ratio.P*float64(len(idx)))
		}
		if opt.Anytime {
			// e-BH on e-values 1/P is Benjamini–Hochberg on the anytime
			// p-values: a row's adjusted p-value is ≤ α exactly when it
			// is one of the discoveries, whose intervals exclude 1.
			ps := make([]float64, len(idx))
			for j, i := range idx {
				ps[j] = res.Rows[i].Ratio.P
			}
			for j, p := range analysis.BH(ps) {
				res.Rows[idx[j]].PAdj = p
			}
		}
		for _, i := range idx {
			r := &res.Rows[i]
			r.Signif = r.Ratio.Excludes(1) && !r.Zero
			r.Verdict = judge(r.Unit, r.Ratio, r.Signif, r.Same || r.Zero, units)
		}
		if ps := pairs[u]; len(ps) > 0 && !res.SameUnit(u) {
			in := slices.DeleteFunc(slices.Clone(idx), func(i int) bool { return res.Rows[i].LeftOut })
			nonzero := slices.DeleteFunc(slices.Clone(in), func(i int) bool { return res.Rows[i].Zero })
			res.Geomeans = append(res.Geomeans, PairedGeomean{Unit: u, N: len(ps), Ratio: opt.Geomean(ps), OfRows: rowsGeomean(res.Rows, nonzero),
				LeftOut: len(idx) - len(in)})
		}
	}
	markWorkUnchanged(res.Rows)
	return res
}

// discoveries is the number k of a unit's rows (idx) that e-BH
// (analysis.EBH) decides differ at false discovery rate alpha, from each
// row's anytime-valid e-value for no change. Every row's interval is then
// printed at 1 − α·k/m for the unit's m rows (1 − α/m when k = 0): the k
// rows e-BH decides are exactly those whose interval at that level
// excludes no change, so the words match the intervals, and the intervals
// of the rows so chosen hold at a false coverage rate of α (e-BY). Each
// row's e-value is its sequence stopped when sampling of it stopped, which
// is an e-value at any stopping time, under any dependence between rows.
// The run stopped sampling a row on the stricter 1 − α/m (Bonferroni), so
// a row the run treated as decided stays decided here.
func discoveries(opt analysis.Options, idx []int, rowMaps [][2]map[int]float64, alpha float64) int {
	e := make([]float64, 0, len(idx))
	for _, i := range idx {
		r := opt.Paired(rowMaps[i][0], rowMaps[i][1])
		e = append(e, r.E)
	}
	return analysis.EBH(e, alpha)
}

// markWorkUnchanged sets WorkUnchanged on the decided time rows whose
// benchmark's instructions/op interval lies within ±InstructionsBand.
func markWorkUnchanged(rows []PairedRow) {
	steady := map[string]bool{}
	for _, r := range rows {
		if r.Unit == "instructions/op" && (r.Same || r.Ratio.HasInterval() &&
			r.Ratio.Lo >= 1/(1+InstructionsBand) && r.Ratio.Hi <= 1+InstructionsBand) {
			steady[qualified(r.Package, r.Name)] = true
		}
	}
	for i := range rows {
		r := &rows[i]
		if (r.Unit == "sec/op" || r.Unit == "cpu-sec/op") && r.Signif && steady[qualified(r.Package, r.Name)] &&
			math.Abs(math.Log(r.Ratio.Ratio)) > math.Log1p(InstructionsBand) {
			r.WorkUnchanged = true
		}
	}
}

// judge reads a row: a decided ratio (its interval excludes 1) in the
// unit's direction, sec/op faster or slower and other units better or
// worse; NoDifference when every value is the same on both sides (or
// both medians are 0, PairedRow.Zero) or the interval lies within
// ±EquivalenceBand; otherwise undecided.
func judge(u string, r analysis.Ratio, signif, same bool, units *unit.Table) Change {
	switch {
	case same:
		return NoDifference
	case !signif || math.IsNaN(r.Ratio) || r.Ratio == 1:
		if r.HasInterval() && r.Lo >= 1/(1+EquivalenceBand) && r.Hi <= 1+EquivalenceBand {
			return NoDifference
		}
		return Undecided
	}
	up := r.Ratio > 1
	if u == "sec/op" {
		if up {
			return Slower
		}
		return Faster
	}
	if up == units.HigherIsBetter(u) {
		return Better
	}
	return Worse
}

// SameUnit reports whether every row of unit is the same on both sides.
func (r *PairedResult) SameUnit(u string) bool {
	for _, row := range r.Rows {
		if row.Unit == u && !row.Same {
			return false
		}
	}
	return true
}

// GeomeanFor returns the geomean of unit u, if there is one.
func (r *PairedResult) GeomeanFor(u string) (PairedGeomean, bool) {
	for _, g := range r.Geomeans {
		if g.Unit == u {
			return g, true
		}
	}
	return PairedGeomean{}, false
}

// Gate returns the rows as the gate rules read them: each change as the
// ratio − 1 with its interval, significant on its own when its
// paired p-value (sign test) is below α and its interval excludes 1.
func (r *PairedResult) Gate() []compare.Row {
	out := make([]compare.Row, len(r.Rows))
	for i, p := range r.Rows {
		out[i] = compare.Row{Name: p.FullName(), Unit: p.Unit, Delta: p.Ratio.Ratio - 1, Lo: p.Ratio.Lo - 1, Hi: p.Ratio.Hi - 1,
			P: p.Ratio.P, PAdj: p.PAdj, Signif: p.Signif, Interval: p.Ratio.HasInterval(),
			Same: p.Same || p.Zero, HalfWidth: p.Ratio.HalfWidth()}
	}
	return out
}

// FullName is the row's benchmark name followed by its package, when it
// has one: the name the gate reads it by.
func (p PairedRow) FullName() string { return qualified(p.Package, p.Name) }

// qualified is a benchmark's name followed by its package, when it has
// one: "BenchmarkX (./codec)".
func qualified(pkg, name string) string {
	if pkg == "" {
		return name
	}
	return name + " (" + pkg + ")"
}

// rowsGeomean is the geometric mean of the ratios of rows idx that have
// one; 0 when none has.
func rowsGeomean(rows []PairedRow, idx []int) float64 {
	var sum float64
	n := 0
	for _, i := range idx {
		if r := rows[i].Ratio.Ratio; r > 0 && !math.IsInf(r, 0) {
			sum += math.Log(r)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(sum / float64(n))
}

// zero reports whether the median is 0 with the interval [0, 0].
func (s Stat) zero() bool { return s.N > 0 && s.Median == 0 && s.Lo == 0 && s.Hi == 0 }
