package main

import (
	"cmp"
	"math"
	"slices"

	"github.com/perflab/perflab/analysis"
)

// layoutKey is one build of a layouts measurement.
type layoutKey struct {
	Bench string
	Align int
	Side  string
}

// layoutEst splits one build's log time into components.
type layoutEst struct {
	layoutKey
	Layouts, Rounds int
	Median          float64 // sec/op, over every process used
	// Layout is the between-layout SD, Process the SD of one process
	// about its layout's and round's effects, Round the rounds' SD
	// (drift every binary of a round shares): a two-way analysis of
	// variance (layout × round) of log time on the complete rounds.
	// Layout's interval is the F/χ²-based one (anova.rowSD), Process's a
	// jackknife over rounds; Round has no interval.
	Layout, Process estimate
	Round           float64
}

func (r layoutRow) layoutKey() layoutKey { return layoutKey{r.Bench, r.Align, r.Side} }

// byKey groups the timed layout rows: build → layout → round → sec/op
// (the first row of a layout and round, should there be two).
func byKey(rows []layoutRow) map[layoutKey]map[int64]map[int]float64 {
	g := map[layoutKey]map[int64]map[int]float64{}
	for _, r := range rows {
		if r.Unit != unitTime {
			continue
		}
		k := r.layoutKey()
		if g[k] == nil {
			g[k] = map[int64]map[int]float64{}
		}
		if g[k][r.Layout] == nil {
			g[k][r.Layout] = map[int]float64{}
		}
		if _, ok := g[k][r.Layout][r.Round]; !ok {
			g[k][r.Layout][r.Round] = r.Value
		}
	}
	return g
}

