package discover

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// readNames reads a testdata file of benchmark names, one a line, with
// '#' comment lines.
func readNames(t testing.TB, file string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			names = append(names, l)
		}
	}
	return names
}

// goTestSelects returns whether go test -test.bench=pattern makes a leaf
// benchmark name report a result. It follows testing's match.go: the
// pattern splits on '/' and '|' outside brackets, parentheses and
// escapes; an alternative matches when each of its elements matches the
// name's element at that depth; and a leaf matched only partially (by an
// alternative deeper than the name) runs as a parent would, to look for
// sub-benchmarks, and reports nothing.
func goTestSelects(t testing.TB, pattern string) func(name string) bool {
	t.Helper()
	var alts [][]*regexp.Regexp
	for _, alt := range splitPattern(pattern) {
		var res []*regexp.Regexp
		for _, e := range alt {
			re, err := regexp.Compile(e)
			if err != nil {
				t.Fatalf("pattern %q: element %q: %v", pattern, e, err)
			}
			res = append(res, re)
		}
		alts = append(alts, res)
	}
	return func(name string) bool {
		elems := strings.Split(name, "/")
		for _, alt := range alts {
			ok := len(alt) <= len(elems)
			for i := 0; ok && i < len(alt); i++ {
				ok = alt[i].MatchString(elems[i])
			}
			if ok {
				return true
			}
		}
		return false
	}
}

// splitPattern is testing's splitRegexp: alternatives of '/'-separated
// elements.
func splitPattern(s string) [][]string {
	var alts [][]string
	var a []string
	cs, cp := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			cs++
		case ']':
			if cs--; cs < 0 {
				cs = 0
			}
		case '(':
			if cs == 0 {
				cp++
			}
		case ')':
			if cs == 0 {
				cp--
			}
		case '\\':
			i++
		case '/', '|':
			if cs == 0 && cp == 0 {
				a = append(a, s[:i])
				if s[i] == '|' {
					alts, a = append(alts, a), nil
				}
				s, i = s[i+1:], 0
				continue
			}
		}
		i++
	}
	return append(alts, append(a, s))
}

