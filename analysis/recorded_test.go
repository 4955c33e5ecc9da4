package analysis

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/internal/noisetest"
)

// Calibration on recorded runs, resampled without sign flips.
//
// Flipping each resampled unit's sign makes a world symmetric about 0,
// and so the sign test exact whatever the recording holds: asymmetry and
// dependence in real rounds could not show. Here recorded clusters and
// rounds are drawn in their recorded order, as blocks:
//
//   - the layout corpus (testdata/layout): a run of C clusters is C
//     consecutive clusters of one recorded run (a run chosen in
//     proportion to its clusters, a start anywhere, wrapping round within
//     the run; longer runs continue with another recorded run, never
//     one drawn already), so the drift between a run's clusters and the
//     rounds that shared a layout come along;
//   - the noise corpus (testdata/noise, internal/noisetest): the A/A pair
//     c/a, a run of C clusters of k rounds is C·k consecutive recorded
//     rounds (wrapping round the 200), each k of them one cluster.
//
// Every cluster of a recording is then (about) equally likely to be any
// draw's, so the world's truth is known: for the rule over clusters the
// median of all the recording's cluster medians (every window of k
// rounds, for the noise corpus), for rounds taken as independent the
// median of all its rounds. Each rule is judged against its own truth:
// a false decision is an interval that excludes it.

// recRun is one recorded run of the layout corpus: its clusters in
// order, each a list of rounds, each round the log-ratio new/old of every
// benchmark.
type recRun [][]map[string]float64

// recording is one file of the layout corpus.
type recording struct {
	name    string
	benches []string
	runs    []recRun
}

// loadRecording reads a layout corpus file (lines in any order, clusters
// numbered across its runs), splitting it into runs where the round
// number starts again.
func loadRecording(t testing.TB, path string) *recording {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recording{name: strings.TrimSuffix(filepath.Base(path), ".csv.gz")}
	byCluster := map[int]map[int]map[string]float64{}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") || strings.HasPrefix(text, "cluster,") {
			continue
		}
		fs := strings.Split(text, ",")
		if len(fs) != 5 {
			t.Fatalf("%s: malformed line %q", path, text)
		}
		cl, err1 := strconv.Atoi(fs[0])
		rd, err2 := strconv.Atoi(fs[1])
		old, err3 := strconv.ParseFloat(fs[3], 64)
		nw, err4 := strconv.ParseFloat(fs[4], 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || old <= 0 || nw <= 0 {
			t.Fatalf("%s: malformed line %q", path, text)
		}
		if !slices.Contains(rec.benches, fs[2]) {
			rec.benches = append(rec.benches, fs[2])
		}
		if byCluster[cl] == nil {
			byCluster[cl] = map[int]map[string]float64{}
		}
		if byCluster[cl][rd] == nil {
			byCluster[cl][rd] = map[string]float64{}
		}
		byCluster[cl][rd][fs[2]] = math.Log(nw) - math.Log(old)
	}
	slices.Sort(rec.benches)
	clusters := make([]int, 0, len(byCluster))
	for c := range byCluster {
		clusters = append(clusters, c)
	}
	slices.Sort(clusters)
	last := 0
	for _, c := range clusters {
		rounds := make([]int, 0, len(byCluster[c]))
		for r := range byCluster[c] {
			rounds = append(rounds, r)
		}
		slices.Sort(rounds)
		if len(rec.runs) == 0 || rounds[0] <= last {
			rec.runs = append(rec.runs, recRun{})
		}
		var cl []map[string]float64
		for _, r := range rounds {
			cl = append(cl, byCluster[c][r])
		}
		run := &rec.runs[len(rec.runs)-1]
		*run = append(*run, cl)
		last = rounds[len(rounds)-1]
	}
	return rec
}

func recordings(t testing.TB) []*recording {
	paths, _ := filepath.Glob(filepath.Join("testdata", "layout", "*.csv.gz"))
	if len(paths) < 2 {
		t.Fatalf("want recordings of two real modules in testdata/layout, found %v", paths)
	}
	var out []*recording
	for _, p := range paths {
		out = append(out, loadRecording(t, p))
	}
	return out
}

