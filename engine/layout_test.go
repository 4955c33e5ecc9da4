package engine

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/store"
)

func TestLayoutSeed(t *testing.T) {
	seen := map[int64]string{}
	for _, run := range []int64{1, 2, -7} {
		for _, key := range []string{"aaaa", "bbbb"} {
			for c := 1; c <= 50; c++ {
				s := LayoutSeed(run, key, c)
				if s <= 0 || s >= 1<<31 {
					t.Fatalf("LayoutSeed(%d, %q, %d) = %d, want in [1, 2^31)", run, key, c, s)
				}
				if s != LayoutSeed(run, key, c) {
					t.Fatalf("LayoutSeed(%d, %q, %d) is not deterministic", run, key, c)
				}
				id := strconv.FormatInt(run, 10) + "/" + key + "/" + strconv.Itoa(c)
				if prev, dup := seen[s]; dup {
					t.Errorf("LayoutSeed gives %d to both %s and %s", s, prev, id)
				}
				seen[s] = id
			}
		}
	}
}

func TestPerLayout(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		link, round time.Duration
		want        int
	}{
		{100 * ms, 10 * time.Second, 2}, // links cheap: the floor, 2 rounds a layout
		{1000 * ms, 1000 * ms, 3},       // link = round: a third of a round per round
		{1000 * ms, 700 * ms, 4},
		{1300 * ms, 720 * ms, 5},
		{10 * time.Second, 100 * ms, 8}, // capped
	}
	for _, tt := range tests {
		got := perLayout(tt.link, tt.round)
		if got != tt.want {
			t.Errorf("perLayout(%s, %s) = %d, want %d", tt.link, tt.round, got, tt.want)
		}
		if got < maxPerLayout && 5*tt.link > 2*tt.round*time.Duration(got) {
			t.Errorf("perLayout(%s, %s) = %d: links cost more than 0.4 of a round", tt.link, tt.round, got)
		}
	}
}

