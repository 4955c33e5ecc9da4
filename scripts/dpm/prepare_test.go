package main

import (
	"go/parser"
	"go/token"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSolveKnobs: when the probes' model can hit the target on every
// benchmark, the solution does; a knob that could only help by going
// negative stays at 0.
func TestSolveKnobs(t *testing.T) {
	m := module{Benchmarks: []string{"A", "B", "C"}, Knobs: []knob{{"perMillion", 1}, {"bytes", 1}}}
	base := map[string]float64{"A": 1000, "B": 10000, "C": 100000}
	offset := base
	// Instructions per unit of each knob: the per-million knob's grow
	// with the benchmark's input, the bytes knob's are the same
	// everywhere; perMillion = 1e6·target and bytes = 100·target hit
	// every target exactly.
	perUnit := [][]float64{{0.0003, 7}, {0.0093, 7}, {0.0993, 7}}
	for _, target := range []float64{0.02, 0.05, 0.10} {
		knobs := solveKnobs(m, base, offset, perUnit, target)
		got := model(m, offset, perUnit, knobs)
		for _, b := range m.Benchmarks {
			if change := got[b]/base[b] - 1; math.Abs(change-target) > 0.0001 {
				t.Errorf("target %+.0f%%: %s modelled at %+.3f%% with %v", 100*target, b, 100*change, knobs)
			}
		}
	}
	// Here the bytes knob would have to be negative: the per-million
	// knob alone already costs the small benchmark more than its share.
	perUnit = [][]float64{{0.002, 7}, {0.01, 7}, {0.1, 7}}
	knobs := solveKnobs(m, base, offset, perUnit, 0.05)
	if knobs["bytes"] != 0 || knobs["perMillion"] <= 0 {
		t.Errorf("knobs %v, want bytes 0 and perMillion positive", knobs)
	}
}

func TestLeastSquaresSingular(t *testing.T) {
	a := [][]float64{{1, 2}, {2, 4}}
	if x, ok := leastSquares(a, []float64{1, 2}, []int{0, 1}); ok {
		t.Errorf("singular system solved: %v", x)
	}
	if x, ok := leastSquares(a, []float64{1, 2}, []int{0}); !ok || math.Abs(x[0]-1) > 1e-12 || x[1] != 0 {
		t.Errorf("one free column: %v %v, want [1 0]", x, ok)
	}
}

// TestPlantedSources: the planted file and every site's call are Go,
// and a missing anchor is an error.
func TestPlantedSources(t *testing.T) {
	for _, m := range modules {
		values := map[string]int{}
		for i, k := range m.Knobs {
			values[k.Name] = 1000 * (i + 1)
		}
		src := plantedFile(m, values)
		if _, err := parser.ParseFile(token.NewFileSet(), m.Planted, src, 0); err != nil {
			t.Errorf("%s: planted file: %v\n%s", m.Name, err, src)
		}
		for name, v := range values {
			if !strings.Contains(src, name) || !strings.Contains(src, " = "+strconv.Itoa(v)) {
				t.Errorf("%s: planted file lacks %s = %d:\n%s", m.Name, name, v, src)
			}
		}
		if _, err := parser.ParseFile(token.NewFileSet(), m.BenchFile, m.BenchText, 0); err != nil {
			t.Errorf("%s: benchmark file: %v", m.Name, err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), m.LayoutFile, m.LayoutText, 0); err != nil {
			t.Errorf("%s: layout file: %v", m.Name, err)
		}
		for _, b := range m.Benchmarks {
			if !strings.Contains(m.BenchText, "func "+b+"(b *testing.B)") || !strings.HasPrefix(b, "BenchmarkAB") {
				t.Errorf("%s: %s is not a benchmark of its file matching %s", m.Name, b, benchRegex)
			}
		}
		// Sites on a stand-in source holding every anchor once.
		fake := map[string]string{}
		for _, s := range m.Sites {
			fake[s.File] += s.Anchor + "\n\treturn\n}\n"
		}
		out, err := applySites(m, fake)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		for _, s := range m.Sites {
			if !strings.Contains(out[s.File], s.Anchor+"\n\t"+s.Call+"\n") {
				t.Errorf("%s: %s: call not inserted after %q", m.Name, s.File, s.Anchor)
			}
		}
		if _, err := applySites(m, map[string]string{}); err == nil {
			t.Errorf("%s: sites applied to sources without their anchors", m.Name)
		}
	}
}

func TestGateLimit(t *testing.T) {
	for rule, want := range map[string]float64{"sec/op>+5%": 0.05, "sec/op>2%": 0.02, "sec/op > +10%": 0.10} {
		if got, err := gateLimit(rule); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("gateLimit(%q) = %v, %v; want %v", rule, got, err, want)
		}
	}
	for _, rule := range []string{"B/op>+5%", "sec/op<-5%", "sec/op>x", ""} {
		if got, err := gateLimit(rule); err == nil {
			t.Errorf("gateLimit(%q) = %v, want an error", rule, got)
		}
	}
}

