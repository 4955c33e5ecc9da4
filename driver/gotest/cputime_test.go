package gotest

import (
	"bytes"
	"context"
	"errors"
	"go/parser"
	"go/token"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestPatchBenchmark patches benchmark.go-shaped sources of other shapes
// than the toolchain's: one the patch fits (an older Go's wall clock) and
// ones it must refuse, each with the reason it must give.
func TestPatchBenchmark(t *testing.T) {
	tests := []struct {
		file    string
		wantErr string // "" = the patch applies
	}{
		{"go120.go.txt", ""},
		{"no-launch.go.txt", "has no method (*B).launch"},
		{"twice.go.txt", "(*B).StartTimer assigns b.start with = 2 times, not once"},
		{"closure.go.txt", "(*B).StartTimer assigns b.start with = 0 times, not once"},
		{"no-extra.go.txt", "type B has no field extra"},
		{"extra-int.go.txt", "type B has no field extra of type map[string]float64"},
		{"not-testing.go.txt", "is package bench, not testing"},
		{"syntax.go.txt", "does not parse"},
		{"no-receiver.go.txt", "(*B).StopTimer has no named receiver"},
	}
	for _, tc := range tests {
		src, err := os.ReadFile(filepath.Join("testdata", "patch", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		out, err := patchBenchmark(src)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", tc.file, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		checkPatched(t, tc.file, out)
	}
}

// TestPatchToolchainTesting patches the testing package of the Go that
// runs this test: the shape perflab builds against today.
func TestPatchToolchainTesting(t *testing.T) {
	needGo(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	files, err := cpuTimeFiles(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	checkPatched(t, "GOROOT benchmark.go", files["benchmark.go"])
	for name, content := range files {
		if _, err := parser.ParseFile(token.NewFileSet(), name, content, 0); err != nil {
			t.Errorf("%s does not parse: %v", name, err)
		}
	}
}

// TestPatchOtherToolchains patches the testing package of every Go
// toolchain the module cache holds (GOTOOLCHAIN downloads), so the patch
// is known to fit the versions a config may select.
func TestPatchOtherToolchains(t *testing.T) {
	needGo(t)
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	roots, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "golang.org", "toolchain@*"))
	if len(roots) == 0 {
		t.Skip("no downloaded Go toolchain in the module cache")
	}
	for _, root := range roots {
		files, err := cpuTimeFiles(root)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(root), err)
			continue
		}
		checkPatched(t, filepath.Base(root), files["benchmark.go"])
	}
}

// checkPatched checks that the patched source reads the CPU clock at each
// place, once, on the right side of the wall clock's statement.
func checkPatched(t *testing.T, name string, out []byte) {
	t.Helper()
	if _, err := parser.ParseFile(token.NewFileSet(), name, out, 0); err != nil {
		t.Fatalf("%s: patched source does not parse: %v", name, err)
	}
	s := string(out)
	for _, call := range []string{"perflabCPU perflabCPUTimer", "b.perflabCPU.stop()", "b.perflabCPU.reset()", "b.perflabReportCPU()"} {
		if n := strings.Count(s, call); n != 1 {
			t.Errorf("%s: %q appears %d times, want once", name, call, n)
		}
	}
	if n := strings.Count(s, "b.perflabCPU.start()"); n != 2 {
		t.Errorf("%s: b.perflabCPU.start() appears %d times, want twice (StartTimer, ResetTimer)", name, n)
	}
	// Each read sits right beside the wall clock's statement: the CPU
	// window encloses the wall window.
	for _, pair := range [][2]string{
		{"b.perflabCPU.start()\n", "b.start = "},
		{"b.duration += ", "b.perflabCPU.stop()"},
		{"b.duration = 0\n", "b.perflabCPU.reset()"},
		{"b.perflabReportCPU()\n", "b.result = "},
	} {
		i := strings.Index(s, pair[0])
		j := strings.Index(s[max(i, 0):], pair[1])
		if i < 0 || j < 0 || strings.Count(s[i:i+j], "\n") > 1 {
			t.Errorf("%s: %q is not on the line before %q", name, pair[0], pair[1])
		}
	}
}

// FuzzPatchBenchmark: whatever the source, patchBenchmark returns an error
// or a source that parses and reads the CPU clock at every place.
func FuzzPatchBenchmark(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "patch"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", "patch", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := patchBenchmark(src)
		if err != nil {
			return
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "out.go", out, 0); err != nil {
			t.Fatalf("patched source does not parse: %v", err)
		}
		for _, call := range []string{"perflabCPU.start()", "perflabCPU.stop()", "perflabCPU.reset()", "perflabReportCPU()"} {
			if !bytes.Contains(out, []byte(call)) {
				t.Fatalf("patched source lacks %s", call)
			}
		}
	})
}

