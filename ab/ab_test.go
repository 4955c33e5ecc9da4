package ab

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/revision"
)

// TestGateUnit: with rules and no unit, sequential sampling decides on
// the gated time unit and must clear the gate's limits.
func TestGateUnit(t *testing.T) {
	tests := []struct {
		unit, rules string
		wantUnit    string
		wantLimits  []float64
	}{
		{"", "sec/op>+1%", "sec/op", []float64{1.01}},
		{"", "B/op>+10%,cpu-sec/op>+2%", "cpu-sec/op", []float64{1.02}},
		{"sec/op", "cpu-sec/op>+2%", "sec/op", nil},
		{"", "instructions/op>+1%", "instructions/op", []float64{1.01}},
		{"", "B/op>+10%", "", nil},
		{"", "", "", nil},
	}
	for _, tt := range tests {
		var rules []compare.Threshold
		if tt.rules != "" {
			var err error
			if rules, err = compare.ParseThresholds(tt.rules); err != nil {
				t.Fatalf("ParseThresholds(%q): %v", tt.rules, err)
			}
		}
		unit, limits := GateUnit(tt.unit, rules)
		if unit != tt.wantUnit || !slices.EqualFunc(limits, tt.wantLimits, func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }) {
			t.Errorf("GateUnit(%q, %q) = %q %v, want %q %v", tt.unit, tt.rules, unit, limits, tt.wantUnit, tt.wantLimits)
		}
	}
}

func TestParseConfigs(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	if err := writeFile(prof, "x"); err != nil {
		t.Fatal(err)
	}
	got, err := ParseConfigs([]string{"base", "pgo:PGO=" + prof})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Name != "base" || len(got[0].Env) != 0 || got[1].Name != "pgo" || !slices.Equal(got[1].Env, []string{"PGO=" + prof}) {
		t.Errorf("ParseConfigs = %+v", got)
	}
	if none, err := ParseConfigs(nil); err != nil || none[0].Name != "" || none[1].Name != "" || none[0].Env != nil || none[1].Env != nil {
		t.Errorf("ParseConfigs(nil) = %+v, %v; want no settings", none, err)
	}
	for _, bad := range []struct {
		given []string
		err   string
	}{
		{[]string{"one"}, "give none or two"},
		{[]string{"a", "b", "c"}, "give none or two"},
		{[]string{"a", "b:PGO=/no/such/profile"}, "not a readable profile file"},
		{[]string{"a", "b:NOPE=1"}, "NOPE"},
	} {
		if _, err := ParseConfigs(bad.given); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("ParseConfigs(%q) = %v, want an error with %q", bad.given, err, bad.err)
		}
	}
}

// TestSideLabels: a side is named by its source and settings, in a label
// and in a title.
func TestSideLabels(t *testing.T) {
	commit := &revision.Source{Kind: revision.Commit, Commit: "0123456789abcdef0123", Subject: "fix"}
	tests := []struct {
		name         string
		config       discover.Config
		label, title string
	}{
		{Old, discover.Config{}, "0123456789ab fix", "`0123456789ab`"},
		{New, discover.Config{Name: "new", Env: []string{"GOGC=off"}}, "0123456789ab fix [GOGC=off]", "`0123456789ab`"},
		{New, discover.Config{Name: "gc", Env: []string{"GOGC=off", "GOMAXPROCS=2"}}, "0123456789ab fix [gc: GOGC=off,GOMAXPROCS=2]", "`0123456789ab` [gc]"},
		{Old, discover.Config{Name: "base"}, "0123456789ab fix [base]", "`0123456789ab` [base]"},
	}
	for _, tt := range tests {
		s := side(tt.name, tt.config)
		s.Source = commit
		if s.Label() != tt.label || s.short() != tt.title || s.Config().Name != tt.name {
			t.Errorf("%s with %+v: label %q, title %q, config %q; want %q, %q, %q", tt.name, tt.config, s.Label(), s.short(), s.Config().Name, tt.label, tt.title, tt.name)
		}
	}
	wt := Side{Name: New, Source: &revision.Source{Kind: revision.Worktree, Commit: "0123456789abcdef0123"}}
	if wt.short() != "working tree" {
		t.Errorf("working tree's title %q", wt.short())
	}
}

