package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/testrun"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/serve"
	"github.com/perflab/perflab/store"
)

// jsonNum is a number of report.JSON: null (nil) for a non-finite one.
func jsonNum(p *float64, inf float64) float64 {
	if p == nil {
		return inf
	}
	return *p
}

var compareRowRE = regexp.MustCompile(`<tr class="[a-z]+"><td>([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td><td>(?:<b>)?([^<]*)`)

// TestCompareSameEverywhere: perflab compare --json and serve's compare
// page give the same rows, estimates and intervals for the same two
// stored runs, one of them with follow-up rounds, which both leave out
// (the run's planned rounds, as every table but the claim checks reads).
func TestCompareSameEverywhere(t *testing.T) {
	dbPath := syntheticDB(t, testrun.Options{Seed: 1}, testrun.Options{Seed: 3, Scale: 1.2, FollowUp: 4})
	out, stderr, code := perflab(t, "compare", "1", "2", "--json", "--db", dbPath)
	if code != 0 {
		t.Fatalf("compare exited %d: %s", code, stderr)
	}
	var cli struct {
		Rows []struct {
			Name, Unit, Config string
			Old, New           struct{ Median, Lo, Hi *float64 }
			Delta              *float64
			DeltaLo            *float64 `json:"delta_lo"`
			DeltaHi            *float64 `json:"delta_hi"`
			P                  *float64
			Better, Worse      bool
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatalf("compare --json: %v", err)
	}
	db, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := httptest.NewServer(serve.New(serve.Options{DB: db}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/compare?old=1&new=2")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := compareRowRE.FindAllStringSubmatch(string(body), -1)
	if len(cli.Rows) != 72 || len(page) != len(cli.Rows) {
		t.Fatalf("compare --json has %d rows, the page %d; want 72 each", len(cli.Rows), len(page))
	}
	for i, r := range cli.Rows {
		p := page[i]
		name := r.Name
		if r.Config != "" {
			name += " @" + r.Config
		}
		ci := "[" + report.FormatDelta(jsonNum(r.DeltaLo, math.Inf(-1))) + ", " + report.FormatDelta(jsonNum(r.DeltaHi, math.Inf(1))) + "]"
		want := []string{name, report.FormatDelta(jsonNum(r.Delta, math.NaN())), ci, fmt.Sprintf("%.3g", *r.P)}
		got := []string{html.UnescapeString(p[1]), p[4], p[5], p[6]}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("row %d: page %q, compare --json %q", i, got, want)
		}
		verdict := strings.Fields(p[7])[0]
		if r.Worse != (verdict == "worse") || r.Better != (verdict == "better") {
			t.Errorf("row %d %s: page says %q, compare --json better %v worse %v", i, name, verdict, r.Better, r.Worse)
		}
	}

	// The follow-up rounds would change the rows they touch: both views
	// leave them out, or the check above could not tell.
	ctx := context.Background()
	planned, err := findings.ReadSet(ctx, db, 2)
	if err != nil {
		t.Fatal(err)
	}
	all := *planned
	if all.Results, err = db.Results(ctx, 2); err != nil {
		t.Fatal(err)
	}
	old, _ := findings.ReadSet(ctx, db, 1)
	if len(all.Results) <= len(planned.Results) {
		t.Fatalf("run 2 has no follow-up rounds: %d results, %d planned", len(all.Results), len(planned.Results))
	}
	a, b := findings.Compare(old, planned, findings.CompareOptions{}), findings.Compare(old, &all, findings.CompareOptions{})
	differ := 0
	for i := range a.Rows {
		if a.Rows[i].Delta != b.Rows[i].Delta {
			differ++
		}
	}
	if differ == 0 {
		t.Error("the follow-up rounds change no row; the fixture cannot tell planned rounds from all")
	}
}

// TestAnalyzeMatchesReport: perflab analyze RUN --json gives the numbers
// of the run's report.md tables (the medians, the by-how-much ratios and
// geomeans, the crossovers), for a run with follow-up rounds, which both
// leave out: the follow-up rounds would move the medians of the cells
// they measured by a third.
func TestAnalyzeMatchesReport(t *testing.T) {
	dbPath := syntheticDB(t, testrun.Options{Seed: 5, FollowUp: 4})
	out, stderr, code := perflab(t, "analyze", "1", "--json", "--db", dbPath)
	if code != 0 {
		t.Fatalf("analyze exited %d: %s", code, stderr)
	}
	var a struct {
		Axis, By, Baseline string
		Summaries          []struct {
			Name, Unit string
			Median     float64
		}
		Ratios []struct {
			Series, Value, Unit string
			Points              []struct {
				X             string
				Rounds        int
				Ratio, Lo, Hi *float64
			}
			Geomean struct {
				Rounds        int
				Ratio, Lo, Hi *float64
			}
		}
		Crossovers []struct {
			Unit, A, B string
			X, Lo, Hi  float64
			XLo        float64 `json:"x_lo"`
			XHi        float64 `json:"x_hi"`
		}
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("analyze --json: %v", err)
	}
	md, stderr, code := perflab(t, "report", "1", "--db", dbPath)
	if code != 0 {
		t.Fatalf("report exited %d: %s", code, stderr)
	}
	if a.Axis != "reuse" || a.By != "variant" || a.Baseline != "plain" {
		t.Errorf("analyze RUN read axis %q by %q baseline %q, want the spec's reuse, variant, plain", a.Axis, a.By, a.Baseline)
	}
	ratio := func(rounds int, r, lo, hi *float64) string {
		return report.FmtRatio(analysis.Ratio{N: rounds, Ratio: jsonNum(r, math.NaN()), Lo: jsonNum(lo, math.NaN()), Hi: jsonNum(hi, math.NaN())})
	}
	checked := 0
	for _, c := range a.Ratios {
		if c.Unit != "sec/op" {
			continue
		}
		// The report's row for the series: the per-point ratios in order,
		// then the geomean.
		var row string
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| "+c.Series+" | "+c.Value+" |") {
				row = line
			}
		}
		if row == "" {
			t.Errorf("report.md has no ratios row for %s %s", c.Series, c.Value)
			continue
		}
		cells := []string{}
		for _, p := range c.Points {
			cells = append(cells, ratio(p.Rounds, p.Ratio, p.Lo, p.Hi))
		}
		cells = append(cells, ratio(c.Geomean.Rounds, c.Geomean.Ratio, c.Geomean.Lo, c.Geomean.Hi))
		rest := row
		for _, cell := range cells {
			i := strings.Index(rest, cell)
			if i < 0 {
				t.Errorf("%s %s: analyze's %s is not in report.md's row (in order):\n%s", c.Series, c.Value, cell, row)
				break
			}
			rest = rest[i+len(cell):]
			checked++
		}
	}
	if checked < 3*10 {
		t.Errorf("only %d ratios compared", checked)
	}
	medians := 0
	for _, s := range a.Summaries {
		if s.Unit != "sec/op" {
			continue
		}
		series := regexp.MustCompile(`/reuse=[0-9]+`).ReplaceAllString(s.Name, "")
		cell := benchunit.Scale(s.Median, benchunit.ClassOf(s.Unit)) + " ±"
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| "+series+" |") && strings.Contains(line, cell) {
				medians++
				break
			}
		}
	}
	if medians != 36 {
		t.Errorf("%d of analyze's 36 sec/op medians are in report.md's sec/op table", medians)
	}
	found := 0
	for _, c := range a.Crossovers {
		if c.Unit == "sec/op" && strings.Contains(md, fmt.Sprintf("%.3g [%.3g, %.3g]", c.X, c.XLo, c.XHi)) && strings.Contains(md, fmt.Sprintf("%g – %g", c.Lo, c.Hi)) {
			found++
		}
	}
	if found < 2 {
		t.Errorf("%d of analyze's crossovers are in report.md's crossover table, want syncpool's and tiered's:\n%s", found, out)
	}
}

