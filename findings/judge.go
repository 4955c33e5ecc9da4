package findings

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Judging a run while it samples.
//
// The engine runs rounds and asks, from the rounds stored so far, what is
// still open: after each round of a sequential run, and after the planned
// rounds of a run of fixed rounds with follow-up rounds (the first look).
// [JudgeSequential] and [JudgeFirstLook] answer from the stored run, with
// the rules its analysis uses, so that what made a run stop sampling is
// what every output shows afterwards ([Run.Sequential]). (ab.Judge hands
// their answers to the engine.)

// InitialRounds is a sequential run's initial pass: the fewest rounds
// with an anytime-valid interval.
const InitialRounds = analysis.AnytimeMinRounds

// InitialRoundsFor is the initial pass of a sequential run that compares
// up to ratios ratios in a unit: each is judged at 1 − α/ratios, and the
// confidence sequence gives an interval at that level only after this
// many observations (more than InitialRounds from 8 ratios up), so a
// shorter pass could decide none of them.
func InitialRoundsFor(ratios int) int { return InitialRoundsAt(ratios, 0) }

// InitialRoundsAt is InitialRoundsFor for a run that decides at error rate
// alpha (0 → 0.05): each ratio is judged at 1 − alpha/ratios.
func InitialRoundsAt(ratios int, alpha float64) int {
	opt := sequentialOptions(store.Plan{Decide: &store.Decide{Alpha: alpha}})
	c := 1 - (1-opt.Confidence)/float64(max(1, ratios))
	return max(InitialRounds, analysis.AnytimeFirstInterval(c, opt.AnytimeTarget, 1000))
}

// FixedRoundsAt is the fewest observations a run of fixed rounds that
// compares up to ratios ratios in a unit needs for any of them to get an
// interval, each judged at 1 − alpha/ratios (alpha 0 → 0.05).
func FixedRoundsAt(ratios int, alpha float64) int {
	if !(alpha > 0 && alpha < 1) {
		alpha = analysis.DefaultAlpha
	}
	return analysis.FixedFirstInterval(1 - alpha/float64(max(1, ratios)))
}

// DecidePrecision: without a precision asked for, a compared ratio of a
// sequential run is decided when its interval excludes 1 or is no wider
// than ±1%.
const DecidePrecision = 0.01

// sequentialOptions are the options a sequential run's sampling is judged
// with, given its plan: anytime-valid confidence sequences at the α the
// run decided at (store.Decide.Alpha; 0.05 for runs that did not record
// one), whatever α a report of the run is later asked for, since they
// decided when it stopped; the rule of its claims is the one its analysis
// applies (Sampling.Options).
func sequentialOptions(p store.Plan) analysis.Options {
	alpha := analysis.DefaultAlpha
	if p.Decide != nil && p.Decide.Alpha > 0 && p.Decide.Alpha < 1 {
		alpha = p.Decide.Alpha
	}
	return Sampling{Sequential: true, Initial: p.Rounds, PerLayout: perLayout(p), ClusterOf: p.ClusterOf()}.Options(analysis.Options{Alpha: alpha, Confidence: 1 - alpha})
}