func TestParseLayout(t *testing.T) {
	for in, want := range map[string]string{"": LayoutFixed, "fixed": LayoutFixed, "random": LayoutRandom} {
		if got, err := ParseLayout(in); err != nil || got != want {
			t.Errorf("ParseLayout(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseLayout("shuffled"); err == nil || !strings.Contains(err.Error(), "random") {
		t.Errorf("ParseLayout(shuffled) = %v, want an error naming the choices", err)
	}
}

// TestRunSamplesLayouts runs the tiny spec with random layouts, stops it
// after two rounds and resumes it: every result names the layout its
// binary had, layouts change every PerLayout rounds, configs built alike
// share a round's layout, and the resumed rounds use the seeds the plan
// implies.
func TestRunSamplesLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds, relinks and runs test binaries")
	}
	db := openStore(t)
	cache, arts := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{marker: "round 3/6 stored", cancel: cancel}
	res, err := Run(ctx, Options{Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: arts, CacheDir: cache, Seed: 5, NoiseRuns: 2,
		NoProfile: true, Layout: LayoutRandom, Progress: w})
	if err != nil || res.Status != "interrupted" {
		t.Fatalf("first run: %v %+v\n%s", err, res, w.buf.String())
	}
	if !strings.Contains(w.buf.String(), "link layouts: random") {
		t.Errorf("progress does not announce random layouts:\n%s", w.buf.String())
	}
	var progress strings.Builder
	if _, err := Resume(context.Background(), Options{Spec: tinySpec(t), DB: db, ArtifactDir: arts, CacheDir: cache, NoiseRuns: 2, Progress: &progress}, res.RunID); err != nil {
		t.Fatalf("Resume: %v\n%s", err, progress.String())
	}
	run, err := db.GetRun(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Plan.Layout == nil || run.Plan.Layout.PerLayout < minPerLayout {
		t.Fatalf("plan.Layout = %+v, want rounds per layout ≥ %d", run.Plan.Layout, minPerLayout)
	}
	per := run.Plan.Layout.PerLayout
	configs, err := db.Configs(context.Background(), res.RunID)
	if err != nil || len(configs) != 2 || configs[0].BinaryHash != configs[1].BinaryHash {
		t.Fatalf("configs = %+v, %v; want two sharing one binary", configs, err)
	}
	key := configs[0].BinaryHash
	results, err := db.Results(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	byRound := map[string]map[string]bool{}
	for _, r := range results {
		round, _ := strconv.Atoi(r.GetConfig("round"))
		want := strconv.FormatInt(LayoutSeed(5, key, (round-1)/per+1), 10)
		if got := r.GetConfig("layout"); got != want {
			t.Fatalf("round %d %s@%s ran layout %q, want %s", round, r.Name, r.GetConfig("config"), got, want)
		}
		if byRound[want] == nil {
			byRound[want] = map[string]bool{}
		}
		byRound[want][r.GetConfig("round")] = true
	}
	// PerLayout follows the machine's link and round times (up to 8 on a
	// loaded machine): the layouts are the clusters of 6 rounds it makes.
	if want := (6 + per - 1) / per; len(byRound) != want {
		t.Errorf("6 rounds at %d per layout used %d layouts, want %d", per, len(byRound), want)
	}
	env, _ := db.Env(context.Background(), res.RunID)
	found := false
	for _, kv := range env {
		found = found || kv.Key == "layout" && strings.Contains(kv.Value, "random layouts")
	}
	if !found {
		t.Errorf("the run's environment does not record its layouts: %v", env)
	}
}

// TestFixedLayoutLabelsNothing: a run linked once per build labels no
// result with a layout and records none in its plan.
func TestFixedLayoutLabelsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	db := openStore(t)
	res, err := Run(context.Background(), Options{Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 3, Rounds: 2, NoiseRuns: 2, NoProfile: true, Layout: LayoutFixed, Progress: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := db.GetRun(context.Background(), res.RunID)
	if run.Plan.Layout != nil {
		t.Errorf("plan.Layout = %+v for a fixed layout", run.Plan.Layout)
	}
	results, _ := db.Results(context.Background(), res.RunID)
	for _, r := range results {
		if l := r.GetConfig("layout"); l != "" {
			t.Fatalf("%s carries layout %q in a fixed-layout run", r.Name, l)
		}
	}
}

// TestRelinkEveryRound: a budget too small for clusters of rounds turns
// a run's layouts into one a round, but never a shard's, which must keep
// the clusters every shard computes alike, nor a run past its first
// cluster.
func TestRelinkEveryRound(t *testing.T) {
	for _, tt := range []struct {
		name    string
		l       *layouts
		shard   *Shard
		changed bool
	}{
		{"two a layout", &layouts{sched: store.Layout{PerLayout: 2}, clusters: 1}, nil, true},
		{"already one", &layouts{sched: store.Layout{PerLayout: 1}, clusters: 1}, nil, false},
		{"a shard", &layouts{sched: store.Layout{PerLayout: 2}, clusters: 1}, &Shard{K: 1, N: 2}, false},
		{"past the first cluster", &layouts{sched: store.Layout{PerLayout: 2}, clusters: 2}, nil, false},
		{"fixed layout", nil, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.relinkEveryRound(tt.shard); got != tt.changed {
				t.Fatalf("relinkEveryRound = %v, want %v", got, tt.changed)
			}
			if tt.changed && tt.l.per(1) != 1 {
				t.Errorf("per = %d after the change, want 1", tt.l.per(1))
			}
		})
	}
}

// TestLayoutARound: an initial pass of clusters that the budget cannot
// hold becomes one of a layout a round with as many observations: its
// rounds divided by the rounds a layout served (6 here, not always 2),
// and the message says both.
func TestLayoutARound(t *testing.T) {
	for _, per := range []int{2, 6} {
		s := &sequential{initial: 10 * per}
		l := &layouts{sched: store.Layout{PerLayout: per}, clusters: 1}
		var b strings.Builder
		if !s.layoutARound(l, nil, &b) || s.initial != 10 || l.per(1) != 1 {
			t.Errorf("per %d: initial pass %d, per %d after the change; want 10 rounds of a layout each", per, s.initial, l.per(1))
		}
		want := "an initial pass of " + strconv.Itoa(10*per) + " rounds at " + strconv.Itoa(per) + " a layout; each round gets a layout of its own instead (10 rounds)"
		if !strings.Contains(b.String(), want) {
			t.Errorf("per %d: message %q lacks %q", per, b.String(), want)
		}
	}
	var nilSeq *sequential
	if nilSeq.layoutARound(&layouts{sched: store.Layout{PerLayout: 3}, clusters: 1}, nil, io.Discard) {
		t.Error("a run of fixed rounds changed its initial pass")
	}
}