// printable reports whether go test can print name as a leaf benchmark's
// name: "Benchmark" first, no empty level, valid UTF-8 with no space and
// nothing unprintable (go test rewrites those).
func printable(name string) bool {
	if !strings.HasPrefix(name, "Benchmark") || !utf8.ValidString(name) {
		return false
	}
	for _, e := range strings.Split(name, "/") {
		if e == "" {
			return false
		}
	}
	for _, r := range name {
		if unicode.IsSpace(r) || !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// isSweep reports whether names are one sweep: every level of every name
// is key=value, every name has the same keys in the same order with none
// repeated, and every combination of functions and values exists.
func isSweep(names []string) bool {
	var keys []string
	funcs := map[string]bool{}
	var values []map[string]bool
	distinct := map[string]bool{}
	for i, n := range names {
		elems := strings.Split(n, "/")
		funcs[elems[0]] = true
		distinct[n] = true
		var ks []string
		for _, e := range elems[1:] {
			k, _, ok := strings.Cut(e, "=")
			if !ok || k == "" || slices.Contains(ks, k) {
				return false
			}
			ks = append(ks, k)
		}
		if i == 0 {
			keys = ks
			for range ks {
				values = append(values, map[string]bool{})
			}
		} else if !slices.Equal(ks, keys) {
			return false
		}
		for j, e := range elems[1:] {
			_, v, _ := strings.Cut(e, "=")
			values[j][v] = true
		}
	}
	want := len(funcs)
	for _, v := range values {
		want *= len(v)
		if want > len(distinct) {
			return false
		}
	}
	return len(names) > 0 && want == len(distinct)
}

// checkNames checks everything perflab builds from a set of leaf
// benchmark names as go test prints them: each name parses back to
// itself; the cells bench runs (one per name) select, under go test's own
// matching, exactly the name they stand for; Axes finds axes exactly when
// the names are one sweep, and then the spec's cross product is the names;
// and the spec written for them parses and its plan selects every name
// exactly once.
func checkNames(t *testing.T, names []string) (axes []Axis, axesErr error, s *spec.Spec) {
	t.Helper()
	var benches []Bench
	for _, n := range names {
		b, err := ParseName(n)
		if err != nil {
			t.Fatalf("ParseName(%q): %v", n, err)
		}
		if b.Name() != n {
			t.Fatalf("ParseName(%q).Name() = %q", n, b.Name())
		}
		benches = append(benches, b)
	}
	for _, c := range Cells(benches, []string{"base"}) {
		re, err := gotest.BenchRegex(c.Bench, c.Levels)
		if err != nil {
			t.Fatalf("cell %s: %v", c, err)
		}
		selects := goTestSelects(t, re)
		for _, n := range names {
			if got, want := selects(n), n == c.Name(); got != want {
				t.Fatalf("cell %s (-bench %s) selects %s: %v, want %v", c, re, n, got, want)
			}
		}
	}
	axes, axesErr = Axes(benches)
	if sweep := isSweep(names); (axesErr == nil) != sweep {
		t.Fatalf("Axes(%q) = %v, %v; the names are one sweep: %v", names, axes, axesErr, sweep)
	}
	if axesErr == nil {
		pa := make([]plan.Axis, len(axes))
		for i, a := range axes {
			pa[i] = plan.Axis{Key: a.Key, Values: a.Values}
		}
		var got []string
		for _, c := range plan.New(Funcs(benches), pa, []string{"base"}, 1, 1).Cells {
			got = append(got, c.Name())
		}
		want := slices.Clone(names)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("the cross product of Axes(%q) = %v is %q", names, axes, got)
		}
	}
	for _, f := range Funcs(benches) {
		if !regexp.MustCompile(`^Benchmark[A-Za-z0-9_]*$`).MatchString(f) {
			return axes, axesErr, nil // a spec names only ASCII functions
		}
	}
	text, err := SpecText(SpecInput{Name: "names", Package: ".", Benches: benches, Rounds: 6})
	if err != nil {
		t.Fatalf("SpecText(%q): %v", names, err)
	}
	s, err = spec.Parse("names.toml", []byte(text))
	if err != nil {
		t.Fatalf("the spec of %q does not parse: %v\n%s", names, err, text)
	}
	p, err := plan.ForSpec(s, "quick", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	selectors := make([]func(string) bool, len(p.Cells))
	for i, c := range p.Cells {
		re, err := gotest.BenchRegex(c.Bench, c.Levels)
		if err != nil {
			t.Fatalf("spec cell %s: %v", c, err)
		}
		selectors[i] = goTestSelects(t, re)
	}
	for _, n := range names {
		var by []string
		for i, c := range p.Cells {
			if selectors[i](n) {
				by = append(by, c.Name())
			}
		}
		if len(by) != 1 {
			t.Fatalf("%s is selected by the spec's cells %q, want exactly one\n%s", n, by, text)
		}
	}
	return axes, axesErr, s
}

// TestNamesOfRealModules reads the names real modules' benchmarks print
// (testdata) and checks what perflab makes of selections of them, mixed
// levels included: github.com/bits-and-blooms/bitset and go.uber.org/zap
// made Axes panic when a plain benchmark came first.
func TestNamesOfRealModules(t *testing.T) {
	tests := []struct {
		file, bench string   // bench selects top-level functions, as -bench does
		axes        []string // "key=v1,v2", when the selection is one sweep
		err         string   // Axes' error otherwise
	}{
		{"bitset-v1.29.0.txt", ".", nil, `BenchmarkBitsetOps/Equal has a sub-benchmark level ("Equal") that is not key=value`},
		{"bitset-v1.29.0.txt", "^Benchmark(Set|Count)$", []string{}, ""},
		{"bitset-v1.29.0.txt", "^BenchmarkBitSetOnesBetween$", []string{"size=64,256,1024,4096,16384", "density=0.1,0.5,0.9"}, ""},
		{"bitset-v1.29.0.txt", "^BenchmarkBitSetExtractDeposit$", []string{"size=64,256,1024,4096,16384,65536", "fn=ExtractTo,DepositTo"}, ""},
		{"bitset-v1.29.0.txt", "^BenchmarkBitSet(OnesBetween|ExtractDeposit)$", nil, "different sub-benchmark keys (size, density; size, fn)"},
		{"bitset-v1.29.0.txt", "^BenchmarkIsSuperSet$", nil, "different sub-benchmark keys"},
		{"bitset-v1.29.0.txt", "^BenchmarkRank$", nil, `("Rank(1)") that is not key=value`},
		{"bitset-v1.29.0.txt", "^Benchmark(PEXT|BitSetOnesBetween)$", nil, "different sub-benchmark keys (size, density; none)"},
		{"zap-v1.27.0.txt", ".", nil, `BenchmarkAny/string/field-only/typed has a sub-benchmark level ("string") that is not key=value`},
		{"zap-v1.27.0.txt", "^Benchmark(BoolField|Any)$", nil, "not key=value"},
		{"zap-v1.27.0.txt", "^BenchmarkBoolField$", []string{}, ""},
		{"zapcore-v1.27.0.txt", ".", nil, `("write_file_with_buffer") that is not key=value`},
		{"odd.txt", ".", nil, `("with_space") that is not key=value`},
		{"odd.txt", "^BenchmarkSweep$", []string{"n=1,10", "m=x,y"}, ""},
		{"odd.txt", "^Benchmark(Sweep|Plain)$", nil, "different sub-benchmark keys (none; n, m)"},
	}
	for _, tt := range tests {
		t.Run(tt.file+":"+tt.bench, func(t *testing.T) {
			re := regexp.MustCompile(tt.bench)
			var names []string
			for _, n := range readNames(t, tt.file) {
				if re.MatchString(strings.Split(n, "/")[0]) {
					names = append(names, n)
				}
			}
			if len(names) == 0 {
				t.Fatalf("-bench %s selects none of %s", tt.bench, tt.file)
			}
			axes, err, s := checkNames(t, names)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Axes: %v, want an error with %q", err, tt.err)
				}
				if s == nil || len(s.Axes) != 0 {
					t.Fatalf("the spec of a selection that is not a sweep has axes: %+v", s)
				}
				return
			}
			if err != nil {
				t.Fatalf("Axes: %v", err)
			}
			var got []string
			for _, a := range axes {
				got = append(got, a.Key+"="+strings.Join(a.Values, ","))
			}
			if !slices.Equal(got, tt.axes) && len(got)+len(tt.axes) > 0 {
				t.Fatalf("Axes = %q, want %q", got, tt.axes)
			}
			if s == nil || len(s.Axes) != len(tt.axes) {
				t.Fatalf("the spec's axes = %+v, want %q", s, tt.axes)
			}
		})
	}
}

