package claim_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/report"
)

// paired returns a cell of n rounds whose value in round r is
// base·(1+drift·r)·(1+jitter(r)): every cell shares the drift, so the
// ratio of two cells within a round is the ratio of their bases up to the
// jitter, ±spread at most. The jitter's phase depends on every byte of
// the name, so two cells never jitter alike and a ratio scatters on both
// sides of the ratio of the bases.
func paired(name, unit string, base float64, n int, spread float64) *analysis.Sample {
	s := &analysis.Sample{Name: benchname.Parse(name), Unit: unit}
	phase := 0.0
	for i, c := range []byte(name) {
		phase += float64(c) * float64(i+1)
	}
	for r := 1; r <= n; r++ {
		jitter := spread * math.Sin(float64(r)*2.3+phase)
		s.Values = append(s.Values, base*(1+0.05*float64(r))*(1+jitter))
		s.Rounds = append(s.Rounds, r)
	}
	return s
}

// ruleSamples: cells named BenchmarkR/v=X with known ratios to v=base.
func ruleSamples(n int) []*analysis.Sample {
	var out []*analysis.Sample
	for _, c := range []struct {
		v    string
		base float64
	}{{"base", 100}, {"x150", 150}, {"x060", 60}, {"x102", 102}, {"x130", 130}, {"x108", 108}} {
		out = append(out, paired("BenchmarkR/v="+c.v, "sec/op", c.base, n, 0.01))
	}
	// A cell whose ratio to base scatters ±20% round to round.
	out = append(out, paired("BenchmarkR/v=wide", "sec/op", 150, n, 0.2))
	return out
}

func effectCheck(num string, f float64) spec.Check {
	return spec.Check{Kind: "ratio", Num: "v=" + num, Den: "v=base", Effect: f}
}

func TestRule(t *testing.T) {
	samples := ruleSamples(8)
	band := func(num string, b float64) spec.Check {
		return spec.Check{Kind: "ratio", Num: "v=" + num, Den: "v=base", Op: "~", Band: b}
	}
	context := func(c spec.Check) spec.Check { c.Context = true; return c }
	tests := []struct {
		name      string
		checks    []spec.Check
		verdict   Verdict
		predicate string // fragment of the first check's predicate
		reason    string // fragment of the claim's reason
	}{
		// ×1.5 measured.
		{"claimed ×2: 1.5 > √2 = 1.41", []spec.Check{effectCheck("x150", 2)}, Reproduced, "> 1.41 (√2: log-midpoint of the claimed ×2)", ""},
		{"claimed ×3: 1.5 < √3 = 1.73", []spec.Check{effectCheck("x150", 3)}, Contradicted, "> 1.73 (√3", "expected"},
		{"claimed ×2.25: √ = 1.5 straddled", []spec.Check{effectCheck("x150", 2.25)}, Inconclusive, "> 1.5 (√2.25", "straddles"},
		{"wide interval straddles √2", []spec.Check{effectCheck("wide", 2)}, Inconclusive, "> 1.41", "straddles"},
		// ×0.6 measured.
		{"claimed ×0.5: 0.6 < √0.5 = 0.71", []spec.Check{effectCheck("x060", 0.5)}, Reproduced, "< 0.707", ""},
		{"claimed ×0.25: 0.6 > √0.25 = 0.5", []spec.Check{effectCheck("x060", 0.25)}, Contradicted, "< 0.5", "expected"},
		{"stated threshold with why", []spec.Check{{Kind: "ratio", Num: "v=x150", Den: "v=base", Effect: 40, Value: 1.2, Why: "two cores"}},
			Reproduced, "> 1.2 (stated: two cores; the claimed ×40)", ""},
		{"direction only", []spec.Check{ratioCheck("v=x150", "v=base", ">", 1)}, Reproduced, "> 1 (direction only: the claim states no size)", ""},
		// Equivalence bands.
		{"≈ no change: 1.02 inside ±10%", []spec.Check{band("x102", 0.1)}, Reproduced, "inside [0.909, 1.1] (±10% equivalence band", ""},
		{"≈ no change: 1.3 outside ±10%", []spec.Check{band("x130", 0.1)}, Contradicted, "inside [0.909, 1.1]", "outside the band"},
		{"≈ no change: 1.08 against ±5%", []spec.Check{band("x108", 0.05)}, Contradicted, "inside [0.952, 1.05]", "outside the band"},
		{"≈ no change: wide straddles ±50%", []spec.Check{band("wide", 0.5)}, Inconclusive, "inside [0.667, 1.5]", "not wholly inside"},
		// Context checks are shown, never counted.
		{"context contradiction not counted", []spec.Check{effectCheck("x150", 2), context(effectCheck("x150", 3))}, Reproduced, "", "context, not counted"},
		{"only context checks", []spec.Check{context(effectCheck("x150", 2))}, NotTestable, "", "every check of this claim is context"},
		// Several checks: reproduced needs all counted checks.
		{"one counted check inconclusive", []spec.Check{effectCheck("x150", 2), effectCheck("x150", 2.25)}, Inconclusive, "", "straddles"},
		{"all counted checks reproduced", []spec.Check{effectCheck("x150", 2), effectCheck("x060", 0.5), band("x102", 0.1)}, Reproduced, "", ""},
		{"unmeasured counted check", []spec.Check{effectCheck("x150", 2), effectCheck("nosuch", 2)}, Inconclusive, "", "no sec/op cell"},
		{"every counted check unmeasured", []spec.Check{effectCheck("nosuch", 2)}, NotTestable, "sec/op nosuch / base > 1.41", "no sec/op cell"},
		// 8 rounds reach 99.2%: the contradiction survives Holm across 3 checks (98.3%).
		{"Holm: contradiction survives", []spec.Check{effectCheck("x150", 3), effectCheck("x150", 2), effectCheck("x060", 0.5)}, Contradicted, "", "expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Evaluate([]spec.Claim{{ID: "R", Checks: tt.checks}}, samples, analysis.DefaultOptions())[0]
			if got.Verdict != tt.verdict {
				t.Errorf("verdict = %s, want %s (measured %q, reason %q)", got.Verdict, tt.verdict, report.ClaimMeasured(got), report.ClaimReason(got))
			}
			if p := report.CheckPredicate(got.Checks[0]); !strings.Contains(p, tt.predicate) {
				t.Errorf("predicate = %q, want it to contain %q", p, tt.predicate)
			}
			if !strings.Contains(report.ClaimReason(got), tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", report.ClaimReason(got), tt.reason)
			}
			for i, c := range got.Checks {
				if report.CheckPredicate(c) == "" {
					t.Errorf("check %d has no predicate", i+1)
				}
				if c.Verdict != NotTestable && (math.IsNaN(c.Estimate) || c.Lo > c.Estimate || c.Hi < c.Estimate) {
					t.Errorf("check %d: estimate %g outside its interval [%g, %g]", i+1, c.Estimate, c.Lo, c.Hi)
				}
			}
		})
	}
}

