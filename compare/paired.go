package compare

import (
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
)

// Paired comparison: two configs of one run, measured in the same
// interleaved rounds (perflab ab's old and new). Each benchmark's change
// is the paired new/old ratio of analysis.Options.Paired — the
// Hodges–Lehmann estimate of the per-round log-ratios with its Wilcoxon
// signed-rank interval and p-value — so the drift a round saw cancels
// out. Significance is decided per unit after Benjamini–Hochberg across
// the rows, and the geomean is the paired geomean over the benchmarks both
// configs ran.

// PairedRow is one benchmark in one unit.
type PairedRow struct {
	Name    string         `json:"name"`
	Unit    string         `json:"unit"`
	Old     Stat           `json:"old"`
	New     Stat           `json:"new"`
	Ratio   analysis.Ratio `json:"ratio"` // new/old, paired by round
	PAdj    float64        `json:"p_adj"` // Benjamini–Hochberg adjusted over the unit's rows
	Signif  bool           `json:"significant"`
	Same    bool           `json:"same"`    // every value on both sides is the same (e.g. 0 allocs/op)
	Verdict string         `json:"verdict"` // "faster", "slower", "better", "worse" or "no difference"
}

// PairedGeomean is the paired geomean ratio of one unit.
type PairedGeomean struct {
	Unit  string         `json:"unit"`
	N     int            `json:"n"` // benchmarks in it
	Ratio analysis.Ratio `json:"ratio"`
}

// PairedResult is a whole paired comparison.
type PairedResult struct {
	Old, New string          `json:"-"` // the config names compared
	Rows     []PairedRow     `json:"rows"`
	Geomeans []PairedGeomean `json:"geomeans"`
	OnlyOld  []string        `json:"only_old"` // "name [unit]" measured in the old config only
	OnlyNew  []string        `json:"only_new"`
	Alpha    float64         `json:"alpha"`
}

