package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantRow is a row as a test expects it; 0 stands for a missing number.
type wantRow struct {
	name, verdict    string
	ratio, lo, hi, p float64
	n                int
	leftOut          bool
}

func val(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func checkRows(t *testing.T, got []row, want []wantRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Verdict != w.verdict || g.N != w.n || g.LeftOut != w.leftOut {
			t.Errorf("row %d: %s %q n=%d left out %v, want %s %q n=%d left out %v", i, g.Name, g.Verdict, g.N, g.LeftOut, w.name, w.verdict, w.n, w.leftOut)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"ratio", val(g.Ratio), w.ratio}, {"lo", val(g.Lo), w.lo}, {"hi", val(g.Hi), w.hi}, {"p", val(g.P), w.p}} {
			if math.Abs(c.got-c.want) > 1e-12 {
				t.Errorf("row %d (%s): %s = %v, want %v", i, w.name, c.what, c.got, c.want)
			}
		}
		if (g.Lo != nil && g.Hi != nil) != (g.HalfWidth != nil) {
			t.Errorf("row %d (%s): half-width %v with interval [%v, %v]", i, w.name, g.HalfWidth, g.Lo, g.Hi)
		}
		if g.HalfWidth != nil {
			if want := (math.Log(w.hi) - math.Log(w.lo)) / 2; math.Abs(*g.HalfWidth-want) > 1e-12 {
				t.Errorf("row %d (%s): half-width %v, want %v", i, w.name, *g.HalfWidth, want)
			}
		}
	}
}

// TestParseAB reads real perflab ab --json outputs — of the baseline
// binary (built from ddb4489) and of a later build (b981c73) — and one
// of a shape no perflab writes yet, which the parser must still read by
// its field names.
func TestParseAB(t *testing.T) {
	for _, c := range []struct {
		file   string
		rounds int
		gate   string
		fails  int
		rows   []wantRow
	}{
		{"base-demo.json", 40, "", 0, []wantRow{
			{"BenchmarkWork", undecided, 1.0922158215265583, 0.9899212254625506, 1.217347776465171, 0.3228870642502462, 14, false},
		}},
		{"base-demo-gate-fail.json", 64, "failed", 1, []wantRow{
			{"BenchmarkWork", slower, 1.5966423549139002, 1.2978773600383842, 1.9031033783709836, 0.04987231190022242, 8, false},
		}},
		{"base-gate-layout.json", 52, "undecided", 0, []wantRow{
			{"BenchmarkABGetLarge", undecided, 0.788319777409784, 0.48137789813502796, 1.1390445023200833, 1, 9, false},
			{"BenchmarkABGetMedium", undecided, 1.6291990797276976, 0, 0, 1, 1, true},
			{"BenchmarkABGetSmall", undecided, 1.433510314088389, 0.487095098189499, 2.934254975349313, 1, 9, false},
		}},
		{"main-slow10.json", 97, "", 0, []wantRow{
			{"BenchmarkABGetLarge", undecided, 1.0938277570433184, 0.7415719454257544, 1.7176010559288732, 1, 25, false},
			{"BenchmarkABGetMedium", undecided, 1.081851078083489, 0, 0, 1, 1, true},
			{"BenchmarkABGetSmall", undecided, 0.9406322265113553, 0, 0, 1, 2, true},
		}},
		{"main-demo-faster.json", 64, "", 0, []wantRow{
			{"BenchmarkWork", faster, 0.637864993855595, 0.5237709348926914, 0.802771929570984, 0.04987231190022242, 8, false},
		}},
		{"future-nested.json", 0, "", 0, []wantRow{
			{"./codec:BenchmarkEncode", slower, 1.05, 1.02, 1.08, 0.001, 30, false},
			{"BenchmarkDecode", noDifference, 1.001, 0.995, 1.007, 0, 40, false},
			{"BenchmarkOdd", undecided, 0, 0, 0, 0, 0, false},
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "ab", c.file))
			if err != nil {
				t.Fatal(err)
			}
			out, err := parseAB(data)
			if err != nil {
				t.Fatal(err)
			}
			if out.Rounds != c.rounds || out.Gate != c.gate || out.Fails != c.fails {
				t.Errorf("rounds %d, gate %q, fails %d; want %d, %q, %d", out.Rounds, out.Gate, out.Fails, c.rounds, c.gate, c.fails)
			}
			checkRows(t, out.Rows, c.rows)
		})
	}
}

func TestParseABErrors(t *testing.T) {
	for _, in := range []string{"", "not json", "[]", `{"rows": 3}`, `{"source": {"rounds_run": 3}}`} {
		if out, err := parseAB([]byte(in)); err == nil {
			t.Errorf("parseAB(%q) = %+v, want an error", in, out)
		}
	}
}

