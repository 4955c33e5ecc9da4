package spec

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		file   string
		line   int    // expected line; 0 means a whole-file error
		substr string // fragment of the message
	}{
		{"unknown_top_key.toml", 3, `unknown key "benchmark" at the top level; did you mean "benchmarks"?`},
		{"unknown_config_field.toml", 26, `unknown key "gomaxproc" in [[config]]; did you mean "gomaxprocs"?`},
		{"unknown_axis_key.toml", 11, `unknown key "values" in [[axis]]`},
		{"unknown_mode_key.toml", 15, `unknown key "benchtim" in [mode.quick]`},
		{"unknown_table.toml", 21, `unknown table [analysys]; did you mean [analysis]?`},
		{"empty_axis.toml", 7, `axis "size" has no quick values`},
		{"duplicate_config.toml", 29, `duplicate config name "base" (first defined at line 22)`},
		{"duplicate_claim.toml", 27, `duplicate claim id "fast" (first defined at line 22)`},
		{"duplicate_axis.toml", 10, `duplicate axis key "size" (first defined at line 5)`},
		{"bad_selector.toml", 28, `"variant" is not key=value`},
		{"syntax_error.toml", 15, `invalid TOML`},
		{"quick_rounds.toml", 14, `mode "quick" has rounds = 3; it needs at least 6`},
		{"missing_mode.toml", 13, `mode "full" is missing; add a [mode.full] table`},
		{"unknown_mode.toml", 21, `unknown mode "medium"`},
		{"type_mismatch.toml", 14, `key "rounds" in [mode.quick] must be an integer, not a TOML string`},
		{"gomaxprocs_float.toml", 23, `gomaxprocs 1.5 must be an integer or a string`},
		{"bool_axis_value.toml", 7, `axis "size" value true is a boolean`},
		{"driver_load.toml", 2, `driver "load" is not available yet`},
		{"missing_name.toml", 0, `name is missing`},
		{"bad_benchmark_name.toml", 3, `benchmark "BenchmarkDemo/size=64" must be a benchmark function name`},
		{"bad_benchtime.toml", 19, `benchtime "1 second" must be a positive duration`},
		{"bad_profile.toml", 20, `profile "always" must be "config", "cell" or "off"`},
		{"analysis_not_numeric.toml", 22, `analysis axis "variant" must be numeric`},
		{"bad_baseline.toml", 24, `analysis baseline "slab" is not a value of axis "variant"`},
		{"ratio_missing_op.toml", 25, `a ratio check needs op`},
		{"not_testable_with_checks.toml", 24, `marked not_testable but has checks`},
		{"crossover_range.toml", 31, `min 512 is greater than max 256`},
		{"crossover_no_wins_above.toml", 25, `a crossover check needs wins_above = "a" or "b"`},
		{"crossover_bad_wins_above.toml", 30, `wins_above "pool" must be "a" or "b"`},
		{"wins_above_on_ratio.toml", 32, `wins_above is for crossover checks`},
		{"not_tested_form.toml", 24, `not_tested entry 1 "P99" must read "<part of the claim>: <why it is not tested here>"`},
		{"not_tested_not_testable.toml", 25, `is not testable as a whole`},
		{"inline_bad_range.toml", 20, `min 5 is greater than max 4`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			_, err := Load(path)
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want an error", path)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Load(%s) error %T %q is not an *Error", path, err, err)
			}
			prefix := path + ":"
			if tt.line > 0 {
				prefix += strconv.Itoa(tt.line) + ":"
			}
			if got := err.Error(); !strings.HasPrefix(got, prefix+" ") || !strings.Contains(got, tt.substr) {
				t.Errorf("error = %q\nwant prefix %q and fragment %q", got, prefix+" ", tt.substr)
			}
			if se.File != path || se.Line != tt.line {
				t.Errorf("error at %s:%d, want %s:%d", se.File, se.Line, path, tt.line)
			}
		})
	}
}