// completeRounds lists the rounds every layout of m has, in order.
func completeRounds(m map[int64]map[int]float64) []int {
	var rounds []int
	for r := range m[sortedKeys(m)[0]] {
		all := true
		for _, byRound := range m {
			_, ok := byRound[r]
			all = all && ok
		}
		if all {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	return rounds
}

// estimateLayouts splits every build's log time into components; builds
// with fewer than two layouts or two complete rounds are left out.
func estimateLayouts(rows []layoutRow) []layoutEst {
	var out []layoutEst
	for k, m := range byKey(rows) {
		layouts := sortedKeys(m)
		rounds := completeRounds(m)
		if len(layouts) < 2 || len(rounds) < 2 {
			continue
		}
		y := make([][]float64, len(layouts))
		var all []float64
		for i, l := range layouts {
			for _, r := range rounds {
				y[i] = append(y[i], math.Log(m[l][r]))
				all = append(all, m[l][r])
			}
		}
		a := twoWay(y)
		e := layoutEst{layoutKey: k, Layouts: len(layouts), Rounds: len(rounds), Median: analysis.Median(all),
			Layout: a.rowSD(), Round: math.Sqrt(a.colVar())}
		e.Process = jackknife(len(rounds), func(idx []int) float64 { return math.Log(twoWay(columns(y, idx)).msRes) / 2 })
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b layoutEst) int { return compareKeys(a.layoutKey, b.layoutKey) })
	return out
}

// compareKeys orders builds by benchmark, alignment, then side: base or
// old before new.
func compareKeys(a, b layoutKey) int {
	rank := func(s string) string {
		if s == "new" {
			return "\xff"
		}
		return s
	}
	return cmp.Or(cmp.Compare(a.Bench, b.Bench), cmp.Compare(a.Align, b.Align), cmp.Compare(rank(a.Side), rank(b.Side)))
}

// plantedEst is the change new/old of one benchmark at one alignment.
type plantedEst struct {
	Bench string
	Align int
	// Time is the median over layouts of each layout's median log-ratio
	// new/old (its rounds paired), with the sign test's interval over
	// layouts: layouts are the independent unit.
	Time               analysis.Ratio
	InstrOld, InstrNew float64 // instructions/op; NaN when not measured
}

// estimatePlanted estimates new/old for every benchmark and alignment
// that has both sides.
func estimatePlanted(rows []layoutRow) []plantedEst {
	g := byKey(rows)
	instr := map[layoutKey]float64{}
	for _, r := range rows {
		if r.Unit == unitInstr {
			instr[r.layoutKey()] = r.Value
		}
	}
	var out []plantedEst
	for k, old := range g {
		if k.Side != "old" {
			continue
		}
		nk := layoutKey{k.Bench, k.Align, "new"}
		nw, ok := g[nk]
		if !ok {
			continue
		}
		// Number the (layout, round) pairs so that each layout's rounds
		// form one cluster.
		const stride = 1 << 20
		num, den := map[int]float64{}, map[int]float64{}
		for i, l := range sortedKeys(old) {
			for r, v := range old[l] {
				if w, ok := nw[l][r]; ok && r < stride {
					num[i*stride+r], den[i*stride+r] = w, v
				}
			}
		}
		o := analysis.Options{ClusterOf: func(key int) int { return key / stride }}
		e := plantedEst{Bench: k.Bench, Align: k.Align, Time: analysis.PairedLogs(o.LogRatios(num, den), level),
			InstrOld: math.NaN(), InstrNew: math.NaN()}
		if v, ok := instr[k]; ok {
			e.InstrOld = v
		}
		if v, ok := instr[nk]; ok {
			e.InstrNew = v
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b plantedEst) int {
		return compareKeys(layoutKey{a.Bench, a.Align, ""}, layoutKey{b.Bench, b.Align, ""})
	})
	return out
}

// sourceEst is one condition's components for one benchmark.
type sourceEst struct {
	Cond  string
	Procs int
	// Process is the SD of a process's value (log of the median of its
	// repetitions) about its condition's mean in its round, with a
	// jackknife interval over rounds; Within the SD of log time between
	// the repetitions of one process (pooled); VarRatio the process
	// variance over base's, its interval a jackknife over rounds left
	// out of both together (paired); Time
	// the condition's level against base's, the median over rounds of
	// the difference of their mean log values with the sign test's
	// interval.
	Process, VarRatio estimate
	Within            float64
	Time              analysis.Ratio
}

// sourceBench is one benchmark's sources table.
type sourceBench struct {
	Bench  string
	Rounds int
	// Round is the SD of the rounds' effects shared by every condition
	// (the drift pairing by round takes out): a two-way analysis of
	// variance (condition × round) of the cells' mean log values; NaN
	// with one condition.
	Round float64
	Conds []sourceEst
}

// estimateSources computes each benchmark's sources table from the
// rounds in which every condition ran at least two processes.
func estimateSources(rows []sourceRow) []sourceBench {
	type cell = []float64 // log values of a condition's processes in one round
	data := map[string]map[string]map[int]cell{}
	within := map[string]map[string]map[int][]float64{} // variances of the log repetitions of a cell's processes
	for _, r := range rows {
		if data[r.Bench] == nil {
			data[r.Bench], within[r.Bench] = map[string]map[int]cell{}, map[string]map[int][]float64{}
		}
		if data[r.Bench][r.Cond] == nil {
			data[r.Bench][r.Cond], within[r.Bench][r.Cond] = map[int]cell{}, map[int][]float64{}
		}
		data[r.Bench][r.Cond][r.Round] = append(data[r.Bench][r.Cond][r.Round], math.Log(analysis.RepeatEstimate(r.Reps)))
		if _, v := meanVar(logs(r.Reps)); !math.IsNaN(v) {
			within[r.Bench][r.Cond][r.Round] = append(within[r.Bench][r.Cond][r.Round], v)
		}
	}
	var out []sourceBench
	for _, bench := range sortedKeys(data) {
		conds := orderConds(sortedKeys(data[bench]))
		var rounds []int
		for r := range data[bench][conds[0]] {
			all := true
			for _, c := range conds {
				all = all && len(data[bench][c][r]) >= 2
			}
			if all {
				rounds = append(rounds, r)
			}
		}
		slices.Sort(rounds)
		if len(rounds) < 2 {
			continue
		}
		// processVar is condition c's pooled variance about its cells'
		// means over the rounds picked.
		processVar := func(c string, idx []int) float64 {
			ss, df := 0.0, 0
			for _, i := range idx {
				x := data[bench][c][rounds[i]]
				_, v := meanVar(x)
				ss += v * float64(len(x)-1)
				df += len(x) - 1
			}
			return ss / float64(df)
		}
		means := make([][]float64, len(conds)) // condition × round
		for i, c := range conds {
			for _, r := range rounds {
				m, _ := meanVar(data[bench][c][r])
				means[i] = append(means[i], m)
			}
		}
		b := sourceBench{Bench: bench, Rounds: len(rounds), Round: math.NaN()}
		if len(conds) >= 2 {
			b.Round = math.Sqrt(twoWay(means).colVar())
		}
		for i, c := range conds {
			e := sourceEst{Cond: c, Within: math.NaN()}
			var w []float64
			for _, r := range rounds {
				e.Procs += len(data[bench][c][r])
				w = append(w, within[bench][c][r]...)
			}
			e.Process = jackknife(len(rounds), func(idx []int) float64 { return math.Log(processVar(c, idx)) / 2 })
			if conds[0] == "base" {
				e.VarRatio = jackknife(len(rounds), func(idx []int) float64 { return math.Log(processVar(c, idx) / processVar("base", idx)) })
				d := make([]float64, len(rounds))
				for j := range rounds {
					d[j] = means[i][j] - means[0][j]
				}
				e.Time = analysis.PairedLogs(d, level)
			} else {
				e.VarRatio = estimate{math.NaN(), math.NaN(), math.NaN()}
				e.Time = analysis.PairedLogs(nil, level)
			}
			if len(w) > 0 {
				m, _ := meanVar(w)
				e.Within = math.Sqrt(m)
			}
			b.Conds = append(b.Conds, e)
		}
		out = append(out, b)
	}
	return out
}

// orderConds puts the known conditions first, in conditionOrder, then
// any others in the order given.
func orderConds(conds []string) []string {
	var out []string
	for _, c := range conditionOrder {
		if slices.Contains(conds, c) {
			out = append(out, c)
		}
	}
	for _, c := range conds {
		if !slices.Contains(conditionOrder, c) {
			out = append(out, c)
		}
	}
	return out
}
