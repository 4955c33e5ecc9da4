package findings

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/compare"
)

// readSet parses a benchmark file of testdata.
func readSet(t *testing.T, name string) *Set {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, warn, err := ParseSet(f, name)
	if err != nil || warn != nil {
		t.Fatalf("%s: %v, %v", name, err, warn)
	}
	return s
}

// resultSet is a set of results without unit metadata.
func resultSet(rs []*benchfmt.Result) *Set { return &Set{Results: rs} }

func mustParse(t *testing.T, s string) []compare.Threshold {
	t.Helper()
	th, err := compare.ParseThresholds(s)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// check applies the rules to a comparison's rows: the rulings that break
// a rule, and the rules no row reports.
func check(c *CompareResult, ths []compare.Threshold) ([]compare.Ruling, []compare.Threshold) {
	g := compare.Check(c.Gate(), c.Alpha, ths)
	return g.Fails(), g.Unmatched
}

func TestCompareFiles(t *testing.T) {
	res := Compare(readSet(t, "old.txt"), readSet(t, "new.txt"), CompareOptions{})
	byName := map[string]CompareRow{}
	for _, r := range res.Rows {
		byName[r.Name+" "+r.Unit] = r
	}
	for _, tc := range []struct {
		row           string
		better, worse bool
		near          float64 // the planted change
	}{
		{"BenchmarkEncode/size=64-2 sec/op", false, false, 0},
		{"BenchmarkEncode/size=1024-2 sec/op", false, true, 0.2},
		{"BenchmarkDecode/size=1024-2 sec/op", true, false, -0.3},
		{"BenchmarkDecode/size=1024-2 B/op", true, false, -0.5},
		{"BenchmarkEncode/size=1024-2 allocs/op", false, false, 0},
	} {
		r, ok := byName[tc.row]
		if !ok {
			t.Errorf("no row %q", tc.row)
			continue
		}
		if r.Better != tc.better || r.Worse != tc.worse {
			t.Errorf("%s: better %v worse %v (Δ %+.3f, p %.3g), want %v %v", tc.row, r.Better, r.Worse, r.Delta, r.P, tc.better, tc.worse)
		}
		if math.Abs(r.Delta-tc.near) > 0.02 {
			t.Errorf("%s: Δ = %+.3f, want ≈ %+.3f", tc.row, r.Delta, tc.near)
		}
		if !(r.DeltaLo <= tc.near+0.02 && tc.near-0.02 <= r.DeltaHi) {
			t.Errorf("%s: CI [%+.3f, %+.3f] excludes the planted %+.3f", tc.row, r.DeltaLo, r.DeltaHi, tc.near)
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
			t.Errorf("sec/op geomean over %d = %+.3f, want over 3 ≈ %+.3f", g.N, g.Delta, want)
		}
	}
	// Rows come by unit (sec/op first), then name in natural order.
	if r := res.Rows[0]; r.Unit != "sec/op" || r.Name != "BenchmarkDecode/size=1024-2" {
		t.Errorf("first row %s [%s], want BenchmarkDecode/size=1024-2 [sec/op]", r.Name, r.Unit)
	}
}

func TestGate(t *testing.T) {
	res := Compare(readSet(t, "old.txt"), readSet(t, "new.txt"), CompareOptions{})
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
		fails, unmatched := check(res, mustParse(t, tc.rules))
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
		old := resultSet(synth(r, names, 10, 1, 0.03))
		aa := resultSet(synth(r, names, 10, 1, 0.03))
		reg := resultSet(synth(r, names, 10, 1.2, 0.03))
		if fails, _ := check(Compare(old, aa, CompareOptions{}), th); len(fails) != 0 {
			t.Errorf("seed %d: A/A comparison fails the gate: %+v", seed, fails[0].Row)
		}
		if fails, _ := check(Compare(old, reg, CompareOptions{}), th); len(fails) != len(names) {
			t.Errorf("seed %d: planted +20%% fails %d of %d benchmarks", seed, len(fails), len(names))
		}
	}
}

