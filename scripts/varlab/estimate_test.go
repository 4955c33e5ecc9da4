package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/perflab/perflab/analysis"
)

// sourceWorld plants a sources measurement's components: per condition a
// process SD (scale × the noise's) and a level, round effects shared by
// every condition, and Gaussian noise between one process's repetitions.
type sourceWorld struct {
	conds         []string
	scale, level  []float64
	round, within float64
	rounds, procs int
	reps          int
	noise         noiseKind
}

func (w sourceWorld) rows(rng *rand.Rand) []sourceRow {
	var rows []sourceRow
	for r := 1; r <= w.rounds; r++ {
		re := w.round * rng.NormFloat64()
		for c, cond := range w.conds {
			for p := 1; p <= w.procs; p++ {
				u := w.scale[c] * w.noise.draw(rng)
				reps := make([]float64, w.reps)
				for k := range reps {
					reps[k] = 1e-6 * math.Exp(w.level[c]+re+u+w.within*rng.NormFloat64())
				}
				rows = append(rows, sourceRow{Bench: "BenchmarkX", Cond: cond, Round: r, Proc: p, Iters: 100, Reps: reps})
			}
		}
	}
	return rows
}

// processVar is the true variance of a condition's process value: its
// noise plus the median's share of the repetitions' noise.
func (w sourceWorld) processVar(c int) float64 {
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 200_000
	med := make([]float64, n)
	x := make([]float64, w.reps)
	for i := range med {
		for k := range x {
			x[k] = w.within * rng.NormFloat64()
		}
		med[i] = analysis.Median(x)
	}
	_, v := meanVar(med)
	return sq(w.scale[c]*w.noise.sd) + v
}

// TestSourcesRecover: on generated rounds with planted components, the
// process variance, the variance within a process and the rounds'
// variance are recovered on average (within four standard errors), the
// ratio of each condition's process variance to base's is covered by its
// jackknife interval in about 90% of measurements, and the level against
// base by its sign-test interval in at least about 90%.
func TestSourcesRecover(t *testing.T) {
	for _, w := range []sourceWorld{
		{conds: []string{"base", "pin0", "envpad"}, scale: []float64{1, 0.5, 1.2}, level: []float64{0, 0.03, 0},
			round: 0.08, within: 0.02, rounds: 20, procs: 6, reps: 5, noise: gaussian(0.1)},
		{conds: []string{"base", "noaslr"}, scale: []float64{1, 0.7}, level: []float64{0, -0.02},
			round: 0.08, within: 0.03, rounds: 20, procs: 6, reps: 5, noise: recorded(t)},
	} {
		const worlds = 1000
		rng := rand.New(rand.NewPCG(7, 8))
		n := len(w.conds)
		procVar, withinVar, ratioIn, timeIn := make([][]float64, n), make([][]float64, n), make([]int, n), make([]int, n)
		var roundVar []float64
		truth := make([]float64, n)
		for c := range truth {
			truth[c] = w.processVar(c)
		}
		for range worlds {
			b := estimateSources(w.rows(rng))
			if len(b) != 1 || len(b[0].Conds) != n || b[0].Rounds != w.rounds {
				t.Fatalf("estimates %+v: want one benchmark of %d conditions over %d rounds", b, n, w.rounds)
			}
			roundVar = append(roundVar, sq(b[0].Round))
			for c, e := range b[0].Conds {
				if e.Cond != w.conds[c] || e.Procs != w.rounds*w.procs {
					t.Fatalf("condition %d: %s of %d processes, want %s of %d", c, e.Cond, e.Procs, w.conds[c], w.rounds*w.procs)
				}
				procVar[c] = append(procVar[c], sq(e.Process.V))
				withinVar[c] = append(withinVar[c], sq(e.Within))
				if r := truth[c] / truth[0]; e.VarRatio.Lo <= r && r <= e.VarRatio.Hi {
					ratioIn[c]++
				}
				if lv := math.Exp(w.level[c]); c > 0 && e.Time.Lo <= lv && lv <= e.Time.Hi {
					timeIn[c]++
				}
			}
		}
		check := func(what string, got []float64, truth float64) {
			m, v := meanVar(got)
			if se := math.Sqrt(v / worlds); math.Abs(m-truth) > 4*se {
				t.Errorf("%s noise: mean %s %.3g, truth %.3g (SE %.2g)", w.noise.name, what, m, truth, se)
			}
		}
		check("round variance", roundVar, sq(w.round))
		for c, cond := range w.conds {
			check(cond+" process variance", procVar[c], truth[c])
			check(cond+" within-process variance", withinVar[c], sq(w.within))
			if c == 0 {
				continue
			}
			cov, tcov := float64(ratioIn[c])/worlds, float64(timeIn[c])/worlds
			t.Logf("%s noise, %s: variance ratio interval covers %.3f, time interval %.3f", w.noise.name, cond, cov, tcov)
			if cov < 0.86 || cov > 0.94 {
				t.Errorf("%s noise, %s: variance ratio interval covered %.3f, want 0.86–0.94", w.noise.name, cond, cov)
			}
			if tcov < 0.88 {
				t.Errorf("%s noise, %s: time interval covered %.3f, want at least 0.88", w.noise.name, cond, tcov)
			}
		}
	}
}

