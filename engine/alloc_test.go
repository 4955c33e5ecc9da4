package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/plan"
)

func TestGroupsOf(t *testing.T) {
	c := func(name, config string) plan.Cell { return plan.Cell{Bench: name, Config: config} }
	items := []Item{
		{Cells: []plan.Cell{c("BenchmarkA", "old"), c("BenchmarkA", "new")}},
		{Cells: []plan.Cell{c("BenchmarkB", "old"), c("BenchmarkB", "new")}},
		// A claim comparing two benchmarks joins their groups.
		{Cells: []plan.Cell{c("BenchmarkB", "new"), c("BenchmarkC", "new")}},
		{Cells: []plan.Cell{c("BenchmarkD", "old")}},
	}
	got := groupsOf(items)
	want := [][]string{
		{"BenchmarkA @new", "BenchmarkA @old"},
		{"BenchmarkB @new", "BenchmarkB @old", "BenchmarkC @new"},
		{"BenchmarkD @old"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("groups %q, want %q", got, want)
	}
}

// TestAllocationSetup: a process's time beyond its timed loops, less the
// least any process took (start and exit), is its set-up; a group whose
// set-up outweighs its timed loops is listed as one a repetition less
// would shorten, and its next process is predicted from the parts.
func TestAllocationSetup(t *testing.T) {
	ms := time.Millisecond
	a := newAllocation()
	a.setGroups([]Item{
		{Cells: []plan.Cell{{Bench: "BenchmarkLight", Config: "old"}, {Bench: "BenchmarkLight", Config: "new"}}},
		{Cells: []plan.Cell{{Bench: "BenchmarkHeavy", Config: "old"}, {Bench: "BenchmarkHeavy", Config: "new"}}},
		{Cells: []plan.Cell{{Bench: "BenchmarkHeavier", Config: "old"}, {Bench: "BenchmarkHeavier", Config: "new"}}},
	})
	// Five repetitions of 1000 iterations at 10µs: 50ms timed.
	secs := []float64{10e-6, 10e-6, 10e-6, 10e-6, 10e-6}
	iters := []int64{1000, 1000, 1000, 1000, 1000}
	a.record("BenchmarkLight @old", 2, 55*ms, secs, iters)
	a.record("BenchmarkLight @new", 2, 56*ms, secs, iters)
	// 5 × 2 × 1s of set-up beside the same timed loops.
	a.record("BenchmarkHeavy @old", 2, 10055*ms, secs, iters)
	if got := a.setupHeavy(); len(got) != 0 {
		t.Fatalf("listed %v before every cell of a group ran", got)
	}
	a.record("BenchmarkHeavy @new", 2, 10060*ms, secs, iters)
	a.record("BenchmarkHeavier @old", 2, 20055*ms, secs, iters)
	a.record("BenchmarkHeavier @new", 2, 20055*ms, secs, iters)
	if a.start != 5*ms {
		t.Errorf("start %v, want 5ms", a.start)
	}
	got := a.setupHeavy()
	want := [][]string{{"BenchmarkHeavier @new", "BenchmarkHeavier @old"}, {"BenchmarkHeavy @new", "BenchmarkHeavy @old"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("set-up heavy %v, want %v", got, want)
	}
	for _, key := range want[1] {
		a.k[key] = 1
	}
	if got, want := a.cost("BenchmarkHeavy @old"), 5*ms+2000*ms+10*ms; got != want {
		t.Errorf("heavy cell's next process predicted %v, want %v", got, want)
	}
	if got := a.cost("BenchmarkLight @old"); got != 55*ms {
		t.Errorf("light cell's next process predicted %v, want its one so far, 55ms", got)
	}
	a.record("BenchmarkLight @old", 3, 65*ms, secs, iters)
	if got := a.cost("BenchmarkLight @old"); got != 60*ms {
		t.Errorf("light cell's next process predicted %v, want the mean of its two, 60ms", got)
	}
	if got := a.setupHeavy(); len(got) != 1 {
		t.Errorf("after one repetition, still listed: %v", got)
	}
	if got := a.counts(); got[1] != 2 || got[repeats] != 4 {
		t.Errorf("counts %v", got)
	}
}

// TestAllocationChoose hands ChooseRepeats the rounds in which the group's
// cells all ran its k, and applies its answer to every cell of the group.
func TestAllocationChoose(t *testing.T) {
	ms := time.Millisecond
	a := newAllocation()
	a.setGroups([]Item{{Cells: []plan.Cell{{Bench: "BenchmarkX", Config: "old"}, {Bench: "BenchmarkX", Config: "new"}}}})
	iters := []int64{100, 100, 100, 100, 100}
	for round := 2; round <= 6; round++ {
		for _, key := range []string{"BenchmarkX @old", "BenchmarkX @new"} {
			a.record(key, round, 20*ms, []float64{1e-5, 1.1e-5, 1e-5, 1.2e-5, 1e-5}, iters)
		}
	}
	// A round the new cell missed is left out.
	a.record("BenchmarkX @old", 7, 20*ms, []float64{1e-5, 1e-5, 1e-5, 1e-5, 1e-5}, iters)
	var reps [][][]float64
	var start time.Duration
	var maxK int
	counts := a.choose(func(r [][][]float64, st, _ time.Duration, k int) (int, bool) {
		reps, start, maxK = r, st, k
		return 3, true
	})
	if len(reps) != 2 || len(reps[0]) != 5 || len(reps[1]) != 5 {
		t.Fatalf("group handed over: %d cells, rounds %d", len(reps), len(reps[0]))
	}
	if maxK != maxRepeats || start != 14700*time.Microsecond { // 20ms less 5.3ms timed
		t.Errorf("max %d start %v", maxK, start)
	}
	if counts[3] != 2 || a.repeatsOf("BenchmarkX @new") != 3 {
		t.Errorf("counts %v, new runs %d", counts, a.repeatsOf("BenchmarkX @new"))
	}
	// A choice the statistics cannot make keeps the cells' k.
	b := newAllocation()
	b.setGroups([]Item{{Cells: []plan.Cell{{Bench: "BenchmarkY", Config: "old"}, {Bench: "BenchmarkY", Config: "new"}}}})
	b.choose(analysis.ChooseRepeats)
	if b.repeatsOf("BenchmarkY @old") != repeats {
		t.Errorf("a group without rounds changed to %d", b.repeatsOf("BenchmarkY @old"))
	}
}
