package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
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
// A layout serves PerLayout consecutive rounds (at least 2): rounds on one
// layout against rounds across layouts tell layout from noise (the spread
// each benchmark owes to layout alone), and links cost less. Rounds that
// share a layout form a cluster; package analysis summarises each cluster
// by the median of its log-ratios and computes the interval over clusters
// (analysis.Options.PerLayout), so the interval counts layouts, not rounds.
// PerLayout is chosen before round 1 so that relinking costs at most about
// a third of the rounds the budget would otherwise buy.
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
	maxPerLayout = 8
)

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
	per      int    // rounds per layout
	dir      string // this run's relinked binaries
	progress io.Writer

	builds  map[string]*layoutBuild // binary key → build
	configs map[string]string       // slot (packages.go) → binary key, for configs with a random layout
	fixed   map[string]string       // config (not slot) → why it keeps its default layout

	cluster int               // the cluster whose binaries are linked; 0 for none yet
	bins    map[string]string // binary key → relinked binary of cluster
	links   int               // links made
	linked  time.Duration     // wall time spent linking

	// shard: a shard's clusters are its own (shard.go): shardCluster
	// numbers them, first is the shard's first round, and clusters counts
	// those linked here.
	shardCluster func(round int) int
	first        int
	clusters     int
}

type layoutBuild struct {
	linker *gotest.Linker
	err    error // set once linking failed for good
}

// newLayouts prepares relinking every built config of a run with random
// layouts. Configs whose toolchain cannot relink keep their default layout,
// named in fixed with the reason. It links the first cluster, so that the
// link time is known before the rounds are fitted to a budget.
func newLayouts(ctx context.Context, opt Options, bins map[string]string, seed int64, per int, progress io.Writer) (*layouts, error) {
	dir, err := os.MkdirTemp(opt.CacheDir, "layouts-*")
	if err != nil {
		return nil, fmt.Errorf("creating the directory for relinked binaries: %w; choose a writable cache dir", err)
	}
	l := &layouts{seed: seed, per: per, dir: dir, progress: progress,
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
	l.shardCluster, l.first = opt.Shard.layoutClusters(per)
	if _, err := l.forRound(ctx, l.first, names); err != nil {
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

// binaryKey is the build key a cached binary is named by.
func binaryKey(bin string) string { return strings.TrimSuffix(filepath.Base(bin), ".test") }

// clusterOf is the layout cluster of round (1-based; round 0, a probe
// outside the rounds, uses the first).
func (l *layouts) clusterOf(round int) int {
	if l.shardCluster != nil {
		return l.shardCluster(max(round, l.first))
	}
	return max(0, round-1)/l.per + 1
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
// spread over its rounds.
func (l *layouts) perRound() time.Duration {
	if l == nil || l.links == 0 || l.cluster == 0 {
		return 0
	}
	return l.linked / time.Duration(max(1, l.linkedClusters())) / time.Duration(l.per)
}

// linkedClusters is the number of clusters linked: a shard counts its own.
func (l *layouts) linkedClusters() int {
	if l.shardCluster != nil {
		return l.clusters
	}
	return l.cluster
}

// choosePer sets the rounds per layout from the first cluster's link time
// and a round's expected time, so that relinking takes at most about 0.4
// of a round's time: under a third of the rounds a budget buys, with room
// for links slower and rounds shorter than their first measures.
func (l *layouts) choosePer(round time.Duration) {
	if l == nil || l.cluster != 1 {
		return
	}
	l.per = perLayout(l.linked, round)
}

// relinkEveryRound makes every round take a fresh layout, when the run
// samples layouts, serves more than one round a layout and is not a shard
// (whose clusters all shards must agree on): a budget too small for
// clusters of rounds still samples layouts, each round an observation.
// It reports whether it changed anything.
func (l *layouts) relinkEveryRound(shard *Shard) bool {
	if l == nil || l.per <= 1 || shard != nil || l.cluster != 1 {
		return false
	}
	l.per = 1
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
	n := l.linkedClusters()
	avg := time.Duration(0)
	if l.links > 0 {
		avg = l.linked / time.Duration(max(1, n))
	}
	return fmt.Sprintf("link layouts: %d random layouts per build, a fresh one every %s (%d links, %s linking, ≈%s per cluster of links)",
		n, everyRounds(l.per), l.links, l.linked.Round(time.Millisecond), avg.Round(time.Millisecond))
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
	return &store.Layout{PerLayout: l.per}
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
	per := minPerLayout
	if resume != nil && resume.Plan.Layout != nil {
		per = resume.Plan.Layout.PerLayout
	}
	l, err := newLayouts(ctx, opt, bins, opt.Seed, per, progress)
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
			len(l.bins), everyRounds(l.per), l.linked.Round(time.Millisecond))
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
