package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

const machinesSpec = `
name = "m"
title = "two machines"
driver = "gotest"
benchmarks = ["BenchmarkWork"]

[[axis]]
key = "variant"
quick = ["a", "b"]

[mode.quick]
rounds = 12
benchtime = "100x"

[mode.full]
rounds = 12
benchtime = "100x"

[[config]]
name = "default"

[[claim]]
id = "M1"
text = "b is faster than a"
[[claim.check]]
kind = "ratio"
where = "config=default"
num = "variant=b"
den = "variant=a"
op = "<"
value = 1
`

// machinesInput is a sharded run of 12 rounds over two synthetic machines:
// odd rounds on host-a, even ones on host-b, where b/a is effect[0] and
// effect[1], and host-b is three times slower overall.
func machinesInput(t *testing.T, effect [2]float64) findings.Input {
	t.Helper()
	s, err := spec.Parse("spec.toml", []byte(machinesSpec))
	if err != nil {
		t.Fatal(err)
	}
	in := findings.Input{Run: &store.Run{ID: 1, Experiment: "m", Mode: "quick", RoundsPlanned: 12, Status: "complete"}, Spec: s, Opt: analysis.DefaultOptions()}
	rng := rand.New(rand.NewPCG(1, 2))
	for r := 1; r <= 12; r++ {
		m := (r - 1) % 2
		in.Rounds = append(in.Rounds, store.RoundInfo{Round: r, Machine: store.Machine{Shard: m + 1, HostID: "host-" + string(rune('a'+m)), CPUModel: "cpu " + strconv.Itoa(m), Cores: 8 * (m + 1)}})
		speed := []float64{1, 3}[m]
		for _, v := range []string{"a", "b"} {
			x := 100 * speed * math.Exp(rng.NormFloat64()*0.001)
			if v == "b" {
				x *= effect[m]
			}
			in.Results = append(in.Results, &benchfmt.Result{
				Name:  benchfmt.Name("BenchmarkWork/variant=" + v),
				Iters: 1000,
				Config: []benchfmt.Config{
					{Key: "config", Value: []byte("default")},
					{Key: "round", Value: []byte(strconv.Itoa(r))},
				},
				Values: []benchfmt.Value{{Value: x * 1e-9, Unit: "sec/op"}},
			})
		}
	}
	return in
}

func TestMachinesSection(t *testing.T) {
	for _, tc := range []struct {
		name   string
		effect [2]float64
		want   []string
		not    []string
	}{
		{"same effect", [2]float64{0.8, 0.8}, []string{"## Machines", "| host-a | 1 | cpu 0 | 8 | 6 |", "| host-b | 2 | cpu 1 | 16 | 6 |", "host-a 0.8 (n=6); host-b 0.8 (n=6)", "(n=12)"}, []string{"**differs by machine"}},
		{"effect differs", [2]float64{0.5, 0.9}, []string{"## Machines", "host-a 0.5 (n=6); host-b 0.9 (n=6)", "**differs by machine (H=", "1.8×"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := findings.Of(machinesInput(t, tc.effect))
			var b bytes.Buffer
			if err := Markdown(&b, f); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("report lacks %q:\n%s", w, section(out, "## Machines"))
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("report has %q:\n%s", w, section(out, "## Machines"))
				}
			}
			// The pooled verdict is the claim's: b < a on both machines.
			if len(f.Verdicts) != 1 || f.Verdicts[0].Verdict != "reproduced" {
				t.Errorf("verdicts = %+v, want M1 reproduced from the pooled rounds", f.Verdicts)
			}
		})
	}
}

func TestMachinesSectionOneMachine(t *testing.T) {
	in := machinesInput(t, [2]float64{0.8, 0.8})
	for i := range in.Rounds {
		in.Rounds[i].Machine = store.Machine{}
	}
	var b bytes.Buffer
	if err := Markdown(&b, findings.Of(in)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "## Machines") {
		t.Error("a run on one machine has a Machines section")
	}
}

func section(s, head string) string {
	i := strings.Index(s, head)
	if i < 0 {
		return "(no " + head + " section)"
	}
	s = s[i:]
	if j := strings.Index(s[len(head):], "\n## "); j >= 0 {
		s = s[:len(head)+j]
	}
	return s
}
