package findings

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/revision"
	"github.com/perflab/perflab/store"
)

// A bisect (perflab bisect) stores each step's rounds as a run whose
// configs are the step's commits by role; a step interrupted and continued
// has two runs, whose rounds are pooled. The runs carry env keys naming
// the bisect and the step's commits, so a killed bisect is resumed from
// the store and every step is a run like any other for report, compare,
// serve and history.

// Config names of a step's commits. A midpoint step runs the midpoint
// twice in every round (BisectMid and BisectMidAgain, two processes of
// one binary), so its per-round contrast log(MID·MID'/(GOOD·BAD)) is a
// difference of two sums of two samples each: symmetric about the true
// contrast whatever the shape of the noise (one-sided bursts, skew), as
// long as it hits every cell alike in distribution. Its median is then
// the contrast itself, and so is its mean. A step deciding on
// instructions/op runs the midpoint once: counts carry no one-sided
// noise, and valgrind's time is most of a round's.
const (
	BisectGood     = "good"      // the current end like GOOD (lo)
	BisectMid      = "mid"       // the midpoint
	BisectMidAgain = "mid-again" // the midpoint's second process in the round
	BisectBad      = "bad"       // the current end like BAD (hi)
)

// Env keys of a bisect step's run.
const (
	BisectKey      = "bisect"      // the bisect's ID (BisectID)
	BisectStepKey  = "bisect-step" // the step's number
	BisectLoKey    = "bisect-good" // full hash of the step's lo commit
	BisectMidKey   = "bisect-mid"  // full hash of its midpoint ("" for the endpoints)
	BisectHiKey    = "bisect-bad"  // full hash of its hi commit
	bisectRoundGap = 1_000_000     // pooled runs' rounds are offset by multiples of this
)

// BisectRule is how a bisect's steps are judged.
type BisectRule struct {
	Unit      string  // the unit decided on (sec/op, cpu-sec/op, instructions/op)
	Bench     string  // the benchmark decided on (name without the -N suffix); "" for the geomean of all
	MinEffect float64 // GOOD and BAD must differ by more than this fraction
	Up        bool    // midpoint steps: BAD lies above GOOD
}

// BisectStep is one step of a bisect computed from its stored rounds.
type BisectStep struct {
	bisect.Step
	Runs       []int64
	Rounds     int     // rounds in which every decided-on cell was measured
	Confidence float64 // level of the two-sided intervals (bisect.Confidence of the step's α)
	Unit       string
	Bench      string // the benchmark decided on; "" for the geomean
	// Decisive is the interval the verdict rests on: BAD/GOOD for the
	// endpoints, the contrast MID·MID'/(GOOD·BAD) for a midpoint
	// (bisect's rule, with MID measured twice a round); the roles are the
	// step's lo, mid and hi.
	Decisive analysis.Ratio
	// The decided-on quantity's ratios between the roles (a benchmark's,
	// or the geomean across benchmarks), with the midpoint's first
	// process; MidGood and BadMid are absent (N = 0) for the endpoints.
	BadGood, MidGood, BadMid analysis.Ratio
	// Position is the midpoint's place between lo (0) and hi (1) on the
	// log scale, from the estimates: log(MID/GOOD)/log(BAD/GOOD); NaN
	// for the endpoints.
	Position float64
	Verdict  bisect.Verdict
	Benches  []BisectBench // every benchmark's ratios in the unit decided on
}

// BisectBench is one benchmark's ratios at a step.
type BisectBench struct {
	Name                     string // without the -N suffix
	BadGood, MidGood, BadMid analysis.Ratio
}

// roleMaps are one benchmark's per-round values of each role.
type roleMaps struct {
	name                  string // without the -N suffix or the package
	pkg                   string // its package in a bisect over several; ""
	good, mid, again, bad map[int]float64
}

// fullName names the benchmark for people, with its package when it has
// one: "BenchmarkX (./codec)".
func (b roleMaps) fullName() string {
	if b.pkg != "" {
		return b.name + " (" + b.pkg + ")"
	}
	return b.name
}