// TestDirectionsInCLI: perflab compare and perflab analyze read B/s
// rising as better, with the file's "Unit B/s better=higher" line or
// without any metadata, and sec/op rising as worse.
func TestDirectionsInCLI(t *testing.T) {
	dir := t.TempDir()
	write := func(name, meta string, scale float64, impl bool) string {
		var b strings.Builder
		b.WriteString(meta)
		for r := 1; r <= 8; r++ {
			v := 1000 * scale * (1 + 0.002*float64(r%4))
			if impl {
				fmt.Fprintf(&b, "round: %d\nBenchmarkGet/impl=old-2\t1000\t%.3f ns/op\t%.3f MB/s\n", r, v, v)
				v *= 1.1
				fmt.Fprintf(&b, "BenchmarkGet/impl=new-2\t1000\t%.3f ns/op\t%.3f MB/s\n", v, v)
				continue
			}
			fmt.Fprintf(&b, "BenchmarkGet-2\t1000\t%.3f ns/op\t%.3f MB/s\n", v, v)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for i, meta := range []string{"", "Unit B/s better=higher\n"} {
		old, new := write(fmt.Sprintf("old%d.txt", i), meta, 1, false), write(fmt.Sprintf("new%d.txt", i), meta, 1.1, false)
		out, stderr, code := perflab(t, "compare", old, new)
		if code != 0 {
			t.Fatalf("compare exited %d: %s", code, stderr)
		}
		if !regexp.MustCompile(`(?s)B/s\s+old.*?BenchmarkGet-2[^\n]*\+10\.0%[^\n]*better`).MatchString(out) || !regexp.MustCompile(`(?s)sec/op\s+old.*?BenchmarkGet-2[^\n]*\+10\.0%[^\n]*worse`).MatchString(out) {
			t.Errorf("metadata %q: want B/s +10%% better and sec/op +10%% worse:\n%s", meta, out)
		}
		out, stderr, code = perflab(t, "analyze", write(fmt.Sprintf("ab%d.txt", i), meta, 1, true), "--by", "impl", "--baseline", "old")
		if code != 0 {
			t.Fatalf("analyze exited %d: %s", code, stderr)
		}
		if !strings.Contains(out, "+10.0% B/s (better)") || !strings.Contains(out, "+10.0% sec/op (worse)") {
			t.Errorf("metadata %q: analyze does not read B/s up as better and sec/op up as worse:\n%s", meta, out)
		}
	}
}