// Judged is a counted claim check or a compared ratio of a run, judged on
// the rounds stored so far. In a sequential run it is one whose interval
// is a confidence sequence: only those keep sampling going or end it.
type Judged struct {
	Label   string      // "T1 check 1" or "T1.1" (checks), "BenchmarkW v=b/a (sec/op)" (ratios)
	Cells   []plan.Cell // the cells it reads
	Decided bool
	More    int // the further rounds it likely needs to be decided; -1 unknown
	// AtLeast marks More as a lower bound: the rounds until the first
	// interval, before there are enough to estimate from.
	AtLeast bool
	// MoreLo and MoreHi, when MoreHi > 0, are an 80% predictive range of
	// the further rounds (a compared ratio's forecast,
	// analysis.ForecastDecision), More its median; MoreOpen says the
	// range's high end lies past the forecast's horizon, so the range is
	// MoreLo or more.
	MoreLo, MoreHi int
	MoreOpen       bool
	// LeftOut: the run's budget left out a cell it reads, which then ran
	// no more (store.Failure.LeftOut).
	LeftOut bool

	// Check is a claim check's result; nil for a compared ratio.
	Check *claim.CheckResult

	// A compared ratio: Samples says both cells have samples in Unit;
	// then Ratio is the paired ratio over N rounds, with an interval
	// [Lo, Hi] of relative half-width HalfWidth when HasInterval (an
	// interval needs MinRounds rounds).
	Unit                  string
	Samples               bool
	Ratio, Lo, Hi         float64
	HalfWidth             float64
	N, MinRounds          int
	HasInterval, Excludes bool // Excludes: the interval excludes 1
	Decision              RatioDecision
	Precision             float64 // the half-width Decision refers to (RatioWithin, RatioEqual)
}

// RatioDecision is how a compared ratio of a sequential run was decided.
type RatioDecision int

// The decisions on a compared ratio.
const (
	RatioOpen    RatioDecision = iota // undecided
	RatioWithin                       // its half-width reached the precision asked for
	RatioDiffers                      // its interval excludes 1 and clears every gate limit
	RatioEqual                        // its interval lies within ±EquivalenceBand
)

// HasCountedChecks reports whether the spec has claim checks that more
// rounds can decide: a run of fixed rounds of it takes a first look.
func HasCountedChecks(s *spec.Spec) bool { return len(countedChecks(s)) > 0 }

// countedChecks are the spec's checks that more rounds can decide.
func countedChecks(s *spec.Spec) []spec.Check {
	var out []spec.Check
	for _, c := range s.Claims {
		if c.NotTestable != "" {
			continue
		}
		for _, ch := range c.Checks {
			if claim.Counted(ch) {
				out = append(out, ch)
			}
		}
	}
	return out
}

// JudgeSequential judges a sequential run's counted claim checks that
// have a confidence sequence and its compared ratios, with anytime-valid
// intervals (see [Run.Sequential]); its other counted checks are no
// items: they neither keep sampling going nor end it.
func JudgeSequential(ctx context.Context, db *store.DB, runID int64) ([]Judged, error) {
	run, s, cells, results, err := readJudged(ctx, db, runID)
	if err != nil {
		return nil, err
	}
	if run.Plan.Decide == nil {
		return nil, fmt.Errorf("run %d is not sequential: its plan says nothing of how it decides", runID)
	}
	items, _ := sequentialItems(run.Plan, s, cells, analysis.Collect(wholeClusters(run.Plan, results)))
	return items, nil
}

// wholeClusters leaves out, for a run split into shards that relink
// layouts, the rounds of clusters another shard has not finished yet: a
// shard looks where its own cluster ends, and a look must see every
// cluster whole (a partial one judged now and revised later is a look the
// confidence sequence's guarantee does not cover). A run on one machine
// looks only where its clusters end, so it keeps every round.
func wholeClusters(p store.Plan, results []*benchfmt.Result) []*benchfmt.Result {
	of := p.ClusterOf()
	if p.Shards <= 1 || of == nil {
		return results
	}
	n := p.Shards
	size := map[int]map[int]bool{} // cluster → its stored rounds
	want := map[int]int{}          // cluster → the rounds it holds when whole
	for _, r := range results {
		round, err := strconv.Atoi(r.GetConfig("round"))
		if err != nil || round < 1 {
			continue
		}
		c := of(round)
		if size[c] == nil {
			size[c] = map[int]bool{}
			want[c] = p.Layout.Per((round-1)/n + 1)
		}
		size[c][round] = true
	}
	out := make([]*benchfmt.Result, 0, len(results))
	for _, r := range results {
		round, err := strconv.Atoi(r.GetConfig("round"))
		if err == nil && round >= 1 && len(size[of(round)]) < want[of(round)] {
			continue
		}
		out = append(out, r)
	}
	return out
}