// layoutRows generates a layouts measurement of one benchmark at one
// alignment: for each side its own layouts (effects of SD layout), round
// effects shared by every binary of a round, process noise; new is
// ratio × old.
func layoutRows(rng *rand.Rand, sides []string, layouts, rounds int, layout, round, ratio float64, noise noiseKind) []layoutRow {
	le := map[string][]float64{}
	for _, s := range sides {
		for range layouts {
			le[s] = append(le[s], layout*rng.NormFloat64())
		}
	}
	var rows []layoutRow
	for r := 1; r <= rounds; r++ {
		re := round * rng.NormFloat64()
		for _, s := range sides {
			lvl := 0.0
			if s == "new" {
				lvl = math.Log(ratio)
			}
			for l := range layouts {
				v := 1e-6 * math.Exp(lvl+le[s][l]+re+noise.draw(rng))
				rows = append(rows, layoutRow{Bench: "BenchmarkX", Side: s, Layout: int64(l + 1), Round: r, Iters: 100, Value: v, Unit: unitTime})
			}
		}
	}
	return rows
}

// TestPlantedCovered: the planted change's sign-test interval over
// layouts covers the planted ratio in at least about 90% of measurements,
// with layout effects, round drift and recorded noise.
func TestPlantedCovered(t *testing.T) {
	for _, c := range []struct {
		layouts, rounds int
		layout          float64
		noise           noiseKind
	}{
		{10, 15, 0.03, gaussian(0.1)},
		{10, 15, 0.05, recorded(t)},
		{16, 5, 0.02, bursts(t)},
	} {
		rng := rand.New(rand.NewPCG(9, 10))
		const worlds = 600
		in := 0
		for range worlds {
			p := estimatePlanted(layoutRows(rng, []string{"old", "new"}, c.layouts, c.rounds, c.layout, 0.03, 1.05, c.noise))
			if len(p) != 1 || p[0].Time.N != c.layouts {
				t.Fatalf("estimates %+v: want one of %d layouts", p, c.layouts)
			}
			if p[0].Time.Lo <= 1.05 && 1.05 <= p[0].Time.Hi {
				in++
			}
		}
		cov := float64(in) / worlds
		t.Logf("%s noise, %d layouts × %d rounds: covers %.3f", c.noise.name, c.layouts, c.rounds, cov)
		if cov < 0.88 {
			t.Errorf("%s noise, %d layouts: the planted change's interval covered %.3f, want at least 0.88", c.noise.name, c.layouts, cov)
		}
	}
}

// TestLayoutsUseCompleteRounds: a round in which one layout's process is
// missing (a measurement interrupted in its middle) is left out of that
// build's table, and the estimates are those of the complete table.
func TestLayoutsUseCompleteRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	rows := layoutRows(rng, []string{"base"}, 4, 6, 0.05, 0.02, 1, gaussian(0.05))
	full := estimateLayouts(rows)
	cut := slices.DeleteFunc(slices.Clone(rows), func(r layoutRow) bool { return r.Round == 6 })
	partial := append(slices.Clone(cut), rows[len(rows)-2]) // one process of round 6
	if len(full) != 1 || full[0].Rounds != 6 || full[0].Layouts != 4 {
		t.Fatalf("full table: %+v", full)
	}
	a, b := estimateLayouts(cut), estimateLayouts(partial)
	if len(b) != 1 || b[0].Rounds != 5 || a[0] != b[0] {
		t.Errorf("with round 6 incomplete: %+v, want the estimates without it %+v", b, a)
	}
}