func TestParseGood(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if s.File != "testdata/good.toml" || s.Dir != "testdata" {
		t.Errorf("File, Dir = %q, %q", s.File, s.Dir)
	}
	src, _ := os.ReadFile(s.File)
	if string(s.Source) != string(src) {
		t.Errorf("Source differs from the file")
	}
	top := [][2]string{
		{s.Name, "syncpool-reuse"},
		{s.Title, "sync.Pool versus plain allocation across reuse rates"},
		{s.Article, "C-syncpool-reuse-rate.txt"},
		{s.Description, "Allocates buffers of several sizes either with make or through a sync.Pool,\nand varies how often a pooled buffer is reused."},
		{s.Driver, "gotest"},
		{s.Package, "./bench"},
	}
	for i, f := range top {
		if f[0] != f[1] {
			t.Errorf("top-level field %d = %q, want %q", i, f[0], f[1])
		}
	}
	if want := []string{"BenchmarkReuse", "BenchmarkReuseParallel"}; !slices.Equal(s.Benchmarks, want) {
		t.Errorf("Benchmarks = %q, want %q", s.Benchmarks, want)
	}
	wantAxes := []Axis{
		{Key: "variant", Quick: []string{"plain", "syncpool"}, Full: []string{"plain", "syncpool"}, Line: 12},
		{Key: "size", Quick: []string{"64", "4096"}, Full: []string{"64", "256", "1024", "4096", "65536"}, Line: 16},
		{Key: "reuse", Quick: []string{"0", "50", "100"}, Full: []string{"0", "10", "25", "50", "75", "90", "100"}, Line: 21},
		{Key: "ratio", Quick: []string{"0.5", "1.5e3"}, Full: []string{"0.5", "1.5e3"}, Line: 26},
	}
	if !reflect.DeepEqual(s.Axes, wantAxes) {
		t.Errorf("Axes =\n%+v\nwant\n%+v", s.Axes, wantAxes)
	}
	quick, full := s.Modes["quick"], s.Modes["full"]
	if quick.Rounds != 6 || quick.Benchtime != "50ms" || len(quick.CPU) != 0 || quick.Timeout != "2m" {
		t.Errorf("quick mode = %+v", quick)
	}
	if full.Rounds != 20 || full.Benchtime != "1000x" || !slices.Equal(full.CPU, []int{1, 4}) || full.Timeout != "10m" {
		t.Errorf("full mode = %+v", full)
	}
	if len(s.Modes) != 2 {
		t.Errorf("Modes has %d entries, want 2", len(s.Modes))
	}
	if len(s.Configs) != 2 {
		t.Fatalf("Configs = %+v, want 2", s.Configs)
	}
	if c := s.Configs[0]; c.Name != "base" || c.Line != 40 || c.BuildKey() != "" || len(c.ExecEnv()) != 0 {
		t.Errorf("Configs[0] = %+v", c)
	}
	wantCfg := Config{
		Name: "greentea", GOEXPERIMENT: "greenteagc", GOTOOLCHAIN: "go1.26.0",
		Tags: []string{"purego", "fast"}, GCFlags: "-N -l", GOMAXPROCS: "4", GOGC: "off",
		GOMEMLIMIT: "512MiB", GODEBUG: "gctrace=0,madvdontneed=1", Line: 43,
	}
	if !reflect.DeepEqual(s.Configs[1], wantCfg) {
		t.Errorf("Configs[1] =\n%+v\nwant\n%+v", s.Configs[1], wantCfg)
	}
	if want := (Analysis{Axis: "reuse", By: "variant", Baseline: "plain", Unit: "sec/op"}); s.Analysis != want {
		t.Errorf("Analysis = %+v, want %+v", s.Analysis, want)
	}
	wantClaims := []Claim{
		{
			ID: "pool-wins-when-reused", Line: 59,
			Text:    "With 50% reuse, sync.Pool is at least 2x faster than make for 4 KiB buffers.",
			Claimed: "2.3x at 4096 bytes, 50% reuse",
			Checks: []Check{{
				Kind: "ratio", Unit: "sec/op", Where: "size=4096, reuse=50",
				Num: "variant=syncpool", Den: "variant=plain", Op: "<", Value: 0.5,
				Note: "sec/op of the pool divided by sec/op of make", Line: 64,
			}},
		},
		{
			ID: "crossover", Line: 73,
			Text:      "The pool starts to win somewhere between 10% and 40% reuse.",
			NotTested: []string{"the pool's time per op: this crossover reads bytes per op"},
			Checks: []Check{{
				Kind: "crossover", Unit: "B/op", Where: "size=4096",
				A: "variant=syncpool", B: "variant=plain", Axis: "reuse", WinsAbove: "a", Min: 10, Max: 40, Line: 78,
			}},
		},
		{
			ID: "gc-pressure", Line: 89,
			Text:        "Pools lower GC pressure in production services.",
			NotTestable: "needs a production workload, not a micro-benchmark",
		},
	}
	if len(s.Claims) != len(wantClaims) {
		t.Fatalf("Claims = %+v", s.Claims)
	}
	for i := range wantClaims {
		got := s.Claims[i]
		if len(got.Checks) == 0 {
			got.Checks = nil
		}
		if !reflect.DeepEqual(got, wantClaims[i]) {
			t.Errorf("Claims[%d] =\n%+v\nwant\n%+v", i, got, wantClaims[i])
		}
	}
}