// TestRefused finds perflab's refusal of a budget in its standard error,
// and none in the log of a run that ran.
func TestRefused(t *testing.T) {
	for file, want := range map[string]string{
		"refused-base.log": "a budget of 20s (whose initial pass gets half, 10s) is too small",
		"base-demo.log":    "",
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "ab", file))
		if err != nil {
			t.Fatal(err)
		}
		got := refused(data)
		if want == "" && got != "" || !strings.HasPrefix(got, want) {
			t.Errorf("%s: refused = %q, want %q…", file, got, want)
		}
	}
}

// TestParseBenchstat reads real benchstat -format csv outputs.
func TestParseBenchstat(t *testing.T) {
	for _, c := range []struct {
		file string
		rows []wantRow
	}{
		{"gjson-slow10.csv", []wantRow{
			{"BenchmarkABGetSmall", undecided, 1.3925e-06 / 1.6865000000000003e-06, 0, 0, 0.328, 8, false},
			{"BenchmarkABGetMedium", undecided, 3.3142e-05 / 3.0404500000000003e-05, 0, 0, 0.382, 8, false},
			{"BenchmarkABGetLarge", slower, 0.00043837750000000006 / 0.000231925, 0, 0, 0.015, 8, false},
		}},
		{"gjson-reversed.csv", []wantRow{
			{"BenchmarkABGetSmall", undecided, 1.6865000000000003e-06 / 1.3925e-06, 0, 0, 0.328, 8, false},
			{"BenchmarkABGetMedium", undecided, 3.0404500000000003e-05 / 3.3142e-05, 0, 0, 0.382, 8, false},
			{"BenchmarkABGetLarge", faster, 0.000231925 / 0.00043837750000000006, 0, 0, 0.015, 8, false},
		}},
		{"gjson-layout.csv", []wantRow{
			{"BenchmarkABGetSmall", undecided, 1.5100000000000002e-06 / 1.6865000000000003e-06, 0, 0, 0.442, 8, false},
			{"BenchmarkABGetMedium", undecided, 3.3061e-05 / 3.0404500000000003e-05, 0, 0, 0.721, 8, false},
			{"BenchmarkABGetLarge", undecided, 0.00032784800000000005 / 0.000231925, 0, 0, 0.130, 8, false},
		}},
		{"bitset-n3.csv", []wantRow{
			{"BenchmarkABInPlaceUnion", undecided, 1.3770000000000001e-06 / 1.339e-06, 0, 0, 1, 3, false},
			{"BenchmarkABInPlaceIntersection", undecided, 1.8170000000000001e-06 / 1.232e-06, 0, 0, 0.1, 3, false},
			{"BenchmarkABNextSetMany", undecided, 2.7346000000000002e-05 / 2.0394e-05, 0, 0, 0.1, 3, false},
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "benchstat", c.file))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := parseBenchstat(data)
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, rows, c.rows)
		})
	}
}

func TestParseBenchstatErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"goos: linux\n,a.txt,\n,sec/op,CI\nX-2,1,2%\n", // one input: no comparison
		",old,,new,,,\n,sec/op,CI,sec/op,CI,vs base,P\nX-2,1,2%,1,2%,+3%,p=high\n",
		",old,,new,,,\n,sec/op,CI,sec/op,CI,vs base,P\nX-2,1,2%,1,2%,+3x,p=0.01 n=5\n",
		",old,,new,,,\n,sec/op,CI,sec/op,CI,vs base,P\nX-2,1,2%,1,2%,+3%,p=7 n=5\n",
	} {
		if rows, err := parseBenchstat([]byte(in)); err == nil {
			t.Errorf("parseBenchstat(%q) = %+v, want an error", in, rows)
		}
	}
}

// checkParsed holds for every row either parser returns: a known verdict,
// finite positive numbers, an interval's half-width not negative.
func checkParsed(t *testing.T, rows []row) {
	for _, r := range rows {
		switch r.Verdict {
		case faster, slower, noDifference, undecided:
		default:
			t.Fatalf("verdict %q", r.Verdict)
		}
		for _, p := range []*float64{r.Ratio, r.Lo, r.Hi} {
			if p != nil && (!(*p > 0) || math.IsInf(*p, 0)) {
				t.Fatalf("row %+v: a number %v not finite and positive", r, *p)
			}
		}
		if r.HalfWidth != nil && !(*r.HalfWidth >= 0) {
			t.Fatalf("row %+v: half-width %v", r, *r.HalfWidth)
		}
	}
}

func seeds(f *testing.F, glob string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", glob))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzParseAB(f *testing.F) {
	seeds(f, "ab/*")
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := parseAB(data)
		if err == nil {
			checkParsed(t, out.Rows)
		}
		refused(data)
	})
}

func FuzzParseBenchstat(f *testing.F) {
	seeds(f, "benchstat/*")
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := parseBenchstat(data)
		if err == nil {
			checkParsed(t, rows)
		}
	})
}

func FuzzReadTrials(f *testing.F) {
	seeds(f, "*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		trials, err := readTrials(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		var b strings.Builder
		printScores(&b, trials, true)
	})
}
