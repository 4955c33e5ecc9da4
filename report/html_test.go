package report_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"html"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/testrun"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// loadSynthetic stores a synthetic run with known crossovers and loads it.
func loadSynthetic(t *testing.T, opt testrun.Options) (*findings.Run, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	opt.ArtifactDir = filepath.Join(dir, "run")
	id, err := testrun.Store(ctx, db, opt)
	if err != nil {
		t.Fatal(err)
	}
	in, err := findings.Load(ctx, db, id, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return in, opt.ArtifactDir
}

var svgRE = regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`)

func TestHTMLReport(t *testing.T) {
	in, dir := loadSynthetic(t, testrun.Options{})
	var buf bytes.Buffer
	if err := report.HTML(&buf, in, report.HTMLOptions{Dir: dir, ArticleHref: func(n string) string { return "/article/" + n }}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()

	// Self-contained: no scripts, nothing loaded from elsewhere.
	for _, bad := range []string{"<script", `src="http`, `href="http`, "@import", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q; it must not load anything", bad)
		}
	}
	svgs := svgRE.FindAllString(page, -1)
	if len(svgs) != 2 { // sec/op charted openly, B/op inside its details
		t.Fatalf("%d charts, want 2", len(svgs))
	}
	main := svgs[0]
	for _, v := range testrun.Variants {
		if !strings.Contains(main, `<g class="series" data-series="`+v+`"`) {
			t.Errorf("the sec/op chart has no series %q", v)
		}
	}
	// Crossover markers where the synthetic costs cross plain, and the
	// knee of tiered.
	xs := markerXs(t, main, "crossover")
	for v, want := range testrun.Crossovers {
		x, ok := xs[v]
		if !ok || math.Abs(x-want) > 3 {
			t.Errorf("crossover marker of %s at %v (present %v), want ≈ %v; markers %v", v, x, ok, want, xs)
		}
	}
	if _, ok := xs["freelist"]; ok {
		t.Errorf("freelist never crosses plain, but has a crossover marker")
	}
	if k, ok := markerXs(t, main, "knee")["tiered"]; !ok || math.Abs(k-testrun.KneeTiered) > 10 {
		t.Errorf("knee marker of tiered at %v (present %v), want ≈ %v", k, ok, testrun.KneeTiered)
	}
	for _, s := range svgs {
		if err := wellFormed(s); err != nil {
			t.Errorf("chart is not well-formed XML: %v", err)
		}
	}

	// The claims table, colour-coded and linked to the article.
	for _, want := range []string{
		`<tr class="v-rep" id="claim-S1">`, `<tr class="v-con" id="claim-S2">`, `<tr class="v-nt" id="claim-S3">`,
		`href="/article/C-syncpool-reuse-rate.txt"`, `<td class="verdict v-rep"><b>reproduced</b>`, `<td class="verdict v-con"><b>contradicted</b>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The same facts as the Markdown report: every verdict's measurement,
	// every environment value, the crossover and knee rows, the artifact.
	for _, v := range in.Verdicts {
		for _, c := range v.Checks {
			if m := report.CheckMeasured(c); m != "" && !strings.Contains(page, html.EscapeString(m)) {
				t.Errorf("page lacks claim %s's measurement %q", v.ID, m)
			}
		}
	}
	for _, kv := range in.Env {
		if !strings.Contains(page, "<td>"+kv.Key+"</td><td>"+html.EscapeString(kv.Value)+"</td>") {
			t.Errorf("environment card lacks %s=%s", kv.Key, kv.Value)
		}
	}
	var md bytes.Buffer
	if err := report.Markdown(&md, in); err != nil {
		t.Fatal(err)
	}
	// Every section and collapsed block of the Markdown report is in the
	// HTML report too.
	headings := regexp.MustCompile(`(?m)^## (.*)$|<details><summary>(.*)</summary>`).FindAllStringSubmatch(md.String(), -1)
	if len(headings) < 6 {
		t.Fatalf("only %d Markdown headings", len(headings))
	}
	for _, h := range headings {
		title := h[1] + h[2]
		if !strings.Contains(page, html.EscapeString(title)) {
			t.Errorf("the Markdown report has %q, the HTML report does not", title)
		}
	}
	if !strings.Contains(page, `href="default/heap.pprof"`) {
		t.Errorf("the heap profile is not linked relative to the report's directory")
	}
	if !strings.Contains(page, `title="median `) || !strings.Contains(page, "95% CI [") {
		t.Errorf("table cells lack their confidence intervals")
	}
}

