// Package compare compares two sets of benchmark results — two stored runs
// or two benchfmt files — benchmark by benchmark and unit by unit, and
// decides whether the differences break a CI gate.
//
// For every (config, benchmark, unit) present in both sets, [Compare]
// reports the medians with their confidence intervals, the change
// Δ = median(new)/median(old) − 1 (benchstat's figure), a distribution-free
// confidence interval for that change, and the Mann-Whitney U p-value. The
// interval is the Hodges–Lehmann interval of the shift between the two
// samples on a log scale (Bauer, 1972): the order statistics of all
// pairwise log ratios new/old cut at the U distribution's critical value,
// so it agrees with the U test and assumes nothing about the
// distributions. A geomean of the changes is given per unit over the
// benchmarks common to both sets only; benchmarks in one set alone are
// listed, never averaged in.
//
// [ParseThresholds] reads gate rules such as "sec/op>+5%"; [Result.Check]
// fails a rule only where a change is a discovery (its p-value passes the
// Benjamini–Hochberg procedure at α over all rows of the unit) and its whole
// confidence interval lies beyond the threshold, so noise, chance hits
// among hundreds of benchmarks, or a change too small to matter never fail
// a build.
package compare

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
)

// Options sets the statistics of a comparison.
type Options struct {
	Alpha      float64 // significance level of the U test and 1−confidence of Δ's interval; default 0.05
	Confidence float64 // confidence of each median's interval; default 0.95
	// HigherIsBetter reports units where a larger value is an
	// improvement. Nil uses [HigherIsBetter].
	HigherIsBetter func(unit string) bool
	// ConfigMap pairs an old config name with the new config it is
	// compared with (e.g. "default" → "go126"). When nil and each side has
	// exactly one config, those two are paired (see [Result.ConfigMap]).
	ConfigMap map[string]string
}

func (o Options) withDefaults() Options {
	if !(o.Alpha > 0 && o.Alpha < 1) {
		o.Alpha = 0.05
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		o.Confidence = 0.95
	}
	if o.HigherIsBetter == nil {
		o.HigherIsBetter = HigherIsBetter
	}
	return o
}

// HigherIsBetter is the direction of a unit that no unit metadata
// describes: go test's throughput unit MB/s is better higher, everything
// else (time, bytes, allocations) better lower. Nothing is guessed from a
// unit's name: other units say which way they improve with benchfmt unit
// metadata ("Unit hits/op better=higher"), read by [Directions].
func HigherIsBetter(unit string) bool { return unit == "MB/s" }

// Directions returns the direction function of unit metadata: a unit whose
// "better" key is "higher" is better higher, "lower" better lower, and any
// other unit follows [HigherIsBetter].
func Directions(meta []benchfmt.UnitMetadata) func(unit string) bool {
	dir := map[string]bool{}
	for _, m := range meta {
		if !strings.EqualFold(m.Key, "better") {
			continue
		}
		switch strings.ToLower(m.Value) {
		case "higher":
			dir[m.Unit] = true
		case "lower":
			dir[m.Unit] = false
		}
	}
	return func(unit string) bool {
		if h, ok := dir[unit]; ok {
			return h
		}
		return HigherIsBetter(unit)
	}
}

// Row is the comparison of one benchmark in one unit.
type Row struct {
	Config    string  `json:"config,omitempty"`     // the new side's config
	OldConfig string  `json:"old_config,omitempty"` // the old side's, when a config map paired two names
	Name      string  `json:"name"`
	Unit      string  `json:"unit"`
	Old       Stat    `json:"old"`
	New       Stat    `json:"new"`
	Delta     float64 `json:"delta"`    // median(new)/median(old) − 1; ±Inf when the old median is 0
	DeltaLo   float64 `json:"delta_lo"` // confidence interval of Delta; ±Inf when too few samples
	DeltaHi   float64 `json:"delta_hi"`
	P         float64 `json:"p"` // Mann-Whitney U p-value
	Signif    bool    `json:"significant"`
	Better    bool    `json:"better"` // the change is significant and an improvement
	Worse     bool    `json:"worse"`  // the change is significant and a regression
	NoCI      bool    `json:"no_ci"`  // too few samples for Delta's interval at this α
	AllEqual  bool    `json:"all_equal,omitempty"`
}

// Stat is one side's summary.
type Stat struct {
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	N      int     `json:"n"`
}