// TestHolmRounds: a directional check at α = 5% is one-sided, so Holm
// across k counted checks needs the two-sided interval at 1 − 0.1/k. With
// 6 rounds the sign-test interval reaches 96.9% at most: a clear
// contradiction survives Holm across 2 or 3 checks (95%, 96.7%) but not
// across 4 (97.5%); with 8 rounds (99.2%) it does. One check alone needs
// no correction.
func TestHolmRounds(t *testing.T) {
	claim := spec.Claim{ID: "H", Checks: []spec.Check{effectCheck("x150", 3), effectCheck("x150", 2), effectCheck("x060", 0.5), effectCheck("x150", 1.5)}}
	for _, tt := range []struct {
		rounds int
		checks []spec.Check
		want   Verdict
	}{
		{6, claim.Checks, Inconclusive},
		{8, claim.Checks, Contradicted},
		{6, claim.Checks[:3], Contradicted},
		{6, claim.Checks[:2], Contradicted},
		{6, claim.Checks[:1], Contradicted},
	} {
		t.Run(fmt.Sprintf("%d rounds, %d checks", tt.rounds, len(tt.checks)), func(t *testing.T) {
			c := claim
			c.Checks = tt.checks
			got := Evaluate([]spec.Claim{c}, ruleSamples(tt.rounds), analysis.DefaultOptions())[0]
			if got.Verdict != tt.want {
				t.Errorf("verdict = %s, want %s (reason %q)", got.Verdict, tt.want, report.ClaimReason(got))
			}
			if tt.want == Inconclusive && !strings.Contains(report.CheckReason(got.Checks[0]), fmt.Sprintf("not after Holm's correction across the claim's %d counted checks", len(tt.checks))) {
				t.Errorf("check reason %q does not name Holm", report.CheckReason(got.Checks[0]))
			}
		})
	}
}

