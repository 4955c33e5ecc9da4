package claim_test

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/report"
)

// TestMarkNotBuilt: a check that reads a config that did not build says
// so, with the go command's complaint, in place of "no cell matches"; a
// precondition that reads it leaves its claim not testable with that
// reason; checks of built configs, and checks that measured something,
// keep their verdicts and reasons.
func TestMarkNotBuilt(t *testing.T) {
	samples := ruleSamples(8)
	for _, s := range samples {
		s.Config = "default"
	}
	old := func(c spec.Check) spec.Check { c.Where = "config=go1.22"; return c }
	pre := func(c spec.Check) spec.Check { c.Precondition = "the old sync.Map promotes its dirty map"; return c }
	claims := []spec.Claim{
		{ID: "counted", Checks: []spec.Check{old(effectCheck("x150", 2))}},
		{ID: "precondition", Checks: []spec.Check{pre(old(effectCheck("x150", 2))), effectCheck("x150", 2)}},
		{ID: "built", Checks: []spec.Check{effectCheck("x150", 2), effectCheck("missing", 2)}},
	}
	complaint := "go: downloading go1.22.12 (linux/amd64)\ngo: download go1.22.12: golang.org/toolchain@v0.0.1-go1.22.12.linux-amd64.zip: dial tcp: lookup proxy.golang.org: no such host\n"
	rs := Evaluate(claims, samples, analysis.DefaultOptions())
	MarkNotBuilt(rs, map[string]string{"go1.22": complaint})
	want := "config go1.22 could not be built (go: download go1.22.12: golang.org/toolchain@v0.0.1-go1.22.12.linux-amd64.zip: dial tcp: lookup proxy.golang.org: no such host)"
	if r := rs[0]; r.Verdict != NotTestable || report.ClaimReason(r) != want {
		t.Errorf("counted check of an unbuilt config: %s, %q; want not testable, %q", r.Verdict, report.ClaimReason(r), want)
	}
	if r := rs[1]; r.Verdict != NotTestable || !strings.Contains(report.ClaimReason(r), "the precondition “the old sync.Map promotes its dirty map” could not be measured: "+want) {
		t.Errorf("precondition of an unbuilt config: %s, %q", r.Verdict, report.ClaimReason(r))
	}
	r := rs[2]
	if r.Checks[0].Verdict != Reproduced || r.Checks[1].Why.Why != Failed || !strings.Contains(report.ClaimReason(r), "no sec/op cell matches") {
		t.Errorf("checks of built configs changed: %s, %q", r.Verdict, report.ClaimReason(r))
	}
}

// TestMarkNotBuiltCuts: a long build error is cut, never inside a UTF-8
// sequence.
func TestMarkNotBuiltCuts(t *testing.T) {
	rs := Evaluate([]spec.Claim{{ID: "c", Checks: []spec.Check{{Kind: "ratio", Where: "config=x", Num: "v=a", Den: "v=b", Effect: 2}}}}, nil, analysis.DefaultOptions())
	MarkNotBuilt(rs, map[string]string{"x": strings.Repeat("é", 400)})
	got := strings.TrimSuffix(strings.TrimPrefix(report.ClaimReason(rs[0]), "config x could not be built ("), ")")
	if rs[0].Checks[0].Why.Why != NotBuilt || len(got) > 310 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "éé") {
		t.Errorf("cut complaint %q (%d bytes)", got, len(got))
	}
	if !strings.Contains(strings.ToValidUTF8(got, "?"), "é…") {
		t.Errorf("cut inside a UTF-8 sequence: %q", got)
	}
}
