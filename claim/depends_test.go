package claim

import (
	"slices"
	"testing"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
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
