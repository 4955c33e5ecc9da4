package claim_test

import (
	"slices"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
)

func TestDepends(t *testing.T) {
	p := plan.New([]string{"BenchmarkPool"}, []plan.Axis{
		{Key: "variant", Values: []string{"plain", "syncpool"}},
		{Key: "reuse", Values: []string{"0", "25"}},
	}, []string{"default", "gogc-off"}, 1, 1)
	// Cells in canonical order: variant, reuse, config.
	name := func(idx []int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, p.Cells[i].String())
		}
		return out
	}
	tests := []struct {
		name  string
		check spec.Check
		want  []string
	}{
		{"ratio", spec.Check{Kind: "ratio", Where: "reuse=25,config=default", Num: "variant=syncpool", Den: "variant=plain"},
			[]string{"BenchmarkPool/variant=plain/reuse=25 @default", "BenchmarkPool/variant=syncpool/reuse=25 @default"}},
		{"ratio across configs", spec.Check{Kind: "ratio", Where: "variant=plain,reuse=0", Num: "config=gogc-off", Den: "config=default"},
			[]string{"BenchmarkPool/variant=plain/reuse=0 @default", "BenchmarkPool/variant=plain/reuse=0 @gogc-off"}},
		{"value, procs ignored", spec.Check{Kind: "value", Num: "variant=plain,reuse=0,config=default,procs=4"},
			[]string{"BenchmarkPool/variant=plain/reuse=0 @default"}},
		{"crossover", spec.Check{Kind: "crossover", Where: "config=default", A: "variant=plain", B: "variant=syncpool", Axis: "reuse"},
			[]string{"BenchmarkPool/variant=plain/reuse=0 @default", "BenchmarkPool/variant=plain/reuse=25 @default", "BenchmarkPool/variant=syncpool/reuse=0 @default", "BenchmarkPool/variant=syncpool/reuse=25 @default"}},
		{"knee, one series", spec.Check{Kind: "knee", Where: "config=gogc-off", A: "variant=syncpool", Axis: "reuse"},
			[]string{"BenchmarkPool/variant=syncpool/reuse=0 @gogc-off", "BenchmarkPool/variant=syncpool/reuse=25 @gogc-off"}},
		{"sub-benchmark keys select inside the cell", spec.Check{Kind: "ratio", Where: "reuse=25,config=default", Num: "variant=syncpool,codec=std", Den: "variant=syncpool,codec=jsoniter"},
			[]string{"BenchmarkPool/variant=syncpool/reuse=25 @default"}},
		{"profile", spec.Check{Kind: "profile", Num: "variant=plain"}, nil},
		{"bad selector", spec.Check{Kind: "ratio", Num: "variant", Den: "variant=plain"}, nil},
		{"no match", spec.Check{Kind: "ratio", Num: "variant=arena", Den: "variant=none"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := name(Depends(tc.check, p.Cells))
			if !slices.Equal(got, tc.want) {
				t.Errorf("Depends = %q, want %q", got, tc.want)
			}
		})
	}
	if Counted(spec.Check{Kind: "ratio", Context: true}) || Counted(spec.Check{Kind: "profile"}) || !Counted(spec.Check{Kind: "knee"}) {
		t.Error("Counted: context and profile checks must not count as decidable by rounds; a knee check must")
	}
}

// TestDependsOn narrows a check that selects by a key its cells produce
// inside to the cells whose samples match, as gateway's map checks select
// variant=cow, which only BenchmarkMap's cells produce.
func TestDependsOn(t *testing.T) {
	p := plan.New([]string{"BenchmarkMap", "BenchmarkLog"}, []plan.Axis{{Key: "sweep", Values: []string{"0", "1"}}}, []string{"default"}, 1, 1)
	sample := func(name string) *analysis.Sample {
		return &analysis.Sample{Config: "default", Name: benchname.Parse(name), Unit: "sec/op", Values: []float64{1}, Rounds: []int{1}}
	}
	samples := []*analysis.Sample{
		sample("BenchmarkMap/sweep=1/variant=cow/gomaxprocs=2-2"),
		sample("BenchmarkMap/sweep=1/variant=syncmap/gomaxprocs=2-2"),
		sample("BenchmarkLog/sweep=0/variant=ring"),
	}
	ch := spec.Check{Kind: "ratio", Where: "sweep=1,gomaxprocs=2", Num: "variant=cow", Den: "variant=syncmap"}
	var got []string
	for _, i := range DependsOn(ch, p.Cells, samples) {
		got = append(got, p.Cells[i].String())
	}
	if want := []string{"BenchmarkMap/sweep=1 @default"}; !slices.Equal(got, want) {
		t.Errorf("DependsOn = %q, want %q", got, want)
	}
	// Without samples it falls back to Depends: every benchmark at sweep=1.
	if n := len(DependsOn(ch, p.Cells, nil)); n != 2 {
		t.Errorf("DependsOn without samples selects %d cells, want the 2 cells at sweep=1", n)
	}
}
