package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/store"
)

func TestJudgedLine(t *testing.T) {
	check := claim.CheckResult{Verdict: claim.Inconclusive, Subject: claim.Subject{Kind: "value", Unit: "sec/op", Num: "v=b"},
		Measure: claim.Measure{How: claim.CellMedian, N: 8}, Estimate: 0.97, Lo: 0.93, Hi: 1.01}
	tests := []struct {
		it   findings.Judged
		want string
	}{
		{findings.Judged{Label: "T1 check 1", Check: &check, More: 12}, "T1 check 1 sec/op b = 0.97 [0.93, 1.01] (n=8) (≈12 more rounds)"},
		{findings.Judged{Label: "W v=b/a (sec/op)", Samples: true, Ratio: 1.03, Lo: 0.95, Hi: 1.12, HalfWidth: 0.078, N: 9, HasInterval: true, More: -1},
			"W v=b/a (sec/op) 1.0300 [0.9500, 1.1200] ±7.80%, 9 rounds"},
		{findings.Judged{Label: "W v=b/a (sec/op)", Samples: true, Ratio: 1.03, Lo: 0.95, Hi: 1.12, HalfWidth: 0.078, N: 9, HasInterval: true, More: 21, MoreLo: 9, MoreHi: 55},
			"W v=b/a (sec/op) 1.0300 [0.9500, 1.1200] ±7.80%, 9 rounds (≈21 more rounds, likely 9–55)"},
		{findings.Judged{Label: "W v=b/a (sec/op)", Samples: true, Ratio: 1.03, Lo: 0.95, Hi: 1.12, HalfWidth: 0.078, N: 9, HasInterval: true, More: 210, MoreLo: 90, MoreHi: 351, MoreOpen: true},
			"W v=b/a (sec/op) 1.0300 [0.9500, 1.1200] ±7.80%, 9 rounds (≈210 more rounds, likely 90 or more)"},
		{findings.Judged{Label: "W v=b/a (sec/op)", Samples: true, Ratio: 1.03, Lo: math.NaN(), Hi: math.NaN(), N: 5, MinRounds: 8, More: -1},
			"W v=b/a (sec/op) 1.0300, 5 rounds (an interval needs 8)"},
		{findings.Judged{Label: "W v=b/a (cpu-sec/op)", More: -1}, "W v=b/a (cpu-sec/op) no samples yet"},
	}
	for _, tc := range tests {
		if got := JudgedLine(tc.it); got != tc.want {
			t.Errorf("JudgedLine = %q, want %q", got, tc.want)
		}
	}
}

// seqRun is a stopped sequential run's findings with one item of each
// kind: a decided check, ratios decided each way, and an open ratio.
func seqRun(unit string, reason store.StopReason, open bool) *findings.Run {
	cell := plan.Cell{Bench: "BenchmarkW", Levels: []string{"v=b"}, Config: "default"}
	check := claim.CheckResult{Verdict: claim.Reproduced, Subject: claim.Subject{Kind: "value", Unit: "sec/op", Num: "v=b"},
		Measure: claim.Measure{How: claim.CellMedian, N: 20}, Estimate: 1.1, Lo: 1.06, Hi: 1.14}
	ratio := func(label string, d findings.RatioDecision, precision float64, excludes bool) findings.Judged {
		return findings.Judged{Label: label, Cells: []plan.Cell{cell, cell}, Decided: d != findings.RatioOpen, Samples: true, More: -1,
			Ratio: 1.1, Lo: 1.05, Hi: 1.15, HalfWidth: 0.05, N: 20, HasInterval: true, Excludes: excludes, Decision: d, Precision: precision}
	}
	items := []findings.Judged{
		{Label: "T1 check 1", Cells: []plan.Cell{cell}, Decided: true, Check: &check, More: -1},
		ratio("W v=b/a ("+unit+")", findings.RatioDiffers, 0, true),
		ratio("W v=c/a ("+unit+")", findings.RatioEqual, 0.01, false),
		ratio("W v=d/a ("+unit+")", findings.RatioWithin, 0.02, true),
		ratio("W v=e/a ("+unit+")", findings.RatioWithin, 0.02, false),
	}
	if open {
		o := ratio("W v=f/a ("+unit+")", findings.RatioOpen, 0, false)
		o.More = 30
		items = append(items, o)
	}
	return &findings.Run{Sequential: &findings.Sequential{
		Stop:   store.Stop{Round: 23, Reason: reason, Elapsed: 61 * time.Second, CellCost: 100 * time.Millisecond},
		Decide: store.Decide{Unit: unit, MaxRounds: 40, Budget: time.Minute, Repeats: 5},
		Bursts: 2, Items: items, Fixed: []string{"T2 check 1", "T3 check 2"}, Initial: 8,
	}}
}

