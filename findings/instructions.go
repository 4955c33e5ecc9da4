package findings

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/store"
)

// topFuncs is how many functions each instructions comparison lists.
const topFuncs = 5

// InstrRow is one comparison of instructions per op: a cell against the
// first sibling of its benchmark, or against the first config.
type InstrRow struct {
	Name, Config, Label string
	Summary             analysis.Summary     // the cell's instructions/op
	Ratio               analysis.Ratio       // paired within rounds
	Funcs               *cachegrind.FuncDiff // nil without per-function counts
}

// instructions computes the instructions comparisons of a run: nil when
// it did not measure instructions. problems lists per-function files that
// could not be read.
func instructions(f *Run) (rows []InstrRow, problems []string) {
	var samples []*analysis.Sample
	for _, s := range f.Samples {
		if s.Unit == cachegrind.UnitInstructions {
			samples = append(samples, s)
		}
	}
	if len(samples) == 0 {
		return nil, nil
	}
	funcs, problems := funcMedians(f.Artifacts)
	for _, p := range instructionPairs(f, samples) {
		row := InstrRow{Name: p.num.Name.Full, Config: p.numConfig, Label: p.label,
			Summary: f.Summary(p.num), Ratio: f.Opt.Paired(p.num.ByRound(), p.den.ByRound())}
		old, new := funcs[p.denConfig][p.den.Name.Full], funcs[p.numConfig][p.num.Name.Full]
		if old != nil && new != nil {
			d := cachegrind.Changes(old, new, topFuncs, 0.01)
			row.Funcs = &d
		}
		rows = append(rows, row)
	}
	return rows, problems
}

// cellPair is a comparison of two cells' instructions per op: siblings of
// one benchmark in one config, or one cell in two configs.
type cellPair struct {
	label     string // how the pair is shown: "v=b / v=a" or "cfg-b / cfg-a"
	num, den  *analysis.Sample
	numConfig string
	denConfig string
}

// instructionPairs lists the comparisons the instructions section makes:
// within each config, every cell of a benchmark against the first of its
// siblings along the spec's "by" key (or the last level of the name); and
// every cell of every config against the first config.
func instructionPairs(in *Run, samples []*analysis.Sample) []cellPair {
	by := ""
	if in.Spec != nil {
		by = in.Spec.Analysis.By
	}
	groups := map[string][]*analysis.Sample{}
	var order []string
	for _, s := range samples {
		key := by
		if key == "" && len(s.Name.Parts) > 0 {
			key = s.Name.Parts[len(s.Name.Parts)-1].Key
		}
		if key == "" {
			continue
		}
		if _, ok := s.Name.Value(key); !ok {
			continue
		}
		g := s.Config + "\x00" + s.Name.Without(key) + "\x00" + key
		if groups[g] == nil {
			order = append(order, g)
		}
		groups[g] = append(groups[g], s)
	}
	var pairs []cellPair
	for _, g := range order {
		ss := groups[g]
		slices.SortStableFunc(ss, func(a, b *analysis.Sample) int { return analysis.CompareNames(a.Name.Full, b.Name.Full) })
		key := g[strings.LastIndexByte(g, 0)+1:]
		for _, s := range ss[1:] {
			nv, _ := s.Name.Value(key)
			dv, _ := ss[0].Name.Value(key)
			pairs = append(pairs, cellPair{label: fmt.Sprintf("%s=%s / %s=%s", key, nv, key, dv), num: s, den: ss[0], numConfig: s.Config, denConfig: ss[0].Config})
		}
	}
	var configs []string
	for _, s := range samples {
		if !slices.Contains(configs, s.Config) {
			configs = append(configs, s.Config)
		}
	}
	if len(configs) > 1 {
		rank := func(c string) int {
			for i, x := range in.Configs {
				if x.Name == c {
					return i
				}
			}
			return len(in.Configs)
		}
		slices.SortStableFunc(configs, func(a, b string) int { return rank(a) - rank(b) })
		base := map[string]*analysis.Sample{}
		for _, s := range samples {
			if s.Config == configs[0] {
				base[s.Name.Full] = s
			}
		}
		for _, s := range samples {
			if d := base[s.Name.Full]; d != nil && s.Config != configs[0] {
				pairs = append(pairs, cellPair{label: fmt.Sprintf("%s / %s", s.Config, configs[0]), num: s, den: d, numConfig: s.Config, denConfig: configs[0]})
			}
		}
	}
	return pairs
}

// funcMedians reads a run's per-function counts from its artifacts: config
// → benchmark full name → function → median instructions per op (nil when
// it has none); problems lists the files that could not be read.
func funcMedians(artifacts []store.Artifact) (map[string]map[string]map[string]float64, []string) {
	paths := map[string][]string{}
	for _, a := range artifacts {
		if a.Kind == cachegrind.ArtifactKind {
			paths[a.Config] = append(paths[a.Config], a.Path)
		}
	}
	out := map[string]map[string]map[string]float64{}
	var problems []string
	for cfg, ps := range paths {
		m, err := cachegrind.FuncMedians(ps...)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		out[cfg] = m
	}
	slices.Sort(problems)
	return out, problems
}
