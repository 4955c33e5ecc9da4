package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tinyModule writes a module whose Sum adds a slice; with twice, Sum adds
// it twice (twice the instructions).
func tinyModule(t *testing.T, dir string, twice bool) {
	t.Helper()
	sum := "s := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n"
	if twice {
		sum += "\tfor _, x := range xs {\n\t\ts += x\n\t}\n"
	}
	files := map[string]string{
		"go.mod":  "module example.com/tiny\n\ngo 1.22\n",
		"tiny.go": "package tiny\n\nfunc Sum(xs []int) int {\n\t" + sum + "\treturn s\n}\n",
		"tiny_test.go": `package tiny

import "testing"

var (
	xs   = make([]int, 2000)
	sink int
)

func BenchmarkSum(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Sum(xs)
	}
}

func BenchmarkSumSmall(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Sum(xs[:20])
	}
}
`,
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readRows reads a CSV a measurement wrote.
func readRows(t *testing.T, path string) *dataset {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := readCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameAsAnalyze checks that analyze prints from the CSV what the
// measurement printed.
func sameAsAnalyze(t *testing.T, path string, printed []byte) {
	t.Helper()
	var again bytes.Buffer
	if err := run(context.Background(), []string{"analyze", path}, &again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), printed) {
		t.Errorf("analyze %s prints otherwise than the measurement did:\n%s\n---\n%s", path, again.Bytes(), printed)
	}
}

// TestLayoutsEndToEnd links, runs and measures a tiny real module whose
// planted change doubles Sum's work, at two alignments, and checks the
// rows, the instructions/op (when valgrind is here) and that analyze
// prints the same tables from the CSV.
func TestLayoutsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("links and runs test binaries")
	}
	tmp := t.TempDir()
	old, new := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	tinyModule(t, old, false)
	tinyModule(t, new, true)
	_, err := exec.LookPath("valgrind")
	instr := err == nil
	if !instr {
		t.Log("valgrind is not installed: instructions/op left out")
	}
	csvPath := filepath.Join(tmp, "layouts.csv")
	var out bytes.Buffer
	err = run(context.Background(), []string{"layouts", "-planted", old + "," + new, "-bench", "^BenchmarkSum$",
		"-layouts", "2", "-rounds", "2", "-benchtime", "2ms", "-funcalign", "0,64",
		"-instructions=" + map[bool]string{true: "true", false: "false"}[instr], "-o", csvPath}, &out)
	if err != nil {
		t.Fatal(err)
	}
	d := readRows(t, csvPath)
	timed, ins := 0, map[layoutKey]float64{}
	for _, r := range d.Layouts {
		if r.Unit == unitInstr {
			ins[r.layoutKey()] = r.Value
			continue
		}
		timed++
		if r.Bench != "BenchmarkSum" || (r.Align != 0 && r.Align != 64) || (r.Layout != 1 && r.Layout != 2) {
			t.Errorf("unexpected row %+v", r)
		}
	}
	if want := 2 * 2 * 2 * 2; timed != want { // alignments × sides × layouts × rounds
		t.Errorf("%d timed rows, want %d", timed, want)
	}
	if instr {
		for _, a := range []int{0, 64} {
			r := ins[layoutKey{"BenchmarkSum", a, "new"}] / ins[layoutKey{"BenchmarkSum", a, "old"}]
			if !(math.Abs(r-2) < 0.2) {
				t.Errorf("funcalign %d: instructions/op new/old %.3f, want about 2 (Sum adds the slice twice)", a, r)
			}
		}
	}
	for _, w := range []string{"BenchmarkSum", "Planted change new/old", "funcalign 64 against 0"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output does not say %q:\n%s", w, out.String())
		}
	}
	sameAsAnalyze(t, csvPath, out.Bytes())
	if err := run(context.Background(), []string{"layouts", "-dir", old, "-bench", ".", "-o", csvPath}, &out); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second run onto the same CSV: error %v, want one saying it exists", err)
	}
}

// TestSourcesEndToEnd runs a tiny real module's two benchmarks under the
// conditions this machine can run, and checks the rows and that analyze
// prints the same tables from the CSV.
func TestSourcesEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	tmp := t.TempDir()
	mod := filepath.Join(tmp, "mod")
	tinyModule(t, mod, false)
	csvPath := filepath.Join(tmp, "sources.csv")
	var out bytes.Buffer
	err := run(context.Background(), []string{"sources", "-dir", mod, "-bench", "Sum", "-rounds", "2", "-procs", "2", "-reps", "2",
		"-benchtime", "2ms", "-o", csvPath}, &out)
	if err != nil {
		t.Fatal(err)
	}
	d := readRows(t, csvPath)
	count := map[string]int{}
	for _, r := range d.Sources {
		count[r.Cond]++
		if len(r.Reps) != 2 || r.Pad < 0 || r.Pad > maxPad || r.Pad > 0 && r.Cond != "envpad" {
			t.Errorf("unexpected row %+v", r)
		}
	}
	if count["base"] != 2*2*2 || count["envpad"] != 2*2*2 || count["gomaxprocs1"] != 2*2*2 { // benchmarks × procs × rounds
		t.Errorf("processes by condition %v, want 8 each of base, envpad and gomaxprocs1", count)
	}
	for _, c := range []string{"pin0", "pin1", "noaslr"} {
		if count[c] == 0 {
			t.Logf("%s was left out on this machine", c)
		} else if count[c] != 8 {
			t.Errorf("%d processes of %s, want 8", count[c], c)
		}
	}
	for _, w := range []string{"BenchmarkSum:", "BenchmarkSumSmall:", "left: base's process SD"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output does not say %q:\n%s", w, out.String())
		}
	}
	sameAsAnalyze(t, csvPath, out.Bytes())
}

// TestUsageErrors: bad invocations end with an error that says what to
// do, before anything is built.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no sub-command"},
		{[]string{"frob"}, "unknown sub-command"},
		{[]string{"layouts", "-dir", "."}, "-bench is required"},
		{[]string{"layouts", "-bench", ".", "-layouts", "1"}, "-layouts 1"},
		{[]string{"layouts", "-bench", ".", "-funcalign", "0,x"}, "-funcalign"},
		{[]string{"layouts", "-bench", ".", "-planted", "onlyone", "-instructions=false"}, "OLDDIR,NEWDIR"},
		{[]string{"sources", "-bench", ".", "-rounds", "1"}, "-rounds 1"},
		{[]string{"sources", "-bench", ".", "-procs", "1"}, "-procs 1"},
		{[]string{"sources", "-bench", ".", "-conds", "pin0,base"}, "base must come first"},
		{[]string{"sources", "-bench", ".", "-conds", "base,turbo"}, "unknown condition"},
		{[]string{"analyze"}, "one CSV file"},
		{[]string{"analyze", "/nonexistent.csv"}, "no such file"},
	} {
		err := run(context.Background(), c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("varlab %s: error %v, want one containing %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}