func TestParseInlineTables(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "inline_tables.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Axes[0].Full; !slices.Equal(got, []string{"1", "2", "4"}) {
		t.Errorf("axis n full = %q", got)
	}
	if got := s.Axes[1].Line; got != 6 {
		t.Errorf("axis impl line = %d, want 6", got)
	}
	if c := s.Configs[0]; c.Name != "one" || c.GOMAXPROCS != "1" || c.GOGC != "50" {
		t.Errorf("config = %+v", c)
	}
	if m := s.Modes["full"]; m.Rounds != 10 || !slices.Equal(m.CPU, []int{2}) {
		t.Errorf("full mode = %+v", m)
	}
	if got := s.Claims[0].Checks; len(got) != 2 || got[0].Line != 18 || got[1].Line != 19 || got[0].Value != 1 {
		t.Errorf("checks = %+v", got)
	}
}

// TestDocExample parses the complete example in the package documentation.
func TestDocExample(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "// # A complete spec\n//\n")
	if !ok {
		t.Fatal("doc.go has no complete example")
	}
	var b strings.Builder
	for _, line := range strings.Split(after, "\n") {
		if line != "//" && !strings.HasPrefix(line, "//\t") {
			break
		}
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "//"), "\t") + "\n")
	}
	s, err := Parse("doc.go example", []byte(b.String()))
	if err != nil {
		t.Fatalf("the documented example does not parse: %v\n%s", err, b.String())
	}
	if len(s.Axes) != 3 || len(s.Configs) != 2 || len(s.Claims) != 3 {
		t.Errorf("example parsed to %d axes, %d configs, %d claims; want 3, 2, 3", len(s.Axes), len(s.Configs), len(s.Claims))
	}
}

func TestDefaults(t *testing.T) {
	src := "name = \"d\"\ndriver = \"gotest\"\nbenchmarks = [\"BenchmarkD\"]\n[mode.quick]\nrounds = 6\n[mode.full]\nrounds = 1\n"
	s, err := Parse("d/spec.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"Package", s.Package, "."},
		{"Dir", s.Dir, "d"},
		{"Configs", s.Configs, []Config{{Name: "default"}}},
		{"Analysis.Unit", s.Analysis.Unit, "sec/op"},
		{"quick timeout", s.Modes["quick"].Timeout, "2m"},
		{"Axes", len(s.Axes), 0},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
}

func TestModeAndAxisValues(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Mode("full")
	if err != nil || m.Rounds != 20 {
		t.Errorf("Mode(full) = %+v, %v", m, err)
	}
	if _, err := s.Mode("fast"); err == nil || !strings.Contains(err.Error(), "full, quick") {
		t.Errorf("Mode(fast) error = %v, want one listing full, quick", err)
	}
	tests := []struct {
		mode string
		want [][]string
	}{
		{"quick", [][]string{{"plain", "syncpool"}, {"64", "4096"}, {"0", "50", "100"}, {"0.5", "1.5e3"}}},
		{"full", [][]string{{"plain", "syncpool"}, {"64", "256", "1024", "4096", "65536"}, {"0", "10", "25", "50", "75", "90", "100"}, {"0.5", "1.5e3"}}},
	}
	for _, tt := range tests {
		got, err := s.AxisValues(tt.mode)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("AxisValues(%s) = %q, %v; want %q", tt.mode, got, err, tt.want)
		}
	}
	if _, err := s.AxisValues("medium"); err == nil {
		t.Error("AxisValues(medium) succeeded, want an error")
	}
	vals, _ := s.AxisValues("quick")
	vals[0][0] = "changed"
	if s.Axes[0].Quick[0] != "plain" {
		t.Error("AxisValues returned the spec's own slices")
	}
}

func TestConfigEnv(t *testing.T) {
	tests := []struct {
		name  string
		c     Config
		build []string
		flags []string
		exec  []string
	}{
		{name: "empty", c: Config{Name: "default"}},
		{
			name:  "all",
			c:     Config{Name: "x", GOEXPERIMENT: "greenteagc", GOTOOLCHAIN: "go1.26.0", Tags: []string{"b", "a"}, GCFlags: "-N -l", GOMAXPROCS: "2", GOGC: "off", GOMEMLIMIT: "1GiB", GODEBUG: "gctrace=1"},
			build: []string{"GOEXPERIMENT=greenteagc", "GOTOOLCHAIN=go1.26.0"},
			flags: []string{"-tags=a,b", "-gcflags=-N -l"},
			exec:  []string{"GOMAXPROCS=2", "GOGC=off", "GOMEMLIMIT=1GiB", "GODEBUG=gctrace=1"},
		},
		{
			name: "exec only",
			c:    Config{Name: "y", GOGC: "50"},
			exec: []string{"GOGC=50"},
		},
		{
			name:  "toolchain only",
			c:     Config{Name: "z", GOTOOLCHAIN: "local"},
			build: []string{"GOTOOLCHAIN=local"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.BuildEnv(); !slices.Equal(got, tt.build) {
				t.Errorf("BuildEnv = %q, want %q", got, tt.build)
			}
			if got := tt.c.BuildFlags(); !slices.Equal(got, tt.flags) {
				t.Errorf("BuildFlags = %q, want %q", got, tt.flags)
			}
			if got := tt.c.ExecEnv(); !slices.Equal(got, tt.exec) {
				t.Errorf("ExecEnv = %q, want %q", got, tt.exec)
			}
			if want := strings.Join(append(slices.Clone(tt.build), tt.flags...), "\n"); tt.c.BuildKey() != want {
				t.Errorf("BuildKey = %q, want %q", tt.c.BuildKey(), want)
			}
		})
	}
}

