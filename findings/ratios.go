package findings

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/analysis"
)

// RatioSpec says what [Ratios] compares: along Axis (may be empty), each
// value of By against By=Baseline, in Unit.
type RatioSpec struct{ Axis, By, Baseline, Unit string }

// PointRatio is one point's paired ratio value/baseline.
type PointRatio struct {
	X string `json:"x"` // the axis value; without an axis, the rest of the name ("" when none)
	analysis.Ratio
}

// Comparison is one series' By=Value against By=Baseline: the paired
// per-round ratio at every point with its interval, and their paired
// geomean.
type Comparison struct {
	Config   string       `json:"config,omitempty"`
	Series   string       `json:"series"` // the name without the axis and By parts
	Name     string       `json:"name"`   // the compared series' name, without the axis part
	By       string       `json:"by"`
	Value    string       `json:"value"`
	Baseline string       `json:"baseline"`
	Unit     string       `json:"unit"`
	Points   []PointRatio `json:"points"`
	Geomean  PointRatio   `json:"geomean"` // X is empty
	// Below, Above and Same count the points whose interval lies wholly
	// below 1, wholly above 1, or holds 1 (or has no interval).
	Below int `json:"below"`
	Above int `json:"above"`
	Same  int `json:"same"`
	// Better and Worse read the geomean in the unit's direction: its
	// interval excludes 1 on the side that is an improvement, or the
	// other.
	Better bool `json:"better"`
	Worse  bool `json:"worse"`
}

// GeomeanRow is one By value's paired geomean ratio to the baseline
// across every point of every series of a config.
type GeomeanRow struct {
	Config   string     `json:"config,omitempty"`
	Value    string     `json:"value"`
	Baseline string     `json:"baseline"`
	Unit     string     `json:"unit"`
	Points   int        `json:"points"`
	Geomean  PointRatio `json:"geomean"`
	Better   bool       `json:"better"` // the geomean is an improvement in the unit's direction
	Worse    bool       `json:"worse"`
}

type ratioGroup struct {
	config, series string
	at             map[string]map[string]*analysis.Sample // by value → point → sample
}

// groups collects the samples of rs.Unit that carry rs.By.
func groups(samples []*analysis.Sample, rs RatioSpec) []*ratioGroup {
	index := map[string]*ratioGroup{}
	var out []*ratioGroup
	for _, s := range samples {
		if s.Unit != rs.Unit {
			continue
		}
		v, ok := s.Value(rs.By)
		if !ok {
			continue
		}
		cfg := s.Config
		var series, x string
		switch {
		case rs.By == "config":
			cfg = ""
			series = s.Name.Without(rs.Axis)
			if rs.Axis != "" {
				series = s.Name.Without(rs.Axis)
				x, _ = s.Value(rs.Axis)
			}
		case rs.Axis != "":
			xv, ok := s.Value(rs.Axis)
			if !ok {
				continue
			}
			series, x = s.Name.Without(rs.Axis, rs.By), xv
		default:
			rest := s.Name.Without(rs.By)
			series = s.Name.Base
			x = strings.TrimPrefix(strings.TrimPrefix(rest, s.Name.Base), "/")
		}
		k := cfg + "\x00" + series
		g := index[k]
		if g == nil {
			g = &ratioGroup{config: cfg, series: series, at: map[string]map[string]*analysis.Sample{}}
			index[k] = g
			out = append(out, g)
		}
		if g.at[v] == nil {
			g.at[v] = map[string]*analysis.Sample{}
		}
		g.at[v][x] = s
	}
	return out
}