// block draws n clusters in recorded order: consecutive clusters of one
// recorded run (chosen in proportion to its clusters, from any start,
// wrapping round within the run), then, when n is longer than that run,
// of another run not yet drawn, chosen alike, so that no cluster repeats
// within a stretch shorter than the recording (runs hold 10–14
// clusters, so every cluster is about equally likely in every place).
func (rec *recording) block(rng *rand.Rand, n int) [][]map[string]float64 {
	used := make([]bool, len(rec.runs))
	out := make([][]map[string]float64, 0, n)
	for len(out) < n {
		total := 0
		for i, r := range rec.runs {
			if !used[i] {
				total += len(r)
			}
		}
		if total == 0 { // every run drawn: start again
			clear(used)
			continue
		}
		pick := rng.IntN(total)
		var run recRun
		for i, r := range rec.runs {
			if used[i] {
				continue
			}
			if pick < len(r) {
				run, used[i] = r, true
				break
			}
			pick -= len(r)
		}
		for i := 0; i < len(run) && len(out) < n; i++ {
			out = append(out, run[(pick+i)%len(run)])
		}
	}
	return out
}

// per is the rounds a recorded cluster most often holds.
func (rec *recording) per() int {
	count := map[int]int{}
	best := 0
	for _, run := range rec.runs {
		for _, cl := range run {
			count[len(cl)]++
			if count[len(cl)] > count[best] {
				best = len(cl)
			}
		}
	}
	return best
}

// maxPer is the most rounds a recorded cluster holds.
func (rec *recording) maxPer() int {
	most := 0
	for _, run := range rec.runs {
		for _, cl := range run {
			most = max(most, len(cl))
		}
	}
	return most
}

// any draws one cluster of the whole recording.
func (rec *recording) any(rng *rand.Rand) []map[string]float64 {
	return rec.block(rng, 1)[0]
}

// value is a round's value of stat, false when it lacks a benchmark.
type recStat func(round map[string]float64) (float64, bool)

func benchStat(b string) recStat {
	return func(r map[string]float64) (float64, bool) { v, ok := r[b]; return v, ok }
}

func contrastStat(a, b string) recStat {
	return func(r map[string]float64) (float64, bool) {
		x, ok1 := r[a]
		y, ok2 := r[b]
		return x - y, ok1 && ok2
	}
}

// truths are the medians of stat over the recording's clusters (each the
// median of its rounds) and over its rounds.
func (rec *recording) truths(stat recStat) (clusters, rounds float64) {
	var cs, rs []float64
	for _, run := range rec.runs {
		for _, cl := range run {
			var in []float64
			for _, r := range cl {
				if v, ok := stat(r); ok {
					in = append(in, v)
				}
			}
			if len(in) > 0 {
				rs = append(rs, in...)
				cs = append(cs, median(sortedFinite(in)))
			}
		}
	}
	return median(sortedFinite(cs)), median(sortedFinite(rs))
}

// roundsOfClusters numbers the rounds of drawn clusters 1, 2, … and
// returns stat's value by round (shifted by −shift) and each round's
// cluster. With stride > 0, cluster g's rounds are numbered from
// g·stride + 1 instead, so that draws whose clusters hold different
// numbers of rounds agree on which round is in which cluster.
func roundsOfClusters(cls [][]map[string]float64, stat recStat, shift float64, stride int) (byRound map[int]float64, clusterOf map[int]int) {
	byRound, clusterOf = map[int]float64{}, map[int]int{}
	r := 0
	for c, cl := range cls {
		if stride > 0 {
			r = c * stride
		}
		for _, round := range cl {
			r++
			if v, ok := stat(round); ok {
				byRound[r] = v - shift
			}
			clusterOf[r] = c
		}
	}
	return byRound, clusterOf
}

// clusterOpt is options whose clusters are given by a map of rounds.
func clusterOpt(o Options, clusterOf map[int]int) Options {
	o.ClusterOf = func(r int) int { return clusterOf[r] }
	return o
}

