package compare

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/gotest"
)

func readFile(t *testing.T, name string) []*benchfmt.Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := gotest.Parse(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestCriticalK checks the exact U critical values against the published
// two-tailed α=0.05 table (the interval index k is the critical U + 1).
func TestCriticalK(t *testing.T) {
	for _, tc := range []struct{ n, m, k int }{
		{3, 3, 0}, {4, 4, 1}, {5, 5, 3}, {6, 6, 6}, {7, 7, 9}, {8, 8, 14}, {10, 10, 24}, {20, 20, 128}, {6, 10, 12},
	} {
		if got := criticalK(tc.n, tc.m, 0.05); got != tc.k {
			t.Errorf("criticalK(%d, %d) = %d, want %d", tc.n, tc.m, got, tc.k)
		}
	}
}

// TestUCDFExact compares the Gaussian-binomial counts with a brute-force
// enumeration of every split of n+m ranks.
func TestUCDFExact(t *testing.T) {
	for _, tc := range []struct{ n, m int }{{1, 1}, {2, 3}, {3, 4}, {4, 4}, {5, 3}} {
		counts := make([]float64, tc.n*tc.m+1)
		total := 0.0
		for mask := 0; mask < 1<<(tc.n+tc.m); mask++ {
			if popcount(mask) != tc.n {
				continue
			}
			// U counts pairs (x in the n-group, y in the m-group) with y < x.
			u, ys := 0, 0
			for b := 0; b < tc.n+tc.m; b++ {
				if mask&(1<<b) != 0 {
					u += ys
				} else {
					ys++
				}
			}
			counts[u]++
			total++
		}
		cdf := uCDF(tc.n, tc.m)
		acc := 0.0
		for u := range counts {
			acc += counts[u]
			if math.Abs(cdf[u]-acc/total) > 1e-12 {
				t.Errorf("n=%d m=%d: P(U≤%d) = %g, want %g", tc.n, tc.m, u, cdf[u], acc/total)
			}
		}
	}
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestUCDFNormalNearExact(t *testing.T) {
	// Just above and below the exact limit the two methods agree closely.
	exact := uCDF(180, 220) // 39600 ≤ maxExact
	approx := uCDF(181, 222)
	if n := len(exact); math.Abs(exact[n/2]-0.5) > 0.01 || math.Abs(approx[len(approx)/2]-0.5) > 0.01 {
		t.Errorf("medians of U: exact %g, normal %g; want ≈0.5", exact[n/2], approx[len(approx)/2])
	}
}

func TestCompareFiles(t *testing.T) {
	res := Compare(readFile(t, "old.txt"), readFile(t, "new.txt"), Options{})
	byName := map[string]Row{}
	for _, r := range res.Rows {
		byName[r.Name+" "+r.Unit] = r
	}
	for _, tc := range []struct {
		row     string
		verdict string
		near    float64 // the planted change
	}{
		{"BenchmarkEncode/size=64-2 sec/op", "~", 0},
		{"BenchmarkEncode/size=1024-2 sec/op", "worse", 0.2},
		{"BenchmarkDecode/size=1024-2 sec/op", "better", -0.3},
		{"BenchmarkDecode/size=1024-2 B/op", "better", -0.5},
		{"BenchmarkEncode/size=1024-2 allocs/op", "~", 0},
	} {
		r, ok := byName[tc.row]
		if !ok {
			t.Errorf("no row %q", tc.row)
			continue
		}
		if r.Verdict() != tc.verdict {
			t.Errorf("%s: verdict %q (Δ %s, p %.3g), want %q", tc.row, r.Verdict(), FormatDelta(r.Delta), r.P, tc.verdict)
		}
		if math.Abs(r.Delta-tc.near) > 0.02 {
			t.Errorf("%s: Δ = %s, want ≈ %s", tc.row, FormatDelta(r.Delta), FormatDelta(tc.near))
		}
		if !(r.DeltaLo <= tc.near+0.02 && tc.near-0.02 <= r.DeltaHi) {
			t.Errorf("%s: CI %s excludes the planted %s", tc.row, FormatCI(r), FormatDelta(tc.near))
		}
	}
	if len(res.OnlyOld) != 1 || !strings.Contains(res.OnlyOld[0], "BenchmarkOld") || len(res.OnlyNew) != 0 {
		t.Errorf("only old %v, only new %v; want BenchmarkOld alone in old", res.OnlyOld, res.OnlyNew)
	}
	// The geomean of sec/op covers the three common benchmarks only:
	// (1 × 1.2 × 0.7)^(1/3) − 1, never BenchmarkOld.
	for _, g := range res.Geomeans {
		if g.Unit != "sec/op" {
			continue
		}
		want := math.Cbrt(1.2*0.7) - 1
		if g.N != 3 || math.Abs(g.Delta-want) > 0.01 {
			t.Errorf("sec/op geomean over %d = %s, want over 3 ≈ %s", g.N, FormatDelta(g.Delta), FormatDelta(want))
		}
	}
	var out bytes.Buffer
	fails, _ := res.Check(mustParse(t, "sec/op>+5%"))
	if err := res.WriteText(&out, fails); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"geomean over 3 common", "FAIL sec/op>5%", "in one side only", "BenchmarkOld-2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
}

func mustParse(t *testing.T, s string) []Threshold {
	t.Helper()
	th, err := ParseThresholds(s)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func TestGate(t *testing.T) {
	res := Compare(readFile(t, "old.txt"), readFile(t, "new.txt"), Options{})
	for _, tc := range []struct {
		rules     string
		fails     []string // names of failing rows
		unmatched int
	}{
		{"sec/op>+5%", []string{"BenchmarkEncode/size=1024-2"}, 0},
		{"ns/op>+5%", []string{"BenchmarkEncode/size=1024-2"}, 0}, // ns/op is tidied to sec/op
		{"sec/op>+25%", nil, 0},                                   // +20% is within a 25% budget
		{"sec/op<-10%", []string{"BenchmarkDecode/size=1024-2"}, 0},
		{"B/op>+0%", nil, 0},
		{"B/op<-40%", []string{"BenchmarkDecode/size=1024-2"}, 0},
		{"allocs/op>+0%", nil, 0},
		{"sec/op>+5%, req/s<-5%", []string{"BenchmarkEncode/size=1024-2"}, 1},
	} {
		fails, unmatched := res.Check(mustParse(t, tc.rules))
		var got []string
		for _, f := range fails {
			got = append(got, f.Row.Name)
		}
		if strings.Join(got, ",") != strings.Join(tc.fails, ",") || len(unmatched) != tc.unmatched {
			t.Errorf("%s: fails %v, unmatched %v; want %v and %d unmatched", tc.rules, got, unmatched, tc.fails, tc.unmatched)
		}
	}
}

// synth makes n samples per benchmark around base·scale with ±noise
// relative uniform noise.
func synth(r *rand.Rand, names []string, n int, scale, noise float64) []*benchfmt.Result {
	var out []*benchfmt.Result
	for i := 0; i < n; i++ {
		for j, name := range names {
			v := float64(100*(j+1)) * 1e-9 * scale * (1 + noise*(2*r.Float64()-1))
			out = append(out, &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1000, Values: []benchfmt.Value{{Value: v, Unit: "sec/op"}}})
		}
	}
	return out
}

// TestAAAndPlanted: two samples of one distribution pass the gate in
// every one of many trials; a planted 20% slow-down fails it every time.
func TestAAAndPlanted(t *testing.T) {
	names := []string{"A/x=1", "A/x=2", "A/x=3", "B", "C/y=z"}
	th := mustParse(t, "sec/op>+5%")
	for seed := uint64(1); seed <= 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		old := synth(r, names, 10, 1, 0.03)
		aa := synth(r, names, 10, 1, 0.03)
		reg := synth(r, names, 10, 1.2, 0.03)
		if fails, _ := Compare(old, aa, Options{}).Check(th); len(fails) != 0 {
			t.Errorf("seed %d: A/A comparison fails the gate: %+v", seed, fails[0].Row)
		}
		res := Compare(old, reg, Options{})
		if fails, _ := res.Check(th); len(fails) != len(names) {
			t.Errorf("seed %d: planted +20%% fails %d of %d benchmarks", seed, len(fails), len(names))
		}
	}
}

func TestZerosAndTinySamples(t *testing.T) {
	mk := func(vals ...float64) []*benchfmt.Result {
		var out []*benchfmt.Result
		for _, v := range vals {
			out = append(out, &benchfmt.Result{Name: benchfmt.Name("Z"), Iters: 1, Values: []benchfmt.Value{{Value: v, Unit: "allocs/op"}}})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		old, new []float64
		delta    string
		noCI     bool
	}{
		{"all zero", []float64{0, 0, 0, 0, 0, 0}, []float64{0, 0, 0, 0, 0, 0}, "0%", false},
		{"from zero", []float64{0, 0, 0, 0, 0, 0}, []float64{1, 1, 1, 1, 1, 1}, "+∞", true},
		{"too few", []float64{1, 2}, []float64{3, 4}, "+133.3%", true},
	} {
		res := Compare(mk(tc.old...), mk(tc.new...), Options{})
		if len(res.Rows) != 1 {
			t.Fatalf("%s: %d rows", tc.name, len(res.Rows))
		}
		r := res.Rows[0]
		if FormatDelta(r.Delta) != tc.delta || r.NoCI != tc.noCI {
			t.Errorf("%s: Δ %s noCI %v, want %s %v", tc.name, FormatDelta(r.Delta), r.NoCI, tc.delta, tc.noCI)
		}
		if fails, _ := res.Check(mustParse(t, "allocs/op>+0%")); len(fails) != 0 && tc.noCI {
			t.Errorf("%s: a row without an interval failed the gate", tc.name)
		}
	}
}