// Ratios compares, per series and point, each value of rs.By with
// rs.Baseline: the paired ratio value/baseline within rounds
// ([analysis.Options.Paired]) and its geomean across the series' points
// ([analysis.Options.Geomean]). Series are in config and name order,
// values and points in natural order.
func Ratios(samples []*analysis.Sample, rs RatioSpec, opt analysis.Options) []Comparison {
	if rs.By == "" || rs.Baseline == "" {
		return nil
	}
	var out []Comparison
	values := valueOrder(samples, rs.By, rs.Baseline)
	for _, g := range groups(samples, rs) {
		base := g.at[rs.Baseline]
		if base == nil {
			continue
		}
		for _, v := range values {
			other := g.at[v]
			if other == nil {
				continue
			}
			c := Comparison{Config: g.config, Series: g.series, By: rs.By, Value: v, Baseline: rs.Baseline, Unit: rs.Unit}
			var pairs [][2]map[int]float64
			for _, x := range pointOrder(other) {
				b := base[x]
				if b == nil {
					continue
				}
				if c.Name == "" {
					c.Name = other[x].Name.Without(rs.Axis)
				}
				num, den := other[x].ByRound(), b.ByRound()
				r := opt.Paired(num, den)
				c.Points = append(c.Points, PointRatio{X: x, Ratio: r})
				switch {
				case r.HasInterval() && r.Hi < 1:
					c.Below++
				case r.HasInterval() && r.Lo > 1:
					c.Above++
				default:
					c.Same++
				}
				pairs = append(pairs, [2]map[int]float64{num, den})
			}
			if !slices.ContainsFunc(c.Points, func(p PointRatio) bool { return p.N > 0 }) {
				continue // no round with positive values on both sides (B/op of 0, say)
			}
			c.Geomean = PointRatio{Ratio: opt.Geomean(pairs)}
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Comparison) int {
		return cmp.Or(cmp.Compare(a.Config, b.Config), analysis.CompareNames(a.Series, b.Series), cmp.Compare(slices.Index(values, a.Value), slices.Index(values, b.Value)))
	})
	return out
}

// Geomeans is each value of rs.By against rs.Baseline across every point of
// every series, per config: the paired geomean of all those ratios.
func Geomeans(samples []*analysis.Sample, rs RatioSpec, opt analysis.Options) []GeomeanRow {
	if rs.By == "" || rs.Baseline == "" {
		return nil
	}
	type key struct{ config, value string }
	pairs := map[key][][2]map[int]float64{}
	var order []key
	values := valueOrder(samples, rs.By, rs.Baseline)
	for _, g := range groups(samples, rs) {
		base := g.at[rs.Baseline]
		if base == nil {
			continue
		}
		for _, v := range values {
			for x, s := range g.at[v] {
				if b := base[x]; b != nil {
					k := key{g.config, v}
					if _, seen := pairs[k]; !seen {
						order = append(order, k)
					}
					pairs[k] = append(pairs[k], [2]map[int]float64{s.ByRound(), b.ByRound()})
				}
			}
		}
	}
	slices.SortStableFunc(order, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.config, b.config), cmp.Compare(slices.Index(values, a.value), slices.Index(values, b.value)))
	})
	var out []GeomeanRow
	for _, k := range order {
		g := opt.Geomean(pairs[k])
		if g.N == 0 {
			continue // no round with every pair positive
		}
		out = append(out, GeomeanRow{Config: k.config, Value: k.value, Baseline: rs.Baseline, Unit: rs.Unit, Points: len(pairs[k]), Geomean: PointRatio{Ratio: g}})
	}
	return out
}

// valueOrder lists the values of by other than the baseline, in natural
// order.
func valueOrder(samples []*analysis.Sample, by, baseline string) []string {
	var vals []string
	for _, v := range AxisOrder(samples, by) {
		if v != baseline {
			vals = append(vals, v)
		}
	}
	return vals
}

// pointOrder lists a group's points in natural order.
func pointOrder(m map[string]*analysis.Sample) []string {
	xs := make([]string, 0, len(m))
	for x := range m {
		xs = append(xs, x)
	}
	return analysis.NaturalOrder(xs)
}

// ConfigRatios compares every cell of each config with the same cell of
// the run's first config.
type ConfigRatios struct {
	Unit   string
	Base   string
	Others []string
	Rows   []ConfigRow
	// Geomeans is each other config's paired geomean over the cells it
	// shares with Base.
	Geomeans []analysis.Ratio
}

// ConfigRow is one cell: its ratio to Base in each other config; Has[i]
// is false when config Others[i] has no such cell.
type ConfigRow struct {
	Cell   string
	Ratios []analysis.Ratio
	Has    []bool
}