func TestZerosAndTinySamples(t *testing.T) {
	mk := func(vals ...float64) *Set {
		var out []*benchfmt.Result
		for _, v := range vals {
			out = append(out, &benchfmt.Result{Name: benchfmt.Name("Z"), Iters: 1, Values: []benchfmt.Value{{Value: v, Unit: "allocs/op"}}})
		}
		return resultSet(out)
	}
	for _, tc := range []struct {
		name     string
		old, new []float64
		delta    float64
		noCI     bool
	}{
		{"all zero", []float64{0, 0, 0, 0, 0, 0}, []float64{0, 0, 0, 0, 0, 0}, 0, false},
		{"from zero", []float64{0, 0, 0, 0, 0, 0}, []float64{1, 1, 1, 1, 1, 1}, math.Inf(1), true},
		{"too few", []float64{1, 2}, []float64{3, 4}, 3.5/1.5 - 1, true},
	} {
		res := Compare(mk(tc.old...), mk(tc.new...), CompareOptions{})
		if len(res.Rows) != 1 {
			t.Fatalf("%s: %d rows", tc.name, len(res.Rows))
		}
		r := res.Rows[0]
		if !(r.Delta == tc.delta || math.Abs(r.Delta-tc.delta) < 1e-12) || r.NoCI != tc.noCI {
			t.Errorf("%s: Δ %g noCI %v, want %g %v", tc.name, r.Delta, r.NoCI, tc.delta, tc.noCI)
		}
		if fails, _ := check(res, mustParse(t, "allocs/op>+0%")); len(fails) != 0 && tc.noCI {
			t.Errorf("%s: a row without an interval failed the gate", tc.name)
		}
	}
}

// TestGateControlsFalseDiscoveries: among hundreds of unchanged rows, one
// that looks significant by chance does not fail the gate; a regression
// seen across many rows does (Benjamini–Hochberg over the unit's rows).
func TestGateControlsFalseDiscoveries(t *testing.T) {
	th := mustParse(t, "sec/op>+5%")
	row := func(p, lo float64) CompareRow {
		return CompareRow{Unit: "sec/op", P: p, Signif: p < 0.05, Delta: lo + 0.05, DeltaLo: lo, DeltaHi: lo + 0.1}
	}
	gate := func(rows []CompareRow) int {
		res := &CompareResult{Rows: rows, Alpha: 0.05}
		ps := make([]float64, len(rows))
		for i, r := range rows {
			ps[i] = r.P
		}
		for i, q := range adjust(ps) {
			res.Rows[i].PAdj = q
		}
		fails, _ := check(res, th)
		return len(fails)
	}
	var aa []CompareRow
	for i := 0; i < 400; i++ {
		aa = append(aa, row(0.5, -0.05))
	}
	aa = append(aa, row(0.0043, 0.12)) // one chance hit, as in a real A/A run
	if n := gate(aa); n != 0 {
		t.Errorf("A/A with one chance hit failed %d rows", n)
	}
	var planted []CompareRow
	for i := 0; i < 400; i++ {
		planted = append(planted, row(0.0022, 0.15)) // every benchmark 20% slower
	}
	if n := gate(planted); n != 400 {
		t.Errorf("planted regression failed %d of 400 rows", n)
	}
	// A single row alone is judged at plain alpha.
	if n := gate([]CompareRow{row(0.0022, 0.15)}); n != 1 {
		t.Errorf("a lone significant regression passed the gate")
	}
	// A NaN p-value is never a discovery and does not count among the rows.
	if q := adjust([]float64{math.NaN(), 0.01}); !math.IsNaN(q[0]) || q[1] != 0.01 {
		t.Errorf("adjust(NaN, 0.01) = %v", q)
	}
}

// configResults makes six samples of each name under one config.
func configResults(config string, base float64, names ...string) []*benchfmt.Result {
	var out []*benchfmt.Result
	for i := 0; i < 6; i++ {
		for j, n := range names {
			r := &benchfmt.Result{Name: benchfmt.Name(n), Iters: 1000,
				Values: []benchfmt.Value{{Value: base * float64(j+1) * (1 + 0.001*float64(i)), Unit: "sec/op"}}}
			if config != "" {
				r.SetConfig("config", config)
			}
			out = append(out, r)
		}
	}
	return out
}

