package analysis

import (
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/benchname"
)

func readResults(t *testing.T, file string) []*benchfmt.Result {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*benchfmt.Result
	r := benchfmt.NewReader(f, file)
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			out = append(out, res.Clone())
		}
	}
	return out
}

func TestCollect(t *testing.T) {
	samples := Collect(readResults(t, "testdata/reuse.txt"))
	type want struct {
		name, unit string
		n          int
		median     float64
	}
	wants := []want{
		{"BenchmarkReuse/variant=plain/reuse=0", "sec/op", 3, 20.0e-9},
		{"BenchmarkReuse/variant=pool/reuse=0", "sec/op", 3, 35.0e-9},
		{"BenchmarkReuse/variant=pool/reuse=50-2", "sec/op", 1, 15.0e-9},
		{"BenchmarkReuse/variant=pool/reuse=50-2", "B/op", 1, 8},
	}
	if len(samples) != len(wants) {
		t.Fatalf("got %d samples, want %d", len(samples), len(wants))
	}
	for i, w := range wants {
		s := samples[i]
		got := Summarize(s.Values, DefaultOptions()).Center
		if s.Name.Full != w.name || s.Unit != w.unit || len(s.Values) != w.n || math.Abs(got-w.median) > 1e-9*w.median {
			t.Errorf("sample %d = %s %s n=%d median %g; want %+v", i, s.Name.Full, s.Unit, len(s.Values), got, w)
		}
	}
}

func TestSummarizeMatchesMedian(t *testing.T) {
	vals := []float64{5, 1, 4, 2, 3, 6, 7}
	s := Summarize(vals, DefaultOptions())
	if s.Center != 4 || s.N != 7 || !(s.Lo <= 4 && s.Hi >= 4) {
		t.Errorf("Summarize = %+v", s)
	}
	if !slices.Equal(vals, []float64{5, 1, 4, 2, 3, 6, 7}) {
		t.Errorf("Summarize reordered its input: %v", vals)
	}
	if s := Summarize(nil, DefaultOptions()); !math.IsNaN(s.Center) {
		t.Errorf("Summarize(nil) = %+v, want NaN center", s)
	}
}

func TestSampleMatches(t *testing.T) {
	s := &Sample{Config: "arena", Name: benchname.Parse("BenchmarkPool/size=64/reuse=25-2"), Unit: "sec/op"}
	tests := []struct {
		sel  [][2]string
		want bool
	}{
		{nil, true},
		{[][2]string{{"size", "64"}}, true},
		{[][2]string{{"size", "64"}, {"procs", "2"}, {"config", "arena"}}, true},
		{[][2]string{{"procs", "1"}}, false},
		{[][2]string{{"variant", "x"}}, false},
	}
	for _, tt := range tests {
		if got := s.Matches(tt.sel); got != tt.want {
			t.Errorf("Matches(%v) = %v", tt.sel, got)
		}
	}
}