func TestCPUTimeFilesRefuses(t *testing.T) {
	goroot := t.TempDir()
	if _, err := cpuTimeFiles(goroot); !errors.Is(err, ErrNoCPUTime) || !strings.Contains(err.Error(), "benchmark.go") {
		t.Errorf("GOROOT without the testing package: error %v, want ErrNoCPUTime naming benchmark.go", err)
	}
	if err := os.MkdirAll(filepath.Join(goroot, "src", "testing"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "patch", "no-launch.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(goroot, "src", "testing", "benchmark.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cpuTimeFiles(goroot); !errors.Is(err, ErrNoCPUTime) || !strings.Contains(err.Error(), "launch") {
		t.Errorf("GOROOT of another shape: error %v, want ErrNoCPUTime naming launch", err)
	}
}

func TestSetsOverlay(t *testing.T) {
	tests := []struct {
		flags   []string
		goflags string
		want    bool
	}{
		{nil, "", false},
		{[]string{"-tags=x", "-gcflags=-N"}, "-mod=mod", false},
		{[]string{"-overlay=o.json"}, "", true},
		{[]string{"-overlay", "o.json"}, "", true},
		{[]string{"--overlay=o.json"}, "", true},
		{nil, "-mod=mod -overlay=/x/o.json", true},
		{[]string{"overlay"}, "", false}, // a value, not a flag
	}
	for _, tc := range tests {
		if got := setsOverlay(tc.flags, tc.goflags); got != tc.want {
			t.Errorf("setsOverlay(%q, %q) = %v, want %v", tc.flags, tc.goflags, got, tc.want)
		}
	}
}

var (
	cpuOnce             sync.Once
	cpuBin, cpuPlainBin string
	cpuDir              string
	cpuErr              error
)

// cpuTimedBinaries builds testdata/cputimed with and without the CPU timer.
func cpuTimedBinaries(t *testing.T) (timed, plain, dir string) {
	t.Helper()
	needGo(t)
	cpuOnce.Do(func() {
		cpuDir, cpuErr = filepath.Abs(filepath.Join("testdata", "cputimed"))
		if cpuErr != nil {
			return
		}
		cache, err := os.MkdirTemp("", "gotest-cputimed-")
		if err != nil {
			cpuErr = err
			return
		}
		if cpuBin, _, cpuErr = Compile(context.Background(), Build{Dir: cpuDir, CacheDir: cache, CPUTime: true}); cpuErr != nil {
			return
		}
		cpuPlainBin, _, cpuErr = Compile(context.Background(), Build{Dir: cpuDir, CacheDir: cache})
	})
	if cpuErr != nil {
		t.Fatalf("building testdata/cputimed: %v", cpuErr)
	}
	return cpuBin, cpuPlainBin, cpuDir
}

func runOne(t *testing.T, bin, dir, bench, benchtime string) *benchfmt.Result {
	t.Helper()
	res, err := Run(context.Background(), Invocation{Binary: bin, Dir: dir, Bench: "^" + bench + "$", Benchtime: benchtime})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		t.Fatalf("%s: %d results, want 1", bench, len(res))
	}
	return res[0]
}

// TestCPUTimeMetric runs every benchmark shape of testdata/cputimed in a
// CPU-timed binary: each result carries cpu-sec/op (the benchmark's own
// value where it reports one), the timer's CPU is the timed loop's only
// (a paused timer's work and a sleep are not in it), and the binary's
// other units are the unpatched binary's.
func TestCPUTimeMetric(t *testing.T) {
	timed, plain, dir := cpuTimedBinaries(t)
	if timed == plain {
		t.Fatalf("the CPU-timed and the plain build share binary %s", timed)
	}
	for _, bench := range []string{"BenchmarkLoop", "BenchmarkBLoop", "BenchmarkParallel", "BenchmarkAlloc", "BenchmarkPaused", "BenchmarkSleep"} {
		r := runOne(t, timed, dir, bench, "200x")
		cpu, ok := r.Value("cpu-sec/op")
		if !ok || !(cpu > 0) {
			t.Errorf("%s: cpu-sec/op %v (present %v), want a positive value: %v", bench, cpu, ok, r.Values)
		}
		if p := runOne(t, plain, dir, bench, "200x"); hasUnit(p, "cpu-sec/op") {
			t.Errorf("%s: the plain binary reports cpu-sec/op", bench)
		}
	}

	// The benchmark's own value stays, and is the only one.
	own := runOne(t, timed, dir, "BenchmarkOwn", "100x")
	n := 0
	for _, v := range own.Values {
		if v.Unit == "cpu-sec/op" {
			n++
			if v.Value != 7 {
				t.Errorf("BenchmarkOwn: cpu-sec/op %g, want its own 7", v.Value)
			}
		}
	}
	if n != 1 {
		t.Errorf("BenchmarkOwn: %d cpu-sec/op values, want 1: %v", n, own.Values)
	}

	// The timer's reads allocate nothing. BenchmarkPaused stops and
	// starts the timer in every operation, and each read lies inside the
	// window the testing package counts allocations in, so an allocating
	// read would add at least one allocation per operation. (B/op is not
	// compared with 0: the runtime's own background allocations that fall
	// inside the windows, a few KB over 2000 operations on a loaded
	// machine, show as a few bytes per operation; they never reach one
	// allocation per operation.)
	paused0 := runOne(t, timed, dir, "BenchmarkPaused", "2000x")
	if v := valueOf(paused0, "allocs/op"); v != 0 {
		t.Errorf("BenchmarkPaused: %g allocs/op (%g B/op) with the CPU timer started and stopped in every operation, want 0", v, valueOf(paused0, "B/op"))
	}
	if v, _ := runOne(t, timed, dir, "BenchmarkLoop", "1000x").Value("allocs/op"); v != 0 {
		t.Errorf("BenchmarkLoop: %g allocs/op with the CPU timer, want 0", v)
	}
	// A benchmark that allocates reports what the plain binary reports:
	// the same allocations per operation, and bytes per operation that
	// differ by no more than the runtime's own background allocations
	// (a few bytes per operation over a thousand operations).
	a, p := runOne(t, timed, dir, "BenchmarkAlloc", "1000x"), runOne(t, plain, dir, "BenchmarkAlloc", "1000x")
	if av, pv := valueOf(a, "allocs/op"), valueOf(p, "allocs/op"); av != pv {
		t.Errorf("BenchmarkAlloc: allocs/op %g with the CPU timer, %g without", av, pv)
	}
	if av, pv := valueOf(a, "B/op"), valueOf(p, "B/op"); av < 1024 || pv < 1024 || math.Abs(av-pv) > 0.02*pv {
		t.Errorf("BenchmarkAlloc: B/op %g with the CPU timer, %g without: want both at least the 1024 the loop allocates, within 2%%", av, pv)
	}

	// A stopped timer's work is not in the timer's CPU: BenchmarkPaused
	// does a hundred times its timed work outside the timer, so the
	// timed CPU is a small part of the process's.
	paused := runOne(t, timed, dir, "BenchmarkPaused", "2000x")
	perOp, _ := paused.Value("cpu-sec/op")
	var u Usage
	if _, err := Run(context.Background(), Invocation{Binary: timed, Dir: dir, Bench: "^BenchmarkPaused$", Benchtime: "2000x", Usage: &u}); err != nil {
		t.Fatal(err)
	}
	if timedCPU := perOp * 2000; !(timedCPU < 0.2*u.CPU.Seconds()) {
		t.Errorf("BenchmarkPaused: the timer's CPU %.4fs is not a small part of the process's %s: the paused work was counted", timedCPU, u.CPU)
	}
	// A sleep inside the timer is wall time, not CPU time.
	sleep := runOne(t, timed, dir, "BenchmarkSleep", "50x")
	wall, _ := sleep.Value("sec/op")
	cpu, _ := sleep.Value("cpu-sec/op")
	if !(cpu < wall/2) {
		t.Errorf("BenchmarkSleep: cpu-sec/op %g not below half its sec/op %g: sleeping was counted as CPU", cpu, wall)
	}
}

func valueOf(r *benchfmt.Result, unit string) float64 {
	v, _ := r.Value(unit)
	return v
}

func hasUnit(r *benchfmt.Result, unit string) bool {
	_, ok := r.Value(unit)
	return ok
}

// TestCPUTimeKey: the CPU timer is part of the build key, and a build
// that passes its own -overlay is refused with ErrNoCPUTime.
func TestCPUTimeKey(t *testing.T) {
	needGo(t)
	dir := t.TempDir()
	if err := copyTiny(dir); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	plain, err := Build{Dir: dir}.Key(ctx)
	if err != nil {
		t.Fatal(err)
	}
	timed, err := Build{Dir: dir, CPUTime: true}.Key(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if plain == timed {
		t.Error("CPUTime does not change the build key")
	}
	_, err = Build{Dir: dir, CPUTime: true, Flags: []string{"-overlay=" + filepath.Join(dir, "o.json")}}.Key(ctx)
	if !errors.Is(err, ErrNoCPUTime) || !strings.Contains(err.Error(), "-overlay") {
		t.Errorf("CPUTime with -overlay: error %v, want ErrNoCPUTime naming -overlay", err)
	}
	_, _, err = Compile(ctx, Build{Dir: dir, CacheDir: t.TempDir(), CPUTime: true, Env: []string{"GOFLAGS=-overlay=" + filepath.Join(dir, "o.json")}})
	if !errors.Is(err, ErrNoCPUTime) {
		t.Errorf("CPUTime with -overlay in GOFLAGS: Compile error %v, want ErrNoCPUTime", err)
	}
}
