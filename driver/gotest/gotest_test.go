package gotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

// ---- Parse ----

type wantResult struct {
	name   string
	iters  int
	values map[string]float64 // unit -> value, after benchfmt tidying
}

func TestParse(t *testing.T) {
	tests := []struct {
		file      string
		want      []wantResult
		errLines  []int // lines with syntax errors
		wantConf  map[string]string
		wantNoErr bool
	}{
		{
			file: "plain.txt",
			want: []wantResult{
				{"Tiny/n=1-2", 100, map[string]float64{"sec/op": 4.510e-9}},
				{"Tiny/n=2-2", 100, map[string]float64{"sec/op": 2.100e-9}},
				{"Tiny/n=10-2", 100, map[string]float64{"sec/op": 4.610e-9}},
			},
			wantConf:  map[string]string{"goos": "linux", "goarch": "amd64", "pkg": "example.com/tiny", "cpu": "AMD EPYC"},
			wantNoErr: true,
		},
		{
			file: "benchmem_metric.txt",
			want: []wantResult{
				{"Tiny/n=1-2", 100, map[string]float64{"sec/op": 3.310e-9, "B/op": 0, "allocs/op": 0}},
				{"Tiny/metric-2", 100, map[string]float64{"sec/op": 2.310e-9, "widgets/op": 42, "B/op": 0, "allocs/op": 0}},
				{"Alloc-2", 100, map[string]float64{"sec/op": 64.60e-9, "B/op": 1024, "allocs/op": 1}},
			},
			wantConf:  map[string]string{"pkg": "example.com/tiny"},
			wantNoErr: true,
		},
		{
			file: "cpu.txt",
			want: []wantResult{
				{"Tiny/n=1", 100, map[string]float64{"sec/op": 2.710e-9}},
				{"Tiny/n=1-2", 100, map[string]float64{"sec/op": 1.500e-9}},
				{"Tiny/n=2", 100, map[string]float64{"sec/op": 2.000e-9}},
				{"Tiny/n=2-2", 100, map[string]float64{"sec/op": 3.110e-9}},
			},
			wantConf:  map[string]string{"goarch": "amd64"},
			wantNoErr: true,
		},
		{
			file: "garbage.txt",
			want: []wantResult{
				{"Tiny/n=1-2", 100, map[string]float64{"sec/op": 2.100e-9}},
				{"Tiny/n=2-2", 100, map[string]float64{"sec/op": 2.300e-9}},
				{"Noisy-2", 100, map[string]float64{"sec/op": 74.21e-9}},
			},
			errLines: []int{14, 15, 19, 21},
			wantConf: map[string]string{"pkg": "example.com/tiny"},
		},
		{
			file: "truncated.txt",
			want: []wantResult{
				{"Tiny/n=1", 100, map[string]float64{"sec/op": 2.710e-9}},
			},
			errLines: []int{6},
			wantConf: map[string]string{"cpu": "AMD EPYC"},
		},
		{
			file:      "empty.txt",
			wantNoErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := Parse(f, tt.file)
			if tt.wantNoErr && err != nil {
				t.Errorf("Parse: unexpected error: %v", err)
			}
			checkResults(t, got, tt.want)
			for k, v := range tt.wantConf {
				for i, r := range got {
					if g := r.GetConfig(k); g != v {
						t.Errorf("result %d: config %q = %q, want %q", i, k, g, v)
					}
				}
			}
			if gotLines := syntaxErrorLines(t, err, tt.file); !equalInts(gotLines, tt.errLines) {
				t.Errorf("syntax error lines = %v, want %v (err: %v)", gotLines, tt.errLines, err)
			}
		})
	}
}

func checkResults(t *testing.T, got []*benchfmt.Result, want []wantResult) {
	t.Helper()
	if len(got) != len(want) {
		var names []string
		for _, r := range got {
			names = append(names, r.Name.String())
		}
		t.Fatalf("got %d results %q, want %d", len(got), names, len(want))
	}
	for i, w := range want {
		r := got[i]
		if r.Name.String() != w.name {
			t.Errorf("result %d: name %q, want %q", i, r.Name, w.name)
		}
		if r.Iters != w.iters {
			t.Errorf("result %d (%s): iters %d, want %d", i, w.name, r.Iters, w.iters)
		}
		if len(r.Values) != len(w.values) {
			t.Errorf("result %d (%s): %d values %v, want %d", i, w.name, len(r.Values), r.Values, len(w.values))
		}
		for unit, wv := range w.values {
			gv, ok := r.Value(unit)
			if !ok {
				t.Errorf("result %d (%s): no %s value", i, w.name, unit)
				continue
			}
			if math.Abs(gv-wv) > 1e-9*math.Abs(wv) {
				t.Errorf("result %d (%s): %s = %g, want %g", i, w.name, unit, gv, wv)
			}
		}
	}
}