// excludesTruth reports whether r's interval excludes exp(truth).
func excludesTruth(r Ratio, truth float64) bool { return r.Excludes(math.Exp(truth)) }

// TestRecordedClusters: on recorded A/A runs over random layouts,
// resampled as ordered blocks without sign flips, the paired ratio, the
// contrast of two benchmarks' ratios and the machine comparison decide
// falsely in at most α of runs over clusters; taking the rounds as
// independent is shown beside them.
func TestRecordedClusters(t *testing.T) {
	cheap, costly := clusterTrials()
	const fixedClusters, seqClusters = 8, 30
	var rows []aaRow
	for _, rec := range recordings(t) {
		stats := map[string]recStat{}
		for _, b := range rec.benches {
			stats["ratio "+b] = benchStat(b)
		}
		stats["contrast "+rec.benches[0]+" − "+rec.benches[len(rec.benches)-1]] = contrastStat(rec.benches[0], rec.benches[len(rec.benches)-1])
		names := make([]string, 0, len(stats))
		for n := range stats {
			names = append(names, n)
		}
		slices.Sort(names)
		for si, name := range names {
			stat := stats[name]
			tc, tr := rec.truths(stat)
			rng := rand.New(rand.NewPCG(uint64(si), uint64(len(rec.name))))
			base := Options{Alpha: calAlpha, Confidence: 1 - calAlpha}
			fixed := aaRow{stat: rec.name + " " + name, rule: "fixed 8 clusters", noise: "recorded", runs: cheap}
			seq := aaRow{stat: rec.name + " " + name, rule: "sequential, looks at cluster ends", noise: "recorded", runs: cheap}
			for range cheap {
				cls := rec.block(rng, fixedClusters)
				byRound, clusterOf := roundsOfClusters(cls, stat, 0, 0)
				ones := constOnes(byRound)
				fixed.before += btoi(excludesTruth(base.Paired(expOf(byRound), ones), tr))
				fixed.after += btoi(excludesTruth(clusterOpt(base, clusterOf).Paired(expOf(byRound), ones), tc))
				long := rec.block(rng, seqClusters)
				lb, lc := roundsOfClusters(long, stat, 0, 0)
				seqB, seqA := base, clusterOpt(base, lc)
				seqB.Anytime, seqA.Anytime = true, true
				last := func(c int) int { // the last round of cluster c (from 1)
					n := 0
					for _, cl := range long[:c] {
						n += len(cl)
					}
					return n
				}
				seq.before += btoi(seqLooks(seqClusters, func(c int) bool {
					return excludesTruth(seqB.Paired(expOf(upTo(lb, last(c))), constOnes(lb)), tr)
				}))
				seq.after += btoi(seqLooks(seqClusters, func(c int) bool {
					return excludesTruth(seqA.Paired(expOf(upTo(lb, last(c))), constOnes(lb)), tc)
				}))
			}
			fixed.per, seq.per = rec.per(), rec.per()
			rows = append(rows, fixed, seq)
			if !strings.HasPrefix(name, "ratio") {
				continue
			}
			// Three machines, six clusters each, every cluster drawn
			// from the whole recording: no machine differs.
			pooled := aaRow{stat: rec.name + " " + name, rule: "machines: pooled, 3×6 clusters", noise: "recorded", runs: cheap, per: fixed.per}
			het := aaRow{stat: rec.name + " " + name, rule: "machines: differs by machine", noise: "recorded", runs: cheap, per: fixed.per}
			for range cheap {
				num, machine, clusterOf := map[int]float64{}, map[int]string{}, map[int]int{}
				r := 0
				for m := range 3 {
					for c := range 6 {
						for _, round := range rec.any(rng) {
							r++
							if v, ok := stat(round); ok {
								num[r] = math.Exp(v)
							}
							machine[r], clusterOf[r] = fmt.Sprint("m", m), 6*m+c
						}
					}
				}
				mb := base.AcrossMachines(num, constOnes(num), machine)
				ma := clusterOpt(base, clusterOf).AcrossMachines(num, constOnes(num), machine)
				pooled.before += btoi(excludesTruth(mb.Pooled, tr))
				pooled.after += btoi(excludesTruth(ma.Pooled, tc))
				het.before += btoi(mb.Heterogeneous(calAlpha))
				het.after += btoi(ma.Heterogeneous(calAlpha))
			}
			rows = append(rows, pooled, het)
			if costly == 0 {
				continue
			}
			cross, exp := recordedCrossover(rec, stat, tc, costly, uint64(si)), recordedExponent(rec, stat, tc, costly, uint64(si))
			cross.stat, exp.stat = rec.name+" "+name+" noise", rec.name+" "+name+" noise"
			rows = append(rows, cross, exp)
		}
	}
	var decisions, intervals []aaRow
	for _, r := range rows {
		if strings.HasPrefix(r.rule, "bootstrap") {
			intervals = append(intervals, r)
		} else {
			decisions = append(decisions, r)
		}
	}
	aaTable(t, "Recorded A/A runs over random layouts (testdata/layout), ordered blocks of clusters, no sign flips: false decisions at α = 5% (before: rounds as if independent; after: clusters)", calAlpha, decisions)
	aaTable(t, "Recorded layout noise around a planted curve: 95% intervals that missed the truth (crossover held to 2α, as in TestClusterIntervals)", 2*calAlpha, intervals)
}