// Geomean is the geometric mean change of one unit over the benchmarks
// common to both sets whose medians are positive.
type Geomean struct {
	Unit  string  `json:"unit"`
	N     int     `json:"n"` // benchmarks averaged
	Delta float64 `json:"delta"`
}

// Result is a whole comparison.
type Result struct {
	Rows     []Row     `json:"rows"`
	Geomeans []Geomean `json:"geomeans"`
	OnlyOld  []string  `json:"only_old"` // "name @config [unit]" present only in the old set
	OnlyNew  []string  `json:"only_new"`
	// ConfigMap is the pairing of configs used (old → new): the one given,
	// or the automatic one; nil when configs were matched by name.
	ConfigMap map[string]string `json:"config_map,omitempty"`
	// Unmatched lists, per side and config, what was in one side only.
	Unmatched []Unmatched `json:"unmatched,omitempty"`
	Opt       Options     `json:"-"`
}

type key struct{ config, name, unit string }

// Compare compares new results against old.
func Compare(old, new []*benchfmt.Result, opt Options) *Result {
	opt = opt.withDefaults()
	res := &Result{Opt: opt, Rows: []Row{}, Geomeans: []Geomean{}, OnlyOld: []string{}, OnlyNew: []string{}}
	index := func(rs []*benchfmt.Result) (map[key]*analysis.Sample, []key) {
		m := map[key]*analysis.Sample{}
		var order []key
		for _, s := range analysis.Collect(rs) {
			k := key{s.Config, s.Name.Full, s.Unit}
			m[k] = s
			order = append(order, k)
		}
		return m, order
	}
	om, oorder := index(old)
	nm, norder := index(new)
	res.ConfigMap = pairConfigs(oorder, norder, opt.ConfigMap)
	om, oorder = renameOld(om, oorder, res.ConfigMap)
	aopt := analysis.Options{Alpha: opt.Alpha, Confidence: opt.Confidence}
	for _, k := range oorder {
		ns, ok := nm[k]
		if !ok {
			res.OnlyOld = append(res.OnlyOld, label(k))
			continue
		}
		row := compareOne(k, om[k].Values, ns.Values, aopt, opt.HigherIsBetter(k.unit))
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
	units := []string{}
	for _, r := range res.Rows {
		if !slices.Contains(units, r.Unit) {
			units = append(units, r.Unit)
		}
	}
	for _, u := range units {
		sum, n := 0.0, 0
		for _, r := range res.Rows {
			if r.Unit == u && r.Old.Median > 0 && r.New.Median > 0 {
				sum += math.Log(r.New.Median / r.Old.Median)
				n++
			}
		}
		if n > 0 {
			res.Geomeans = append(res.Geomeans, Geomean{Unit: u, N: n, Delta: math.Exp(sum/float64(n)) - 1})
		}
	}
	return res
}

func label(k key) string {
	s := k.name
	if k.config != "" {
		s += " @" + k.config
	}
	return s + " [" + k.unit + "]"
}

func compareOne(k key, old, new []float64, aopt analysis.Options, higher bool) Row {
	so, sn := analysis.Summarize(old, aopt), analysis.Summarize(new, aopt)
	r := Row{
		Config: k.config, Name: k.name, Unit: k.unit,
		Old: Stat{so.Center, so.Lo, so.Hi, so.N},
		New: Stat{sn.Center, sn.Lo, sn.Hi, sn.N},
		P:   analysis.Compare(old, new, aopt),
	}
	r.Delta = ratioDelta(sn.Center, so.Center)
	r.DeltaLo, r.DeltaHi, r.NoCI = shiftInterval(old, new, so.Center, aopt.Alpha)
	r.AllEqual = allEqual(old, new)
	r.Signif = r.P < aopt.Alpha && r.Delta != 0 && !r.AllEqual
	if r.Signif {
		up := r.Delta > 0
		r.Worse = up != higher
		r.Better = !r.Worse
	}
	return r
}

func ratioDelta(n, o float64) float64 {
	switch {
	case o == 0 && n == 0:
		return 0
	case o == 0:
		return math.Copysign(math.Inf(1), n)
	}
	return n/o - 1
}

func allEqual(a, b []float64) bool {
	for _, x := range append(slices.Clone(a), b...) {
		if x != a[0] {
			return false
		}
	}
	return true
}

// shiftInterval returns the confidence interval, at 1−alpha, of the
// relative change from old to new: the Hodges–Lehmann interval of the
// shift of log values, turned into a ratio − 1. When a value is not
// positive, the shift of raw values relative to the old median is used.
// noCI is true (and the bounds infinite) when the samples are too small for
// the interval at this level.
func shiftInterval(old, new []float64, oldMedian, alpha float64) (lo, hi float64, noCI bool) {
	n, m := len(old), len(new)
	k := criticalK(n, m, alpha)
	if k < 1 {
		return math.Inf(-1), math.Inf(1), true
	}
	positive := true
	for _, v := range append(slices.Clone(old), new...) {
		if !(v > 0) || math.IsInf(v, 0) {
			positive = false
		}
	}
	diffs := make([]float64, 0, n*m)
	for _, x := range old {
		for _, y := range new {
			if positive {
				diffs = append(diffs, math.Log(y)-math.Log(x))
			} else {
				diffs = append(diffs, y-x)
			}
		}
	}
	slices.Sort(diffs)
	dlo, dhi := diffs[k-1], diffs[len(diffs)-k]
	if positive {
		return math.Expm1(dlo), math.Expm1(dhi), false
	}
	switch {
	case oldMedian != 0:
		return dlo / math.Abs(oldMedian), dhi / math.Abs(oldMedian), false
	case dlo == 0 && dhi == 0:
		return 0, 0, false
	}
	return math.Inf(-1), math.Inf(1), true
}

// criticalK returns the largest k with P(U ≤ k−1) ≤ alpha/2 for the
// Mann-Whitney U statistic of samples of sizes n and m: the interval
// [D(k), D(nm+1−k)] of the sorted pairwise differences then covers the
// shift with probability at least 1−alpha. It is 0 when no k qualifies.
func criticalK(n, m int, alpha float64) int {
	if n == 0 || m == 0 {
		return 0
	}
	cdf := uCDF(n, m)
	k := 0
	for u := 0; u < len(cdf); u++ {
		if cdf[u] <= alpha/2+1e-12 {
			k = u + 1
		} else {
			break
		}
	}
	return min(k, (n*m+1)/2)
}

// maxExact bounds n·m for the exact U distribution; above it the normal
// approximation is used.
const maxExact = 40000

// uCDF returns P(U ≤ u) for u = 0..n·m (no ties), exactly for small
// samples: the counts of U are the coefficients of the Gaussian binomial
// [n+m choose n](q) = Π_{i=1..n} (1 − q^(m+i)) / (1 − q^i).
func uCDF(n, m int) []float64 {
	nm := n * m
	if nm > maxExact {
		out := make([]float64, 0, nm+1)
		mu := float64(nm) / 2
		sd := math.Sqrt(float64(nm) * float64(n+m+1) / 12)
		for u := 0; u <= nm; u++ {
			out = append(out, 0.5*math.Erfc(-(float64(u)+0.5-mu)/sd/math.Sqrt2))
		}
		return out
	}
	c := make([]float64, nm+1)
	c[0] = 1
	// After step i, c holds the coefficients of [m+i choose i](q), all
	// non-negative; the products are truncated at degree nm, which the
	// recurrences below never read beyond.
	for i := 1; i <= n; i++ {
		// Multiply by (1 − q^(m+i)).
		for d := nm; d >= m+i; d-- {
			c[d] -= c[d-m-i]
		}
		// Divide by (1 − q^i): b[d] = a[d] + b[d−i].
		for d := i; d <= nm; d++ {
			c[d] += c[d-i]
		}
	}
	total := 0.0
	for _, v := range c {
		total += v
	}
	out := make([]float64, nm+1)
	acc := 0.0
	for u, v := range c {
		acc += v
		out[u] = math.Min(acc/total, 1)
	}
	return out
}

// Sort orders rows by unit (sec/op first), config and benchmark name,
// numbers in names by value (n=4 before n=16).
func (r *Result) Sort() {
	rank := func(u string) int {
		if u == "sec/op" {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(r.Rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(rank(a.Unit), rank(b.Unit)), cmp.Compare(a.Unit, b.Unit), cmp.Compare(a.Config, b.Config), analysis.CompareNames(a.Name, b.Name))
	})
	slices.SortStableFunc(r.Geomeans, func(a, b Geomean) int {
		return cmp.Or(cmp.Compare(rank(a.Unit), rank(b.Unit)), cmp.Compare(a.Unit, b.Unit))
	})
}