// JudgeFirstLook judges a run of fixed rounds' counted claim checks on its
// planned rounds, as the first of its two looks does
// (claim.LookOptions): the checks it leaves undecided get follow-up
// rounds.
func JudgeFirstLook(ctx context.Context, db *store.DB, runID int64) ([]Judged, error) {
	run, s, cells, results, err := readJudged(ctx, db, runID)
	if err != nil {
		return nil, err
	}
	return firstLookItems(run.Plan, s, cells, results), nil
}

// readJudged reads what judging a run needs: the run, its spec, its cells
// and its results so far.
func readJudged(ctx context.Context, db *store.DB, runID int64) (*store.Run, *spec.Spec, []plan.Cell, []*benchfmt.Result, error) {
	run, err := db.GetRun(ctx, runID)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	s, err := spec.Parse(cmp.Or(run.SpecPath, "spec.toml"), []byte(run.SpecText))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("run %d's stored spec: %w", runID, err)
	}
	cells, err := runCells(run, s)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	results, err := db.Results(ctx, runID)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return run, s, cells, results, nil
}

// runCells are the cells of a stored run: those its plan lists, or its
// spec's for the mode it ran in.
func runCells(run *store.Run, s *spec.Spec) ([]plan.Cell, error) {
	if run.Plan.Cells != nil {
		out := make([]plan.Cell, len(run.Plan.Cells))
		for i, c := range run.Plan.Cells {
			out[i] = plan.Cell(c)
		}
		return out, nil
	}
	p, err := plan.ForSpec(s, cmp.Or(run.Plan.Mode, run.Mode), 0, 0)
	if err != nil {
		return nil, fmt.Errorf("run %d's cells: %w", run.ID, err)
	}
	return p.Cells, nil
}

// sequentialItems judges, on samples, a sequential run of plan p
// (p.Decide set): every counted check whose interval is a confidence
// sequence (claim.CheckResult.Sequence), and the compared ratios (all of
// them under a precision, else only when no counted check has a
// sequence). The counted checks without one are never items: a fixed-n
// interval looked at after every round would stop sampling on chance
// far more often than α. They are judged at two looks when the run is
// analysed (claim.LookRule); fixed labels them.
func sequentialItems(p store.Plan, s *spec.Spec, cells []plan.Cell, samples []*analysis.Sample) (items []Judged, fixed []string) {
	opt := sequentialOptions(p)
	eachCounted(s, samples, opt, func(c claim.Result, i int, ch spec.Check, cr claim.CheckResult) {
		label := fmt.Sprintf("%s check %d", c.ID, i+1)
		if !cr.Sequence {
			fixed = append(fixed, label)
			return
		}
		deps := claim.DependsOn(ch, cells, samples)
		items = append(items, Judged{Label: label, Cells: pick(cells, deps), Check: &cr,
			Decided: cr.Verdict != claim.Inconclusive, More: checkMore(cr, roundsOf(samples, deps, cells))})
	})
	if d := *p.Decide; d.Precision > 0 || len(items) == 0 {
		pairs, by := comparedPairs(cells, s.Analysis.By, s.Analysis.Baseline)
		items = append(items, comparisons(d, opt, samples, cells, pairs, by, nextPer(p))...)
	}
	return items, fixed
}

// firstLookItems judges every counted check at the first look.
func firstLookItems(p store.Plan, s *spec.Spec, cells []plan.Cell, results []*benchfmt.Result) []Judged {
	// Every stored round is a planned one here: the first look's options
	// judge them as the analysis will.
	first, _ := claim.LookOptions(Sampling{PerLayout: perLayout(p), ClusterOf: p.ClusterOf()}.Options(analysis.DefaultOptions()))
	samples := analysis.Collect(results)
	var out []Judged
	eachCounted(s, samples, first, func(c claim.Result, i int, ch spec.Check, cr claim.CheckResult) {
		it := Judged{Label: fmt.Sprintf("%s.%d", c.ID, i+1), Check: &cr, More: -1,
			Decided: cr.Verdict == claim.Reproduced || cr.Verdict == claim.Contradicted}
		if !it.Decided {
			it.Cells = pick(cells, claim.DependsOn(ch, cells, samples))
		}
		out = append(out, it)
	})
	return out
}