// syntaxErrorLines returns the line numbers of the *benchfmt.SyntaxError
// values in err, checking that they name fileName.
func syntaxErrorLines(t *testing.T, err error, fileName string) []int {
	t.Helper()
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %v is not a joined error", err)
	}
	var lines []int
	for _, e := range joined.Unwrap() {
		var se *benchfmt.SyntaxError
		if !errors.As(e, &se) {
			t.Errorf("unexpected non-syntax error %v", e)
			continue
		}
		if se.FileName != fileName {
			t.Errorf("syntax error names file %q, want %q", se.FileName, fileName)
		}
		lines = append(lines, se.Line)
	}
	return lines
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseLongLines(t *testing.T) {
	long := strings.Repeat("x", 40<<10)
	tests := []struct {
		name     string
		input    string
		want     []wantResult
		errLines []int
	}{
		{
			name:  "long log line",
			input: "pkg: p\n" + long + "\nBenchmarkA-2\t10\t5 ns/op\n",
			want:  []wantResult{{"A-2", 10, map[string]float64{"sec/op": 5e-9}}},
		},
		{
			name:     "long benchmark line",
			input:    "BenchmarkA-2\t10\t5 ns/op\nBenchmark" + long + "\nBenchmarkB-2\t20\t7 ns/op",
			want:     []wantResult{{"A-2", 10, map[string]float64{"sec/op": 5e-9}}, {"B-2", 20, map[string]float64{"sec/op": 7e-9}}},
			errLines: []int{2},
		},
		{
			name:     "long benchmark line at end",
			input:    "BenchmarkA-2\t10\t5 ns/op\nBenchmark" + long,
			want:     []wantResult{{"A-2", 10, map[string]float64{"sec/op": 5e-9}}},
			errLines: []int{2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.input), "long.txt")
			checkResults(t, got, tt.want)
			if lines := syntaxErrorLines(t, err, "long.txt"); !equalInts(lines, tt.errLines) {
				t.Errorf("syntax error lines = %v, want %v (err: %v)", lines, tt.errLines, err)
			}
		})
	}
}

type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestParseReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := &failingReader{strings.NewReader("BenchmarkA-2\t10\t5 ns/op\n"), boom}
	got, err := Parse(r, "broken.txt")
	checkResults(t, got, []wantResult{{"A-2", 10, map[string]float64{"sec/op": 5e-9}}})
	if !errors.Is(err, boom) {
		t.Errorf("Parse error = %v, want one wrapping %v", err, boom)
	}
}

func TestParseManySyntaxErrors(t *testing.T) {
	input := strings.Repeat("BenchmarkBad 1 x ns/op\n", maxSyntaxErrors+5) + "BenchmarkOK 1 1 ns/op\n"
	got, err := Parse(strings.NewReader(input), "many.txt")
	checkResults(t, got, []wantResult{{"OK", 1, map[string]float64{"sec/op": 1e-9}}})
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %v is not a joined error", err)
	}
	errs := joined.Unwrap()
	if len(errs) != maxSyntaxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(errs), maxSyntaxErrors+1)
	}
	if last := errs[len(errs)-1].Error(); !strings.Contains(last, "5 more") {
		t.Errorf("last error %q does not summarise the 5 unlisted lines", last)
	}
}

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		f.Fatal(err)
	}
	if len(files) == 0 {
		f.Fatal("no seed files in testdata")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse(bytes.NewReader(data), "fuzz.txt")
		for i, r := range got {
			if r == nil {
				t.Fatalf("result %d is nil", i)
			}
			if len(r.Values) == 0 {
				t.Errorf("result %d (%q) has no values", i, r.Name)
			}
		}
		if err != nil && !errors.As(err, new(*benchfmt.SyntaxError)) {
			t.Errorf("error %v holds no *benchfmt.SyntaxError", err)
		}
		// Results must not share memory: changing one leaves the others.
		if len(got) >= 2 && len(got[0].Name) > 0 && len(got[1].Name) > 0 {
			before := got[1].Name.String()
			got[0].Name[0] ^= 0xff
			if got[1].Name.String() != before {
				t.Errorf("results share name storage")
			}
		}
	})
}