// leftOutRun is seqRun with its open row left out for the budget and
// repetitions chosen per comparison.
func leftOutRun() *findings.Run {
	f := seqRun("sec/op", store.StopBudget, true)
	q := f.Sequential
	q.Items[len(q.Items)-1].LeftOut = true
	q.Decide.Chosen = map[int]int{5: 6, 1: 2}
	return f
}

// TestWriteSequential words how sampling ended, one line per item, and
// the hint towards CPU time only when wall time left something open.
func TestWriteSequential(t *testing.T) {
	const hint = "add --unit cpu-sec/op"
	tests := []struct {
		name     string
		f        *findings.Run
		want     []string
		hint     bool
		notWants []string
	}{
		{"budget, one open", seqRun("sec/op", store.StopBudget, true), []string{
			"perflab: sequential sampling stopped after round 23: the budget 1m0s is spent (1m1s; anytime-valid confidence sequences, each compared ratio at 1 − α/m for its unit's m ratios, α = 0.05, the level sampling stopped on; a comparison table may decide more rows, by e-BH; compared ratios on sec/op; 2 rounds flagged as noise bursts, kept)",
			"(samples: after its first run each cell runs as 5 back-to-back repetitions in one process, every repetition of every cell the same wall time;",
			"T1 check 1                               reproduced: sec/op b = 1.1 [1.06, 1.14] (n=20)",
			"W v=b/a (sec/op)                         differs from 1: 1.1000 [1.0500, 1.1500] ±5.00%, 20 rounds",
			"W v=c/a (sec/op)                         equal within ±1%: ",
			"W v=d/a (sec/op)                         within ±2%, differs from 1: ",
			"W v=e/a (sec/op)                         within ±2%, includes 1: ",
			"W v=f/a (sec/op)                         undecided: 1.1000 [1.0500, 1.1500] ±5.00%, 20 rounds; would need ≈30 more rounds (≈6s)",
			"  T2 check 1, T3 check 2: no confidence sequence (", "neither kept sampling going nor ended it; the claims judge each at two looks, on the initial pass (rounds 1–8) and on all its rounds.",
		}, true, nil},
		{"left out, repetitions chosen", leftOutRun(), []string{
			"W v=f/a (sec/op)                         undecided: 1.1000 [1.0500, 1.1500] ±5.00%, 20 rounds; left out for the budget, which could not hold the initial pass of every comparison (see Not applicable)",
			"5 repetitions a process at first, then as many as each comparison's variance and costs made best: 2 cells × 1, 6 cells × 5;",
		}, true, []string{"would need ≈30 more rounds"}},
		{"all decided", seqRun("sec/op", store.StopDecided, false), []string{"after round 23: every check and comparison is decided ("}, false, []string{"undecided"}},
		{"max rounds, CPU time", seqRun("cpu-sec/op", store.StopMaxRounds, true), []string{"after round 23: reached --max-rounds 40 (", "(cpu-sec/op: the CPU time (user + system, every thread of the benchmark process) of the timed loop per iteration, read inside the process"}, false, []string{"(samples:"}},
		{"not sequential", &findings.Run{}, nil, false, []string{"sequential"}},
	}
	for _, tc := range tests {
		var b strings.Builder
		if err := WriteSequential(&b, tc.f); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, w, got)
			}
		}
		for _, w := range tc.notWants {
			if strings.Contains(got, w) {
				t.Errorf("%s: output has %q:\n%s", tc.name, w, got)
			}
		}
		if strings.Contains(got, hint) != tc.hint {
			t.Errorf("%s: hint printed %v, want %v:\n%s", tc.name, !tc.hint, tc.hint, got)
		}
	}
}

