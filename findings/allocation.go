package findings

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/store"
)

// LayoutChoice is the rounds a layout should serve from the next round of
// a sequential run on, and what the choice rests on.
type LayoutChoice struct {
	Per int
	// Layout and Noise are the medians over the compared ratios of the
	// layout component's SD and the per-round noise's SD within a layout
	// (analysis.LayoutSpread, log scale); Rows how many ratios had both.
	Layout, Noise float64
	Rows          int
	Link, Round   time.Duration
	// Predicted and Realised are the medians over those ratios of the SD
	// the clusters of the phase now ending were predicted to have (layout
	// and noise at the rounds a layout served then) and the SD their
	// cluster log-ratios had (1.4826 × their median absolute deviation),
	// over Clusters clusters; Clusters 0 when the phase has fewer than 4.
	Predicted, Realised float64
	Clusters            int
}

// ChoosePerLayout chooses how many rounds a layout serves from now on in
// the sequential run runID, whose rounds so far shared layouts in
// clusters: for each compared ratio, the variance components its clusters
// show (analysis.Options.LayoutSpread) give Cochran's optimum
// (analysis.PerLayout) at the given costs of a cluster's links and of a
// round; the choice is the median over the ratios. A run whose clusters
// cannot yet tell layout from noise (fewer than three clusters of two
// rounds) keeps cur.
func ChoosePerLayout(ctx context.Context, db *store.DB, runID int64, link, round time.Duration, cur, maxPer int) (LayoutChoice, error) {
	run, s, cells, results, err := readJudged(ctx, db, runID)
	if err != nil {
		return LayoutChoice{}, err
	}
	if run.Plan.Decide == nil {
		return LayoutChoice{}, fmt.Errorf("run %d is not sequential", runID)
	}
	opt := sequentialOptions(run.Plan)
	samples := analysis.Collect(results)
	pairs, _ := comparedPairs(cells, s.Analysis.By, s.Analysis.Baseline)
	// The ratios still open: the rounds to come run their cells alone.
	items, _ := sequentialItems(run.Plan, s, cells, samples)
	open := map[string]bool{}
	for _, it := range items {
		if !it.Decided {
			for _, c := range it.Cells {
				open[c.String()] = true
			}
		}
	}
	from := 1 // the first round of the phase now ending
	if l := run.Plan.Layout; l != nil && len(l.Phases) > 0 {
		from = l.Phases[len(l.Phases)-1].From
	}
	unit := run.Plan.Decide.Unit
	var ks []int
	var lays, noises, predicted, realised []float64
	clusters := 0
	for _, pr := range pairs {
		if len(open) > 0 && !(open[cells[pr[0]].String()] && open[cells[pr[1]].String()]) {
			continue
		}
		num, den := sampleOf(samples, cells[pr[0]], unit), sampleOf(samples, cells[pr[1]], unit)
		if num == nil || den == nil {
			num, den = sampleOf(samples, cells[pr[0]], "sec/op"), sampleOf(samples, cells[pr[1]], "sec/op")
		}
		if num == nil || den == nil {
			continue
		}
		l, ok := opt.LayoutSpread(num.ByRound(), den.ByRound())
		if !ok {
			continue
		}
		ks = append(ks, analysis.PerLayout(l.SD*l.SD, l.Noise*l.Noise, link, round, maxPer))
		lays, noises = append(lays, l.SD), append(noises, l.Noise)
		if lr := phaseLogRatios(opt, num.ByRound(), den.ByRound(), from); len(lr) >= 4 {
			predicted = append(predicted, math.Sqrt(l.SD*l.SD+l.Noise*l.Noise/float64(max(1, cur))))
			realised = append(realised, 1.4826*analysis.MAD(lr))
			clusters = max(clusters, len(lr))
		}
	}
	c := LayoutChoice{Per: cur, Rows: len(ks), Link: link, Round: round, Layout: math.NaN(), Noise: math.NaN()}
	if len(ks) == 0 {
		return c, nil
	}
	slices.Sort(ks)
	c.Per = ks[len(ks)/2]
	c.Layout, c.Noise = analysis.Median(lays), analysis.Median(noises)
	if len(realised) > 0 {
		c.Predicted, c.Realised, c.Clusters = analysis.Median(predicted), analysis.Median(realised), clusters
	}
	return c, nil
}

// phaseLogRatios are the cluster log-ratios of num against den whose
// rounds all lie at or after round from (the clusters of one phase).
func phaseLogRatios(opt analysis.Options, num, den map[int]float64, from int) []float64 {
	n, d := map[int]float64{}, map[int]float64{}
	for r, v := range num {
		if r >= from {
			n[r] = v
		}
	}
	for r, v := range den {
		if r >= from {
			d[r] = v
		}
	}
	return opt.LogRatios(n, d)
}

// sampleOf is the sample of cell c in unit u (procs aside), or nil.
func sampleOf(samples []*analysis.Sample, c plan.Cell, u string) *analysis.Sample {
	for _, sm := range samples {
		if sm.Unit == u && sm.Config == c.Config && sm.Package == c.Package && sm.Name.Cell() == c.Name() {
			return sm
		}
	}
	return nil
}
