package report_test

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/revision"
)

// syntheticBisect is a bisect of 8 commits after GOOD: commit 5 made
// BenchmarkGet 10% slower (BenchmarkSet unchanged); commit 4 does not
// build. stop chooses how it ended.
func syntheticBisect(stop bisect.Stop) *findings.Bisect {
	var h []revision.CommitInfo
	for i := 0; i <= 8; i++ {
		h = append(h, revision.CommitInfo{Hash: fmt.Sprintf("%x%s", 0xa0+i, strings.Repeat("e", 38)), Subject: fmt.Sprintf("change %d", i), Author: "ann",
			AuthorDate: time.Date(2025, 3, i+1, 12, 0, 0, 0, time.UTC)})
	}
	r := func(x float64) analysis.Ratio {
		return analysis.Ratio{N: 12, Ratio: x, Lo: x * 0.99, Hi: x * 1.01, Conf: 0.98}
	}
	up := r(1.1)
	st := func(n int, kind bisect.Kind, lo, mid, hi int, v bisect.Verdict, decisive, midGood analysis.Ratio, pos float64) findings.BisectStep {
		return findings.BisectStep{Step: bisect.Step{Number: n, Kind: kind, Lo: lo, Mid: mid, Hi: hi, Alpha: 0.01}, Runs: []int64{int64(10 + n)}, Rounds: 12,
			Confidence: 0.98, Unit: "sec/op", Decisive: decisive, BadGood: up, MidGood: midGood, BadMid: up, Position: pos, Verdict: v,
			Benches: []findings.BisectBench{{Name: "BenchmarkGet", BadGood: up, MidGood: midGood, BadMid: up}, {Name: "BenchmarkSet", BadGood: r(1), MidGood: r(1), BadMid: r(1)}}}
	}
	steps := []findings.BisectStep{
		st(1, bisect.Endpoints, 0, -1, 8, bisect.Differ, up, analysis.Ratio{}, 0),
		st(2, bisect.Midpoint, 0, 3, 8, bisect.LikeGood, r(0.91), r(1.0), 0.01),
		st(3, bisect.Midpoint, 3, 5, 8, bisect.LikeBad, r(1.1), r(1.1), 0.98),
	}
	records := []bisect.Record{
		{Step: steps[0].Step, Outcome: bisect.Outcome{Verdict: bisect.Differ}},
		{Step: bisect.Step{Number: 2, Kind: bisect.Midpoint, Lo: 0, Mid: 4, Hi: 8}, Outcome: bisect.Outcome{Verdict: bisect.Skip, Why: bisect.Reason{Cause: bisect.NotBuilt, Detail: "x.go:1: syntax error"}}},
		{Step: steps[1].Step, Outcome: bisect.Outcome{Verdict: bisect.LikeGood}},
		{Step: steps[2].Step, Outcome: bisect.Outcome{Verdict: bisect.LikeBad}},
	}
	res := bisect.Result{N: 8, Alpha: 0.05, Planned: 4, Records: records, Lo: 3, Hi: 5, Skipped: []int{4}, Stop: stop}
	switch stop {
	case bisect.Found:
		steps = append(steps, st(4, bisect.Midpoint, 3, 4, 5, bisect.LikeGood, r(0.9), r(1.0), 0))
		res.Records = append(res.Records[:1], res.Records[2:]...)
		res.Records = append(res.Records, bisect.Record{Step: steps[3].Step, Outcome: bisect.Outcome{Verdict: bisect.LikeGood}})
		res.Lo, res.Skipped = 4, nil
	case bisect.NothingToBisect:
		steps[0].Verdict, steps[0].Decisive = bisect.Same, r(1.002)
		steps, res.Records, res.Lo, res.Hi, res.Skipped = steps[:1], records[:1], 0, 8, nil
	case bisect.StepUndecided:
		steps[2].Verdict, steps[2].Decisive = bisect.Undecided, analysis.Ratio{N: 40, Ratio: 1.001, Lo: 0.98, Hi: 1.02}
		res.Hi = 8
	}
	b := findings.Bisect{ID: "x", Package: ".", Regex: "Get|Set", Rule: findings.BisectRule{Unit: "sec/op", MinEffect: 0.02, Up: true}, History: h}
	return findings.BisectOf(b, res, steps)
}