func TestPredicateOtherKinds(t *testing.T) {
	var samples []*analysis.Sample
	samples = append(samples, paired("BenchmarkR/v=share", "cpu-json-share", 0.5, 8, 0.02))
	rs := func(name string, vals ...float64) *analysis.Sample {
		s := &analysis.Sample{Name: benchname.Parse("BenchmarkR/v=" + name), Unit: "r-x"}
		for i, v := range vals {
			s.Values, s.Rounds = append(s.Values, v), append(s.Rounds, i+1)
		}
		return s
	}
	samples = append(samples,
		rs("strong", 0.91, 0.93, 0.95, 0.92, 0.94, 0.9, 0.96, 0.93),
		rs("none", 0.05, -0.1, 0.12, 0.0, -0.04, 0.08, 0.02, -0.06),
		rs("mid", 0.4, 0.9, 0.5, 0.85, 0.6, 0.8, 0.7, 0.75),
		rs("three", 0.9, 0.92, 0.95))
	corr := func(num string, r float64) spec.Check {
		return spec.Check{Kind: "correlation", Unit: "r-x", Num: "v=" + num, Effect: r}
	}
	tests := []struct {
		name      string
		check     spec.Check
		verdict   Verdict
		predicate string
	}{
		{"value with why", spec.Check{Kind: "value", Unit: "cpu-json-share", Num: "v=share", Op: ">=", Value: 0.31, Why: "half the claimed 62%"},
			Reproduced, "cpu-json-share share ≥ 0.31 (stated: half the claimed 62%)"},
		{"value contradicted", spec.Check{Kind: "value", Unit: "cpu-json-share", Num: "v=share", Op: "<", Value: 0.3},
			Contradicted, "cpu-json-share share < 0.3 (stated threshold)"},
		{"correlation reproduced", corr("strong", 0.93), Reproduced, "r(r-x) strong > 0.68 (tanh(atanh(0.93)/2)"},
		{"correlation contradicted", corr("none", 0.93), Contradicted, "> 0.68"},
		{"correlation straddles", corr("mid", 0.93), Inconclusive, "> 0.68"},
		{"correlation of too few rounds", corr("three", 0.93), Inconclusive, "> 0.68"},
		{"correlation negative claim", corr("none", -0.8), Contradicted, "r(r-x) none < -0.5 "},
		{"correlation unmeasured", corr("nosuch", 0.93), NotTestable, "r(r-x) nosuch > 0.68"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Evaluate([]spec.Claim{{ID: "P", Checks: []spec.Check{tt.check}}}, samples, analysis.DefaultOptions())[0]
			if got.Verdict != tt.verdict {
				t.Errorf("verdict = %s, want %s (measured %q, reason %q)", got.Verdict, tt.verdict, report.ClaimMeasured(got), report.ClaimReason(got))
			}
			if p := report.CheckPredicate(got.Checks[0]); !strings.Contains(p, tt.predicate) {
				t.Errorf("predicate = %q, want it to contain %q", p, tt.predicate)
			}
		})
	}
}

// TestRuleText: the rule is stated once for code and once for readers,
// in the same words: in the package documentation and in docs/claims.md,
// which every report points to. Both name every part of it.
func TestRuleText(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "claim.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	_, doc, ok := strings.Cut(f.Doc.Text(), "# The rule\n")
	if !ok {
		t.Fatal("the package documentation has no section # The rule")
	}
	md, err := os.ReadFile(filepath.Join("..", "docs", "claims.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(md), "\n## The rule\n")
	if !ok {
		t.Fatal("docs/claims.md has no section ## The rule")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if words(doc) != words(section) {
		t.Errorf("docs/claims.md states another rule than package claim's documentation:\n%s\n\nvs\n\n%s", words(section), words(doc))
	}
	for _, frag := range []string{"√F", "equivalence band", "Holm", "context", "median of the per-round log-ratios", "sign-test interval", "confidence sequence", "tanh(atanh(r)/2)", "precondition", "two looks"} {
		if !strings.Contains(words(doc), frag) {
			t.Errorf("the rule does not mention %q", frag)
		}
	}
}

// TestContrast: series "fast" grows ×2 from depth 5 to 8, "slow" ×3, so
// slow's growth is ×1.5 fast's, whatever the rounds' drift.
func TestContrast(t *testing.T) {
	var samples []*analysis.Sample
	for _, c := range []struct {
		lib   string
		depth int
		base  float64
	}{{"fast", 5, 100}, {"fast", 8, 200}, {"slow", 5, 100}, {"slow", 8, 300}} {
		samples = append(samples, paired(fmt.Sprintf("BenchmarkJ/lib=%s/depth=%d", c.lib, c.depth), "sec/op", c.base, 8, 0.01))
	}
	ck := func(effect float64) spec.Check {
		return spec.Check{Kind: "contrast", Num: "depth=8", Den: "depth=5", A: "lib=slow", B: "lib=fast", Effect: effect}
	}
	for _, tt := range []struct {
		effect float64
		want   Verdict
	}{{1.46, Reproduced}, {4, Contradicted}, {2.25, Inconclusive}, {0.5, Contradicted}} {
		got := Evaluate([]spec.Claim{{ID: "K", Checks: []spec.Check{ck(tt.effect)}}}, samples, analysis.DefaultOptions())[0]
		if got.Verdict != tt.want {
			t.Errorf("effect %g: verdict %s, want %s (measured %q, reason %q)", tt.effect, got.Verdict, tt.want, report.ClaimMeasured(got), report.ClaimReason(got))
		}
		if p := report.CheckPredicate(got.Checks[0]); !strings.Contains(p, "(8 / 5 @slow) / (… @fast)") {
			t.Errorf("predicate %q does not name the contrast", p)
		}
	}
}
