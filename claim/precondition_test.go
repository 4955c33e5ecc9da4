package claim_test

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/report"
)

// TestPrecondition: a precondition that holds is shown as context and the
// counted checks decide the claim; one that fails, or cannot be measured,
// makes the claim not testable with the measurement as the reason, whatever
// the counted checks say; one still undecided leaves a claim its counted
// checks would decide inconclusive.
func TestPrecondition(t *testing.T) {
	samples := ruleSamples(8)
	pre := func(c spec.Check) spec.Check { c.Precondition = "the load overloads the service"; return c }
	tests := []struct {
		name    string
		checks  []spec.Check
		verdict Verdict
		reason  string // fragment of the claim's reason; "" for none
	}{
		{"holds, counted reproduced", []spec.Check{pre(effectCheck("x150", 2)), effectCheck("x150", 2)}, Reproduced, ""},
		{"holds, counted contradicted", []spec.Check{pre(effectCheck("x150", 2)), effectCheck("x150", 3)}, Contradicted, "expected"},
		{"fails, counted contradicted", []spec.Check{pre(effectCheck("x150", 3)), effectCheck("x150", 3)}, NotTestable,
			"not testable here: the precondition “the load overloads the service” did not hold: sec/op x150 / base = 1.5"},
		{"fails, counted reproduced", []spec.Check{effectCheck("x150", 2), pre(effectCheck("x060", 3))}, NotTestable, "where sec/op x060 / base > 1.73"},
		{"not measured", []spec.Check{pre(effectCheck("missing", 2)), effectCheck("x150", 2)}, NotTestable, "could not be measured: no sec/op cell matches"},
		{"undecided, counted reproduced", []spec.Check{pre(effectCheck("wide", 2)), effectCheck("x150", 2)}, Inconclusive, "is undecided"},
		{"undecided, counted inconclusive", []spec.Check{pre(effectCheck("wide", 2)), effectCheck("x150", 2.25)}, Inconclusive, "straddles"},
		{"a precondition alone", []spec.Check{pre(effectCheck("x150", 2))}, NotTestable, "every check of this claim is context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Evaluate([]spec.Claim{{ID: "P", Checks: tt.checks}}, samples, analysis.DefaultOptions())[0]
			if r.Verdict != tt.verdict {
				t.Fatalf("verdict %s, want %s (reason %q)", r.Verdict, tt.verdict, report.ClaimReason(r))
			}
			if tt.reason != "" && !strings.Contains(report.ClaimReason(r), tt.reason) {
				t.Errorf("reason %q lacks %q", report.ClaimReason(r), tt.reason)
			}
			for i, ch := range tt.checks {
				cr := r.Checks[i]
				if ch.Precondition == "" {
					continue
				}
				if !cr.Context || cr.Precondition != ch.Precondition || !strings.HasPrefix(report.CheckPredicate(cr), "precondition (the load overloads the service): ") {
					t.Errorf("precondition check: context %v, precondition %q, predicate %q; want it shown as a context precondition", cr.Context, cr.Precondition, report.CheckPredicate(cr))
				}
				if !strings.Contains(report.ClaimMeasured(r), "precondition, not counted: ") && report.CheckMeasured(cr) != "" {
					t.Errorf("measured %q does not mark the precondition", report.ClaimMeasured(r))
				}
			}
		})
	}
}

// TestPreconditionCounted: a precondition is counted (its claim waits on
// it, so more rounds are spent on it), unlike a context check.
func TestPreconditionCounted(t *testing.T) {
	if !Counted(spec.Check{Kind: "ratio", Precondition: "overloaded"}) {
		t.Error("a precondition is not counted; its claim's verdict waits on it")
	}
}