// ComparePaired compares config newCfg against oldCfg within one run's
// results, benchmark by benchmark and unit by unit. higherIsBetter gives
// each unit's direction (see [Directions]); nil uses [HigherIsBetter].
func ComparePaired(results []*benchfmt.Result, oldCfg, newCfg string, opt analysis.Options, higherIsBetter func(unit string) bool) *PairedResult {
	if higherIsBetter == nil {
		higherIsBetter = HigherIsBetter
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		opt.Alpha = 0.05
	}
	if !(opt.Confidence > 0 && opt.Confidence < 1) {
		opt.Confidence = 1 - opt.Alpha
	}
	res := &PairedResult{Old: oldCfg, New: newCfg, Rows: []PairedRow{}, Geomeans: []PairedGeomean{}, OnlyOld: []string{}, OnlyNew: []string{}, Alpha: opt.Alpha}
	type key struct{ name, unit string }
	byCfg := map[string]map[key]*analysis.Sample{oldCfg: {}, newCfg: {}}
	var order []key
	seen := map[key]bool{}
	for _, s := range analysis.Collect(results) {
		m, ok := byCfg[s.Config]
		if !ok {
			continue
		}
		k := key{s.Name.Full, s.Unit}
		m[k] = s
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	slices.SortStableFunc(order, func(a, b key) int {
		if a.unit != b.unit {
			if d := UnitRank(a.unit) - UnitRank(b.unit); d != 0 {
				return d
			}
			return strings.Compare(a.unit, b.unit)
		}
		return analysis.CompareNames(a.name, b.name)
	})
	pairs := map[string][][2]map[int]float64{}
	for _, k := range order {
		o, okO := byCfg[oldCfg][k]
		n, okN := byCfg[newCfg][k]
		switch {
		case !okN:
			res.OnlyOld = append(res.OnlyOld, k.name+" ["+k.unit+"]")
			continue
		case !okO:
			res.OnlyNew = append(res.OnlyNew, k.name+" ["+k.unit+"]")
			continue
		}
		so, sn := analysis.Summarize(o.Values, opt), analysis.Summarize(n.Values, opt)
		om, nm := o.ByRound(), n.ByRound()
		row := PairedRow{
			Name: k.name, Unit: k.unit,
			Old:   Stat{so.Center, so.Lo, so.Hi, so.N},
			New:   Stat{sn.Center, sn.Lo, sn.Hi, sn.N},
			Ratio: opt.Paired(nm, om),
			Same:  allEqual(o.Values, n.Values),
		}
		res.Rows = append(res.Rows, row)
		if row.Ratio.N > 0 {
			pairs[k.unit] = append(pairs[k.unit], [2]map[int]float64{nm, om})
		}
	}
	// Benjamini–Hochberg per unit, then verdicts.
	var units []string
	for _, r := range res.Rows {
		if !slices.Contains(units, r.Unit) {
			units = append(units, r.Unit)
		}
	}
	for _, u := range units {
		var idx []int
		var ps []float64
		for i, r := range res.Rows {
			if r.Unit == u {
				idx = append(idx, i)
				ps = append(ps, r.Ratio.P)
			}
		}
		for j, p := range analysis.BH(ps) {
			r := &res.Rows[idx[j]]
			r.PAdj = p
			r.Signif = p <= opt.Alpha && r.Ratio.Excludes(1)
			r.Verdict = verdict(r.Unit, r.Ratio.Ratio, r.Signif, higherIsBetter(r.Unit))
		}
		if ps := pairs[u]; len(ps) > 0 && !sameUnit(res.Rows, u) {
			res.Geomeans = append(res.Geomeans, PairedGeomean{Unit: u, N: len(ps), Ratio: opt.Geomean(ps)})
		}
	}
	return res
}

// UnitRank orders units for tables: time first, go test's memory units
// (B/op, allocs/op) last, every other unit between them.
func UnitRank(u string) int {
	switch u {
	case "sec/op":
		return 0
	case "B/op":
		return 2
	case "allocs/op":
		return 3
	}
	return 1
}

func verdict(unit string, ratio float64, signif, higherIsBetter bool) string {
	if !signif || math.IsNaN(ratio) || ratio == 1 {
		return "no difference"
	}
	up := ratio > 1
	if unit == "sec/op" {
		if up {
			return "slower"
		}
		return "faster"
	}
	if up == higherIsBetter {
		return "better"
	}
	return "worse"
}

// Check applies gate rules to the paired rows: a row fails a rule of its
// unit when its paired interval lies wholly beyond the limit and its
// signed-rank p-value is a Benjamini–Hochberg discovery among the unit's
// rows (the same rule as [Result.Check]). unmatched lists the rules whose
// unit no row reports.
func (r *PairedResult) Check(ths []Threshold) (fails []Failure, unmatched []Threshold) {
	cr := &Result{Opt: Options{Alpha: r.Alpha}}
	for _, p := range r.Rows {
		cr.Rows = append(cr.Rows, p.asRow(r.Alpha))
	}
	return cr.Check(ths)
}

// asRow expresses the paired row as a change Δ = ratio − 1 with its
// interval, for the gate.
func (p PairedRow) asRow(alpha float64) Row {
	return Row{
		Name: p.Name, Unit: p.Unit, Old: p.Old, New: p.New,
		Delta: p.Ratio.Ratio - 1, DeltaLo: p.Ratio.Lo - 1, DeltaHi: p.Ratio.Hi - 1,
		P: p.Ratio.P, Signif: p.Ratio.P < alpha && p.Ratio.Excludes(1), NoCI: !p.Ratio.HasInterval(),
	}
}

// sameUnit reports whether every row of unit is the same on both sides.
func sameUnit(rows []PairedRow, unit string) bool {
	for _, r := range rows {
		if r.Unit == unit && !r.Same {
			return false
		}
	}
	return true
}

// Imprecise returns, for the rules given, the rows that show no
// significant change but whose interval is wider than the rule's limit
// (half-width above |limit|): a change as large as the limit could have
// gone unseen there, so a passing gate says less than it seems.
func (r *PairedResult) Imprecise(ths []Threshold) []PairedRow {
	var out []PairedRow
	for _, row := range r.Rows {
		if row.Signif || row.Same {
			continue
		}
		for _, t := range ths {
			if t.Unit == row.Unit && row.Ratio.HalfWidth() > math.Abs(t.Limit) {
				out = append(out, row)
				break
			}
		}
	}
	return out
}
