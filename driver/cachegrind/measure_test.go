package cachegrind

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/gotest"
)

func needValgrind(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not installed (" + InstallHint + ")")
	}
	if testing.Short() {
		t.Skip("runs valgrind")
	}
}

// planted compiles the planted module's test binary.
func planted(t *testing.T, tags ...string) (bin, dir string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "planted"))
	if err != nil {
		t.Fatal(err)
	}
	b := gotest.Build{Dir: dir, Package: ".", CacheDir: t.TempDir()}
	for _, tag := range tags {
		b.Flags = append(b.Flags, "-tags="+tag)
	}
	bin, _, err = gotest.Compile(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return bin, dir
}

func TestMissingValgrind(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Version(context.Background())
	if !errors.Is(err, ErrNoValgrind) {
		t.Fatalf("Version with no valgrind on PATH: %v, want ErrNoValgrind", err)
	}
	_, err = Measure(context.Background(), Cell{Binary: "/bin/true", Bench: "X"}, Options{}, 10)
	if !errors.Is(err, ErrNoValgrind) {
		t.Fatalf("Measure with no valgrind on PATH: %v, want ErrNoValgrind", err)
	}
	if !strings.Contains(ErrNoValgrind.Error(), InstallHint) {
		t.Errorf("the error %q does not say how to install valgrind", ErrNoValgrind)
	}
}

// TestPlantedRatios measures the planted pair: v=b runs 102 rounds of the
// loop v=a runs 100 of, v=c runs a copy of v=a's function. Instruction
// counts are exact enough that the ratios are known to four digits.
func TestPlantedRatios(t *testing.T) {
	needValgrind(t)
	bin, dir := planted(t)
	ctx := context.Background()
	opt := Options{GOGC: "off"}
	cell := func(v string) Cell {
		return Cell{Binary: bin, Dir: dir, Bench: "^BenchmarkWork$/^v=" + v + "$"}
	}
	cal, err := Calibrate(ctx, cell("a"), opt)
	if err != nil {
		t.Fatal(err)
	}
	if cal.PerOp < 1100 || cal.PerOp > 1350 || cal.N < 1000 {
		t.Errorf("calibration %+v: want ≈1217 instructions/op and N in the tens of thousands", cal)
	}
	const n = 50000 // fixed, to keep the test short; Calibrate's choice is larger
	got := map[string]*Measurement{}
	for _, v := range []string{"a", "b", "c"} {
		m, err := Measure(ctx, cell(v), opt, n)
		if err != nil {
			t.Fatal(err)
		}
		got[v] = m
		t.Logf("v=%s: %.2f instructions/op, %.1f ns/op under valgrind, %s", v, m.Instructions(), m.NsPerOp, m.Wall)
	}
	a, b, c := got["a"].Instructions(), got["b"].Instructions(), got["c"].Instructions()
	// (12·102+6+11)/(12·100+6+11): 12 instructions a round, 6 a call, 11
	// in the benchmark loop. One pair at a fixed N on a loaded machine
	// carries the runtime's background instructions (sysmon wakes by the
	// clock, and valgrind runs slower under load), about 0.3% at worst
	// here: the tolerance is half the planted 2%.
	const tol = 0.005
	if r := b / a; math.Abs(r-1241.0/1217.0) > tol {
		t.Errorf("b/a = %.5f, want %.5f ± %g", r, 1241.0/1217.0, tol)
	}
	if r := c / a; math.Abs(r-1) > tol {
		t.Errorf("c/a = %.5f, want 1 ± %g", r, tol)
	}
	if f := got["a"].Funcs["planted.workA"]; math.Abs(f-1206) > 1 {
		t.Errorf("planted.workA = %.2f instructions/op, want 1206 (12 a round × 100 + 6)", f)
	}
	d := analysis.FuncChanges(got["a"].Funcs, got["b"].Funcs, 3, 0.01)
	if len(d.Changes) == 0 || d.Changes[0].Func != "planted.workA" || math.Abs(d.Changes[0].Delta-24) > 0.5 {
		t.Fatalf("top change a→b = %+v, want planted.workA +24", d.Changes)
	}
}