func TestBisectReport(t *testing.T) {
	tests := []struct {
		stop bisect.Stop
		want []string // in the text, in order (runs of spaces read as one)
	}{
		{bisect.Found, []string{"Culprit: a5eeeeeeeeee change 5 (ann, 2025-03-06 12:00:00 +0000).", "Effect at the culprit: sec/op +10.00% [+8.90%, +11.10%], a5eeeeeeeeee over its parent a4eeeeeeeeee (step 4",
			"Commits tested", "1  a0eeeeeeeeee → a8eeeeeeeeee  GOOD → BAD", "differ", "2  a3eeeeeeeeee", "like good", "0.01", "4  a4eeeeeeeeee", "like good",
			"Every benchmark at the culprit", "BenchmarkGet  +10.00% [+8.90%, +11.10%]", "BenchmarkSet  +0.00% [-1.00%, +1.00%]",
			"How it was decided", "α = 0.05 is split across the at most 4 steps", "α/5 = 0.01"}},
		{bisect.NothingToBisect, []string{"Nothing to bisect: GOOD and BAD do not differ by more than 2% (BAD/GOOD sec/op +0.20% [-0.80%, +1.20%], 98% anytime-valid).", "same"}},
		{bisect.StepUndecided, []string{"Not narrowed to one commit: step 3 could not tell", "The culprit is one of the 5 commits after a3eeeeeeeeee up to a8eeeeeeeeee",
			"a4eeeeeeeeee  change 4", "skipped: does not build", "a5eeeeeeeeee  change 5", "undecided (step 3)", "a6eeeeeeeeee change 6", "not tested", "a8eeeeeeeeee  change 8", "like BAD",
			"2  a4eeeeeeeeee", "skipped: does not build", "2  a3eeeeeeeeee", "3  a5eeeeeeeeee", "undecided", "Every benchmark across the range left"}},
		{bisect.OnlySkipped, []string{"every commit left between the ends was skipped", "The culprit is one of the 2 commits after a3eeeeeeeeee up to a5eeeeeeeeee", "skipped: does not build"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.stop), func(t *testing.T) {
			b := syntheticBisect(tc.stop)
			var text, md, page bytes.Buffer
			if err := report.BisectText(&text, b); err != nil {
				t.Fatal(err)
			}
			flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
			rest := flat(text.String())
			for _, w := range tc.want {
				w = flat(w)
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("text lacks %q (in order):\n%s", w, text.String())
				}
				rest = rest[i+len(w):]
			}
			if err := report.BisectMarkdown(&md, b); err != nil {
				t.Fatal(err)
			}
			if err := report.BisectHTML(&page, b); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(md.String(), "\n") {
				if h, ok := strings.CutPrefix(line, "## "); ok && !strings.Contains(page.String(), "<h2>"+html.EscapeString(h)+"</h2>") {
					t.Errorf("Markdown section %q is not an HTML section", h)
				}
			}
			if n := sameCells(t, md.String(), page.String()); n < 10 {
				t.Errorf("only %d Markdown cells compared:\n%s", n, md.String())
			}
		})
	}
}

func TestBisectStepLine(t *testing.T) {
	st := findings.BisectStep{Step: bisect.Step{Number: 3, Kind: bisect.Midpoint}, Decisive: analysis.Ratio{N: 9, Ratio: 1.06, Lo: 1.04, Hi: 1.08}, Position: 0.97, Rounds: 9, Verdict: bisect.LikeBad}
	if got, want := report.BisectStepLine(st), "step 3: contrast 1.0600 [1.0400, 1.0800], position 0.97, 9 rounds: like bad"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
}