// TestKneesAndCrossoversOnSamples runs the series grouping end to end on a
// synthetic sweep with a known knee (x=6) and a known crossover (37.5).
func TestKneesAndCrossoversOnSamples(t *testing.T) {
	var samples []*Sample
	add := func(name string, v float64) {
		samples = append(samples, &Sample{Name: benchname.Parse(name), Unit: "sec/op", Values: []float64{v * 0.99, v * 0.995, v, v, v * 1.005, v * 1.01}})
	}
	for d := 1; d <= 12; d++ {
		y := float64(d)
		if d > 6 {
			y = 6 + 5*float64(d-6)
		}
		add("BenchmarkDepth/lib=std/depth="+itoa(d), y)
	}
	for _, x := range []int{0, 10, 20, 30, 40, 50, 60} {
		add("BenchmarkReuse/variant=plain/reuse="+itoa(x), 20)
		add("BenchmarkReuse/variant=pool/reuse="+itoa(x), 35-0.4*float64(x))
	}
	knees := FoundKnees(KneeFits(samples, "depth", DefaultOptions()))
	if len(knees) != 1 || knees[0].Series != "BenchmarkDepth/lib=std" || math.Abs(knees[0].X-6) > 0.5 {
		t.Errorf("Knees = %+v, want one at depth 6", knees)
	}
	xs := Crossovers(samples, "reuse", "variant", DefaultOptions())
	if len(xs) != 1 {
		t.Fatalf("Crossovers = %+v, want one", xs)
	}
	c := xs[0]
	if c.A != "BenchmarkReuse/variant=plain" || c.B != "BenchmarkReuse/variant=pool" || c.Lo != 30 || c.Hi != 40 || math.Abs(c.X-37.5) > 0.5 || !(c.XLo <= 37.5 && 37.5 <= c.XHi) {
		t.Errorf("crossover = %+v, want plain vs pool at 37.5 in [30, 40]", c)
	}
	if got := Crossovers(samples, "depth", "lib", DefaultOptions()); len(got) != 0 {
		t.Errorf("one library cannot cross itself: %+v", got)
	}
}

func itoa(i int) string { return string(rune('0'+i/10%10)) + string(rune('0'+i%10)) }

func TestUpToRound(t *testing.T) {
	in := []*Sample{
		{Name: benchname.Parse("BenchmarkA"), Unit: "sec/op", Values: []float64{1, 2, 3, 4}, Rounds: []int{1, 2, 7, 8}},
		{Name: benchname.Parse("BenchmarkB"), Unit: "sec/op", Values: []float64{5}, Rounds: []int{9}},
		{Name: benchname.Parse("BenchmarkC"), Unit: "sec/op", Values: []float64{6, 7}}, // no rounds: plain go test output
	}
	got := UpToRound(in, 6)
	if len(got) != 2 {
		t.Fatalf("UpToRound kept %d samples, want 2 (B has no value in rounds 1..6)", len(got))
	}
	if !slices.Equal(got[0].Values, []float64{1, 2}) || !slices.Equal(got[0].Rounds, []int{1, 2}) {
		t.Errorf("A = %v rounds %v, want [1 2] rounds [1 2]", got[0].Values, got[0].Rounds)
	}
	if got[1].Name.Base != "BenchmarkC" || len(got[1].Values) != 2 {
		t.Errorf("a sample without rounds should be kept whole, got %+v", got[1])
	}
	if len(in[0].Values) != 4 {
		t.Errorf("UpToRound changed its input: %v", in[0].Values)
	}
}

// TestNonFiniteValues: a NaN or infinite value is left out of a summary
// and a comparison. A NaN once reached the U test, whose ranking of ties
// never ended on it and grew until the process ran out of memory.
func TestNonFiniteValues(t *testing.T) {
	opt := DefaultOptions()
	done := make(chan float64, 1)
	go func() { done <- Compare([]float64{1, 2, 3, 4}, []float64{math.NaN()}, opt) }()
	select {
	case p := <-done:
		if p != 1 {
			t.Errorf("Compare against only a NaN: p = %v, want 1", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Compare with a NaN did not return")
	}
	if p := Compare([]float64{1, 2, 3, 4, 5, math.Inf(1)}, []float64{6, 7, 8, 9, 10, math.NaN()}, opt); !(p > 0 && p < 0.05) {
		t.Errorf("Compare of 5 finite values each, fully apart: p = %v, want below 0.05", p)
	}
	s := Summarize([]float64{1, 2, math.NaN(), 3, math.Inf(-1)}, opt)
	if s.N != 3 || s.Center != 2 {
		t.Errorf("Summarize: %+v, want the median 2 of 3 finite values", s)
	}
	if s := Summarize([]float64{math.NaN()}, opt); s.N != 0 || !math.IsNaN(s.Center) {
		t.Errorf("Summarize of a NaN alone: %+v, want no value", s)
	}
}
