package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Link layout as a sampled factor.
//
// A binary is one draw of code layout: where the linker put each function
// decides its alignment against cache lines, the uop cache and the branch
// predictors, and so its speed, by more than many source changes do. Rounds
// of one binary pair away the machine's noise but never its layout, so a
// comparison of two binaries each linked once is a statement about those
// two binaries. With Options.Layout set to LayoutRandom, every build the
// run times is relinked with the linker's -ldflags=-randlayout=SEED (the
// compiled packages come from the go build cache: a layout costs a link),
// a fresh layout every few rounds for each side, so the per-round ratios
// vary over layouts as well as noise and their median estimates the effect
// of the source over layouts.
//
// Rounds that share a layout form a cluster, the independent unit of the
// run's statistics: package analysis summarises each cluster by the median
// of its log-ratios and computes the interval over clusters
// (analysis.Options.ClusterOf, from store.Plan.ClusterOf), so the interval
// counts layouts, not rounds. In the first rounds a layout serves at
// least 2 (PerLayout, chosen before round 1 so that relinking costs at
// most about a third of the rounds): rounds on one layout against rounds
// across layouts tell layout from noise. A sequential run then asks its
// judge, once the initial pass shows how much of each comparison's
// variance is layout and how much is noise (LayoutChooser), how many
// rounds a layout should serve from then on: one when layout dominates,
// more when noise does and links are dear (Cochran's two-stage rule), a
// new phase of the plan's store.Layout.
//
// Seeds are a hash of the run's seed, the build's key and the cluster, so
// a resumed run relinks exactly the layouts the stored rounds used. Links
// run between rounds, never beside a timed loop, in parallel across the
// run's builds; each cluster's binaries are removed when the next is
// linked. A toolchain whose linker lacks -randlayout (go1.22 and older)
// keeps its one default layout, and the run says so.

// The layout modes of Options.Layout.
const (
	LayoutFixed  = "fixed"  // one link per build, the linker's default layout
	LayoutRandom = "random" // a fresh random layout every PerLayout rounds
)

// Bounds of the rounds one layout serves.
const (
	minPerLayout = 2
	maxPerLayout = MaxPerLayout
)

// MaxPerLayout is the most rounds one layout serves.
const MaxPerLayout = 8

// ParseLayout checks a --layout value: "fixed", "random", or "" (fixed).
func ParseLayout(s string) (string, error) {
	switch s {
	case "", LayoutFixed:
		return LayoutFixed, nil
	case LayoutRandom:
		return LayoutRandom, nil
	}
	return "", fmt.Errorf("layout %q: want %s (a fresh random link layout every few rounds) or %s (one link per side)", s, LayoutRandom, LayoutFixed)
}

// layouts relinks a run's builds with random layouts, cluster by cluster.
type layouts struct {
	seed     int64
	sched    store.Layout // rounds per layout, by phase
	shards   int          // the run's shards (0 or 1: none); a shard's clusters are its own
	dir      string       // this run's relinked binaries
	progress io.Writer

	builds  map[string]*layoutBuild // binary key → build
	configs map[string]string       // slot (packages.go) → binary key, for configs with a random layout
	fixed   map[string]string       // config (not slot) → why it keeps its default layout

	cluster  int               // the cluster whose binaries are linked; 0 for none yet
	clusters int               // clusters linked
	last     int               // the last round binaries were asked for
	chooseAt int               // the round from which the rounds per layout are chosen again (adaptive.go)
	bins     map[string]string // binary key → relinked binary of cluster
	links    int               // links made
	linked   time.Duration     // wall time spent linking
}

type layoutBuild struct {
	linker *gotest.Linker
	err    error // set once linking failed for good
}

