package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
)

var updateRegimes = flag.Bool("update-regimes", false, "rewrite testdata/regimes.txt from its generator")

// regimeSeries is one generated series: a benchmark name prefix, the axis
// key and values, its cost curve and noise.
type regimeSeries struct {
	name, axis string
	xs         []float64
	f          func(float64) float64
	cv         float64
}

// regimeFile generates testdata/regimes.txt: Go benchmark output of 8
// rounds ("round: N" config lines), every cell once per round, with a
// per-sample lognormal factor (σ = CV) and a per-round factor (σ = CV/2)
// that every cell of the round shares. Seeded, so deterministic.
func regimeFile() string {
	rng := rand.New(rand.NewPCG(2026, 10))
	depth := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	var sizes []float64
	for s := 4.0; s <= 4096; s *= 2 {
		sizes = append(sizes, s)
	}
	reuse11, reuse21 := []float64{}, []float64{}
	for x := 0.0; x <= 100; x += 10 {
		reuse11 = append(reuse11, x)
	}
	for x := 0.0; x <= 100; x += 5 {
		reuse21 = append(reuse21, x)
	}
	var series []regimeSeries
	for i, cv := range []float64{0.02, 0.04, 0.06} {
		series = append(series,
			regimeSeries{fmt.Sprintf("BenchmarkSmooth/shape=pow15/cv=%d", i), "depth", depth, func(x float64) float64 { return 1000 * math.Pow(x, 1.5) }, cv},
			regimeSeries{fmt.Sprintf("BenchmarkSmooth/shape=pow2/cv=%d", i), "depth", depth, func(x float64) float64 { return 500 + 100*x*x }, cv},
			regimeSeries{fmt.Sprintf("BenchmarkSmooth/shape=exp/cv=%d", i), "depth", depth, func(x float64) float64 { return 1000 * math.Pow(1.2, x) }, cv},
			regimeSeries{fmt.Sprintf("BenchmarkSmooth/shape=quad/cv=%d", i), "depth", depth, func(x float64) float64 { return 500 + 200*x + 30*x*x }, cv},
			regimeSeries{fmt.Sprintf("BenchmarkHinge/cv=%d", i), "depth", depth, func(x float64) float64 { return 1000 + 100*x + 500*math.Max(0, x-6) }, cv},
			regimeSeries{fmt.Sprintf("BenchmarkLinear/cv=%d", i), "size", sizes, func(x float64) float64 { return 300 + 20*x }, cv},
		)
	}
	g := math.Log(1.35) / 50
	series = append(series,
		regimeSeries{"BenchmarkPool/variant=plain", "reuse", reuse11, func(float64) float64 { return 2000 }, 0.05},
		regimeSeries{"BenchmarkPool/variant=pool", "reuse", reuse11, func(x float64) float64 { return 2000 * math.Exp(g*(x-43.7)) }, 0.05},
		regimeSeries{"BenchmarkSame11/variant=a", "reuse", reuse11, func(x float64) float64 { return 2000 + 10*x }, 0.1},
		regimeSeries{"BenchmarkSame11/variant=b", "reuse", reuse11, func(x float64) float64 { return 2000 + 10*x }, 0.1},
		regimeSeries{"BenchmarkSame21/variant=a", "reuse", reuse21, func(x float64) float64 { return 2000 + 10*x }, 0.1},
		regimeSeries{"BenchmarkSame21/variant=b", "reuse", reuse21, func(x float64) float64 { return 2000 + 10*x }, 0.1},
	)
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/regimes\nconfig: default\n")
	for r := 1; r <= 8; r++ {
		fmt.Fprintf(&b, "round: %d\n", r)
		rf := math.Exp(rng.NormFloat64() * 0.02)
		for _, s := range series {
			for _, x := range s.xs {
				v := s.f(x) * math.Pow(rf, s.cv/0.04) * math.Exp(rng.NormFloat64()*s.cv)
				fmt.Fprintf(&b, "%s/%s=%g-2\t1000\t%.1f ns/op\n", s.name, s.axis, x, v)
			}
		}
	}
	return b.String()
}

