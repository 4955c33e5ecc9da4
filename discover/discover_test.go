package discover

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/spec"
)

func benches(names ...string) []Bench {
	var out []Bench
	for _, n := range names {
		parts := strings.Split(n, "/")
		out = append(out, Bench{Func: parts[0], Levels: parts[1:]})
	}
	return out
}

func TestAxes(t *testing.T) {
	tests := []struct {
		name    string
		benches []Bench
		want    []Axis
		err     string
	}{
		{"full sweep", benches("BenchmarkA/n=1/codec=x", "BenchmarkA/n=1/codec=y", "BenchmarkA/n=10/codec=x", "BenchmarkA/n=10/codec=y"),
			[]Axis{{"n", []string{"1", "10"}}, {"codec", []string{"x", "y"}}}, ""},
		{"two functions", benches("BenchmarkA/n=1", "BenchmarkB/n=1", "BenchmarkA/n=2", "BenchmarkB/n=2"),
			[]Axis{{"n", []string{"1", "2"}}}, ""},
		{"no levels", benches("BenchmarkA", "BenchmarkB"), []Axis{}, ""},
		{"unkeyed level", benches("BenchmarkA/small"), nil, "not key=value"},
		{"ragged", benches("BenchmarkA/n=1", "BenchmarkA/n=1/m=2"), nil, "different sub-benchmark keys"},
		{"holes", benches("BenchmarkA/n=1/m=1", "BenchmarkA/n=2/m=2"), nil, "not a full cross product"},
		{"plain, then not key=value", benches("BenchmarkSet", "BenchmarkBitsetOps/Equal"), nil, `BenchmarkBitsetOps/Equal has a sub-benchmark level ("Equal") that is not key=value`},
		{"plain, then key=value", benches("BenchmarkBoolField", "BenchmarkA/n=1"), nil, "different sub-benchmark keys (none; n)"},
		{"a key twice", benches("BenchmarkA/n=1/n=2"), nil, `repeats the sub-benchmark key "n"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Axes(tt.benches)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Axes = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i].Key != tt.want[i].Key || !slices.Equal(got[i].Values, tt.want[i].Values) {
					t.Errorf("axis %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		in   string
		want Config
		err  string
	}{
		{"base", Config{Name: "base"}, ""},
		{"gogc-off:GOGC=off", Config{Name: "gogc-off", Env: []string{"GOGC=off"}}, ""},
		{"arena:GOEXPERIMENT=arenas,GOMAXPROCS=2", Config{Name: "arena", Env: []string{"GOEXPERIMENT=arenas", "GOMAXPROCS=2"}}, ""},
		{"dbg:GOGC=50,GODEBUG=gctrace=1,madvdontneed=1", Config{Name: "dbg", Env: []string{"GOGC=50", "GODEBUG=gctrace=1,madvdontneed=1"}}, ""},
		{":GOGC=1", Config{}, "want NAME"},
		{"x:PATH=/bin", Config{}, "not a setting perflab knows"},
		{"x:GOGC", Config{}, "not KEY=VALUE"},
		{"bad name:GOGC=1", Config{}, "want NAME"},
		{"é:GOGC=1", Config{}, "may hold only"},
	}
	for _, tt := range tests {
		got, err := ParseConfig(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseConfig(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got.Name != tt.want.Name || !slices.Equal(got.Env, tt.want.Env) {
			t.Errorf("ParseConfig(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"base", "gogc-off:GOGC=off", "a:GOEXPERIMENT=arenas,GOMAXPROCS=2", "d:GODEBUG=a=1,b=2", ":", "x:,", "x:=", "x:GOGC=1,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig(s)
		if err != nil {
			return
		}
		// Whatever parses must make a valid spec.
		text, err := SpecText(SpecInput{Name: "fuzz", Package: ".", Benches: benches("BenchmarkA/n=1", "BenchmarkA/n=2"), Configs: []Config{c}, Rounds: 6})
		if err != nil {
			t.Fatalf("ParseConfig(%q) = %+v, but SpecText fails: %v", s, c, err)
		}
		// Values are checked by the spec, which must say what is wrong, not panic.
		if _, err := spec.Parse("fuzz.toml", []byte(text)); err != nil && !strings.HasPrefix(err.Error(), "fuzz.toml:") {
			t.Fatalf("spec error without a place: %v", err)
		}
	})
}

func TestSpecTextParses(t *testing.T) {
	in := SpecInput{Name: "mybench", Package: "./codec", Benches: benches("BenchmarkA/n=1/codec=x", "BenchmarkA/n=1/codec=y", "BenchmarkA/n=10/codec=x", "BenchmarkA/n=10/codec=y"),
		Configs: []Config{{Name: "base"}, {Name: "gogc-off", Env: []string{"GOGC=off"}}}, Rounds: 8, Benchtime: "20ms", CPU: []int{1, 2}, Axis: "n", By: "codec"}
	text, err := SpecText(in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.Parse("perflab.toml", []byte(text))
	if err != nil {
		t.Fatalf("generated spec does not parse: %v\n%s", err, text)
	}
	if len(s.Axes) != 2 || s.Axes[0].Key != "n" || s.Analysis.Axis != "n" || s.Analysis.By != "codec" || len(s.Configs) != 2 || s.Configs[1].GOGC != "off" {
		t.Errorf("spec = %+v", s)
	}
	if m, _ := s.Mode("quick"); m.Rounds != 8 || m.Benchtime != "20ms" || !slices.Equal(m.CPU, []int{1, 2}) {
		t.Errorf("quick mode = %+v", m)
	}
	// Not a sweep: no axes, and the spec still parses.
	text, err = SpecText(SpecInput{Name: "x", Package: ".", Benches: benches("BenchmarkA/small", "BenchmarkB")})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := spec.Parse("x.toml", []byte(text)); err != nil || len(s.Axes) != 0 || !strings.Contains(text, "# No axes:") {
		t.Errorf("non-sweep spec: %v\n%s", err, text)
	}
}

// TestListOnThrowawayModule discovers the benchmarks of a module that is not perflab.
func TestListOnThrowawayModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/throwaway\n\ngo 1.26\n")
	write("x_test.go", `package throwaway

import (
	"strconv"
	"testing"
)

var sink int

func BenchmarkSum(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				s := 0
				for i := range n {
					s += i
				}
				sink = s
			}
		})
	}
}

func BenchmarkPlain(b *testing.B) {
	for b.Loop() {
		sink++
	}
}
`)
	bin, _, err := gotest.Compile(context.Background(), gotest.Build{Dir: dir, Package: ".", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := List(context.Background(), bin, dir, "Sum")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range got {
		names = append(names, b.Name())
	}
	if want := []string{"BenchmarkSum/n=1", "BenchmarkSum/n=10", "BenchmarkSum/n=100"}; !slices.Equal(names, want) {
		t.Errorf("List = %q, want %q", names, want)
	}
	if _, err := List(context.Background(), bin, dir, "NoSuch"); err == nil || !strings.Contains(err.Error(), "the package has: BenchmarkSum, BenchmarkPlain") {
		t.Errorf("List of a regex matching nothing: %v; want the package's benchmarks named", err)
	}
	if _, err := List(context.Background(), bin, dir, "("); err == nil || !strings.Contains(err.Error(), "not a regular expression") {
		t.Errorf("bad regex: %v", err)
	}
}