// TestSequentialSectionSaysWhatWasPrinted: the report's section holds every
// line WriteSequential prints, word for word.
func TestSequentialSectionSaysWhatWasPrinted(t *testing.T) {
	f := seqRun("sec/op", store.StopBudget, true)
	var b strings.Builder
	if err := WriteSequential(&b, f); err != nil {
		t.Fatal(err)
	}
	md := mdOf(sequentialSection(f))
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "perflab: ")
		label, outcome, isRow := strings.Cut(line, "  ")
		want := line
		if isRow && !strings.HasPrefix(line, "(") {
			want = "| " + label + " | " + strings.TrimSpace(outcome) + " |"
		}
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
	if mdOf(sequentialSection(&findings.Run{})) != "" {
		t.Error("a run sampled in fixed rounds has a sequential section")
	}
}

// TestSequentialClaimsRule: the claims section of a sequential run says
// which checks were judged on a confidence sequence and which at two
// looks, and what ran after the initial pass; a run of fixed rounds with
// follow-up rounds keeps its own words.
func TestSequentialClaimsRule(t *testing.T) {
	verdicts := []claim.Result{{ID: "S1", Verdict: claim.Inconclusive, Checks: []claim.CheckResult{
		{Verdict: claim.Reproduced, Sequence: true, Subject: claim.Subject{Kind: "ratio", Unit: "sec/op", Num: "v=b", Den: "v=a"},
			Predicate: claim.Predicate{Op: ">"}, Threshold: 1.05, Estimate: 1.1, Lo: 1.06, Hi: 1.14},
		{Verdict: claim.Inconclusive, Look: 2, Subject: claim.Subject{Kind: "value", Unit: "sec/op", Num: "v=b"},
			Predicate: claim.Predicate{Op: ">"}, Threshold: 1e-7, Estimate: 1e-7, Lo: 0.9e-7, Hi: 1.1e-7},
	}}}
	tests := []struct {
		name     string
		opt      analysis.Options
		want     []string
		notWants []string
	}{
		{"sequential", analysis.Options{Alpha: 0.05, Confidence: 0.95, Anytime: true, FirstLook: 8}, []string{
			"at α=0.05 in all (a ratio or contrast on its confidence sequence at one look, every other check split over two looks)",
			"Sequential run: after an initial pass of 8 rounds",
			"judged at two looks, on the initial pass (rounds 1–8) at one-sided α=0.0167",
			"This run: 30 rounds after the initial pass of 2 benchmark results.",
		}, []string{"follow-up rounds of"}},
		{"fixed rounds with follow-up rounds", analysis.Options{Alpha: 0.05, Confidence: 0.95, FirstLook: 6}, []string{
			"at α=0.05 in all, split over two looks:",
			"This run: 30 follow-up rounds of 2 benchmark results.",
		}, []string{"on its confidence sequence at one look", "rounds after the initial pass"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &findings.Run{Input: findings.Input{Opt: tc.opt}, Verdicts: verdicts, CheckConfidence: 0.9,
				Looks: claim.LookRule(tc.opt), FollowUp: findings.FollowUp{Rounds: 30, Results: 2}}
			md := mdOf(claimsSection(f, HTMLOptions{}, false))
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("the claims section lacks %q:\n%s", w, md)
				}
			}
			for _, w := range tc.notWants {
				if strings.Contains(md, w) {
					t.Errorf("the claims section has %q:\n%s", w, md)
				}
			}
		})
	}
}