// ---- tail buffer ----

func TestTailBuffer(t *testing.T) {
	numbered := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"empty", nil, ""},
		{"short", []string{"a\n", "b\n"}, "a\nb"},
		{"last lines", []string{numbered(1, 30)}, strings.TrimSuffix(numbered(11, 30), "\n")},
		{
			"panic kept",
			[]string{"panic: boom\n", numbered(1, 25)},
			"panic: boom\n...\n" + strings.TrimSuffix(numbered(6, 25), "\n"),
		},
		{
			"overflow drops partial first line",
			[]string{strings.Repeat("x", tailBytes), "\nend\n"},
			"end",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tb tailBuffer
			for _, w := range tt.writes {
				if n, err := tb.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := tb.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// ---- BenchRegex ----

func TestBenchRegex(t *testing.T) {
	tests := []struct {
		bench   string
		levels  []string
		want    string
		wantErr bool
	}{
		{"BenchmarkPool", []string{"mode=serial", "size=64"}, "^BenchmarkPool$/^mode=serial$/^size=64$", false},
		{"BenchmarkPool", nil, "^BenchmarkPool$", false},
		{"BenchmarkX", []string{"n=1"}, "^BenchmarkX$/^n=1$", false},
		{"BenchmarkX", []string{"a.b*c+(d)[e]|f"}, `^BenchmarkX$/^a\.b\*c\+\(d\)\[e\]\|f$`, false},
		{"BenchmarkX", []string{"path=a/b"}, "^BenchmarkX$/^path=a$/^b$", false},
		{"BenchmarkX/sub", []string{"n=1"}, "^BenchmarkX$/^sub$/^n=1$", false},
		{"BenchmarkX", []string{"with_space"}, "^BenchmarkX$/^with_space$", false},
		{"BenchmarkX", []string{"dup#01"}, "^BenchmarkX$/^dup#01$", false},
		{"", []string{"n=1"}, "", true},
		{"BenchmarkX", []string{""}, "", true},
		{"BenchmarkX", []string{"a/"}, "", true},
		{"BenchmarkX", []string{"/a"}, "", true},
	}
	for _, tt := range tests {
		got, err := BenchRegex(tt.bench, tt.levels)
		if (err != nil) != tt.wantErr {
			t.Errorf("BenchRegex(%q, %q) error = %v, wantErr %v", tt.bench, tt.levels, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("BenchRegex(%q, %q) = %q, want %q", tt.bench, tt.levels, got, tt.want)
		}
	}
}

// TestBenchRegexSelectsOne runs the regex for each sub-benchmark of
// BenchmarkTiny through the real binary and checks that exactly that one
// ran.
func TestBenchRegexSelectsOne(t *testing.T) {
	tb := tinyBinary(t)
	for _, level := range []string{"n=1", "n=10", "metric", "path=a/b", "with_space"} {
		t.Run(level, func(t *testing.T) {
			re, err := BenchRegex("BenchmarkTiny", []string{level})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(context.Background(), Invocation{Binary: tb.bin, Dir: tb.dir, Bench: re, Benchtime: "1x", CPU: []int{1}})
			if err != nil {
				t.Fatalf("Run(%q): %v", re, err)
			}
			if len(got) != 1 || got[0].Name.String() != "Tiny/"+level {
				var names []string
				for _, r := range got {
					names = append(names, r.Name.String())
				}
				t.Errorf("Run(%q) selected %q, want exactly [Tiny/%s]", re, names, level)
			}
		})
	}
}

// ---- the tiny module: Key, Compile, Run, Profile ----

var (
	tinyRoot string // temporary directory removed by TestMain
	tinyOnce sync.Once
	tinyBin  tinyBuild
	tinyErr  error
)

type tinyBuild struct {
	build Build
	dir   string // module dir
	bin   string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tinyRoot != "" {
		os.RemoveAll(tinyRoot)
	}
	os.Exit(code)
}

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found on PATH")
	}
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("cannot run subprocesses on " + runtime.GOOS)
	}
}

