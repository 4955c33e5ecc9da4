package report

import (
	"testing"
	"time"

	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/findings"
)

// TestBisectReason: every cause of a step without a verdict in the words
// a bisect records and prints.
func TestBisectReason(t *testing.T) {
	tests := []struct {
		r    bisect.Reason
		want string
	}{
		{bisect.Reason{Cause: bisect.NotBuilt, Detail: "./work.go:3:1: syntax error"}, "does not build: ./work.go:3:1: syntax error"},
		{bisect.Reason{Cause: bisect.NotListed, Detail: `-bench "X" matches no benchmark`}, `-bench "X" matches no benchmark`},
		{bisect.Reason{Cause: bisect.Lacking, Missing: []string{"BenchmarkA", "BenchmarkB"}}, "lacks BenchmarkA, BenchmarkB"},
		{bisect.Reason{Cause: bisect.Failing, Detail: "panic: boom"}, "its benchmark fails: panic: boom"},
		{bisect.Reason{Cause: bisect.Unmeasured}, "no rounds were measured"},
		{bisect.Reason{Cause: bisect.Unmeasured, Detail: "killed"}, "no rounds were measured: killed"},
		{bisect.Reason{Cause: bisect.StoredRoundsSpent, Rounds: 40}, "its 40 stored rounds reached --max-rounds"},
		{bisect.Reason{Cause: bisect.BudgetSpent}, "the budget was spent before it"},
		{bisect.Reason{Cause: bisect.RoundsSpent, Rounds: 100}, "it reached --max-rounds 100"},
		{bisect.Reason{Cause: bisect.ShareSpent, Spent: 83*time.Second + 400*time.Millisecond}, "its share of the budget (1m23s) was spent"},
		{bisect.Reason{}, ""},
	}
	for _, tt := range tests {
		if got := BisectWhy(tt.r); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.r, got, tt.want)
		}
	}
}

func TestBisectEnd(t *testing.T) {
	tests := []struct {
		stop   bisect.Stop
		lo, hi int
		want   string
	}{
		{bisect.Found, 3, 4, ""},
		{bisect.NothingToBisect, 0, 5, "nothing to bisect (see above)"},
		{bisect.EndsUndecided, 0, 5, "nothing to bisect (see above)"},
		{bisect.StepUndecided, 1, 4, "the culprit is one of 3 commits (see above)"},
		{bisect.OnlySkipped, 2, 4, "the culprit is one of 2 commits (see above)"},
	}
	for _, tt := range tests {
		if got := BisectEnd(&findings.Bisect{Stop: tt.stop, Lo: tt.lo, Hi: tt.hi}); got != tt.want {
			t.Errorf("%s (%d, %d]: %q, want %q", tt.stop, tt.lo, tt.hi, got, tt.want)
		}
	}
}