// eachCounted evaluates the spec's claims and calls f with each counted,
// testable check.
func eachCounted(s *spec.Spec, samples []*analysis.Sample, opt analysis.Options, f func(c claim.Result, i int, ch spec.Check, cr claim.CheckResult)) {
	for _, c := range claim.Evaluate(s.Claims, samples, opt) {
		sc := s.Claims[claimIndex(s.Claims, c.ID)]
		for i, cr := range c.Checks {
			if i >= len(sc.Checks) {
				break
			}
			if !claim.Counted(sc.Checks[i]) || cr.Verdict == claim.NotTestable {
				continue
			}
			f(c, i, sc.Checks[i], cr)
		}
	}
}

func claimIndex(cs []spec.Claim, id string) int {
	for i, c := range cs {
		if c.ID == id {
			return i
		}
	}
	return 0
}

// pick returns the cells at the given indexes.
func pick(cells []plan.Cell, idx []int) []plan.Cell {
	out := make([]plan.Cell, 0, len(idx))
	for _, i := range idx {
		out = append(out, cells[i])
	}
	return out
}

// checkMore estimates the further rounds a claim check needs: its interval
// shrinks like 1/√n, and it is decided once its half-width is below the
// distance of its estimate from the threshold.
func checkMore(cr claim.CheckResult, n int) int {
	if cr.Verdict != claim.Inconclusive || n == 0 || !(cr.Estimate > 0 && cr.Lo > 0 && cr.Hi > 0 && cr.Threshold > 0) {
		return -1
	}
	hw := (math.Log(cr.Hi) - math.Log(cr.Lo)) / 2
	dist := math.Abs(math.Log(cr.Estimate) - math.Log(cr.Threshold))
	if dist == 0 {
		return -1
	}
	need := float64(n) * (hw / dist) * (hw / dist)
	return max(1, int(math.Ceil(need))-n)
}

// roundsOf is the number of rounds in which the first of cells has samples.
func roundsOf(samples []*analysis.Sample, cells []int, all []plan.Cell) int {
	best := 0
	for _, ci := range cells {
		for _, sm := range samples {
			if sm.Config == all[ci].Config && sm.Package == all[ci].Package && sm.Name.Cell() == all[ci].Name() {
				best = max(best, len(sm.Values))
			}
		}
	}
	return best
}

// nextPer is the rounds a layout serves in a run of plan p from now on
// (its last phase's; 1 for a run that relinks none), which turns the
// further layout clusters a ratio needs into rounds.
func nextPer(p store.Plan) int {
	if p.Layout == nil {
		return 1
	}
	return p.Layout.Per(math.MaxInt32)
}