func TestBuildKeyEquality(t *testing.T) {
	a := Config{Name: "a", GOEXPERIMENT: "x", Tags: []string{"t1", "t2"}, GOGC: "50"}
	b := Config{Name: "b", GOEXPERIMENT: "x", Tags: []string{"t2", "t1"}, GOMAXPROCS: "1"}
	c := Config{Name: "c", GOEXPERIMENT: "y", Tags: []string{"t1", "t2"}}
	if a.BuildKey() != b.BuildKey() {
		t.Errorf("equal build settings give keys %q and %q", a.BuildKey(), b.BuildKey())
	}
	if a.BuildKey() == c.BuildKey() {
		t.Errorf("different GOEXPERIMENT gives the same key %q", a.BuildKey())
	}
	if !slices.Equal(a.Tags, []string{"t1", "t2"}) || !slices.Equal(b.Tags, []string{"t2", "t1"}) {
		t.Error("BuildFlags reordered the config's own tags")
	}
}

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in      string
		want    [][2]string
		wantErr string
	}{
		{in: "", want: nil},
		{in: "mode=serial", want: [][2]string{{"mode", "serial"}}},
		{in: "mode=serial,size=64,procs=1", want: [][2]string{{"mode", "serial"}, {"size", "64"}, {"procs", "1"}}},
		{in: " size=64 , reuse=25 ", want: [][2]string{{"size", "64"}, {"reuse", "25"}}},
		{in: "cfg.name=base", want: [][2]string{{"cfg.name", "base"}}},
		{in: "variant", wantErr: "is not key=value"},
		{in: "=x", wantErr: "key \"\""},
		{in: "a-b=1", wantErr: "only letters, digits"},
		{in: "a=", wantErr: "empty value"},
		{in: "a=1,,b=2", wantErr: "empty pair"},
		{in: "a=1,", wantErr: "empty pair"},
		{in: "a=1=2", wantErr: "must not contain '='"},
		{in: "a=1 2", wantErr: "must not contain"},
		{in: "a=1,a=2", wantErr: "twice"},
	}
	for _, tt := range tests {
		got, err := ParseSelector(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSelector(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSelector(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "a.toml", Line: 12, Msg: "bad"}, "a.toml:12: bad"},
		{Error{File: "a.toml", Msg: "bad"}, "a.toml: bad"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join("testdata", "no-such-spec.toml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: error = %v, want one wrapping os.ErrNotExist", err)
	}
}

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.toml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files in testdata: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.toml", data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T %q is not an *Error", err, err)
			}
			if se.Line < 0 || se.File != "fuzz.toml" {
				t.Fatalf("error at %s:%d", se.File, se.Line)
			}
			if se.Line > strings.Count(string(data), "\n")+1 {
				t.Fatalf("error line %d is past the end of the input: %v", se.Line, err)
			}
			return
		}
		if s.Name == "" || len(s.Benchmarks) == 0 || len(s.Configs) == 0 {
			t.Fatalf("accepted spec lacks required parts: %+v", s)
		}
		for _, c := range s.Claims {
			for _, e := range c.NotTested {
				if part, why, ok := strings.Cut(e, ": "); !ok || strings.TrimSpace(part) == "" || strings.TrimSpace(why) == "" {
					t.Fatalf("claim %s: accepted not_tested entry %q without a part and a reason", c.ID, e)
				}
			}
			for _, ch := range c.Checks {
				if (ch.Kind == "crossover") != (ch.WinsAbove == "a" || ch.WinsAbove == "b") {
					t.Fatalf("claim %s: accepted a %s check with wins_above %q", c.ID, ch.Kind, ch.WinsAbove)
				}
			}
		}
		for _, mode := range []string{"quick", "full"} {
			vals, err := s.AxisValues(mode)
			if err != nil || len(vals) != len(s.Axes) {
				t.Fatalf("AxisValues(%s) = %v, %v", mode, vals, err)
			}
			for i, v := range vals {
				if len(v) == 0 {
					t.Fatalf("axis %d has no %s values", i, mode)
				}
			}
		}
	})
}
