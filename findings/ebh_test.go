package findings

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/internal/noisetest"
)

// ebhRun is a sequential run's rounds of rows benchmarks, old and new,
// each round's log-ratio drawn from noise around the row's truth.
func ebhRun(t *testing.T, rng *rand.Rand, rounds int, truths []float64, noise noisetest.Noise) string {
	t.Helper()
	var b strings.Builder
	for r := 1; r <= rounds; r++ {
		for i, truth := range truths {
			num, den := noise.Round(rng, truth)
			fmt.Fprintf(&b, "config: old\nround: %d\nBenchmarkR%03d 1000 %.4f ns/op\n", r, i, den)
			fmt.Fprintf(&b, "config: new\nround: %d\nBenchmarkR%03d 1000 %.4f ns/op\n", r, i, num)
		}
	}
	return b.String()
}

// TestPairedEBH: a sequential run's rows are decided by e-BH across the
// unit's rows. With several true changes it decides more rows than
// Bonferroni would, every decided row's interval excludes 1 and no
// undecided row's does (the words match the intervals), and over runs with
// 5 true changes among 40 rows the false discovery proportion averages at
// most α, under noise with one-sided bursts.
func TestPairedEBH(t *testing.T) {
	const rows, alpha = 40, 0.05
	truths := make([]float64, rows)
	for i := range truths {
		truths[i] = 1
		if i < 5 {
			truths[i] = 1.06
		}
	}
	opt := analysis.Options{Alpha: alpha, Confidence: 1 - alpha, Anytime: true}
	rng := rand.New(rand.NewPCG(11, 12))
	const runs = 60
	fdp, more := 0.0, 0
	for run := range runs {
		rs, err := gotest.Parse(strings.NewReader(ebhRun(t, rng, 60, truths, noisetest.Bursts(0.1, 0.04))), "run")
		if err != nil {
			t.Fatal(err)
		}
		res := Paired(rs, "old", "new", opt, nil)
		decided, falseD, byBonf := 0, 0, 0
		for _, r := range res.Rows {
			signif := r.Verdict == Slower || r.Verdict == Faster
			if signif != r.Ratio.Excludes(1) {
				t.Fatalf("run %d, %s: verdict %q with interval [%.4f, %.4f]", run, r.Name, r.Verdict, r.Ratio.Lo, r.Ratio.Hi)
			}
			if signif {
				decided++
				if !strings.HasPrefix(r.Name, "BenchmarkR00") || r.Name >= "BenchmarkR005" {
					falseD++
				}
			}
		}
		for _, r := range res.Rows {
			// Bonferroni decides a row when its anytime p-value (which
			// does not depend on the level printed) is ≤ α/m.
			if r.Ratio.P <= alpha/rows {
				byBonf++
			}
		}
		if decided > byBonf {
			more++
		}
		if decided > 0 {
			fdp += float64(falseD) / float64(decided)
		}
		if lvl := res.Levels["sec/op"]; lvl > 1-alpha/rows+1e-12 && decided == 0 {
			t.Fatalf("run %d: no row decided, yet the level is %.5f, above Bonferroni's", run, lvl)
		}
	}
	t.Logf("%d runs: mean false discovery proportion %.3f; e-BH decided more rows than Bonferroni in %d", runs, fdp/runs, more)
	if fdp/runs > alpha+0.03 {
		t.Errorf("false discovery proportion %.3f > α", fdp/runs)
	}
	if more == 0 {
		t.Errorf("e-BH never decided more rows than Bonferroni with 5 true changes of 6%%")
	}
}