type regimeJSON struct {
	Knees    []analysis.SeriesKnee       `json:"knees"`
	KneeFits []analysis.SeriesKnee       `json:"knee_fits"`
	Cross    []analysis.SeriesCrossover  `json:"crossovers"`
	Comps    []analysis.SeriesComparison `json:"comparisons"`
}

// TestAnalyzeRegimes runs perflab analyze --json on generated benchmark
// output: smooth curves have no knee, planted hinges have one at 6, a
// linear cost over sizes 4…4096 has none, identical series do not cross,
// and a planted crossing lies inside its bracket.
func TestAnalyzeRegimes(t *testing.T) {
	file := filepath.Join("testdata", "regimes.txt")
	want := regimeFile()
	if *updateRegimes {
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil || string(got) != want {
		t.Fatalf("%s is missing or differs from its generator (err %v); run go test ./cmd/perflab -run TestAnalyzeRegimes -update-regimes", file, err)
	}
	analyze := func(args ...string) regimeJSON {
		t.Helper()
		out, stderr, code := perflab(t, append([]string{"analyze", file, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("analyze %v exited %d: %s", args, code, stderr)
		}
		var r regimeJSON
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("analyze %v: %v\n%.500s", args, err, out)
		}
		return r
	}

	depth := analyze("--axis", "depth")
	smooth, hinges := 0, 0
	for _, k := range depth.KneeFits {
		switch {
		case strings.HasPrefix(k.Series, "BenchmarkSmooth/"):
			smooth++
			if k.Found {
				t.Errorf("%s: knee reported on a smooth curve: %s", k.Series, k.Note)
			}
		case strings.HasPrefix(k.Series, "BenchmarkHinge/"):
			hinges++
			if !k.Found || math.Abs(k.X-6) > 1 || !(k.Lo <= k.X && k.X <= k.Hi) || k.Resamples == 0 {
				t.Errorf("%s: want a knee within one step of 6 with a resampled interval, got %s %g [%g, %g]: %s", k.Series, k.Verdict, k.X, k.Lo, k.Hi, k.Note)
			}
		}
	}
	if smooth != 12 || hinges != 3 || len(depth.Knees) != hinges {
		t.Errorf("knee_fits hold %d smooth and %d hinge series, knees %d; want 12, 3 and 3", smooth, hinges, len(depth.Knees))
	}

	size := analyze("--axis", "size")
	if len(size.Knees) != 0 || len(size.KneeFits) != 3 {
		t.Errorf("linear cost over sizes 4…4096: %d knees in %d fits, want none in 3: %+v", len(size.Knees), len(size.KneeFits), size.Knees)
	}
	for _, k := range size.KneeFits {
		if k.Scale != "log-log" || k.Verdict != analysis.KneeSmooth || math.Abs(k.Exponent-1) > 0.15 {
			t.Errorf("%s: want smooth growth in log-log with exponent ≈ 1, got %s on %s: %s", k.Series, k.Verdict, k.Scale, k.Note)
		}
	}

	reuse := analyze("--axis", "reuse", "--by", "variant")
	if len(reuse.Comps) != 3 {
		t.Fatalf("want 3 comparisons (Pool, Same11, Same21), got %d", len(reuse.Comps))
	}
	pool := 0
	for _, c := range reuse.Cross {
		if !strings.HasPrefix(c.A, "BenchmarkPool/") {
			t.Errorf("identical series cross: %+v", c)
			continue
		}
		pool++
		if !(c.SigLo <= 43.7 && 43.7 <= c.SigHi) || !(c.XLo <= c.X && c.X <= c.XHi) || c.Correction != analysis.CrossCorrection {
			t.Errorf("planted crossing at 43.7 outside the bracket [%g, %g] or interval: %+v", c.SigLo, c.SigHi, c)
		}
	}
	if pool != 1 {
		t.Errorf("want one crossover of pool and plain, got %d", pool)
	}
	for _, c := range reuse.Comps {
		if !c.Paired || len(c.Points) < 11 {
			t.Errorf("%s vs %s: paired %v with %d points; want paired per round", c.A, c.B, c.Paired, len(c.Points))
		}
	}
}
