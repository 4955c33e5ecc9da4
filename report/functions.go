package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/cachegrind"
)

// topFuncs is how many functions the report lists per comparison.
const topFuncs = 5

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
func instructionPairs(in *Input, samples []*analysis.Sample) []cellPair {
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
		slices.SortStableFunc(configs, func(a, b string) int { return configOrder(in, a, b) })
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

// funcMedians reads the run's per-function counts: config → benchmark full
// name → function → median instructions per op.
func funcMedians(in *Input) (map[string]map[string]map[string]float64, []string) {
	paths := map[string][]string{}
	for _, a := range in.Artifacts {
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

// instructions writes the "Instructions per op" section: how they were
// counted, each comparison's ratio with its interval, and the functions
// whose counts changed most.
func (m *md) instructions() {
	var samples []*analysis.Sample
	for _, s := range m.in.Samples {
		if s.Unit == cachegrind.UnitInstructions {
			samples = append(samples, s)
		}
	}
	if len(samples) == 0 {
		return
	}
	env := map[string]string{}
	for _, kv := range m.in.Env {
		env[kv.Key] = kv.Value
	}
	m.p("## Instructions per op (Cachegrind)\n\n")
	m.p("Counted under %s: %s. Instruction counts do not see cache and memory stalls, branch mispredictions, contention, I/O or parallel speed-ups; **multi-goroutine benchmarks ran serialised under valgrind** (one thread at a time), so only their instruction counts, not their scaling, are meaningful here. Wall time (sec/op) was measured in the same rounds.\n\n",
		orDash(env["valgrind"]), orDash(env["instructions"]))
	pairs := instructionPairs(m.in, samples)
	if len(pairs) > 0 {
		m.p("Each ratio is paired within rounds (Hodges–Lehmann estimate of the per-round ratios with its %.0f%% signed-rank interval); ± is the interval's half-width on the log scale.\n\n", m.in.Opt.Confidence*100)
		m.p("| cell | config | comparison | instructions/op | ratio | ± |\n|---|---|---|---|---|---|\n")
		for _, p := range pairs {
			r := m.in.Opt.Paired(p.num.ByRound(), p.den.ByRound())
			s := analysis.Summarize(p.num.Values, m.in.Opt)
			ratio, hw := "—", "—"
			switch {
			case r.HasInterval():
				ratio = fmt.Sprintf("%.5g [%.5g, %.5g]", r.Ratio, r.Lo, r.Hi)
				hw = fmt.Sprintf("%.3f%%", 100*r.HalfWidth())
				if r.Excludes(1) {
					ratio = "**" + ratio + "**"
				}
			case r.N > 0:
				ratio = fmt.Sprintf("%.5g (n=%d: no interval)", r.Ratio, r.N)
			}
			m.p("| %s | %s | %s | %s | %s | %s |\n", esc(p.num.Name.Full), esc(p.numConfig), esc(p.label), fmtCount(s), ratio, hw)
		}
		m.p("\n")
	}
	funcs, problems := funcMedians(m.in)
	for _, pr := range problems {
		m.p("Per-function counts could not be read: %s\n\n", esc(pr))
	}
	wrote := false
	for _, p := range pairs {
		old, new := funcs[p.denConfig][p.den.Name.Full], funcs[p.numConfig][p.num.Name.Full]
		if old == nil || new == nil {
			continue
		}
		d := cachegrind.Changes(old, new, topFuncs, 0.01)
		if len(d.Changes) == 0 {
			continue
		}
		if !wrote {
			m.p("### Functions whose instructions changed most\n\n")
			m.p("Per function, the median over rounds of its instructions per op (from the same two-count difference); share = the function's change ÷ the total change, signed.\n\n")
			wrote = true
		}
		m.p("**%s** (%s): %.6g → %.6g instructions/op\n\n", esc(p.num.Name.Full), esc(p.label), d.OldTotal, d.NewTotal)
		m.p("| function | old /op | new /op | Δ /op | share |\n|---|---|---|---|---|\n")
		for _, c := range d.Changes {
			m.p("| `%s` | %.4g | %.4g | %+.4g | %s |\n", c.Func, c.Old, c.New, c.Delta, fmtShare2(c.Share, d))
		}
		m.p("\n")
	}
}

func fmtCount(s analysis.Summary) string {
	if math.IsNaN(s.Lo) || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return fmt.Sprintf("%.6g", s.Center)
	}
	return fmt.Sprintf("%.6g [%.6g, %.6g]", s.Center, s.Lo, s.Hi)
}

// fmtShare2 shows a share of the total change; when the total change is
// below 0.1% of the total, a share means nothing.
func fmtShare2(share float64, d cachegrind.FuncDiff) string {
	if !cachegrind.TotalChanged(d) {
		return "— (total ≈ 0)"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}