// comparisons judges each compared pair of cells in the unit d decides on.
func comparisons(d store.Decide, opt analysis.Options, samples []*analysis.Sample, cells []plan.Cell, pairs [][2]int, byKey string, per int) []Judged {
	type key struct{ config, pkg, name string }
	idx := map[string]map[key][]*analysis.Sample{}
	for _, sm := range samples {
		if sm.Unit == d.Unit || sm.Unit == "sec/op" {
			k := key{sm.Config, sm.Package, sm.Name.Cell()}
			if idx[sm.Unit] == nil {
				idx[sm.Unit] = map[key][]*analysis.Sample{}
			}
			idx[sm.Unit][k] = append(idx[sm.Unit][k], sm)
		}
	}
	// Each ratio is judged at 1 − α/m for the m ratios of its unit
	// (Bonferroni, as Paired's tables print them), so a row stopped early
	// is decided in the tables too, under optional stopping and any
	// dependence between rows.
	type job struct {
		label, unit string
		num, den    *analysis.Sample
		cells       []plan.Cell
	}
	var jobs []job
	m := map[string]int{}
	var out []Judged
	for _, pr := range pairs {
		nc, dc := cells[pr[0]], cells[pr[1]]
		unit := d.Unit
		nums, dens := idx[unit][key{nc.Config, nc.Package, nc.Name()}], idx[unit][key{dc.Config, dc.Package, dc.Name()}]
		if (len(nums) == 0 || len(dens) == 0) && !d.UnitChosen && len(samples) > 0 && roundsOf(samples, []int{pr[0]}, cells) >= InitialRounds {
			// No values in the default unit for this pair (instructions
			// not counted for it): wall time.
			unit = "sec/op"
			nums, dens = idx[unit][key{nc.Config, nc.Package, nc.Name()}], idx[unit][key{dc.Config, dc.Package, dc.Name()}]
		}
		label := pairLabel(nc, dc, byKey)
		both := []plan.Cell{nc, dc}
		if len(nums) == 0 || len(dens) == 0 {
			out = append(out, Judged{Label: label + " (" + unit + ")", Cells: both, Unit: unit, More: -1, MinRounds: InitialRounds})
			continue
		}
		for _, num := range nums {
			for _, den := range dens {
				if num.Name.Procs != den.Name.Procs {
					continue
				}
				l := label
				if len(nums) > 1 {
					l += fmt.Sprintf(" procs=%d", num.Name.Procs)
				}
				jobs = append(jobs, job{l, unit, num, den, both})
				m[unit]++
			}
		}
	}
	for _, j := range jobs {
		o := opt
		o.Confidence = 1 - (1-opt.Confidence)/float64(m[j.unit])
		out = append(out, judgeRatio(d, o, j.label, j.unit, j.num, j.den, j.cells, per))
	}
	return out
}

// judgeRatio judges one ratio num/den with the confidence sequence.
func judgeRatio(d store.Decide, opt analysis.Options, label, unit string, num, den *analysis.Sample, cells []plan.Cell, per int) Judged {
	lr := opt.LogRatios(num.ByRound(), den.ByRound())
	r := opt.PairedLogs(lr)
	// N and More count rounds; with shared layouts, lr has one value a
	// cluster of rounds: the initial pass's clusters of opt.PerLayout
	// rounds, the further ones of per.
	rounds := len(analysis.LogRatios(num.ByRound(), den.ByRound()))
	per = max(1, per)
	// The fewest observations the confidence sequence gives an interval
	// at, at this ratio's level (1 − α/m): more than InitialRounds when
	// many rows share the unit.
	first := analysis.AnytimeFirstInterval(opt.Confidence, opt.AnytimeTarget, 100000)
	it := Judged{Label: label + " (" + unit + ")", Cells: cells, Unit: unit, Samples: true, More: -1,
		Ratio: r.Ratio, Lo: r.Lo, Hi: r.Hi, HalfWidth: r.HalfWidth(), N: rounds, MinRounds: first * max(1, opt.PerLayout),
		HasInterval: r.HasInterval(), Excludes: r.Excludes(1)}
	target := d.Precision
	switch it.Decision = decideRatio(d, r); it.Decision {
	case RatioWithin:
		it.Precision = d.Precision
	case RatioEqual:
		it.Precision = EquivalenceBand
	}
	it.Decided = it.Decision != RatioOpen
	if d.Precision <= 0 {
		target = math.Max(DecidePrecision, math.Abs(math.Log(r.Ratio)))
	}
	switch {
	case it.Decided:
	case len(lr) < analysis.AnytimeMinRounds:
		// Too few observations to extrapolate their spread from: the
		// rounds to the first interval, a lower bound (More counts
		// them as the least it needs).
		it.More, it.AtLeast = (first-len(lr))*per, true
	default:
		f := forecastMore(lr, d, opt, target)
		it.More, it.MoreLo, it.MoreHi, it.MoreOpen = f.Median*per, f.Lo*per, f.Hi*per, f.Open
	}
	return it
}