func TestCheckTruths(t *testing.T) {
	ok := &manifest{Subjects: []subject{
		{Name: "m/slow5", Target: 0.05, Truth: []truth{{Bench: "A", Change: 0.058}, {Bench: "B", Change: 0.043}}},
		{Name: "m/layout", Truth: []truth{{Bench: "A", Change: 0.0009}}},
	}}
	if err := checkTruths(ok); err != nil {
		t.Errorf("within tolerance: %v", err)
	}
	bad := &manifest{Subjects: []subject{
		{Name: "m/slow5", Target: 0.05, Truth: []truth{{Bench: "A", Change: 0.0611}}},
		{Name: "m/layout", Truth: []truth{{Bench: "B", Change: -0.0011}}},
	}}
	err := checkTruths(bad)
	if err == nil || !strings.Contains(err.Error(), "m/slow5 A") || !strings.Contains(err.Error(), "m/layout B") {
		t.Errorf("outside tolerance: %v, want both named", err)
	}
}

func TestSelectSubjects(t *testing.T) {
	m := &manifest{}
	for _, name := range []string{"gjson/slow2", "gjson/layout", "bitset/slow2", "bitset/layout"} {
		mod, change, _ := strings.Cut(name, "/")
		m.Subjects = append(m.Subjects, subject{Name: name, Module: mod, Change: change})
	}
	for patterns, want := range map[string]string{
		"*":                     "gjson/slow2 gjson/layout bitset/slow2 bitset/layout",
		"*/layout":              "gjson/layout bitset/layout",
		"gjson/*, bitset/slow*": "gjson/slow2 gjson/layout bitset/slow2",
		"layout":                "gjson/layout bitset/layout",
		"bitset,*/slow2":        "gjson/slow2 bitset/slow2 bitset/layout",
	} {
		subs, err := selectSubjects(m, patterns)
		var names []string
		for _, s := range subs {
			names = append(names, s.Name)
		}
		if err != nil || strings.Join(names, " ") != want {
			t.Errorf("selectSubjects(%q) = %v, %v; want %s", patterns, names, err, want)
		}
	}
	if _, err := selectSubjects(m, "zap/*"); err == nil {
		t.Error("a pattern matching nothing selected something")
	}
}

func TestParseBudgets(t *testing.T) {
	got, err := parseBudgets("90s, 3m,default")
	if err != nil || len(got) != 3 || got[0].String() != "1m30s" || got[1].String() != "3m0s" || got[2] != 0 || budgetString(got[2]) != "default" {
		t.Errorf("parseBudgets = %v, %v", got, err)
	}
	for _, bad := range []string{"", "90", "-1s", "90s,,3m", "fast"} {
		if got, err := parseBudgets(bad); err == nil {
			t.Errorf("parseBudgets(%q) = %v, want an error", bad, got)
		}
	}
}

func TestParseTools(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to stand in for a binary")
	}
	tools, err := parseTools("base=" + sh + ", " + sh + "," + sh + ",benchstat=" + sh)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tl := range tools {
		labels = append(labels, tl.Label)
		if !filepath.IsAbs(tl.Path) || tl.Benchstat {
			t.Errorf("%+v: want an absolute path of a perflab binary", tl)
		}
	}
	if got, want := strings.Join(labels, " "), "base sh sh#3 benchstat#4"; got != want {
		t.Errorf("labels %q, want %q", got, want)
	}
	for _, bad := range []string{"", " , ", "new=/nonexistent/perflab"} {
		if tools, err := parseTools(bad); err == nil {
			t.Errorf("parseTools(%q) = %+v, want an error", bad, tools)
		}
	}
}