func TestSplit(t *testing.T) {
	b := func(names ...string) []discover.Bench {
		var out []discover.Bench
		for _, n := range names {
			out = append(out, discover.Bench{Func: n})
		}
		return out
	}
	both, onlyOld, onlyNew := Split(b("BenchmarkA", "BenchmarkB", "BenchmarkC"), b("BenchmarkC", "BenchmarkD", "BenchmarkA"))
	if fmt.Sprint(both, onlyOld, onlyNew) != fmt.Sprint(b("BenchmarkA", "BenchmarkC"), b("BenchmarkB"), b("BenchmarkD")) {
		t.Errorf("Split = %v, %v, %v", both, onlyOld, onlyNew)
	}
}

func TestName(t *testing.T) {
	for _, tt := range []struct{ dir, pkg, want string }{
		{"/src/My Module", ".", "my-module"},
		{"/src/mod", "./Codec", "codec"},
		{"/", ".", "bench"},
	} {
		if got := Name(tt.dir, tt.pkg); got != tt.want {
			t.Errorf("Name(%q, %q) = %q, want %q", tt.dir, tt.pkg, got, tt.want)
		}
	}
}

// TestEngineOptionsCarryEveryOption: each knob of Options reaches the
// engine, the unit and limits of the gate included.
func TestEngineOptionsCarryEveryOption(t *testing.T) {
	rules, err := compare.ParseThresholds("sec/op>+5%")
	if err != nil {
		t.Fatal(err)
	}
	p := &Pair{
		Old:        Side{Name: Old, Source: &revision.Source{ModDir: "/cache/old"}},
		New:        Side{Name: New, Source: &revision.Source{ModDir: "/cache/new"}},
		Benchmarks: []discover.Bench{{Func: "BenchmarkWork"}},
		opt: Options{Rounds: 9, Benchtime: "5ms", CPU: []int{1, 4}, Budget: 2 * time.Minute, Precision: 0.02, MaxRounds: 40, Layout: engine.LayoutFixed,
			Measure: "instructions", NoProfile: true, Seed: 7, Verbose: true, Rules: rules, CacheDir: "/cache", ArtifactDir: "/runs"},
	}
	got := p.engineOptions(nil)
	if got.Judge == nil || got.Repeat == nil || got.ChooseRepeats == nil {
		t.Errorf("judge %v, repetition statistic set %v, choice of repetitions set %v; want all", got.Judge, got.Repeat != nil, got.ChooseRepeats != nil)
	}
	got.Judge, got.Repeat, got.ChooseRepeats = nil, nil, nil
	want := engine.Options{Mode: "quick", ArtifactDir: "/runs", CacheDir: filepath.Join("/cache", "bin"), Seed: 7, Rounds: 9, Benchtime: "5ms",
		CPU: []int{1, 4}, Budget: 2 * time.Minute, Measure: "instructions", NoProfile: true, Verbose: true, Precision: 0.02, MaxRounds: 40,
		Unit: "sec/op", GateRatios: []float64{1.05}, Layout: engine.LayoutFixed,
		Cells:   discover.Cells(p.Benchmarks, []string{Old, New}),
		Sources: map[string]string{Old: "/cache/old", New: "/cache/new"}}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("options\n%+v\nwant\n%+v", got, want)
	}
}

// TestOptionsRefused: options Prepare refuses before it touches a
// repository.
func TestOptionsRefused(t *testing.T) {
	for _, tt := range []struct {
		opt Options
		err string
	}{
		{Options{Rounds: -1}, "--rounds must be at least 1"},
	} {
		tt.opt.CacheDir = t.TempDir()
		if _, err := Prepare(t.Context(), tt.opt); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Prepare(%+v) = %v, want an error with %q", tt.opt, err, tt.err)
		}
	}
}

func writeFile(name, text string) error { return os.WriteFile(name, []byte(text), 0o644) }