// copyTiny copies testdata/tiny into dir.
func copyTiny(dir string) error {
	entries, err := os.ReadDir(filepath.Join("testdata", "tiny"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata", "tiny", e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// tinyBinary compiles the tiny module once for the whole test run.
func tinyBinary(t *testing.T) tinyBuild {
	t.Helper()
	needGo(t)
	tinyOnce.Do(func() {
		tinyRoot, tinyErr = os.MkdirTemp("", "gotest-tiny-")
		if tinyErr != nil {
			return
		}
		dir := filepath.Join(tinyRoot, "tiny")
		if tinyErr = os.Mkdir(dir, 0o755); tinyErr != nil {
			return
		}
		if tinyErr = copyTiny(dir); tinyErr != nil {
			return
		}
		b := Build{Dir: dir, Package: ".", CacheDir: filepath.Join(tinyRoot, "cache")}
		bin, cached, err := Compile(context.Background(), b)
		if err == nil && cached {
			err = errors.New("first Compile reported cached=true")
		}
		tinyBin, tinyErr = tinyBuild{build: b, dir: dir, bin: bin}, err
	})
	if tinyErr != nil {
		t.Fatalf("compiling the tiny module: %v", tinyErr)
	}
	return tinyBin
}

func TestCompileCached(t *testing.T) {
	tb := tinyBinary(t)
	if fi, err := os.Stat(tb.bin); err != nil || fi.Size() == 0 {
		t.Fatalf("binary %s missing or empty: %v", tb.bin, err)
	}
	bin, cached, err := Compile(context.Background(), tb.build)
	if err != nil {
		t.Fatal(err)
	}
	if !cached || bin != tb.bin {
		t.Errorf("second Compile = %q, cached=%v; want %q, cached=true", bin, cached, tb.bin)
	}
	entries, err := os.ReadDir(tb.build.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != filepath.Base(tb.bin) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("cache dir holds %q, want only %s", names, filepath.Base(tb.bin))
	}
}

func TestKey(t *testing.T) {
	needGo(t)
	dir := t.TempDir()
	if err := copyTiny(dir); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base := Build{Dir: dir, Package: "."}
	key := func(b Build) string {
		t.Helper()
		k, err := b.Key(ctx)
		if err != nil {
			t.Fatalf("Key: %v", err)
		}
		return k
	}
	k0 := key(base)
	if len(k0) != 64 {
		t.Errorf("key %q is not a hex SHA-256", k0)
	}
	if k := key(base); k != k0 {
		t.Errorf("Key is not stable: %s then %s", k0, k)
	}
	withCache := base
	withCache.CacheDir = t.TempDir()
	if k := key(withCache); k != k0 {
		t.Errorf("CacheDir changed the key")
	}

	variants := []struct {
		name   string
		build  Build
		mutate func(t *testing.T) // changes the module; undone by undo
		undo   func(t *testing.T)
	}{
		{name: "flags", build: Build{Dir: dir, Package: ".", Flags: []string{"-gcflags=-N"}}},
		{name: "tags", build: Build{Dir: dir, Package: ".", Flags: []string{"-tags", "extra"}}},
		{name: "env", build: Build{Dir: dir, Package: ".", Env: []string{"GOAMD64=v2", "GOARM64=v8.1"}}},
		{
			name:   "source",
			build:  base,
			mutate: func(t *testing.T) { appendFile(t, filepath.Join(dir, "tiny.go"), "\n// changed\n") },
		},
		{
			name:   "test source",
			build:  base,
			mutate: func(t *testing.T) { appendFile(t, filepath.Join(dir, "tiny_test.go"), "\n// changed\n") },
		},
		{
			name:   "go.mod",
			build:  base,
			mutate: func(t *testing.T) { appendFile(t, filepath.Join(dir, "go.mod"), "\n// changed\n") },
		},
		{
			name:  "new file",
			build: base,
			mutate: func(t *testing.T) {
				if err := os.WriteFile(filepath.Join(dir, "extra.go"), []byte("package tiny\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	seen := map[string]string{k0: "base"}
	for _, v := range variants {
		if v.mutate != nil {
			v.mutate(t)
		}
		k := key(v.build)
		if prev, dup := seen[k]; dup {
			t.Errorf("variant %q has the same key as %q", v.name, prev)
		}
		seen[k] = v.name
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCompileErrors(t *testing.T) {
	needGo(t)
	tests := []struct {
		name    string
		files   map[string]string
		build   func(dir string) Build
		wantErr []string
	}{
		{
			name: "build error",
			files: map[string]string{
				"go.mod":    "module example.com/broken\n\ngo 1.22\n",
				"broken.go": "package broken\n",
				"b_test.go": "package broken\n\nimport \"testing\"\n\nfunc BenchmarkB(b *testing.B) { undefinedThing() }\n",
			},
			build:   func(dir string) Build { return Build{Dir: dir, CacheDir: filepath.Join(dir, "cache")} },
			wantErr: []string{"b_test.go", "undefinedThing", "go test failed"},
		},
		{
			name: "no test files",
			files: map[string]string{
				"go.mod": "module example.com/notests\n\ngo 1.22\n",
				"a.go":   "package notests\n",
			},
			build:   func(dir string) Build { return Build{Dir: dir, CacheDir: filepath.Join(dir, "cache")} },
			wantErr: []string{"no test files"},
		},
		{
			name:    "no cache dir",
			files:   map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\n"},
			build:   func(dir string) Build { return Build{Dir: dir} },
			wantErr: []string{"CacheDir is empty"},
		},
		{
			name:  "missing package",
			files: map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\n"},
			build: func(dir string) Build {
				return Build{Dir: dir, Package: "./nope", CacheDir: filepath.Join(dir, "cache")}
			},
			wantErr: []string{"nope", "go list failed"},
		},
		{
			name:    "flag as package",
			files:   map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\n"},
			build:   func(dir string) Build { return Build{Dir: dir, Package: "-x", CacheDir: filepath.Join(dir, "cache")} },
			wantErr: []string{"looks like a flag"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b := tt.build(dir)
			bin, _, err := Compile(context.Background(), b)
			if err == nil {
				t.Fatalf("Compile succeeded with %s, want an error", bin)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if b.CacheDir != "" {
				entries, _ := os.ReadDir(b.CacheDir)
				if len(entries) != 0 {
					t.Errorf("failed Compile left %d entries in the cache dir", len(entries))
				}
			}
		})
	}
}

func TestRun(t *testing.T) {
	tb := tinyBinary(t)
	got, err := Run(context.Background(), Invocation{
		Binary:    tb.bin,
		Dir:       tb.dir,
		Bench:     "^BenchmarkTiny$",
		Benchtime: "100x",
		CPU:       []int{1, 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, sub := range []string{"n=1", "n=2", "n=10", "metric", "path=a/b", "with_space"} {
		want = append(want, "Tiny/"+sub, "Tiny/"+sub+"-2")
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d", len(got), len(want))
	}
	for i, r := range got {
		if r.Name.String() != want[i] {
			t.Errorf("result %d: name %q, want %q", i, r.Name, want[i])
		}
		if r.Iters != 100 {
			t.Errorf("result %d (%s): iters %d, want 100", i, r.Name, r.Iters)
		}
		for _, unit := range []string{"sec/op", "B/op", "allocs/op"} {
			if _, ok := r.Value(unit); !ok {
				t.Errorf("result %d (%s): no %s value", i, r.Name, unit)
			}
		}
		if w, ok := r.Value("widgets/op"); strings.Contains(r.Name.String(), "metric") && (!ok || w != 42) {
			t.Errorf("result %d (%s): widgets/op = %v, %v; want 42", i, r.Name, w, ok)
		}
		if g := r.GetConfig("pkg"); g != "example.com/tiny" {
			t.Errorf("result %d: pkg config %q, want example.com/tiny", i, g)
		}
		if g := r.GetConfig("goos"); g != runtime.GOOS {
			t.Errorf("result %d: goos config %q, want %s", i, g, runtime.GOOS)
		}
	}
}

// TestRunCount checks that Count repeats each benchmark in the one
// process, at the same iteration count.
func TestRunCount(t *testing.T) {
	tb := tinyBinary(t)
	got, err := Run(context.Background(), Invocation{Binary: tb.bin, Dir: tb.dir, Bench: "^BenchmarkTiny/n=1$", Benchtime: "50x", CPU: []int{1}, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d results, want 3 repetitions", len(got))
	}
	for i, r := range got {
		if r.Name.String() != "Tiny/n=1" || r.Iters != 50 {
			t.Errorf("repetition %d: %s at %d iterations, want Tiny/n=1 at 50", i, r.Name, r.Iters)
		}
	}
}

func TestRunMalformedOutput(t *testing.T) {
	tb := tinyBinary(t)
	got, err := Run(context.Background(), Invocation{Binary: tb.bin, Dir: tb.dir, Bench: "^Benchmark(Alloc|Noisy)$", Benchtime: "10x", CPU: []int{1}})
	if len(got) != 1 || got[0].Name.String() != "Alloc" {
		t.Errorf("got %d results, want the one from BenchmarkAlloc", len(got))
	}
	var re *RunError
	if err == nil || errors.As(err, &re) || !errors.As(err, new(*benchfmt.SyntaxError)) {
		t.Errorf("Run error = %v; want a non-*RunError wrapping *benchfmt.SyntaxError", err)
	}
}

func TestRunErrors(t *testing.T) {
	tb := tinyBinary(t)
	tests := []struct {
		bench      string
		timeout    time.Duration
		wantReason string
		wantTail   string
	}{
		{"^BenchmarkPanic$", 0, "panicked", "panic: tiny benchmark exploded"},
		{"^BenchmarkExit$", 0, "exited with status 3", "leaving with status 3"},
		{"^BenchmarkFail$", 0, "exited with status 1", "tiny benchmark failed on purpose"},
		{"^BenchmarkNope$", 0, "no benchmark results", "PASS"},
		{"^BenchmarkHang$", 2 * time.Second, "timed out after 2s", ""},
	}
	for _, tt := range tests {
		t.Run(tt.bench, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			start := time.Now()
			got, err := Run(context.Background(), Invocation{
				Binary:    tb.bin,
				Dir:       tb.dir,
				Bench:     tt.bench,
				Benchtime: "1x",
				Env:       []string{"TINY_PIDFILE=" + pidFile},
				Timeout:   tt.timeout,
			})
			if got != nil {
				t.Errorf("got %d results with a failure, want none", len(got))
			}
			var re *RunError
			if !errors.As(err, &re) {
				t.Fatalf("Run error = %v (%T), want *RunError", err, err)
			}
			if strings.Contains(re.Reason, "loses a race with the end of the run") || re.NoResults && tt.wantReason == "panicked" {
				// go test printed the panicking benchmark's result line
				// and exited 0 before the panic (unmeasured): a failure
				// still, without the panic's text.
				return
			}
			if !strings.Contains(re.Reason, tt.wantReason) {
				t.Errorf("Reason %q does not contain %q", re.Reason, tt.wantReason)
			}
			if !strings.Contains(re.Tail, tt.wantTail) {
				t.Errorf("Tail %q does not contain %q", re.Tail, tt.wantTail)
			}
			if re.Error() != re.Reason+"\n"+re.Tail {
				t.Errorf("Error() = %q, want Reason+newline+Tail", re.Error())
			}
			if tt.timeout > 0 {
				if d := time.Since(start); d > tt.timeout+10*time.Second {
					t.Errorf("Run took %v with a %v timeout", d, tt.timeout)
				}
				checkGone(t, pidFile)
			}
		})
	}
}

func TestRunCanceled(t *testing.T) {
	tb := tinyBinary(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the grandchild is running.
		for ctx.Err() == nil {
			if _, err := os.Stat(pidFile); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	_, err := Run(ctx, Invocation{Binary: tb.bin, Dir: tb.dir, Bench: "^BenchmarkHang$", Benchtime: "1x", Env: []string{"TINY_PIDFILE=" + pidFile}})
	var re *RunError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "context canceled") {
		t.Fatalf("Run error = %v, want a *RunError reporting cancellation", err)
	}
	checkGone(t, pidFile)
}

// checkGone checks that the process whose id is in pidFile has exited
// (a zombie waiting for its parent to reap it counts as exited).
func checkGone(t *testing.T, pidFile string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Log("process check needs /proc; skipped")
		return
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hanging benchmark did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return // gone
		}
		// Field 3, after the parenthesised command name, is the state.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("child process %d of the benchmark binary is still running: %s", pid, stat)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRunInvalid(t *testing.T) {
	tests := []struct {
		name    string
		inv     Invocation
		wantErr string
	}{
		{"no binary", Invocation{Bench: "."}, "Binary is empty"},
		{"no bench", Invocation{Binary: "/bin/true"}, "Bench is empty"},
		{"bad cpu", Invocation{Binary: "/bin/true", Bench: ".", CPU: []int{0}}, "at least 1"},
		{"negative count", Invocation{Binary: "/bin/true", Bench: ".", Count: -1}, "want 0"},
		{"missing binary", Invocation{Binary: filepath.Join(t.TempDir(), "nope.test"), Bench: "."}, "starting benchmark binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.inv)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Run error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestProfile(t *testing.T) {
	tb := tinyBinary(t)
	out := filepath.Join(t.TempDir(), "profiles")
	inv := Invocation{Binary: tb.bin, Dir: tb.dir, Bench: "^BenchmarkAlloc$", Benchtime: "2000x", CPU: []int{1}}
	p, err := Profile(context.Background(), inv, out, "alloc.")
	if err != nil {
		t.Fatal(err)
	}
	files := []struct{ kind, path, name string }{
		{"cpu", p.CPU, "alloc.cpu.pprof"},
		{"heap", p.Heap, "alloc.heap.pprof"},
		{"mutex", p.Mutex, "alloc.mutex.pprof"},
		{"block", p.Block, "alloc.block.pprof"},
		{"trace", p.Trace, "alloc.trace.out"},
	}
	for _, f := range files {
		if !filepath.IsAbs(f.path) || filepath.Dir(f.path) != mustAbs(t, out) || filepath.Base(f.path) != f.name {
			t.Errorf("%s profile path %q, want %s in %s", f.kind, f.path, f.name, out)
		}
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Errorf("%s profile: %v", f.kind, err)
			continue
		}
		if len(data) == 0 {
			t.Errorf("%s profile is empty", f.kind)
			continue
		}
		// pprof profiles are gzip-compressed protocol buffers.
		if f.kind != "trace" && !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Errorf("%s profile does not start with the gzip magic bytes: % x", f.kind, data[:min(4, len(data))])
		}
	}

	if _, err := Profile(context.Background(), inv, out, "a/b"); err == nil {
		t.Errorf("Profile accepted a prefix with a path separator")
	}
	bad := inv
	bad.Bench = "^BenchmarkPanic$"
	_, err = Profile(context.Background(), bad, out, "panic.")
	var re *RunError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "panicked") {
		t.Errorf("Profile of a panicking benchmark: error %v, want a *RunError", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestShorterTraceBenchtime(t *testing.T) {
	for in, want := range map[string]string{"10ms": "1ms", "1s": "100ms", "1ms": "1ms", "1000x": "100x", "5x": "1x", "": "100ms", "junk": "100ms"} {
		if got := shorter(in); got != want {
			t.Errorf("shorter(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSkipMessage(t *testing.T) {
	tests := []struct{ out, want string }{
		{"BenchmarkWork/variant=skip\n    tiny_test.go:24: needs GOEXPERIMENT=arenas\n--- SKIP: BenchmarkWork/variant=skip\nPASS\n", "needs GOEXPERIMENT=arenas"},
		{"--- SKIP: TestX (0.00s)\n    x_test.go:9: later message\n", "later message"},
		{"--- SKIP: BenchmarkBare\n", "BenchmarkBare"},
		{"PASS\nok x 0.1s\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := skipMessage(tt.out); got != tt.want {
			t.Errorf("skipMessage(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

// TestKeyHashesModfile: editing the file -modfile names changes the key.
func TestKeyHashesModfile(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.26\n",
		"alt.mod":   "module example.com/m\n\ngo 1.22\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := Build{Dir: dir, Package: ".", Flags: []string{"-modfile=alt.mod"}, CacheDir: t.TempDir()}
	k1, err := b.Key(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alt.mod"), []byte("module example.com/m\n\ngo 1.23\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k2, err := b.Key(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if k1 == k2 {
		t.Error("changing the -modfile file left the key unchanged")
	}
}