func TestParseName(t *testing.T) {
	tests := []struct {
		name   string
		levels []string
		err    string
	}{
		{"BenchmarkSet", nil, ""},
		{"BenchmarkAny/string/log-go/typed", []string{"string", "log-go", "typed"}, ""},
		{"BenchmarkIsSuperSet/equal,_len=1,_strict", []string{"equal,_len=1,_strict"}, ""},
		{"BenchmarkOdd/log-4", []string{"log-4"}, ""}, // not a GOMAXPROCS suffix: names are listed at GOMAXPROCS 1
		{"BenchmarkOdd/deep/size=1024-2", []string{"deep", "size=1024-2"}, ""},
		{"BenchmarkOdd/dup#01", []string{"dup#01"}, ""},
		{"BenchmarkOdd/é", []string{"é"}, ""},
		{"TestX", nil, "does not begin with Benchmark"},
		{"BenchmarkX/a b", nil, "space"},
		{"BenchmarkX/a\x00", nil, "unprintable"},
		{"BenchmarkX//a", nil, "empty level"},
		{"BenchmarkX/", nil, "empty level"},
		{"BenchmarkX/\xff", nil, "not UTF-8"},
	}
	for _, tt := range tests {
		b, err := ParseName(tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseName(%q) = %+v, %v; want an error with %q", tt.name, b, err, tt.err)
			}
			continue
		}
		if err != nil || b.Name() != tt.name || !slices.Equal(b.Levels, tt.levels) {
			t.Errorf("ParseName(%q) = %+v, %v; want levels %q", tt.name, b, err, tt.levels)
		}
	}
}

// FuzzAxes feeds Axes, Cells and SpecText any set of benchmark names (one
// a line): ParseName accepts exactly the names go test can print, and for
// those the invariants of checkNames hold: every name is selected by
// exactly the one cell built for it, and by exactly one cell of the spec.
func FuzzAxes(f *testing.F) {
	for _, file := range []string{"bitset-v1.29.0.txt", "zap-v1.27.0.txt", "zapcore-v1.27.0.txt", "odd.txt"} {
		f.Add(strings.Join(readNames(f, file), "\n"))
	}
	for _, s := range []string{
		"BenchmarkSet\nBenchmarkBitsetOps/Equal",
		"BenchmarkA/n=1/n=2",
		"BenchmarkA/n=064\nBenchmarkA/n=1",
		"BenchmarkA/n=-0\nBenchmarkA/n=+5\nBenchmarkA/n=Inf",
		"BenchmarkA/k,=1\nBenchmarkA/k,=2",
		"BenchmarkA/=x",
		"BenchmarkA/n=1e400",
		"BenchmarkA/x\nBenchmarkA",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var names []string
		for _, n := range strings.Split(data, "\n") {
			_, err := ParseName(n)
			if (err == nil) != printable(n) {
				t.Fatalf("ParseName(%q): %v; go test can print it: %v", n, err, printable(n))
			}
			if err == nil && !slices.Contains(names, n) && len(names) < 64 {
				names = append(names, n)
			}
		}
		// A benchmark that runs sub-benchmarks reports no result of its
		// own, so go test never prints a name beside one below it.
		leaves := names[:0:0]
		for _, n := range names {
			if !slices.ContainsFunc(names, func(m string) bool { return strings.HasPrefix(m, n+"/") }) {
				leaves = append(leaves, n)
			}
		}
		if len(leaves) == 0 {
			if _, err := Axes(nil); err == nil {
				t.Fatal("Axes of no benchmarks succeeded")
			}
			return
		}
		checkNames(t, leaves)
	})
}