// decideRatio is the rule a sequential run decides a compared ratio by,
// from its interval r.
func decideRatio(d store.Decide, r analysis.Ratio) RatioDecision {
	switch {
	case d.Precision > 0 && r.HalfWidth() <= d.Precision:
		return RatioWithin
	case d.Precision > 0, !clearsLimits(r, d.GateRatios):
		// A gate's limit inside the interval: the gate cannot tell yet.
		return RatioOpen
	case r.Excludes(1):
		return RatioDiffers
	case r.HasInterval() && r.Lo >= 1/(1+EquivalenceBand) && r.Hi <= 1+EquivalenceBand:
		return RatioEqual
	}
	return RatioOpen
}

// forecastHorizon is how far past the current rounds, as a multiple of
// them, a forecast simulates the rule (analysis.ForecastDecision).
const forecastHorizon = 40

// forecastMore predicts the further observations a compared ratio needs
// to be decided by decideRatio: the median of the simulated paths and
// their 80% range, counted from now. When the median path has not
// decided within forecastHorizon times the current observations, the
// range is unknown (0, 0) and the median is the rounds at which the
// half-width reaches target (analysis.RoundsToHalfWidth), at least the
// horizon.
func forecastMore(lr []float64, d store.Decide, opt analysis.Options, target float64) analysis.Forecast {
	n := len(lr)
	limit := forecastHorizon * max(n, analysis.AnytimeMinRounds)
	decided := func(lo, hi float64) bool {
		return decideRatio(d, analysis.Ratio{Lo: math.Exp(lo), Hi: math.Exp(hi)}) != RatioOpen
	}
	f := analysis.ForecastDecision(lr, opt.Confidence, opt.AnytimeTarget, limit, decided)
	if f.Beyond {
		far := analysis.RoundsToHalfWidth(lr, target, opt.Confidence, opt.AnytimeTarget, 100000)
		return analysis.Forecast{Median: max(far, limit) - n, Beyond: true}
	}
	f.Median, f.Lo, f.Hi = f.Median-n, f.Lo-n, f.Hi-n
	return f
}

// clearsLimits reports whether r's interval lies wholly on one side of
// every gate limit (a ratio, e.g. 1.01 for "sec/op>+1%").
func clearsLimits(r analysis.Ratio, limits []float64) bool {
	for _, l := range limits {
		if !r.Excludes(l) {
			return false
		}
	}
	return true
}

// comparedPairs chooses the ratios a sequential run decides besides the
// spec's claims: each cell against its baseline, the cell that differs
// from it only in one key. The key is the spec's analysis "by" key
// (specBy) when the cells carry it, else the config when there are
// several, else the last sub-benchmark key with several values; the
// baseline value is the spec's (specBase) or the first in plan order.
func comparedPairs(cells []plan.Cell, specBy, specBase string) ([][2]int, string) {
	configs := map[string]bool{}
	values := map[string]map[string]bool{}
	var keys []string
	for _, c := range cells {
		configs[c.Config] = true
		for _, l := range c.Levels {
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				continue
			}
			if values[k] == nil {
				values[k] = map[string]bool{}
				keys = append(keys, k)
			}
			values[k][v] = true
		}
	}
	by := ""
	if specBy == "config" && len(configs) > 1 || specBy != "" && len(values[specBy]) > 1 {
		by = specBy
	} else {
		specBase = ""
	}
	if by == "" && len(configs) > 1 {
		by = "config"
	}
	for i := len(keys) - 1; i >= 0 && by == ""; i-- {
		if len(values[keys[i]]) > 1 {
			by = keys[i]
		}
	}
	if by == "" {
		return nil, ""
	}
	return pairsBy(cells, by, specBase), by
}

