package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
)

// scaling writes two sections computed from the samples: "Scaling"
// (throughput and scaling efficiency per config along the spec's
// analysis.scaling axis, when it names one) and "Configs compared" (each
// config's cells against the same cells of the spec's first config, when
// more than one config has samples).
func (m *md) scaling() {
	m.scalingTable()
	m.configRatios()
}

// ratioCI is num/den for two cells: the median of the within-round ratios
// with its interval when both cells have at least six rounds in common
// (rounds interleave the cells, so a round's ratio cancels the drift both
// saw), else the ratio of the medians with the conservative interval of
// the quotient.
type ratioCI struct {
	Mid, Lo, Hi float64
	Paired      int // rounds paired; 0 when unpaired
}

func cellRatio(num, den *analysis.Sample, scale float64, opt analysis.Options) (ratioCI, bool) {
	a, b := num.ByRound(), den.ByRound()
	var rs []float64
	for r, x := range a {
		if y, ok := b[r]; ok && y != 0 {
			rs = append(rs, scale*x/y)
		}
	}
	if len(rs) >= 6 {
		s := analysis.Summarize(rs, opt)
		return ratioCI{Mid: s.Center, Lo: s.Lo, Hi: s.Hi, Paired: len(rs)}, true
	}
	n, d := analysis.Summarize(num.Values, opt), analysis.Summarize(den.Values, opt)
	if !(d.Center > 0) || math.IsNaN(n.Center) {
		return ratioCI{}, false
	}
	r := ratioCI{Mid: scale * n.Center / d.Center, Lo: math.NaN(), Hi: math.NaN()}
	if d.Lo > 0 && !math.IsInf(n.Lo, 0) && !math.IsInf(d.Hi, 0) && !math.IsNaN(n.Lo) {
		r.Lo, r.Hi = scale*n.Lo/d.Hi, scale*n.Hi/d.Lo
	}
	return r, true
}

func (r ratioCI) String() string {
	if math.IsNaN(r.Lo) || math.IsNaN(r.Hi) || math.IsInf(r.Lo, 0) || math.IsInf(r.Hi, 0) {
		return fmt.Sprintf("%.3g [?]", r.Mid)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g]", r.Mid, r.Lo, r.Hi)
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

// scalingTable writes throughput and scaling efficiency per config and
// GOMAXPROCS.
func (m *md) scalingTable() {
	sp := m.in.Spec
	if sp == nil || sp.Analysis.Scaling == "" {
		return
	}
	key := sp.Analysis.Scaling
	type series struct {
		config, name string
		at           map[int]*analysis.Sample
	}
	var all []*series
	index := map[string]*series{}
	var procs []int
	for _, s := range m.in.Samples {
		if s.Unit != "sec/op" {
			continue
		}
		p, name, ok := procsOf(s, key)
		if !ok {
			continue
		}
		k := s.Config + "\x00" + name
		se := index[k]
		if se == nil {
			se = &series{config: s.Config, name: name, at: map[int]*analysis.Sample{}}
			index[k] = se
			all = append(all, se)
		}
		se.at[p] = s
		if !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
	}
	if len(all) == 0 {
		return
	}
	slices.Sort(procs)
	slices.SortStableFunc(all, func(a, b *series) int {
		if c := strings.Compare(a.config, b.config); c != 0 {
			return configOrder(m.in, a.config, b.config)
		}
		return analysis.CompareNames(a.name, b.name)
	})
	m.p("## Scaling along %s\n\n", key)
	m.p("Throughput is operations per second of the whole process, 1 / median sec/op. Efficiency is throughput(P) / (P × throughput(1)) for the same series and config: the median over rounds of sec/op(1) / (P × sec/op(P)) measured in the same round, with its %.0f%% interval; 1 is perfect scaling, below 1/P is slower than one P.\n\n", m.in.Opt.Confidence*100)
	config := "\x00"
	for _, se := range all {
		if se.config != config {
			if config != "\x00" {
				m.p("\n")
			}
			config = se.config
			if config != "" {
				m.p("Config `%s`:\n\n", config)
			}
			m.p("| series \\ %s |", esc(key))
			for _, p := range procs {
				m.p(" %d |", p)
			}
			m.p("\n|---|%s\n", strings.Repeat("---|", len(procs)))
		}
		m.p("| %s |", esc(se.name))
		one := se.at[1]
		for _, p := range procs {
			s := se.at[p]
			if s == nil {
				m.p(" |")
				continue
			}
			sum := analysis.Summarize(s.Values, m.in.Opt)
			cell := "—"
			if sum.Center > 0 {
				cell = benchunit.Scale(1/sum.Center, benchunit.Decimal) + "/s"
			}
			if p != 1 && one != nil {
				if r, ok := cellRatio(one, s, 1/float64(p), m.in.Opt); ok {
					cell += " · eff " + r.String()
				}
			}
			m.p(" %s |", cell)
		}
		m.p("\n")
	}
	m.p("\n")
}

// configOrder orders config names as the spec lists them.
func configOrder(in *Input, a, b string) int {
	pos := func(name string) int {
		for i, c := range in.Configs {
			if c.Name == name {
				return i
			}
		}
		return len(in.Configs)
	}
	if c := pos(a) - pos(b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// configRatios writes each cell's ratio of the main unit between every
// config and the first config.
func (m *md) configRatios() {
	unit := m.in.mainUnit()
	byConfig := map[string]map[string]*analysis.Sample{}
	var configs []string
	for _, s := range m.in.Samples {
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
		return
	}
	slices.SortStableFunc(configs, func(a, b string) int { return configOrder(m.in, a, b) })
	base, others := configs[0], configs[1:]
	var names []string
	for name := range byConfig[base] {
		for _, c := range others {
			if byConfig[c][name] != nil {
				names = append(names, name)
				break
			}
		}
	}
	if len(names) == 0 {
		return
	}
	slices.SortStableFunc(names, analysis.CompareNames)
	m.p("## Configs compared with %s (%s)\n\n", base, unit)
	m.p("Each config's %s divided by `%s`'s for the same cell: the median of the per-round ratios (rounds interleave every cell of every config) with its %.0f%% interval. Below 1 means less %s than `%s`; **bold** when the interval excludes 1. Each config's build and exec settings are in the environment table above.\n\n", unit, base, m.in.Opt.Confidence*100, unit, base)
	m.p("| cell |")
	for _, c := range others {
		m.p(" %s |", esc(c))
	}
	m.p("\n|---|%s\n", strings.Repeat("---|", len(others)))
	for _, name := range names {
		m.p("| %s |", esc(name))
		for _, c := range others {
			s := byConfig[c][name]
			if s == nil {
				m.p(" |")
				continue
			}
			r, ok := cellRatio(s, byConfig[base][name], 1, m.in.Opt)
			switch {
			case !ok:
				m.p(" — |")
			case r.Lo > 1 || r.Hi < 1:
				m.p(" **%s** |", r)
			default:
				m.p(" %s |", r)
			}
		}
		m.p("\n")
	}
	m.p("\n")
}

// fmtPct formats a fraction as a percentage with three significant digits.
func fmtPct(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x*100, 'g', 3, 64) + "%"
}
