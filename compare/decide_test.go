package compare_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
)

// readGateSet reads a benchmark file of testdata/gate.
func readGateSet(t *testing.T, name string) *findings.Set {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "gate", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, warn, err := findings.ParseSet(f, name)
	if err != nil || warn != nil {
		t.Fatalf("%s: %v, %v", name, err, warn)
	}
	return s
}

// TestGateOnFiles: the gate's rulings on two benchmarks whose changes are
// known (testdata/gate: each file says what it holds), compared as
// "perflab compare OLD NEW --fail-on RULE" compares them.
func TestGateOnFiles(t *testing.T) {
	type want struct {
		d   compare.Decision
		why compare.Why
	}
	within := want{compare.Within, compare.Decided}
	for _, tc := range []struct {
		name     string
		old, new string
		rule     string
		a, b     want
	}{
		{"decided pass: nothing changed", "old.txt", "within.txt", "sec/op>+5%", within, within},
		{"decided fail: A 20% slower", "old.txt", "beyond.txt", "sec/op>+5%", want{compare.Beyond, compare.Decided}, within},
		{"undecided: A exactly at the limit", "old.txt", "holds.txt", "sec/op>+5%", want{compare.Undecided, compare.HoldsLimit}, within},
		{"fail and undecided", "old.txt", "mixed.txt", "sec/op>+5%", want{compare.Beyond, compare.Decided}, want{compare.Undecided, compare.HoldsLimit}},
		{"undecided: A's interval holds 0 and the limit", "old.txt", "wide.txt", "sec/op>+1%", want{compare.Undecided, compare.HoldsLimit}, within},
		{"undecided: no interval", "few.txt", "few.txt", "sec/op>+5%", want{compare.Undecided, compare.NoInterval}, want{compare.Undecided, compare.NoInterval}},
	} {
		res := findings.Compare(readGateSet(t, tc.old), readGateSet(t, tc.new), findings.CompareOptions{})
		ths, err := compare.ParseThresholds(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		g := compare.Check(res.Gate(), res.Alpha, ths)
		for name, w := range map[string]want{"BenchmarkA-2": tc.a, "BenchmarkB-2": tc.b} {
			r, ok := g.Of("", name, "sec/op")
			if !ok || r.Decision != w.d || r.Why != w.why {
				t.Errorf("%s: %s %s = %v (%v), want %v (%v); row %+v", tc.name, name, tc.rule, r.Decision, r.Why, w.d, w.why, r.Row)
			}
		}
	}
}
