package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

func correctSample(config, name string) *analysis.Sample {
	return &analysis.Sample{Config: config, Name: analysis.ParseName(name), Unit: CorrectUnit, Values: []float64{1, 1, 1}}
}

func TestCorrectness(t *testing.T) {
	sp := &spec.Spec{
		Axes:     []spec.Axis{{Key: "lib", Quick: []string{"std", "fast", "broken"}, Full: []string{"std", "fast", "broken"}}},
		Analysis: spec.Analysis{Axis: "depth", By: "lib"},
	}
	passed := []*analysis.Sample{
		correctSample("default", "BenchmarkJSON/lib=fast/depth=1-2"),
		correctSample("default", "BenchmarkJSON/lib=std/depth=1-2"),
		correctSample("default", "BenchmarkJSON/lib=std/depth=2-2"),
		{Config: "default", Name: analysis.ParseName("BenchmarkJSON/lib=std/depth=2-2"), Unit: "sec/op", Values: []float64{1}},
	}
	incorrect := "exit status 1\n    bench_test.go:93: perflab: incorrect: output differs at byte 12: got `1`, want `2`\n--- FAIL: BenchmarkJSON/lib=broken/depth=2\nFAIL"
	failures := []store.Failure{
		{Round: 1, Config: "default", Cell: "BenchmarkJSON/lib=broken/depth=2", Reason: incorrect},
		{Round: 2, Config: "default", Cell: "BenchmarkJSON/lib=broken/depth=2", Reason: incorrect},
		{Round: 1, Config: "default", Cell: "BenchmarkJSON/lib=broken/depth=1", Reason: "timeout after 1m"},
		{Round: 1, Config: "default", Cell: "BenchmarkJSON/lib=v2/depth=1", Reason: "needs GOEXPERIMENT=jsonv2", Skip: true},
	}
	tests := []struct {
		name    string
		in      *findings.Run
		want    []string // fragments, in order
		notWant []string
	}{
		{"no gate", &findings.Run{Input: findings.Input{Spec: sp}, Samples: passed[3:]}, nil, []string{"Correctness"}},
		{"all correct", &findings.Run{Input: findings.Input{Spec: sp}, Samples: passed},
			[]string{"## Correctness", "All 3 lib×depth cells produced correct output.", "| lib | correct cells | incorrect cells |", "| std | 2 | 0 |\n| fast | 1 | 0 |"},
			[]string{"first difference"}},
		{"one incorrect", &findings.Run{Input: findings.Input{Spec: sp, Failures: failures}, Samples: passed},
			[]string{"1 of 4 lib×depth cells produced incorrect output", "| config | lib | depth | first difference |",
				"| default | broken | 2 | output differs at byte 12: got `1`, want `2` |", "| std | 2 | 0 |\n| fast | 1 | 0 |\n| broken | 0 | 1 |"},
			[]string{"timeout", "jsonv2"}},
		{"several configs", &findings.Run{Samples: append(passed[:1:1], correctSample("jsonv2", "BenchmarkJSON/lib=fast/depth=1-2"))},
			[]string{"All 2 lib×depth×config cells produced correct output."}, []string{"correct cells"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mdOf(correctnessSection(tt.in))
			rest := got
			for _, f := range tt.want {
				i := strings.Index(rest, f)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", f, got)
				}
				rest = rest[i+len(f):]
			}
			for _, f := range tt.notWant {
				if strings.Contains(got, f) {
					t.Errorf("output contains %q:\n%s", f, got)
				}
			}
			if tt.want == nil && got != "" {
				t.Errorf("want no section, got:\n%s", got)
			}
		})
	}
}

func TestKneeless(t *testing.T) {
	var text strings.Builder
	text.WriteString("config: default\n")
	for r := 1; r <= 6; r++ {
		for _, d := range []string{"1", "2", "3", "4", "5", "6"} {
			v := 10.0
			if r == 6 {
				v = 10.5
			}
			fmt.Fprintf(&text, "round: %d\nBenchmarkJSON/lib=flat/depth=%s 1 %g ns/op\n", r, d, v)
		}
	}
	f := runOf(t, text.String(), &spec.Spec{Analysis: spec.Analysis{Axis: "depth", Unit: "sec/op"}})
	out := mdOf(kneesSection(f))
	for _, want := range []string{"1 series without a knee along depth", "| BenchmarkJSON/lib=flat | 6 | no knee"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