func (f *Run) configRatios() *ConfigRatios {
	unit := f.MainUnit
	byConfig := map[string]map[string]*analysis.Sample{}
	var configs []string
	for _, s := range f.Samples {
		if s.Unit != unit {
			continue
		}
		if byConfig[s.Config] == nil {
			byConfig[s.Config] = map[string]*analysis.Sample{}
			configs = append(configs, s.Config)
		}
		byConfig[s.Config][s.Name.Full] = s
	}
	if len(configs) < 2 {
		return nil
	}
	slices.SortStableFunc(configs, f.ConfigOrder)
	cr := &ConfigRatios{Unit: unit, Base: configs[0], Others: configs[1:]}
	var names []string
	for name := range byConfig[cr.Base] {
		for _, c := range cr.Others {
			if byConfig[c][name] != nil {
				names = append(names, name)
				break
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.SortStableFunc(names, analysis.CompareNames)
	pairs := make([][][2]map[int]float64, len(cr.Others))
	for _, name := range names {
		row := ConfigRow{Cell: name}
		base := byConfig[cr.Base][name]
		for i, c := range cr.Others {
			s := byConfig[c][name]
			if s == nil {
				row.Ratios = append(row.Ratios, analysis.Ratio{})
				row.Has = append(row.Has, false)
				continue
			}
			num, den := s.ByRound(), base.ByRound()
			row.Ratios = append(row.Ratios, f.Opt.Paired(num, den))
			row.Has = append(row.Has, true)
			pairs[i] = append(pairs[i], [2]map[int]float64{num, den})
		}
		cr.Rows = append(cr.Rows, row)
	}
	for i := range cr.Others {
		cr.Geomeans = append(cr.Geomeans, f.Opt.Geomean(pairs[i]))
	}
	return cr
}

// Scaling is throughput and scaling efficiency along the spec's scaling
// axis, per config and series.
type Scaling struct {
	Key    string
	Procs  []int
	Series []ScalingSeries
}

// ScalingSeries is one series of one config along the scaling axis.
type ScalingSeries struct {
	Config, Name string
	At           map[int]ScalingPoint
}

// ScalingPoint is a series at one GOMAXPROCS: throughput 1/median sec/op
// and efficiency sec/op(1)/(P·sec/op(P)) paired within rounds (HasEff is
// false at P = 1 or without a P = 1 cell).
type ScalingPoint struct {
	Throughput float64
	Eff        analysis.Ratio
	HasEff     bool
}

// procsOf returns the GOMAXPROCS of a sample along the scaling key and the
// name of its series: the name without that key.
func procsOf(s *analysis.Sample, key string) (int, string, bool) {
	if key == "procs" {
		n := s.Name
		p := n.Procs
		n.Procs = 1
		return p, n.Without(), true
	}
	v, ok := s.Value(key)
	if !ok {
		return 0, "", false
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 1 {
		return 0, "", false
	}
	return p, s.Name.Without(key), true
}

func (f *Run) scaling() *Scaling {
	if f.Spec == nil || f.Spec.Analysis.Scaling == "" {
		return nil
	}
	key := f.Spec.Analysis.Scaling
	sc := &Scaling{Key: key}
	samples := map[string]map[int]*analysis.Sample{}
	index := map[string]int{}
	for _, s := range f.Samples {
		if s.Unit != "sec/op" {
			continue
		}
		p, name, ok := procsOf(s, key)
		if !ok {
			continue
		}
		k := s.Config + "\x00" + name
		if _, ok := index[k]; !ok {
			index[k] = len(sc.Series)
			sc.Series = append(sc.Series, ScalingSeries{Config: s.Config, Name: name, At: map[int]ScalingPoint{}})
			samples[k] = map[int]*analysis.Sample{}
		}
		samples[k][p] = s
		if !slices.Contains(sc.Procs, p) {
			sc.Procs = append(sc.Procs, p)
		}
	}
	if len(sc.Series) == 0 {
		return nil
	}
	slices.Sort(sc.Procs)
	for k, i := range index {
		one := samples[k][1]
		for p, s := range samples[k] {
			pt := ScalingPoint{Throughput: math.NaN()}
			if c := f.Summary(s).Center; c > 0 {
				pt.Throughput = 1 / c
			}
			if p != 1 && one != nil {
				r := f.Opt.Paired(one.ByRound(), s.ByRound())
				scale := 1 / float64(p)
				r.Ratio, r.Lo, r.Hi = r.Ratio*scale, r.Lo*scale, r.Hi*scale
				pt.Eff, pt.HasEff = r, true
			}
			sc.Series[i].At[p] = pt
		}
	}
	slices.SortStableFunc(sc.Series, func(a, b ScalingSeries) int {
		if a.Config != b.Config {
			return f.ConfigOrder(a.Config, b.Config)
		}
		return analysis.CompareNames(a.Name, b.Name)
	})
	return sc
}
