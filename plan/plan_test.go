package plan

import (
	"fmt"
	"slices"
	"testing"
)

func TestNewCrossProduct(t *testing.T) {
	tests := []struct {
		name    string
		benches []string
		axes    []Axis
		configs []string
		want    []string
	}{
		{"no axes", []string{"BenchmarkA"}, nil, []string{"default"}, []string{"BenchmarkA @default"}},
		{"two axes two configs", []string{"BenchmarkA"},
			[]Axis{{"size", []string{"64", "1024"}}, {"reuse", []string{"0", "50"}}},
			[]string{"x", "y"},
			[]string{
				"BenchmarkA/size=64/reuse=0 @x", "BenchmarkA/size=64/reuse=0 @y",
				"BenchmarkA/size=64/reuse=50 @x", "BenchmarkA/size=64/reuse=50 @y",
				"BenchmarkA/size=1024/reuse=0 @x", "BenchmarkA/size=1024/reuse=0 @y",
				"BenchmarkA/size=1024/reuse=50 @x", "BenchmarkA/size=1024/reuse=50 @y",
			}},
		{"two benchmarks", []string{"BenchmarkA", "BenchmarkB"}, []Axis{{"n", []string{"1"}}}, []string{"c"},
			[]string{"BenchmarkA/n=1 @c", "BenchmarkB/n=1 @c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.benches, tt.axes, tt.configs, 3, 1)
			var got []string
			for _, c := range p.Cells {
				got = append(got, c.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("cells:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestOrderEveryRoundHoldsEveryCellOnce(t *testing.T) {
	axes := []Axis{{"size", []string{"64", "1024", "8192"}}, {"reuse", []string{"0", "25", "50", "75", "100"}}}
	for _, cells := range []int{1, 2, 3, 30} {
		p := New([]string{"BenchmarkA"}, axes, []string{"a", "b"}, 12, 42)
		p.Cells = p.Cells[:cells]
		for r := 1; r <= p.Rounds; r++ {
			order := p.Order(r)
			seen := make([]int, len(p.Cells))
			for _, i := range order {
				seen[i]++
			}
			for i, n := range seen {
				if n != 1 {
					t.Fatalf("%d cells, round %d: cell %d runs %d times", cells, r, i, n)
				}
			}
		}
	}
}

func TestOrderDiffersBetweenRounds(t *testing.T) {
	axes := []Axis{{"reuse", []string{"0", "25", "50"}}}
	for _, cells := range []int{2, 3, 6} {
		p := New([]string{"BenchmarkA"}, axes, []string{"a", "b"}, 20, 7)
		p.Cells = p.Cells[:cells]
		distinct := map[string]bool{}
		for r := 1; r <= p.Rounds; r++ {
			if r > 1 && slices.Equal(p.Order(r), p.Order(r-1)) {
				t.Errorf("%d cells: round %d repeats round %d's order", cells, r, r-1)
			}
			distinct[fmtInts(p.Order(r))] = true
		}
		if cells >= 3 && len(distinct) < 3 {
			t.Errorf("%d cells: only %d distinct orders in %d rounds", cells, len(distinct), p.Rounds)
		}
	}
}

func TestOrderIsReproducible(t *testing.T) {
	a := New([]string{"BenchmarkA"}, []Axis{{"n", []string{"1", "2", "3", "4"}}}, []string{"x"}, 5, 99)
	b := New([]string{"BenchmarkA"}, []Axis{{"n", []string{"1", "2", "3", "4"}}}, []string{"x"}, 5, 99)
	for r := 1; r <= 5; r++ {
		if !slices.Equal(a.Order(r), b.Order(r)) {
			t.Fatalf("round %d: same seed gave different orders", r)
		}
	}
	c := New([]string{"BenchmarkA"}, []Axis{{"n", []string{"1", "2", "3", "4"}}}, []string{"x"}, 5, 100)
	same := 0
	for r := 1; r <= 5; r++ {
		if slices.Equal(a.Order(r), c.Order(r)) {
			same++
		}
	}
	if same == 5 {
		t.Error("different seeds gave the same orders in every round")
	}
}

func fmtInts(xs []int) string {
	b := make([]byte, 0, len(xs)*3)
	for _, x := range xs {
		b = append(b, byte('0'+x%10), byte('0'+x/10%10), ',')
	}
	return string(b)
}

func TestOrderOf(t *testing.T) {
	p := New([]string{"BenchmarkX"}, []Axis{{Key: "n", Values: []string{"1", "2", "3", "4", "5", "6"}}}, []string{"a"}, 1, 42)
	subset := []int{1, 3, 4}
	seen := map[string]bool{}
	for r := 7; r < 27; r++ {
		got := p.OrderOf(r, subset)
		if !slices.Equal(got, p.OrderOf(r, subset)) {
			t.Fatalf("OrderOf(%d) is not reproducible", r)
		}
		sorted := slices.Sorted(slices.Values(got))
		if !slices.Equal(sorted, subset) {
			t.Fatalf("OrderOf(%d, %v) = %v, want a permutation of the subset", r, subset, got)
		}
		seen[fmt.Sprint(got)] = true
	}
	if len(seen) < 4 {
		t.Errorf("20 rounds gave only %d distinct orders of 3 cells; the order must be shuffled each round", len(seen))
	}
	if got := p.OrderOf(3, nil); len(got) != 0 {
		t.Errorf("OrderOf(empty) = %v", got)
	}
}
