package report

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
)

// TestClaimsTableReasons: the terminal claims table prints why a claim is
// not testable beside its verdict, whether it has no checks or only
// checks that are not counted, and every part of a claim no check tests.
func TestClaimsTableReasons(t *testing.T) {
	const why = "no such library exists: the Go module proxy has no module github.com/fxamacker/json, and a reason longer than one terminal line is printed whole so that nothing of it is lost to truncation"
	tests := []struct {
		name string
		v    claim.Result
		want []string // lines that must appear, each a fragment of one line
	}{
		{"declared not testable", claim.Result{ID: "B2.fx", Verdict: claim.NotTestable, Reason: why},
			[]string{"B2.fx", "not testable", why}},
		{"only context checks", claim.Result{ID: "E3", Verdict: claim.NotTestable, Reason: "every check of this claim is context",
			Checks: []claim.CheckResult{{Verdict: claim.Reproduced, Context: true, Predicate: "heap-lock-share plain > 0.3"}}},
			[]string{"E3", "not testable", "(1 checks): every check of this claim is context", "E3.1", "reproduced (context, not counted)"}},
		{"untested part", claim.Result{ID: "B1", Verdict: claim.Contradicted, NotTested: []string{"P99 142 → 498 µs: go test reports no per-call latency"},
			Checks: []claim.CheckResult{{Verdict: claim.Contradicted, Predicate: "sec/op encoding_json / jsoniter > 1.86"}}},
			[]string{"B1", "contradicted", "not tested here: P99 142 → 498 µs: go test reports no per-call latency"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := ClaimsTable(&b, &findings.Run{Verdicts: []claim.Result{tt.v}}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("claims table lacks %q:\n%s", w, out)
				}
			}
			if tt.v.Reason != "" && !containsLine(out, tt.v.ID, string(tt.v.Verdict), firstWords(tt.v.Reason)) {
				t.Errorf("the reason is not on the claim's own line:\n%s", out)
			}
		})
	}
}

// containsLine reports whether one line of out holds every fragment.
func containsLine(out string, fragments ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		all := true
		for _, f := range fragments {
			all = all && strings.Contains(l, f)
		}
		if all {
			return true
		}
	}
	return false
}

func firstWords(s string) string {
	if len(s) > 30 {
		return s[:30]
	}
	return s
}