// BisectStepOf computes a step from the results of its runs (one slice
// per run, in the order they were made) under rule, at the step's
// confidence with anytime-valid intervals (the rounds were sampled until
// the step decided).
//
// clusterOf gives each run's clusters (store.Plan.ClusterOf; nil, or a
// nil entry, for a run whose rounds are each their own unit): rounds on
// one layout count as one observation (analysis.Options.ClusterOf).
func BisectStepOf(s bisect.Step, runs []int64, results [][]*benchfmt.Result, rule BisectRule, clusterOf []func(int) int) BisectStep {
	st := stepOf(s, roles(analysis.Collect(pool(results)), rule.Unit), rule, pooledClusters(clusterOf))
	st.Runs = runs
	return st
}

// pooledClusters maps a pooled round (pool's numbering) to its cluster in
// its own run, given each run's clusters; nil when no run has clusters.
func pooledClusters(clusterOf []func(int) int) func(int) int {
	if !slices.ContainsFunc(clusterOf, func(f func(int) int) bool { return f != nil }) {
		return nil
	}
	return func(round int) int {
		i, k := round/bisectRoundGap, round%bisectRoundGap
		if i < len(clusterOf) && clusterOf[i] != nil {
			return i*bisectRoundGap + clusterOf[i](k)
		}
		return round
	}
}

// stepOf computes a step from each benchmark's per-round values.
func stepOf(s bisect.Step, benches []roleMaps, rule BisectRule, layoutOf func(int) int) BisectStep {
	st := BisectStep{Step: s, Confidence: bisect.Confidence(s.Alpha), Unit: rule.Unit, Bench: rule.Bench, Position: math.NaN()}
	opt := analysis.Options{Alpha: s.Alpha, Confidence: st.Confidence, Anytime: true, ClusterOf: layoutOf}
	var badGood, midGood, badMid, contrast [][2]map[int]float64
	for _, b := range benches {
		st.Benches = append(st.Benches, BisectBench{Name: b.fullName(), BadGood: opt.Paired(b.bad, b.good), MidGood: opt.Paired(b.mid, b.good), BadMid: opt.Paired(b.bad, b.mid)})
		if rule.Bench != "" && b.name != rule.Bench {
			continue
		}
		badGood = append(badGood, [2]map[int]float64{b.bad, b.good})
		midGood = append(midGood, [2]map[int]float64{b.mid, b.good})
		badMid = append(badMid, [2]map[int]float64{b.bad, b.mid})
		num, den := contrastMaps(b)
		contrast = append(contrast, [2]map[int]float64{num, den})
	}
	if len(badGood) == 1 {
		// One benchmark decides: its own ratios (a geomean of one is the
		// paired ratio).
		bb := st.Benches[slices.IndexFunc(benches, func(b roleMaps) bool { return rule.Bench == "" || b.name == rule.Bench })]
		st.BadGood, st.MidGood, st.BadMid = bb.BadGood, bb.MidGood, bb.BadMid
	} else {
		st.BadGood, st.MidGood, st.BadMid = opt.Geomean(badGood), opt.Geomean(midGood), opt.Geomean(badMid)
	}
	// Rounds counts rounds, not layouts: the paired count without clusters.
	perRound := analysis.Options{Confidence: st.Confidence, Anytime: true}
	rounds := func(pairs [][2]map[int]float64) int {
		if len(pairs) == 1 {
			return perRound.Paired(pairs[0][0], pairs[0][1]).N
		}
		return perRound.Geomean(pairs).N
	}
	if s.Kind == bisect.Endpoints {
		st.Decisive = st.BadGood
		st.Rounds = rounds(badGood)
		st.Verdict = bisect.DecideEnds(st.Decisive.Lo, st.Decisive.Hi, rule.MinEffect)
		return st
	}
	if len(contrast) == 1 {
		st.Decisive = opt.Paired(contrast[0][0], contrast[0][1])
	} else {
		st.Decisive = opt.Geomean(contrast)
	}
	st.Rounds = rounds(contrast)
	if l := math.Log(st.BadGood.Ratio); l != 0 && !math.IsNaN(l) {
		st.Position = math.Log(st.MidGood.Ratio) / l
	}
	st.Verdict = bisect.DecideMid(st.Decisive.Lo, st.Decisive.Hi, rule.Up)
	return st
}

