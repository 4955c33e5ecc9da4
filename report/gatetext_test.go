package report_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/report"
)

// TestGateText: the lines beneath a gate's table: rows beyond a limit,
// rows undecided, the note that undecided rows pass without
// --require-decision, and at most 20 lines of a kind.
func TestGateText(t *testing.T) {
	th, err := compare.ParseThresholds("sec/op>+5%")
	if err != nil {
		t.Fatal(err)
	}
	ruling := func(name string, d compare.Decision, delta float64) compare.Ruling {
		return compare.Ruling{Threshold: th[0], Decision: d, Why: compare.HoldsLimit, Distance: 0.01,
			Row: compare.Row{Name: name, Unit: "sec/op", Delta: delta, Lo: delta - 0.02, Hi: delta + 0.02, P: 0.002, Interval: true, HalfWidth: 0.02}}
	}
	run := report.GateRun{Command: "perflab compare", FailOn: "sec/op>+5%", Hint: "more samples narrow the intervals"}
	undecided := compare.Gate{Rules: th, Rulings: []compare.Ruling{ruling("BenchmarkA", compare.Undecided, 0.04), ruling("BenchmarkB", compare.Within, 0)}}
	var many []compare.Ruling
	for i := range 22 {
		many = append(many, ruling(fmt.Sprintf("BenchmarkF%d", i), compare.Beyond, 0.2))
	}
	for _, tc := range []struct {
		name    string
		gate    *compare.Gate
		require bool
		want    []string
	}{
		{"no gate", nil, false, nil},
		{"undecided", &undecided, false, []string{
			"perflab compare: the gate could not decide 1 row(s) of --fail-on sec/op>+5%: an interval still holds the limit, or there is none; more samples narrow the intervals",
			"  BenchmarkA [sec/op]: +4.0% [+2.0%, +6.0%], p=0.002, undecided on sec/op>+5%: a change below ±2.0% cannot be told apart on this machine; the estimate is 1.0% from the limit",
			"perflab compare: undecided rows do not fail the gate; with --require-decision they exit 3",
		}},
		{"undecided, required", &undecided, true, []string{
			"perflab compare: the gate could not decide 1 row(s) of --fail-on sec/op>+5%: an interval still holds the limit, or there is none; more samples narrow the intervals",
			"  BenchmarkA [sec/op]: +4.0% [+2.0%, +6.0%], p=0.002, undecided on sec/op>+5%: a change below ±2.0% cannot be told apart on this machine; the estimate is 1.0% from the limit",
		}},
		{"many fails", &compare.Gate{Rules: th, Rulings: many}, false, append(append([]string{"perflab compare: 22 significant changes beyond --fail-on sec/op>+5%"},
			func() (l []string) {
				for i := range 20 {
					l = append(l, fmt.Sprintf("  BenchmarkF%d [sec/op]: +20.0%% [+18.0%%, +22.0%%], p=0.002, breaks sec/op>+5%%", i))
				}
				return l
			}()...), "  … and 2 more")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run.RequireDecision = tc.require
			var b strings.Builder
			if err := report.GateText(&b, tc.gate, run); err != nil {
				t.Fatal(err)
			}
			want := strings.Join(tc.want, "\n")
			if want != "" {
				want += "\n"
			}
			if b.String() != want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
			}
		})
	}
}
