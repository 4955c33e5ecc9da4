package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// scalingText is six rounds of two configs: in each round "default" takes
// 100 ns at GOMAXPROCS 1 and 60 ns at 2, and "old" takes 20% longer at 1
// and 10% longer at 2; the machine drifts slower every round.
func scalingText() string {
	var b strings.Builder
	for r := 1; r <= 6; r++ {
		drift := 1 + 0.1*float64(r)
		for _, c := range []struct {
			name     string
			one, two float64
		}{{"default", 100, 60}, {"old", 120, 66}} {
			fmt.Fprintf(&b, "config: %s\nround: %d\n", c.name, r)
			fmt.Fprintf(&b, "BenchmarkAlloc/variant=plain/gomaxprocs=1 10 %g ns/op\n", c.one*drift)
			fmt.Fprintf(&b, "BenchmarkAlloc/variant=plain/gomaxprocs=2 10 %g ns/op\n", c.two*drift)
		}
	}
	return b.String()
}

func TestScalingSections(t *testing.T) {
	f := runOf(t, scalingText(), &spec.Spec{Analysis: spec.Analysis{Scaling: "gomaxprocs"}}, store.Config{Name: "default"}, store.Config{Name: "old"})
	out := mdOf(scalingSection(f)) + mdOf(configsSection(f))
	for _, want := range []string{
		"## Scaling along gomaxprocs",
		"Config `default`:",
		"| series \\ gomaxprocs | 1 | 2 |",
		// 100/(2×60): the drift cancels within each round.
		"| BenchmarkAlloc/variant=plain |",
		"eff 0.833 [0.833, 0.833]",
		"Config `old`:",
		"eff 0.909 [0.909, 0.909]", // 120/(2×66)
		"## Configs compared with default (sec/op)",
		"| cell | old |",
		"| BenchmarkAlloc/variant=plain/gomaxprocs=1 | **1.2 [1.2, 1.2]** |",
		"| BenchmarkAlloc/variant=plain/gomaxprocs=2 | **1.1 [1.1, 1.1]** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "Config `default`:") > strings.Index(out, "Config `old`:") {
		t.Error("configs are not in the spec's order")
	}
}

func TestScalingAbsent(t *testing.T) {
	f := runOf(t, "config: default\nBenchmarkAlloc/variant=plain/gomaxprocs=1 10 100 ns/op\n", &spec.Spec{})
	if out := mdOf(scalingSection(f)) + mdOf(configsSection(f)); out != "" {
		t.Errorf("no scaling axis and one config: want no sections, got\n%s", out)
	}
}