// TestABNamesTheFunction compares two builds that differ in one function:
// that function explains the change.
func TestABNamesTheFunction(t *testing.T) {
	needValgrind(t)
	binA, dir := planted(t)
	binB, _ := planted(t, "v2")
	ctx := context.Background()
	var ms [2]*Measurement
	for i, bin := range []string{binA, binB} {
		m, err := Measure(ctx, Cell{Binary: bin, Dir: dir, Bench: "^BenchmarkSum$/^n=256$"}, Options{GOGC: "off"}, 20000)
		if err != nil {
			t.Fatal(err)
		}
		ms[i] = m
	}
	d := analysis.FuncChanges(ms[0].Funcs, ms[1].Funcs, 5, 0.01)
	if len(d.Changes) == 0 || d.Changes[0].Func != "planted.checksum" {
		t.Fatalf("changes %+v: want planted.checksum first", d.Changes)
	}
	if s := d.Changes[0].Share; s < 0.9 || s > 1.1 {
		t.Errorf("planted.checksum's share of the change = %.3f, want ≈1", s)
	}
}

// TestGODEBUG: every run under valgrind gets cpu.rdtscp=off, added to the
// config's GODEBUG (or the environment's), never replacing it.
func TestGODEBUG(t *testing.T) {
	for _, tc := range []struct {
		ambient string // the process's GODEBUG; "-" for unset
		env     []string
		want    string
	}{
		{"-", nil, "GODEBUG=cpu.rdtscp=off"},
		{"", nil, "GODEBUG=cpu.rdtscp=off"},
		{"madvdontneed=1", nil, "GODEBUG=madvdontneed=1,cpu.rdtscp=off"},
		{"-", []string{"GOGC=50", "GODEBUG=gctrace=1"}, "GODEBUG=gctrace=1,cpu.rdtscp=off"},
		{"madvdontneed=1", []string{"GODEBUG=gctrace=1"}, "GODEBUG=gctrace=1,cpu.rdtscp=off"},
		{"-", []string{"GODEBUG=a=1", "GODEBUG=b=2"}, "GODEBUG=b=2,cpu.rdtscp=off"},
	} {
		if tc.ambient == "-" {
			t.Setenv("GODEBUG", "")
			os.Unsetenv("GODEBUG")
		} else {
			t.Setenv("GODEBUG", tc.ambient)
		}
		if got := godebug(tc.env); got != tc.want {
			t.Errorf("GODEBUG %q, env %q: %q, want %q", tc.ambient, tc.env, got, tc.want)
		}
	}
}

// TestRunsWithoutRDTSCP: the measured process sees cpu.rdtscp=off beside
// the config's own GODEBUG (the planted benchmark fails otherwise).
func TestRunsWithoutRDTSCP(t *testing.T) {
	needValgrind(t)
	bin, dir := planted(t)
	c := Cell{Binary: bin, Dir: dir, Bench: "^BenchmarkEnv$", Env: []string{"GODEBUG=madvdontneed=1", "PLANTED_GODEBUG=madvdontneed=1"}}
	if _, err := Measure(context.Background(), c, Options{}, 1000); err != nil {
		t.Fatalf("Measure: %v", err)
	}
}

// TestFailureShowsOutput: a run that dies under valgrind is an error that
// carries the process's own output, which says why.
func TestFailureShowsOutput(t *testing.T) {
	needValgrind(t)
	bin, dir := planted(t)
	c := Cell{Binary: bin, Dir: dir, Bench: "^BenchmarkCrash$"}
	_, err := Calibrate(context.Background(), c, Options{})
	if err == nil || !strings.Contains(err.Error(), "planted: died under valgrind") {
		t.Fatalf("Calibrate of a cell that dies under valgrind: %v", err)
	}
}