// newLayouts prepares relinking every built config of a run with random
// layouts. Configs whose toolchain cannot relink keep their default layout,
// named in fixed with the reason. It links the first cluster, so that the
// link time is known before the rounds are fitted to a budget.
func newLayouts(ctx context.Context, opt Options, bins map[string]string, seed int64, sched store.Layout, progress io.Writer) (*layouts, error) {
	dir, err := os.MkdirTemp(opt.CacheDir, "layouts-*")
	if err != nil {
		return nil, fmt.Errorf("creating the directory for relinked binaries: %w; choose a writable cache dir", err)
	}
	l := &layouts{seed: seed, sched: sched, shards: shardCount(opt.Shard), dir: dir, progress: progress,
		builds: map[string]*layoutBuild{}, configs: map[string]string{}, fixed: map[string]string{}}
	names := make([]string, 0, len(bins))
	for name := range bins {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		key := binaryKey(bins[name])
		l.configs[name] = key
		if _, ok := l.builds[key]; ok {
			continue
		}
		config, _ := splitSlot(name)
		c := configNamed(opt.Spec, config)
		b := gotest.Build{Dir: opt.specDir(name), Package: opt.packageOf(name), Env: c.BuildEnv(), Flags: c.BuildFlags(), CacheDir: opt.CacheDir,
			CPUTime: opt.Unit == UnitCPU}
		// As compile: a build deciding on cpu-sec/op has the CPU timer
		// unless the toolchain's testing package cannot take it.
		lk, err := gotest.NewLinker(ctx, b, filepath.Join(dir, "overlay"))
		if errors.Is(err, gotest.ErrNoCPUTime) {
			b.CPUTime = false
			lk, err = gotest.NewLinker(ctx, b, filepath.Join(dir, "overlay"))
		}
		if err != nil && ctx.Err() != nil {
			l.close()
			return nil, ctx.Err()
		}
		l.builds[key] = &layoutBuild{linker: lk, err: err}
	}
	if _, err := l.forRound(ctx, 1, names); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

func configNamed(s *spec.Spec, name string) spec.Config {
	for _, c := range s.Configs {
		if c.Name == name {
			return c
		}
	}
	return spec.Config{Name: name}
}

// shardCount is the number of shards a run is split into; 1 for none.
func shardCount(s *Shard) int {
	if s == nil {
		return 1
	}
	return s.N
}

// binaryKey is the build key a cached binary is named by.
func binaryKey(bin string) string { return strings.TrimSuffix(filepath.Base(bin), ".test") }

// clusterOf is the layout cluster of round (1-based; round 0, a probe
// outside the rounds, uses the first), as store.Plan.ClusterOf numbers it.
func (l *layouts) clusterOf(round int) int { return l.sched.RoundCluster(max(1, round), l.shards) }

// per is the rounds a layout serves at round.
func (l *layouts) per(round int) int { return l.sched.Per((max(1, round)-1)/max(1, l.shards) + 1) }

// endsCluster reports whether round is the last of its cluster in its
// shard: the next round the shard runs starts a new layout. A run of
// fixed layouts has no clusters: every round ends one.
func (l *layouts) endsCluster(round int) bool {
	if l == nil {
		return true
	}
	return l.clusterOf(round) != l.clusterOf(round+max(1, l.shards))
}

// setPer makes every layout from the shard's round after round on serve
// per rounds: a new phase, which must start a cluster. It reports whether
// the schedule changed.
func (l *layouts) setPer(round, per int) bool {
	if l == nil || per < 1 || l.per(round+max(1, l.shards)) == per {
		return false
	}
	from := (round-1)/max(1, l.shards) + 2 // the shard's next round
	if len(l.sched.Phases) == 0 {
		l.sched.Phases = []store.LayoutPhase{{From: 1, Per: l.sched.PerLayout}}
	}
	l.sched.Phases = append(l.sched.Phases, store.LayoutPhase{From: from, Per: per})
	return true
}

// LayoutSeed is the layout seed of one build in one cluster: never 0, which the
// linker reads as its default layout.
func LayoutSeed(runSeed int64, key string, cluster int) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d", runSeed, key, cluster)
	return int64(h.Sum64()%(1<<31-1)) + 1
}

// seedOf is the layout seed config's binary has in round; false when the
// config keeps its default layout.
func (l *layouts) seedOf(config string, round int) (int64, bool) {
	if l == nil {
		return 0, false
	}
	key, ok := l.configs[config]
	if !ok || l.builds[key].err != nil {
		return 0, false
	}
	return LayoutSeed(l.seed, key, l.clusterOf(round)), true
}

// forRound returns the binary each of configs runs in round: relinked for
// round's cluster (linking it first if needed), or the default for configs
// that keep a fixed layout. A config whose relink fails falls back to its
// default layout for the rest of the run, with a message.
func (l *layouts) forRound(ctx context.Context, round int, configs []string) (map[string]string, error) {
	if l == nil {
		return nil, nil
	}
	l.last = max(l.last, round)
	c := l.clusterOf(round)
	if c != l.cluster {
		if err := l.link(ctx, c); err != nil {
			return nil, err
		}
	}
	out := map[string]string{}
	for _, name := range configs {
		if bin, ok := l.bins[l.configs[name]]; ok {
			out[name] = bin
		}
	}
	return out, nil
}