// pairsBy pairs each cell with the baseline cell of its group: same cell
// but for the value of key by (or the config); the baseline has value
// baseline, or is the group's first cell when baseline is empty.
func pairsBy(cells []plan.Cell, by, baseline string) [][2]int {
	group := func(c plan.Cell) (string, string) {
		if by == "config" {
			return c.Package + "\x00" + c.Name(), c.Config
		}
		var rest []string
		val := ""
		for _, l := range c.Levels {
			if k, v, ok := strings.Cut(l, "="); ok && k == by {
				val = v
				continue
			}
			rest = append(rest, l)
		}
		return c.Package + "\x00" + c.Bench + "/" + strings.Join(rest, "/") + "@" + c.Config, val
	}
	base := map[string]int{}
	for i, c := range cells {
		g, v := group(c)
		if _, ok := base[g]; v != "" && (v == baseline || baseline == "" && !ok) {
			base[g] = i
		}
	}
	var out [][2]int
	for i, c := range cells {
		g, v := group(c)
		if b, ok := base[g]; ok && v != "" && b != i {
			out = append(out, [2]int{i, b})
		}
	}
	return out
}

// pairLabel names a compared pair, e.g. "BenchmarkW v=b/a" or
// "gogc-off/default BenchmarkX/n=1".
func pairLabel(num, den plan.Cell, by string) string {
	if by == "config" {
		return fmt.Sprintf("%s/%s %s", num.Config, den.Config, cellName(num))
	}
	val := func(c plan.Cell) string {
		for _, l := range c.Levels {
			if k, v, ok := strings.Cut(l, "="); ok && k == by {
				return v
			}
		}
		return ""
	}
	rest := strings.Join(slices.DeleteFunc(slices.Clone(num.Levels), func(l string) bool { return strings.HasPrefix(l, by+"=") }), "/")
	name := num.Bench
	if rest != "" {
		name += "/" + rest
	}
	return fmt.Sprintf("%s %s=%s/%s", name, by, val(num), val(den))
}

// Sequential is how a sequential run's sampling ended, and each of its
// counted checks with a confidence sequence and compared ratios as judged
// on all its rounds — what made it stop.
type Sequential struct {
	Stop   store.Stop
	Decide store.Decide
	Bursts int // rounds flagged as noise bursts (kept in every statistic)
	Items  []Judged
	// Fixed labels the counted checks without a confidence sequence, which
	// neither kept sampling going nor ended it: the claims judge them at
	// two looks, after the initial pass (Initial rounds) and at the end.
	Fixed   []string
	Initial int
}

// sequentialOf is a run's Sequential, or nil for a run that was not
// sampled sequentially, has not stopped sampling, or was stored by a
// version that did not record how it decided.
func sequentialOf(in *Input) (*Sequential, error) {
	if in.Run == nil || in.Spec == nil || !in.Run.Plan.Sequential || in.Run.Plan.Decide == nil || in.Run.Plan.Stop.Round == 0 {
		return nil, nil
	}
	cells, err := runCells(in.Run, in.Spec)
	if err != nil {
		return nil, err
	}
	items, fixed := sequentialItems(in.Run.Plan, in.Spec, cells, analysis.Collect(in.Results))
	left := map[string]bool{}
	for _, f := range in.Failures {
		if f.LeftOut() {
			left[f.Config+"\x00"+f.Cell] = true
		}
	}
	for i := range items {
		for _, c := range items[i].Cells {
			if left[c.Config+"\x00"+c.Name()] {
				items[i].LeftOut = true
			}
		}
	}
	return &Sequential{Stop: in.Run.Plan.Stop, Decide: *in.Run.Plan.Decide, Bursts: len(BurstRounds(in.Env, in.Rounds)),
		Items: items, Fixed: fixed, Initial: in.Run.Plan.Rounds}, nil
}

// cellName is a cell's benchmark name, followed by its package when it
// names one (a run over several packages).
func cellName(c plan.Cell) string { return qualified(c.Package, c.Name()) }