func expOf(m map[int]float64) map[int]float64 {
	out := make(map[int]float64, len(m))
	for r, v := range m {
		out[r] = math.Exp(v)
	}
	return out
}

func constOnes(m map[int]float64) map[int]float64 {
	out := make(map[int]float64, len(m))
	for r := range m {
		out[r] = 1
	}
	return out
}

// recordedCrossover: ten points along an axis, each drawing its own block
// of recorded clusters (centred on the recording's truth) around a curve
// whose A/B falls 6% a step (recorded rounds spread ±15% and more) and
// crosses 1 at x = 5.4; how often the crossing's interval misses 5.4.
func recordedCrossover(rec *recording, stat recStat, truth float64, runs int, seed uint64) aaRow {
	const clusters, cross = 16, 5.4
	row := aaRow{stat: rec.name + " crossover", rule: "bootstrap, crossover location, 16 clusters", noise: "recorded", per: rec.per()}
	rng := rand.New(rand.NewPCG(seed, 21))
	for range runs {
		var pts []AxisPoint
		clusterOf := map[int]int{}
		for x := 1; x <= 10; x++ {
			byRound, cl := roundsOfClusters(rec.block(rng, clusters), stat, truth, rec.maxPer())
			pt := AxisPoint{X: float64(x), RA: map[int]float64{}, RB: map[int]float64{}}
			for r, v := range byRound {
				a := math.Exp(v - 0.06*(float64(x)-cross))
				pt.A, pt.B = append(pt.A, a), append(pt.B, 1)
				pt.RA[r], pt.RB[r] = a, 1
			}
			// Every point numbers cluster g's rounds alike.
			for r, c := range cl {
				clusterOf[r] = c
			}
			pts = append(pts, pt)
		}
		opt := clusterOpt(Options{Alpha: calAlpha, Confidence: 1 - calAlpha}, clusterOf)
		found, before, after := crossoverMisses(pts, opt, cross)
		row.runs += btoi(found)
		row.before += btoi(before)
		row.after += btoi(after)
	}
	return row
}

