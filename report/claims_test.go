package report_test

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

var update = flag.Bool("update", false, "rewrite the claims golden files in testdata/claims")

// claimsCost is each variant's sec/op in the synthetic claims run of
// testdata/claims/spec.toml: half costs half of base, same the same,
// near ×1.3 — exactly R3's threshold √1.69, so R3 stays undecided.
var claimsCost = map[string]float64{"base": 100e-9, "half": 50e-9, "same": 100e-9, "near": 130e-9}

// notTestedPart is the untested part of claim R1 the synthetic run carries.
const notTestedPart = "several sizes: this run measures size 64 only"

// claimsRun is a synthetic run judged at two looks: 6 planned rounds of
// every cell with 3% log-normal noise, then 6 follow-up rounds of the
// cells the checks still open at the first look read (near and base,
// with same), as the engine runs them. The spec's not_tested parts reach
// claim.Result in package claim; this run carries one on R1.
func claimsRun(t *testing.T) *findings.Run {
	t.Helper()
	path := filepath.Join("testdata", "claims", "spec.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 13))
	var results []*benchfmt.Result
	for round := 1; round <= 12; round++ {
		for _, v := range []string{"base", "half", "same", "near"} {
			if round > 6 && v == "half" {
				continue
			}
			sec := claimsCost[v] * math.Exp(0.03*r.NormFloat64())
			results = append(results, &benchfmt.Result{
				Name:   benchfmt.Name("Cost/variant=" + v + "/size=64"),
				Iters:  1000000,
				Config: []benchfmt.Config{{Key: "config", Value: []byte("default"), File: true}, {Key: "round", Value: []byte(strconv.Itoa(round))}},
				Values: []benchfmt.Value{{Value: sec, Unit: "sec/op", OrigValue: sec * 1e9, OrigUnit: "ns/op"}},
			})
		}
	}
	opt := analysis.DefaultOptions()
	opt.FirstLook = 6
	run := &store.Run{ID: 1, Experiment: "claimsmini", Mode: "quick", Status: "complete", SpecText: string(data), Seed: 7, RoundsPlanned: 6}
	f := findings.Of(findings.Input{Run: run, Spec: sp, Results: results, Opt: opt, Configs: []store.Config{{Name: "default"}}})
	for i := range f.Verdicts {
		if f.Verdicts[i].ID == "R1" {
			f.Verdicts[i].NotTested = []string{notTestedPart}
		}
	}
	return f
}

// TestClaimsRunCoversEveryVerdict: the synthetic run the golden files
// hold has every verdict and mark a claims table shows, so the golden
// files show them all.
func TestClaimsRunCoversEveryVerdict(t *testing.T) {
	f := claimsRun(t)
	want := map[string]claim.Verdict{"R1": claim.Reproduced, "R2": claim.Contradicted, "R3": claim.Inconclusive, "R4": claim.NotTestable, "R5": claim.NotTestable,
		"R6": claim.Reproduced, "R7": claim.NotTestable}
	var context, look1, look2 bool
	preconditions := map[claim.Verdict]bool{}
	for _, v := range f.Verdicts {
		if v.Verdict != want[v.ID] {
			t.Errorf("claim %s: %s, want %s (%s)", v.ID, v.Verdict, want[v.ID], report.ClaimReason(v))
		}
		if v.Verdict == claim.NotTestable && report.ClaimReason(v) == "" {
			t.Errorf("claim %s is not testable without a reason", v.ID)
		}
		for _, c := range v.Checks {
			if c.Precondition != "" {
				preconditions[c.Verdict] = true
			}
			context = context || c.Context
			look1 = look1 || c.Look == 1 && c.Verdict != claim.Inconclusive
			look2 = look2 || c.Look == 2
		}
	}
	if !preconditions[claim.Reproduced] || !preconditions[claim.Contradicted] {
		t.Errorf("preconditions that hold %v and fail %v: want both", preconditions[claim.Reproduced], preconditions[claim.Contradicted])
	}
	if !context || !look1 || !look2 {
		t.Errorf("context check %v, check decided at look 1 %v, check judged at look 2 %v: want all", context, look1, look2)
	}
	if f.Looks == "" || f.FollowUp.Rounds != 6 {
		t.Errorf("looks %q, %d follow-up rounds: want two looks and 6", f.Looks, f.FollowUp.Rounds)
	}
	// The header says the tables' planned rounds and, apart, the claims'
	// follow-up rounds.
	header := func(f *findings.Run) string {
		var b bytes.Buffer
		if err := report.Markdown(&b, f); err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(`Run \d+ · [^\n]*`).FindString(b.String())
	}
	if m := header(f); !strings.Contains(m, "6 of 6 rounds stored, then 6 follow-up rounds for the claims") {
		t.Errorf("header %q does not name the 6 follow-up rounds", m)
	}
	seq := *f
	seq.Opt.Anytime, seq.Opt.PerLayout, seq.RoundsDone = true, 3, 44
	seqRun := *f.Run
	seqRun.RoundsPlanned = 8
	seqRun.Plan.Layout = &store.Layout{PerLayout: 3}
	seq.Run = &seqRun
	if m := header(&seq); !strings.Contains(m, "44 rounds stored (an initial pass of 8, then rounds of the undecided cells) · link layouts: a fresh random one every 3 rounds") {
		t.Errorf("sequential header %q: want the rounds stored beside the initial pass, and the layouts", m)
	}
	seqRun.Plan.Layout = &store.Layout{PerLayout: 3, Phases: []store.LayoutPhase{{From: 1, Per: 3}, {From: 25, Per: 1}}}
	seq.Env = append(slices.Clone(seq.Env), store.KV{Key: "layout-fixed-new", Value: "its toolchain's linker has no -randlayout (go1.22 and older)"})
	if m := header(&seq); !strings.Contains(m, "a fresh random one every 3 rounds in rounds 1–24, then every round (config new kept one fixed layout: its toolchain's linker has no -randlayout (go1.22 and older))") {
		t.Errorf("sequential header %q: want the layouts' phases and the config that kept one layout", m)
	}
	once := *f
	once.FollowUp = findings.FollowUp{}
	if m := header(&once); m == "" || strings.Contains(m, "follow-up") {
		t.Errorf("header %q: want one without follow-up rounds", m)
	}
}

// claimsOutputs renders the synthetic run's claims three ways: the
// terminal table, the Markdown report's and the HTML report's claims
// section.
func claimsOutputs(t *testing.T, f *findings.Run) (text, md, page string) {
	t.Helper()
	var tb, mb, hb bytes.Buffer
	if err := report.ClaimsTable(&tb, f); err != nil {
		t.Fatal(err)
	}
	if err := report.Markdown(&mb, f); err != nil {
		t.Fatal(err)
	}
	if err := report.HTML(&hb, f, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)## Claims\n.*?\n(## |$)`).FindString(mb.String())
	h := regexp.MustCompile(`(?s)<section id="claims">.*?</section>\n`).FindString(hb.String())
	if m == "" || h == "" {
		t.Fatalf("no claims section in the reports:\n%s", mb.String())
	}
	return tb.String(), strings.TrimSuffix(m, "## "), h
}

// TestClaimsGolden compares the three outputs of the synthetic run's
// claims with testdata/claims/{table.txt,claims.md,claims.html}; go test
// -run TestClaimsGolden -update rewrites them.
func TestClaimsGolden(t *testing.T) {
	text, md, page := claimsOutputs(t, claimsRun(t))
	for _, g := range []struct{ file, got string }{{"table.txt", text}, {"claims.md", md}, {"claims.html", page}} {
		path := filepath.Join("testdata", "claims", g.file)
		if *update {
			if err := os.WriteFile(path, []byte(g.got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run TestClaimsGolden -update writes it)", err)
		}
		if g.got != string(want) {
			t.Errorf("%s differs from the golden file (go test -run TestClaimsGolden -update rewrites it after a wanted change):\n%s", g.file, firstDiff(string(want), g.got))
		}
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d\nwant: %s\n got: %s", i+1, wl, gl)
		}
	}
	return "(equal lines, different ends)"
}

// TestClaimsOutputsSayTheSame: each output has every claim's verdict, the
// reason of every claim that is not testable (twice judged or not), the
// untested part, every check's predicate, measured figure and verdict
// with its look, and context marks; the rule follows the tables.
func TestClaimsOutputsSayTheSame(t *testing.T) {
	f := claimsRun(t)
	text, md, page := claimsOutputs(t, f)
	flat := strings.Join(strings.Fields(text), " ")
	pageText := htmlText(page)
	outputs := map[string]string{"terminal": flat, "Markdown": md, "HTML": pageText}
	for name, out := range outputs {
		for _, v := range f.Verdicts {
			if !strings.Contains(out, v.ID) || !strings.Contains(out, string(v.Verdict)) {
				t.Errorf("%s: claim %s or its verdict %q missing", name, v.ID, v.Verdict)
			}
			if why := report.ClaimReason(v); v.Verdict == claim.NotTestable && !strings.Contains(out, why) {
				t.Errorf("%s: claim %s's reason %q missing", name, v.ID, why)
			}
			for i, c := range v.Checks {
				for _, want := range []string{fmt.Sprintf("%s.%d", v.ID, i+1), fmt.Sprintf("%.3g [%.3g, %.3g]", c.Estimate, c.Lo, c.Hi)} {
					if c.Verdict == claim.NotTestable && strings.Contains(want, "[") {
						continue
					}
					if !strings.Contains(out, want) {
						t.Errorf("%s: check %s.%d lacks %q", name, v.ID, i+1, want)
					}
				}
				if (c.Verdict == claim.Reproduced || c.Verdict == claim.Contradicted) && !strings.Contains(out, fmt.Sprintf("%s (look %d)", c.Verdict, c.Look)) {
					t.Errorf("%s: check %s.%d lacks its look %d", name, v.ID, i+1, c.Look)
				}
			}
		}
		if !strings.Contains(out, "not tested here: "+notTestedPart) {
			t.Errorf("%s lacks the untested part of R1", name)
		}
		if !strings.Contains(out, "context") {
			t.Errorf("%s does not mark the context check", name)
		}
		if i, j := strings.Index(out, "R5.1"), strings.Index(out, "Two looks"); i < 0 || j < i {
			t.Errorf("%s: the looks rule is not after the checks (at %d, last check at %d)", name, j, i)
		}
	}
	// Predicates: whole in the reports, cut at most in the terminal.
	for _, v := range f.Verdicts {
		for _, c := range v.Checks {
			pred := report.CheckPredicate(c)
			if !strings.Contains(md, pred) || !strings.Contains(pageText, pred) {
				t.Errorf("predicate %q missing from a report", pred)
			}
			if p := []rune(pred); !strings.Contains(text, string(p[:min(len(p), 60)])) {
				t.Errorf("terminal lacks the start of predicate %q", pred)
			}
		}
	}
	if i, j := strings.Index(md, "| R5.1 |"), strings.Index(md, "The rule, in short: "); i < 0 || j < i || !strings.Contains(md[j:], "The rule in full: docs/claims.md") {
		t.Errorf("report.md: the rule, with where it is stated in full, is not after the checks table")
	}
	// The measurement and reason of every check are the reports' notes.
	for _, v := range f.Verdicts {
		for _, c := range v.Checks {
			for _, s := range []string{report.CheckMeasured(c), report.CheckReason(c)} {
				if s != "" && (!strings.Contains(md, s) || !strings.Contains(pageText, s)) {
					t.Errorf("check of %s: %q missing from a report", v.ID, s)
				}
			}
		}
	}
	sameCells(t, md, page)
}

// htmlText is a page's text as a reader sees it: tags removed, entities
// decoded, spaces collapsed.
func htmlText(page string) string {
	text := tagRE.ReplaceAllString(page, " ")
	return strings.Join(strings.Fields(html.UnescapeString(text)), " ")
}

// TestClaimsTableFits: the terminal claims table of every built-in
// experiment keeps within 100 columns and cuts no verdict or reason.
// The checks are judged on no samples (every one not testable, with its
// reason) and then given figures as wide as a figure gets, so every
// column is as wide as a real run makes it.
func TestClaimsTableFits(t *testing.T) {
	names := builtin.Names()
	if len(names) < 5 {
		t.Fatalf("only %d built-in experiments", len(names))
	}
	for _, name := range names {
		sp, err := builtin.Spec(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(sp.Claims) == 0 {
			continue
		}
		verdicts := claim.Evaluate(sp.Claims, nil, analysis.DefaultOptions())
		kinds := []claim.Verdict{claim.Reproduced, claim.Contradicted, claim.Inconclusive}
		for i := range verdicts {
			v := &verdicts[i]
			if v.Verdict == claim.NotTestable && len(v.Checks) == 0 {
				continue
			}
			v.Verdict = kinds[i%3]
			for j := range v.Checks {
				c := &v.Checks[j]
				c.Verdict, c.Look, c.Context = kinds[(i+j)%3], 1+j%2, j%2 == 1
				c.Estimate, c.Lo, c.Hi = -1.23456e-10, -1.23456e-10, -1.23456e-10
			}
			if i%4 == 0 { // a not-testable check: its reason is written whole
				v.Checks[0].Verdict = claim.NotTestable
			}
			v.NotTested = []string{"a part of " + v.ID + ": " + strings.Repeat("a reason that is long ", 8)}
		}
		f := &findings.Run{Input: findings.Input{Opt: analysis.DefaultOptions()}, Verdicts: verdicts, CheckConfidence: 0.9}
		var buf bytes.Buffer
		if err := report.ClaimsTable(&buf, f); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for i, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > 100 {
				t.Errorf("%s: line %d has %d columns: %s", name, i+1, n, line)
			}
		}
		flat := strings.Join(strings.Fields(out), " ")
		for _, v := range verdicts {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(v.ID) + ` +` + regexp.QuoteMeta(string(v.Verdict)) + `  `).MatchString(out) {
				t.Errorf("%s: claim %s's verdict %q is not on its line", name, v.ID, v.Verdict)
			}
			for _, want := range append([]string{}, v.NotTested...) {
				if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
					t.Errorf("%s: %s's untested part is cut", name, v.ID)
				}
			}
			if why := report.ClaimReason(v); v.Verdict == claim.NotTestable && !strings.Contains(flat, strings.Join(strings.Fields(why), " ")) {
				t.Errorf("%s: claim %s's reason is cut: %q", name, v.ID, why)
			}
			for j, c := range v.Checks {
				if !strings.Contains(out, fmt.Sprintf("%s.%d ", v.ID, j+1)) {
					t.Errorf("%s: check %s.%d has no line", name, v.ID, j+1)
				}
				if why := report.CheckReason(c); c.Verdict == claim.NotTestable && !strings.Contains(flat, strings.Join(strings.Fields(why), " ")) {
					t.Errorf("%s: check %s.%d's reason is cut: %q", name, v.ID, j+1, why)
				}
			}
		}
		if !strings.Contains(out, "report.md and report.html hold it whole") {
			t.Errorf("%s: text was cut without a pointer to the report", name)
		}
	}
}