// link replaces the linked binaries with cluster c's, linking the builds
// in parallel (at most two at a time, so a link never waits on the disk
// or the machine's other jobs for long).
func (l *layouts) link(ctx context.Context, c int) error {
	for _, bin := range l.bins {
		os.Remove(bin)
	}
	l.bins, l.cluster = map[string]string{}, c
	l.clusters++
	keys := make([]string, 0, len(l.builds))
	for key, b := range l.builds {
		if b.err == nil {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	start := time.Now()
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, 2)
	)
	for _, key := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			seed := LayoutSeed(l.seed, key, c)
			out := gotest.LayoutPath(l.dir, key, seed)
			err := l.builds[key].linker.Link(ctx, seed, out)
			mu.Lock()
			defer mu.Unlock()
			l.links++
			if err == nil {
				l.bins[key] = out
				return
			}
			if ctx.Err() == nil {
				l.builds[key].err = err
			}
		}()
	}
	wg.Wait()
	l.linked += time.Since(start)
	if err := ctx.Err(); err != nil {
		return err
	}
	l.noteFallbacks()
	return nil
}

// noteFallbacks names, once each, the configs whose build could not be
// relinked and so keep their default layout.
func (l *layouts) noteFallbacks() {
	names := make([]string, 0, len(l.configs))
	for name := range l.configs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b := l.builds[l.configs[name]]
		config, _ := splitSlot(name) // a config over several packages is named once
		if _, noted := l.fixed[config]; noted || b.err == nil {
			continue
		}
		why := b.err.Error()
		if errors.Is(b.err, gotest.ErrNoRandLayout) {
			why = "its toolchain's linker has no -randlayout (go1.22 and older)"
		}
		l.fixed[config] = why
		fmt.Fprintf(l.progress, "perflab: config %s keeps one fixed link layout: %s\n", config, indentTail(why))
	}
}

func indentTail(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "\n" + indent(s[i+1:])
	}
	return s
}

// perRound is the link time a round costs on average: one cluster's links
// spread over the rounds a layout serves now.
func (l *layouts) perRound() time.Duration {
	if l == nil || l.links == 0 {
		return 0
	}
	return l.perCluster() / time.Duration(l.per(l.last))
}

// perCluster is the wall time linking one cluster's binaries took on
// average.
func (l *layouts) perCluster() time.Duration {
	if l == nil || l.clusters == 0 {
		return 0
	}
	return l.linked / time.Duration(l.clusters)
}

// choosePer sets the rounds per layout from the first cluster's link time
// and a round's expected time, so that relinking takes at most about 0.4
// of a round's time: under a third of the rounds a budget buys, with room
// for links slower and rounds shorter than their first measures.
func (l *layouts) choosePer(round time.Duration) {
	if l == nil || l.clusters != 1 {
		return
	}
	l.sched.PerLayout = perLayout(l.linked, round)
}

// relinkEveryRound makes every round take a fresh layout, when the run
// samples layouts, serves more than one round a layout and is not a shard
// (whose clusters all shards must agree on): a budget too small for
// clusters of rounds still samples layouts, each round an observation.
// It reports whether it changed anything.
func (l *layouts) relinkEveryRound(shard *Shard) bool {
	if l == nil || l.sched.PerLayout <= 1 || shard != nil || l.clusters != 1 {
		return false
	}
	l.sched.PerLayout = 1
	return true
}

// fitObservations makes a run of fixed rounds give its compared ratios an
// interval: its independent observations — rounds, or rounds/per layout
// clusters when l relinks layouts — must reach need, the fewest an
// interval needs at the level they are judged at (Rules.FixedFor). When
// the rounds per layout chosen from link cost leave too few clusters,
// layouts serve fewer rounds. When even a layout a round (or one link per
// side) is too few, rounds the user did not choose (extend: the mode's)
// grow to need, and rounds the user chose are refused, with the rounds
// that would do. It returns the rounds to run.
func fitObservations(l *layouts, rounds, need int, extend bool, progress io.Writer) (int, error) {
	if need <= 0 {
		return rounds, nil
	}
	if rounds < need && extend {
		fmt.Fprintf(progress, "perflab: %d rounds instead of %d: a compared ratio's first interval needs %d independent observations at the level it is judged at (pass --rounds, or --budget to sample until decided)\n",
			need, rounds, need)
		rounds = need
	}
	if rounds < need {
		what := fmt.Sprintf("%d rounds give", rounds)
		if l != nil {
			what = fmt.Sprintf("%d rounds on fresh link layouts give at most", rounds)
		}
		return 0, fmt.Errorf("%s %d independent observations, and a compared ratio's first interval needs %d at the level it is judged at: pass --rounds %d or more, or --budget to sample until decided",
			what, rounds, need, need)
	}
	if l == nil {
		return rounds, nil
	}
	per := l.sched.PerLayout
	if rounds/per >= need {
		return rounds, nil
	}
	l.sched.PerLayout = max(1, rounds/need)
	fmt.Fprintf(progress, "perflab: link layouts: a fresh one every %s instead of every %s, so %d rounds give the %d layouts a first interval needs\n",
		everyRounds(l.sched.PerLayout), everyRounds(per), rounds, need)
	return rounds, nil
}