// contrastMaps are, per round where all four cells were measured,
// MID·MID' and GOOD·BAD: their paired ratio is the contrast
// (MID/GOOD)/(BAD/MID'), as analysis.Options.Contrast forms it, in a
// shape Geomean pools across benchmarks. A step that ran the midpoint
// once uses its one value twice.
func contrastMaps(b roleMaps) (num, den map[int]float64) {
	num, den = map[int]float64{}, map[int]float64{}
	again := b.again
	if again == nil {
		again = b.mid
	}
	for r, m := range b.mid {
		m2, ok0 := again[r]
		g, ok1 := b.good[r]
		h, ok2 := b.bad[r]
		if ok0 && ok1 && ok2 {
			num[r], den[r] = m*m2, g*h
		}
	}
	return num, den
}

// roles groups samples of unit by benchmark (without the -N suffix), in
// the order they first appear, into each role's per-round values; a
// benchmark without the three roles (two for the endpoints) keeps the
// roles it has.
func roles(samples []*analysis.Sample, unit string) []roleMaps {
	var out []roleMaps
	index := map[string]int{}
	for _, sm := range samples {
		if sm.Unit != unit {
			continue
		}
		b := roleMaps{name: sm.Name.Cell(), pkg: sm.Package}
		i, ok := index[b.fullName()]
		if !ok {
			i = len(out)
			index[b.fullName()] = i
			out = append(out, b)
		}
		switch sm.Config {
		case BisectGood:
			out[i].good = sm.ByRound()
		case BisectMid:
			out[i].mid = sm.ByRound()
		case BisectMidAgain:
			out[i].again = sm.ByRound()
		case BisectBad:
			out[i].bad = sm.ByRound()
		}
	}
	return out
}

// pool joins the results of a step's runs, offsetting each later run's
// rounds so rounds of different runs stay apart (a round pairs cells
// measured together).
func pool(results [][]*benchfmt.Result) []*benchfmt.Result {
	if len(results) == 1 {
		return results[0]
	}
	var out []*benchfmt.Result
	for i, rs := range results {
		for _, r := range rs {
			if i > 0 {
				k, err := strconv.Atoi(r.GetConfig("round"))
				if err != nil {
					continue
				}
				r = r.Clone()
				r.SetConfig("round", strconv.Itoa(i*bisectRoundGap+k))
			}
			out = append(out, r)
		}
	}
	return out
}

// LoadBisectStep reads a step's runs and computes it (BisectStepOf).
func LoadBisectStep(ctx context.Context, db *store.DB, s bisect.Step, runs []int64, rule BisectRule) (BisectStep, error) {
	results := make([][]*benchfmt.Result, len(runs))
	clusters := make([]func(int) int, len(runs))
	for i, id := range runs {
		rs, err := db.Results(ctx, id)
		if err != nil {
			return BisectStep{}, fmt.Errorf("reading bisect step %d's run %d: %w", s.Number, id, err)
		}
		run, err := db.GetRun(ctx, id)
		if err != nil {
			return BisectStep{}, fmt.Errorf("reading bisect step %d's run %d: %w", s.Number, id, err)
		}
		results[i], clusters[i] = rs, run.Plan.ClusterOf()
	}
	return BisectStepOf(s, runs, results, rule, clusters), nil
}

// BisectRun is a stored run of a bisect step.
type BisectRun struct {
	ID           int64
	Step         int
	Lo, Mid, Hi  string // full hashes; Mid "" for the endpoints
	Status       string // as store.Run.State reads it: complete, interrupted, …
	RoundsStored int
}