// recordedExponent: a power law x^1.5 on 12 points, each point's rounds
// a block of recorded clusters (centred on the recording's truth); how
// often the exponent's interval misses 1.5.
func recordedExponent(rec *recording, stat recStat, truth float64, runs int, seed uint64) aaRow {
	const clusters, k = 8, 1.5
	row := aaRow{stat: rec.name + " exponent", rule: "bootstrap, power-law exponent, 8 clusters", noise: "recorded", per: rec.per(), runs: runs}
	rng := rand.New(rand.NewPCG(seed, 22))
	var xs []float64
	for x := 1; x <= 12; x++ {
		xs = append(xs, float64(x))
	}
	for range runs {
		var cells []*Sample
		clusterOf := map[int]int{}
		for _, x := range xs {
			byRound, cl := roundsOfClusters(rec.block(rng, clusters), stat, truth, rec.maxPer())
			s := &Sample{Name: benchname.Parse(fmt.Sprintf("BenchmarkPow/n=%g", x)), Unit: "sec/op"}
			rounds := make([]int, 0, len(byRound))
			for r := range byRound {
				rounds = append(rounds, r)
			}
			slices.Sort(rounds)
			for _, r := range rounds {
				s.Values = append(s.Values, math.Pow(x, k)*math.Exp(byRound[r]))
				s.Rounds = append(s.Rounds, r)
			}
			for r, c := range cl {
				clusterOf[r] = c
			}
			cells = append(cells, s)
		}
		miss := func(r KneeResult) bool { return r.ExponentLo > k || r.ExponentHi < k }
		row.before += btoi(miss(FitKnee(xs, cells, KneeOptions{})))
		row.after += btoi(miss(FitKnee(xs, cells, KneeOptions{Rounds: clusterOpt(Options{}, clusterOf)})))
	}
	return row
}

// TestNoiseCorpusBlocks: the A/A pair of the noise corpus (c/a, the same
// function) in ordered blocks of recorded rounds, clusters of 2, 4 and 6
// consecutive rounds, no sign flips: the paired rule over clusters (fixed
// 10 clusters; sequential, looks at cluster ends) decides falsely in at
// most α of runs, judged against the exact truth of the block world.
func TestNoiseCorpusBlocks(t *testing.T) {
	cheap, _ := clusterTrials()
	value := func(p noisetest.Process) float64 { return RepeatEstimate(p.Reps) }
	var rows []aaRow
	for ci, cond := range []string{"quiet", "noisy", "onecore", "membw", "bursts"} {
		c, err := noisetest.LoadCorpus(filepath.Join("testdata", "noise", cond+".csv.gz"))
		if err != nil {
			t.Fatal(err)
		}
		d := c.LogRatios("c", "a", value)
		n := len(d)
		for _, per := range clusterSizes {
			// The truths: every window of per rounds is a cluster.
			var windows []float64
			for s := range n {
				w := make([]float64, per)
				for j := range w {
					w[j] = d[(s+j)%n]
				}
				windows = append(windows, median(sortedFinite(w)))
			}
			tc, tr := median(sortedFinite(windows)), median(sortedFinite(d))
			rng := rand.New(rand.NewPCG(uint64(ci), uint64(per)))
			draw := func(clusters int) map[int]float64 {
				start := rng.IntN(n)
				out := map[int]float64{}
				for r := 1; r <= clusters*per; r++ {
					out[r] = math.Exp(d[(start+r-1)%n])
				}
				return out
			}
			base := Options{Alpha: calAlpha, Confidence: 1 - calAlpha}
			after := base
			after.PerLayout = per
			fixed := aaRow{stat: "noise corpus " + cond + " c/a", rule: "fixed 10 clusters", noise: "recorded", per: per, runs: cheap}
			seq := aaRow{stat: "noise corpus " + cond + " c/a", rule: "sequential, looks at cluster ends", noise: "recorded", per: per, runs: cheap}
			for range cheap {
				num := draw(10)
				fixed.before += btoi(excludesTruth(base.Paired(num, constOnes(num)), tr))
				fixed.after += btoi(excludesTruth(after.Paired(num, constOnes(num)), tc))
				long := draw(30)
				sb, sa := base, after
				sb.Anytime, sa.Anytime = true, true
				seq.before += btoi(seqLooks(30, func(k int) bool { return excludesTruth(sb.Paired(upTo(long, k*per), constOnes(long)), tr) }))
				seq.after += btoi(seqLooks(30, func(k int) bool { return excludesTruth(sa.Paired(upTo(long, k*per), constOnes(long)), tc) }))
			}
			rows = append(rows, fixed, seq)
		}
	}
	aaTable(t, "Noise corpus A/A (c/a), ordered blocks of recorded rounds, clusters of consecutive rounds, no sign flips: false decisions at α = 5% (before: rounds as if independent; after: clusters)", calAlpha, rows)
}