// layoutARound turns a sequential run's initial pass into a layout a
// round when its budget cannot hold clusters of rounds: every round is
// then an observation of its own, so the pass needs 1/per of its rounds
// (the first interval counts observations), and the layout column goes
// without (telling layout from noise needs rounds that share a layout).
// It reports whether it changed the pass.
func (s *sequential) layoutARound(l *layouts, shard *Shard, progress io.Writer) bool {
	per := l.per(1)
	if s == nil || !l.relinkEveryRound(shard) {
		return false
	}
	fmt.Fprintf(progress, "perflab: the budget does not fit an initial pass of %d rounds at %d a layout; each round gets a layout of its own instead (%d rounds)\n",
		s.initial, per, s.initial/per)
	s.initial /= per
	return true
}

// perLayout is the number of rounds one layout serves when linking a
// cluster takes link and a round takes round: the fewest, at least
// minPerLayout, for which link/per ≤ 0.4·round.
func perLayout(link, round time.Duration) int {
	per := minPerLayout
	for per < maxPerLayout && 5*link > 2*round*time.Duration(per) {
		per++
	}
	return per
}

// summary is the run's line about its layouts.
func (l *layouts) summary() string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf("link layouts: %d random layouts per build, a fresh one %s (%d links, %s linking, ≈%s per cluster of links)",
		l.clusters, l.sched.Schedule(), l.links, l.linked.Round(time.Millisecond), l.perCluster().Round(time.Millisecond))
}

// close removes the relinked binaries.
func (l *layouts) close() {
	if l != nil {
		os.RemoveAll(l.dir)
	}
}

// layoutPlan is what the run's plan records of its layouts; nil for a fixed
// layout.
func (l *layouts) plan() *store.Layout {
	if l == nil {
		return nil
	}
	sched := l.sched
	sched.Phases = slices.Clone(l.sched.Phases)
	return &sched
}

// cellOverhead is what a cell's process costs beyond its benchtime
// (starting, sizing, writing results), for estimating a round before one
// has run.
const cellOverhead = 80 * time.Millisecond

// startLayouts sets up random layouts when opt asks for them: for a new
// run it links the first cluster and chooses the rounds per layout from
// that link's time and a round's expected time; a resumed run keeps its
// plan's. It returns nil for a run of fixed layouts.
func startLayouts(ctx context.Context, opt Options, resume *store.Run, p *plan.Plan, mode spec.Mode, bins map[string]string, progress io.Writer) (*layouts, error) {
	layout, err := ParseLayout(opt.Layout)
	if err != nil {
		return nil, err
	}
	if layout != LayoutRandom || len(bins) == 0 {
		return nil, nil
	}
	sched := store.Layout{PerLayout: minPerLayout}
	if resume != nil && resume.Plan.Layout != nil {
		sched = *resume.Plan.Layout
	}
	l, err := newLayouts(ctx, opt, bins, opt.Seed, sched, progress)
	if err != nil {
		return nil, err
	}
	// Shards of one run must agree on the clusters without talking to
	// each other: they keep the least rounds per layout rather than one
	// chosen from their own machine's timing.
	if resume == nil && opt.Shard == nil {
		cells := 0
		for _, c := range p.Cells {
			if _, ok := bins[slot(c)]; ok {
				cells++
			}
		}
		cell := benchDuration(mode.Benchtime)*time.Duration(max(1, len(mode.CPU))) + cellOverhead
		l.choosePer(time.Duration(cells) * cell)
	}
	if len(l.bins) > 0 {
		fmt.Fprintf(progress, "perflab: link layouts: random (-ldflags=-randlayout), a fresh layout for each of %d builds every %s; linking them took %s\n",
			len(l.bins), everyRounds(l.sched.PerLayout), l.linked.Round(time.Millisecond))
	}
	return l, nil
}

// record stores the run's layout summary and the configs that kept a fixed
// layout with the environment of the run, and prints the summary.
func (l *layouts) record(ctx context.Context, db *store.DB, runID int64) error {
	if l == nil {
		return nil
	}
	kv := []store.KV{{Key: "layout", Value: l.summary()}}
	for name, why := range l.fixed {
		kv = append(kv, store.KV{Key: "layout-fixed-" + name, Value: why})
	}
	fmt.Fprintf(l.progress, "perflab: %s\n", l.summary())
	return db.SetEnv(context.WithoutCancel(ctx), runID, kv)
}

// everyRounds is "round" or "N rounds".
func everyRounds(n int) string {
	if n == 1 {
		return "round"
	}
	return strconv.Itoa(n) + " rounds"
}