// BisectRuns lists the stored runs of the bisect id, oldest first.
func BisectRuns(ctx context.Context, db *store.DB, id string) ([]BisectRun, error) {
	runs, err := db.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var out []BisectRun
	for _, r := range runs {
		env, err := db.Env(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		kv := map[string]string{}
		for _, e := range env {
			kv[e.Key] = e.Value
		}
		if kv[BisectKey] != id {
			continue
		}
		step, _ := strconv.Atoi(kv[BisectStepKey])
		done, err := db.RoundsDone(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, BisectRun{ID: r.ID, Step: step, Lo: kv[BisectLoKey], Mid: kv[BisectMidKey], Hi: kv[BisectHiKey], Status: r.State(), RoundsStored: len(done)})
	}
	slices.SortFunc(out, func(a, b BisectRun) int { return int(a.ID - b.ID) })
	return out, nil
}

// LatestBisect is the ID of the most recent bisect whose ID starts with
// prefix (the hash of its arguments), or "" when none is stored.
func LatestBisect(ctx context.Context, db *store.DB, prefix string) (string, error) {
	runs, err := db.Runs(ctx)
	if err != nil {
		return "", err
	}
	latest, latestRun := "", int64(-1)
	for _, r := range runs {
		env, err := db.Env(ctx, r.ID)
		if err != nil {
			return "", err
		}
		for _, e := range env {
			if e.Key == BisectKey && strings.HasPrefix(e.Value, prefix) && r.ID > latestRun {
				latest, latestRun = e.Value, r.ID
			}
		}
	}
	return latest, nil
}

// Bisect is a finished (or stopped) bisect: the search's course with
// every step computed from its rounds, the culprit and its effect.
type Bisect struct {
	ID      string
	Package string
	Regex   string // -bench
	Rule    BisectRule
	Alpha   float64 // the search's error rate
	Planned int     // steps α is split across (bisect.Planned)
	// Share is each planned step's share of α (bisect.StepAlpha), and
	// ShareConfidence the level of its two-sided intervals.
	Share, ShareConfidence float64
	History                []revision.CommitInfo
	Steps                  []BisectStep // the measuring steps, in order
	Skips                  []BisectSkip
	Stop                   bisect.Stop
	Lo, Hi                 int   // the culprit is one of History[Lo+1…Hi]
	Culprit                int   // index into History, -1 when not found
	Remaining              []int // the commits between Lo and Hi that were skipped
	// Effect is the decided-on quantity's ratio Hi/Lo (the culprit over
	// its parent when found) from the last step that measured both, at
	// that step's confidence; EffectStep is that step's number (0: none).
	Effect     analysis.Ratio
	EffectStep int
	Others     []BisectEffect // every benchmark's ratio Hi/Lo from the same step
}

// BisectSkip is a commit the search skipped, and why.
type BisectSkip struct {
	Commit int // index into History
	Step   int // the number of the step it was the candidate of (the next measuring step has it)
	Why    bisect.Reason
}

// BisectEffect is one benchmark's ratio between two commits.
type BisectEffect struct {
	Name  string
	Ratio analysis.Ratio
}

// BisectOf assembles a bisect's view from its search result and its
// measuring steps (in the order of the search's records).
func BisectOf(b Bisect, res bisect.Result, steps []BisectStep) *Bisect {
	out := b
	out.Alpha, out.Planned, out.Stop = res.Alpha, res.Planned, res.Stop
	out.Share = bisect.StepAlpha(res.Alpha, res.Planned, 1)
	out.ShareConfidence = bisect.Confidence(out.Share)
	out.Lo, out.Hi, out.Culprit, out.Remaining = res.Lo, res.Hi, res.Culprit(), res.Skipped
	out.Steps = steps
	out.Skips = nil
	for _, r := range res.Records {
		if r.Verdict == bisect.Skip {
			out.Skips = append(out.Skips, BisectSkip{Commit: r.Mid, Step: r.Number, Why: r.Why})
		}
	}
	out.Effect = analysis.Ratio{Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: 1}
	for i := len(steps) - 1; i >= 0 && out.Stop != bisect.NothingToBisect; i-- {
		pick, ok := between(steps[i], res.Lo, res.Hi)
		if !ok {
			continue
		}
		out.Effect, out.EffectStep = pick(steps[i].BadGood, steps[i].MidGood, steps[i].BadMid), steps[i].Number
		out.Others = nil
		for _, bb := range steps[i].Benches {
			out.Others = append(out.Others, BisectEffect{Name: bb.Name, Ratio: pick(bb.BadGood, bb.MidGood, bb.BadMid)})
		}
		break
	}
	return &out
}

// between says which of a step's ratios compares commit hi with commit lo,
// if the step measured both.
func between(s BisectStep, lo, hi int) (func(badGood, midGood, badMid analysis.Ratio) analysis.Ratio, bool) {
	switch {
	case s.Lo == lo && s.Hi == hi:
		return func(bg, _, _ analysis.Ratio) analysis.Ratio { return bg }, true
	case s.Kind == bisect.Midpoint && s.Lo == lo && s.Mid == hi:
		return func(_, mg, _ analysis.Ratio) analysis.Ratio { return mg }, true
	case s.Kind == bisect.Midpoint && s.Mid == lo && s.Hi == hi:
		return func(_, _, bm analysis.Ratio) analysis.Ratio { return bm }, true
	}
	return nil, false
}
