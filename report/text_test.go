package report

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
)

// TestClaimsTableReasons: the terminal claims table prints why a claim is
// not testable right under its verdict line, whole (wrapped, never cut),
// whether it has no checks or only checks that are not counted, and every
// part of a claim no check tests.
func TestClaimsTableReasons(t *testing.T) {
	const why = "no such library exists: the Go module proxy has no module github.com/fxamacker/json, and a reason longer than one terminal line is printed whole so that nothing of it is lost to truncation"
	tests := []struct {
		name string
		v    claim.Result
		want []string // lines that must appear, each a fragment of one line
	}{
		{"declared not testable", claim.Result{ID: "B2.fx", Verdict: claim.NotTestable, Declared: why},
			[]string{"B2.fx", "not testable", why}},
		{"only context checks", claim.Result{ID: "E3", Verdict: claim.NotTestable,
			Checks: []claim.CheckResult{{Verdict: claim.Reproduced, Context: true, Subject: claim.Subject{Kind: "profile", Unit: "heap-lock-share", Num: "v=plain"},
				Predicate: claim.Predicate{Op: ">"}, Threshold: 0.3}}},
			[]string{"E3", "not testable", "why: every check of this claim is context", "E3.1", "reproduced, context", "heap-lock-share plain > 0.3 (stated threshold)"}},
		{"untested part", claim.Result{ID: "B1", Verdict: claim.Contradicted, NotTested: []string{"P99 142 → 498 µs: go test reports no per-call latency"},
			Checks: []claim.CheckResult{{Verdict: claim.Contradicted, Subject: claim.Subject{Kind: "ratio", Unit: "sec/op", Num: "lib=encoding_json", Den: "lib=jsoniter"},
				Predicate: claim.Predicate{Op: ">", Origin: claim.Origin{From: claim.Midpoint, Effect: 3.46}}, Threshold: 1.86}}},
			[]string{"B1", "contradicted", "not tested here: P99 142 → 498 µs: go test reports no per-call latency"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := ClaimsTable(&b, &findings.Run{Verdicts: []claim.Result{tt.v}}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			flat := strings.Join(strings.Fields(out), " ") // wrapped lines joined
			for _, w := range tt.want {
				if !strings.Contains(flat, w) {
					t.Errorf("claims table lacks %q:\n%s", w, out)
				}
			}
			if why := ClaimReason(tt.v); why != "" && !reasonUnderClaim(out, tt.v.ID, string(tt.v.Verdict), firstWords(why)) {
				t.Errorf("the reason is not right under the claim's line:\n%s", out)
			}
		})
	}
}

// reasonUnderClaim reports whether a line holding the claim's ID and
// verdict is followed by the line "why: " + the reason's first words.
func reasonUnderClaim(out, id, verdict, reason string) bool {
	lines := strings.Split(out, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.Contains(lines[i], id) && strings.Contains(lines[i], verdict) &&
			strings.Contains(lines[i+1], "why: "+reason) {
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
