package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// scriptJudge judges by script: its answers depend only on how many
// rounds are stored, so a test knows which cells must run when.
type scriptJudge struct {
	db         *store.DB
	initial    int  // Rules.InitialRounds
	firstLook  bool // Rules.FirstLook
	sequential func(rounds int) Status
	first      func(rounds int) Status
	asked      []int // rounds stored at each Sequential call
}

func (j *scriptJudge) Rules(*spec.Spec) Rules {
	return Rules{FirstLook: j.firstLook, InitialRounds: j.initial}
}

func (j *scriptJudge) stored(ctx context.Context, runID int64) (int, error) {
	done, err := j.db.RoundsDone(ctx, runID)
	return len(done), err
}

func (j *scriptJudge) Sequential(ctx context.Context, runID int64) (Status, error) {
	n, err := j.stored(ctx, runID)
	j.asked = append(j.asked, n)
	return j.sequential(n), err
}

func (j *scriptJudge) FirstLook(ctx context.Context, runID int64) (Status, error) {
	n, err := j.stored(ctx, runID)
	return j.first(n), err
}

// TestOpenCells maps the cells of open items to plan indexes: each once,
// in plan order, ignoring decided items and cells the plan lacks.
func TestOpenCells(t *testing.T) {
	p := plan.New([]string{"BenchmarkW"}, []plan.Axis{{Key: "v", Values: []string{"a", "b"}}}, []string{"x", "y"}, 1, 1)
	cell := func(v, config string) plan.Cell {
		return plan.Cell{Bench: "BenchmarkW", Levels: []string{"v=" + v}, Config: config}
	}
	st := Status{Items: []Item{
		{Label: "one", Cells: []plan.Cell{cell("b", "y"), cell("a", "x")}},
		{Label: "two", Cells: []plan.Cell{cell("a", "x"), cell("a", "z")}},
		{Label: "done", Cells: []plan.Cell{cell("a", "y")}, Decided: true},
	}}
	if got := indexOf(p).openCells(st); !slices.Equal(got, []int{0, 3}) {
		t.Errorf("openCells = %v, want [0 3] (v=a @x, v=b @y)", got)
	}
	if got := indexOf(p).openCells(Status{}); len(got) != 0 {
		t.Errorf("openCells of no items = %v", got)
	}
}

func TestOpenLine(t *testing.T) {
	item := func(line string, decided bool) Item { return Item{Line: line, Decided: decided} }
	tests := []struct {
		items []Item
		want  string
	}{
		{nil, "all decided"},
		{[]Item{item("a", true)}, "all decided"},
		{[]Item{item("a", false), item("b", true), item("c", false)}, "2 open: a; c"},
		{[]Item{item("a", false), item("b", false), item("c", false), item("d", false), item("e", false)}, "5 open; a; b; …"},
	}
	for _, tc := range tests {
		if got := openLine(Status{Items: tc.items}); got != tc.want {
			t.Errorf("openLine(%v) = %q, want %q", tc.items, got, tc.want)
		}
	}
}