func TestConfigMap(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf("Hash/size=%d", i)
	}
	tests := []struct {
		name      string
		old, new  []*benchfmt.Result
		m         map[string]string
		rows      int
		pairs     map[string]string
		unmatched []Unmatched
	}{
		{
			name: "one config each side: paired automatically",
			old:  configResults("default", 1e-6, many...), new: configResults("go126", 1e-6, many...),
			rows: 40, pairs: map[string]string{"default": "go126"},
		},
		{
			name: "explicit map among several configs",
			old:  append(configResults("default", 1e-6, "A", "B"), configResults("gogc", 1e-6, "A", "B")...),
			new:  append(configResults("go126", 1e-6, "A", "B"), configResults("gogc", 1e-6, "A", "B")...),
			m:    map[string]string{"default": "go126"}, rows: 4, pairs: map[string]string{"default": "go126"},
		},
		{
			name: "several configs, none common, no map: tallied per side and config",
			old:  append(configResults("default", 1e-6, many...), configResults("gogc", 1e-6, many...)...),
			new:  append(configResults("go126", 1e-6, many...), configResults("nogc", 1e-6, many...)...),
			rows: 0,
			unmatched: []Unmatched{
				{Side: "old", Config: "default", Benchmarks: 40, Units: []string{"sec/op"}, Examples: []string{"BenchmarkHash/size=0", "BenchmarkHash/size=1", "BenchmarkHash/size=2"}},
				{Side: "old", Config: "gogc", Benchmarks: 40, Units: []string{"sec/op"}, Examples: []string{"BenchmarkHash/size=0", "BenchmarkHash/size=1", "BenchmarkHash/size=2"}},
				{Side: "new", Config: "go126", Benchmarks: 40, Units: []string{"sec/op"}, Examples: []string{"BenchmarkHash/size=0", "BenchmarkHash/size=1", "BenchmarkHash/size=2"}},
				{Side: "new", Config: "nogc", Benchmarks: 40, Units: []string{"sec/op"}, Examples: []string{"BenchmarkHash/size=0", "BenchmarkHash/size=1", "BenchmarkHash/size=2"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Compare(resultSet(tt.old), resultSet(tt.new), CompareOptions{ConfigMap: tt.m})
			if len(res.Rows) != tt.rows {
				t.Errorf("%d rows, want %d", len(res.Rows), tt.rows)
			}
			if fmt.Sprint(res.ConfigMap) != fmt.Sprint(tt.pairs) {
				t.Errorf("config map %v, want %v", res.ConfigMap, tt.pairs)
			}
			if fmt.Sprint(res.Unmatched) != fmt.Sprint(tt.unmatched) {
				t.Errorf("unmatched %+v, want %+v", res.Unmatched, tt.unmatched)
			}
		})
	}
}

// TestCompareDirections: B/s rising is better, whether a file says so
// with "Unit B/s better=higher" or says nothing (go test's MB/s, which
// benchfmt reads as B/s); sec/op rising is worse. Both rise by 10% here.
func TestCompareDirections(t *testing.T) {
	file := func(meta string, scale float64) *Set {
		var b strings.Builder
		b.WriteString(meta)
		for i := range 8 {
			v := 1000 * scale * (1 + 0.002*float64(i%4))
			fmt.Fprintf(&b, "BenchmarkGet-2\t1000\t%.3f ns/op\t%.3f MB/s\n", v, v)
		}
		s, _, err := ParseSet(strings.NewReader(b.String()), "f")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, meta := range []string{"", "Unit B/s better=higher\n"} {
		res := Compare(file(meta, 1), file(meta, 1.1), CompareOptions{})
		for _, r := range res.Rows {
			switch r.Unit {
			case "B/s":
				if !r.Better || r.Worse || r.Delta < 0.09 {
					t.Errorf("metadata %q: B/s %+.3f better %v worse %v, want better", meta, r.Delta, r.Better, r.Worse)
				}
			case "sec/op":
				if !r.Worse || r.Better || r.Delta < 0.09 {
					t.Errorf("metadata %q: sec/op %+.3f better %v worse %v, want worse", meta, r.Delta, r.Better, r.Worse)
				}
			}
		}
		if len(res.Rows) != 2 {
			t.Errorf("metadata %q: %d rows, want sec/op and B/s", meta, len(res.Rows))
		}
	}
}