// markerXs returns the data-x of each marker of a kind, keyed by series.
func markerXs(t *testing.T, svg, kind string) map[string]float64 {
	t.Helper()
	re := regexp.MustCompile(`<g class="marker ` + kind + `" data-x="([^"]+)" data-series="([^"]*)"`)
	out := map[string]float64{}
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		x, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("bad data-x %q", m[1])
		}
		out[m[2]] = x
	}
	return out
}

func wellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestHTMLEscapes: names from the database cannot inject markup.
func TestHTMLEscapes(t *testing.T) {
	in, _ := loadSynthetic(t, testrun.Options{})
	in.Run.Experiment = `<script>alert(1)</script>`
	in.Env = append(in.Env, store.KV{Key: "note", Value: `"><img src=x onerror=alert(1)>`})
	var buf bytes.Buffer
	if err := report.HTML(&buf, in, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<script>alert") || strings.Contains(buf.String(), "<img src=x") {
		t.Errorf("unescaped input in the page")
	}
}

// TestHTMLWithoutSpec: a run whose spec cannot be read still gets a page
// with its tables, and says why there are no charts or claims.
func TestHTMLWithoutSpec(t *testing.T) {
	in, _ := loadSynthetic(t, testrun.Options{})
	input := in.Input
	input.Spec, input.SpecErr = nil, io.ErrUnexpectedEOF
	in = findings.Of(input)
	var buf bytes.Buffer
	if err := report.HTML(&buf, in, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"could not be read", "names no analysis axis", `<table class="pivot">`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

var tagRE = regexp.MustCompile(`(?s)<[^>]*>`)

// TestSameSectionModel: report.md and report.html are two renderings of
// one section model. Every Markdown heading is an HTML heading, and the
// text of every Markdown table cell (a check's predicate, a ratio, a
// median) is in the HTML page, in the same order.
func TestSameSectionModel(t *testing.T) {
	in, dir := loadSynthetic(t, testrun.Options{})
	var md, page bytes.Buffer
	if err := report.Markdown(&md, in); err != nil {
		t.Fatal(err)
	}
	if err := report.HTML(&page, in, report.HTMLOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	headings := regexp.MustCompile(`(?m)^## (.*)$`).FindAllStringSubmatch(md.String(), -1)
	if len(headings) < 6 {
		t.Fatalf("only %d Markdown sections:\n%s", len(headings), md.String())
	}
	for _, h := range headings {
		if !strings.Contains(page.String(), "<h2>"+html.EscapeString(h[1])+"</h2>") {
			t.Errorf("Markdown section %q is not an HTML section", h[1])
		}
	}
	if cells := sameCells(t, md.String(), page.String()); cells < 100 {
		t.Errorf("only %d Markdown cells compared", cells)
	}
	// The claims table prints each check's predicate beside its verdict.
	for _, v := range in.Verdicts {
		for _, c := range v.Checks {
			if p := report.CheckPredicate(c); p != "" && !strings.Contains(md.String(), p) {
				t.Errorf("claim %s: predicate %q missing from report.md", v.ID, p)
			}
		}
	}
	if rule := "The rule in full: docs/claims.md"; !strings.Contains(md.String(), rule) || !strings.Contains(page.String(), rule) {
		t.Error("the rule for claims, with where it is stated in full, is not in both reports")
	}
}

// sameCells checks that the text of every Markdown table cell is in the
// HTML page, in the same order, and every note after a Markdown table is
// in the page with its mark; it returns the number of cells compared.
func sameCells(t *testing.T, md, page string) int {
	t.Helper()
	text := htmlText(page)
	cells, rest := 0, text
	for _, line := range strings.Split(md, "\n") {
		if note, ok := strings.CutPrefix(line, "- ["); ok {
			if want := strings.Join(strings.Fields("["+note), " "); !strings.Contains(text, want) {
				t.Errorf("Markdown note %q is not in the HTML page", want)
			}
			continue
		}
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") {
			continue
		}
		line = strings.ReplaceAll(line, `\|`, "\x00")
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			c = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
			c = strings.ReplaceAll(c, "**", "")
			c = strings.ReplaceAll(c, "`", "")
			c = strings.Join(strings.Fields(c), " ")
			if c == "" {
				continue
			}
			cells++
			i := strings.Index(rest, c)
			if i < 0 {
				t.Fatalf("Markdown cell %q is not in the HTML page after the cells before it", c)
			}
			rest = rest[i+len(c):]
		}
	}
	return cells
}
