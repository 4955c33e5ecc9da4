package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/store"
)

// Markdown writes the run's report.
func Markdown(w io.Writer, in *Input) error {
	bw := bufio.NewWriter(w)
	m := &md{w: bw, in: in}
	m.header()
	m.claims()
	m.environment()
	m.stages()
	m.tables()
	m.correctness()
	m.scaling()
	m.breakEven()
	m.knees()
	m.kneeless()
	m.profileShares()
	m.instructions()
	m.failures()
	m.artifacts()
	return bw.Flush()
}

type md struct {
	w  *bufio.Writer
	in *Input
}

func (m *md) p(format string, args ...any) { fmt.Fprintf(m.w, format, args...) }

func (m *md) header() {
	r := m.in.Run
	title := r.Experiment
	if s := m.in.Spec; s != nil && s.Title != "" {
		title += " — " + s.Title
	}
	m.p("# %s\n\n", esc(title))
	m.p("Run %d · mode %s · status **%s** · %d of %d rounds stored · seed %d\n\n", r.ID, r.Mode, r.Status, roundsDone(m.in), r.RoundsPlanned, r.Seed)
	when := r.StartedAt.UTC().Format(time.RFC3339)
	if !r.FinishedAt.IsZero() {
		when += fmt.Sprintf(", took %s", r.FinishedAt.Sub(r.StartedAt).Round(time.Second))
	}
	m.p("Started %s. %d samples in %d cells.\n\n", when, len(m.in.Results), countCells(m.in))
	if s := m.in.Spec; s != nil {
		if s.Description != "" {
			m.p("%s\n\n", strings.TrimSpace(s.Description))
		}
		if s.Article != "" {
			m.p("Article: `%s`.\n\n", s.Article)
		}
	} else if m.in.SpecErr != nil {
		m.p("The run's spec could not be read (%s), so no claims were judged.\n\n", esc(fmtErr(m.in.SpecErr)))
	}
	if r.Status == "interrupted" {
		m.p("> This run was interrupted: the tables use the %d completed rounds.\n\n", roundsDone(m.in))
	}
}

// roundsDone is the most samples any cell has: the rounds that completed.
func roundsDone(in *Input) int {
	most := 0
	for _, s := range in.Samples {
		most = max(most, len(s.Values))
	}
	return most
}

func countCells(in *Input) int {
	seen := map[string]bool{}
	for _, s := range in.Samples {
		seen[s.Config+"\x00"+s.Name.Full] = true
	}
	return len(seen)
}

func (m *md) claims() {
	if len(m.in.Verdicts) == 0 {
		return
	}
	m.p("## Claims\n\n")
	m.p("Each claim is checked as a ratio or crossover between cells measured side by side in this run; the article's absolute figures are context. Intervals are %.0f%% confidence, significance by Mann-Whitney U at α=%g.\n\n", m.in.Opt.Confidence*100, m.in.Opt.Alpha)
	m.p("| ID | claim | claimed | measured here | verdict |\n|---|---|---|---|---|\n")
	for _, v := range m.in.Verdicts {
		measured := v.Measured
		if v.Reason != "" && v.Verdict != claim.Reproduced {
			measured = strings.TrimPrefix(measured+" — ", " — ") + v.Reason
		}
		m.p("| %s | %s | %s | %s | **%s** |\n", v.ID, esc(v.Text), esc(v.Claimed), esc(measured), v.Verdict)
	}
	m.p("\n")
}

func (m *md) environment() {
	m.p("## Environment\n\n| key | value |\n|---|---|\n")
	for _, kv := range m.in.Env {
		m.p("| %s | %s |\n", esc(kv.Key), esc(kv.Value))
	}
	m.p("\n")
	if len(m.in.Configs) > 0 {
		m.p("| config | build env | exec env | binary |\n|---|---|---|---|\n")
		for _, c := range m.in.Configs {
			bin := c.BinaryHash
			if c.Error != "" {
				bin = "build failed"
			}
			m.p("| %s | %s | %s | %s |\n", esc(c.Name), esc(orDash(strings.Join(append(slices.Clone(c.BuildEnv), c.BuildFlags...), " "))), esc(orDash(strings.Join(c.ExecEnv, " "))), esc(bin))
		}
		m.p("\n")
	}
}

func orDash(s string) string { return cmp.Or(s, "—") }

// tables writes one pivot table per unit: rows are series, columns the
// analysis axis values. Units other than the main one are folded.
func (m *md) tables() {
	axis := ""
	if m.in.Spec != nil {
		axis = m.in.Spec.Analysis.Axis
	}
	units := analysis.Units(m.in.Samples)
	main := m.in.mainUnit()
	slices.SortStableFunc(units, func(a, b string) int {
		return cmp.Compare(boolInt(a != main), boolInt(b != main))
	})
	for _, u := range units {
		var us []*analysis.Sample
		for _, s := range m.in.Samples {
			if s.Unit == u {
				us = append(us, s)
			}
		}
		if u != main {
			m.p("<details><summary>%s</summary>\n\n", esc(u))
		} else {
			m.p("## %s\n\nMedian of each cell with its %.0f%% confidence interval as ±%%.\n\n", u, m.in.Opt.Confidence*100)
		}
		m.pivot(us, axis, u)
		if u != main {
			m.p("</details>\n\n")
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *md) pivot(samples []*analysis.Sample, axis, unit string) {
	cols := []string{""}
	if axis != "" {
		if vals := axisOrder(samples, axis); len(vals) > 0 {
			cols = vals
		}
	}
	type row struct {
		name  string
		cells map[string]*analysis.Sample
	}
	var rows []*row
	index := map[string]*row{}
	for _, s := range samples {
		name := s.Name.Full
		col := ""
		if len(cols) > 1 || cols[0] != "" {
			name = s.Name.Without(axis)
			col, _ = s.Value(axis)
		}
		if s.Config != "" && len(m.in.Configs) > 1 {
			name += " @" + s.Config
		}
		r := index[name]
		if r == nil {
			r = &row{name: name, cells: map[string]*analysis.Sample{}}
			index[name] = r
			rows = append(rows, r)
		}
		r.cells[col] = s
	}
	slices.SortStableFunc(rows, func(a, b *row) int { return analysis.CompareNames(a.name, b.name) })
	class := benchunit.ClassOf(unit)
	if cols[0] == "" && len(cols) == 1 {
		m.p("| benchmark | %s |\n|---|---|\n", esc(unit))
	} else {
		m.p("| series \\ %s |", esc(axis))
		for _, c := range cols {
			m.p(" %s |", esc(c))
		}
		m.p("\n|---|%s\n", strings.Repeat("---|", len(cols)))
	}
	for _, r := range rows {
		m.p("| %s |", esc(r.name))
		for _, c := range cols {
			s := r.cells[c]
			if s == nil {
				m.p(" |")
				continue
			}
			m.p(" %s |", fmtSummary(analysis.Summarize(s.Values, m.in.Opt), class))
		}
		m.p("\n")
	}
	m.p("\n")
}

func fmtSummary(s analysis.Summary, class benchunit.Class) string {
	if math.IsNaN(s.Center) {
		return "—"
	}
	v := benchunit.Scale(s.Center, class)
	sp := s.Spread()
	switch {
	case math.IsNaN(sp):
		return v
	case s.N < 6:
		return fmt.Sprintf("%s ±? (n=%d)", v, s.N)
	}
	return fmt.Sprintf("%s ±%.0f%%", v, sp*100)
}

// breakEven lists, per series, where each variant crosses the baseline.
func (m *md) breakEven() {
	s := m.in.Spec
	if s == nil || s.Analysis.Axis == "" || s.Analysis.By == "" {
		return
	}
	a := s.Analysis
	unit := m.in.mainUnit()
	m.p("## Crossovers along %s (%s)\n\n", a.Axis, unit)
	if a.Baseline != "" {
		m.p("Where each %s overtakes `%s=%s`: the axis value where their %s medians cross, between the two sampled points that bracket it. “none” means the difference never changes sign significantly over the sampled range.\n\n", a.By, a.By, a.Baseline, unit)
	}
	m.p("| series | vs | crossover at | bracket | before → after |\n|---|---|---|---|---|\n")
	rows := crossRows(m.in)
	for _, r := range rows {
		m.p("| %s | %s | %s | %s | %s |\n", esc(r.Series), esc(r.Vs), r.At, r.Bracket, esc(r.Direction))
	}
	if len(rows) == 0 {
		m.p("| (none found) | | | | |\n")
	}
	m.p("\n")
}

// orient returns (series, baseline series) when the crossover involves the
// baseline, or both names when there is no baseline.
func orient(c analysis.SeriesCrossover, by, baseline string) (other, base string, ok bool) {
	if baseline == "" {
		return c.A, c.B, true
	}
	tag := "/" + by + "=" + baseline
	switch {
	case strings.Contains(c.B+"/", tag+"/") || strings.HasSuffix(c.B, tag) || strings.Contains(c.B, tag+"-"):
		return c.A, c.B, true
	case strings.Contains(c.A+"/", tag+"/") || strings.HasSuffix(c.A, tag) || strings.Contains(c.A, tag+"-"):
		return c.B, c.A, true
	}
	return "", "", false
}

func direction(c analysis.SeriesCrossover, aIsSeries bool) string {
	word := func(sign int) string {
		if sign < 0 {
			return "faster"
		}
		return "slower"
	}
	b, a := c.Before, c.After
	if !aIsSeries {
		b, a = -b, -a
	}
	return word(b) + " → " + word(a)
}

func (m *md) knees() {
	if !slices.ContainsFunc(m.in.Knees, func(k analysis.SeriesKnee) bool { return k.Unit == m.in.mainUnit() }) {
		return
	}
	m.p("## Knees (%s)\n\nWhere a series' cost bends along %s (two-segment piecewise-linear fit with an F-test, and Kneedle). `perflab analyze RUN --axis %s` lists knees of every unit.\n\n", m.in.mainUnit(), m.in.Knees[0].Axis, m.in.Knees[0].Axis)
	m.p("| series | unit | knee at | confidence | how |\n|---|---|---|---|---|\n")
	for _, k := range kneeRows(m.in) {
		m.p("| %s | %s | %s | %s | %s |\n", esc(k.Series), k.Unit, k.X, k.Confidence, esc(k.Note))
	}
	m.p("\n")
}

func (m *md) failures() {
	var failed, skipped []store.Failure
	for _, f := range m.in.Failures {
		if strings.HasPrefix(f.Reason, "skipped: ") {
			skipped = append(skipped, f)
		} else {
			failed = append(failed, f)
		}
	}
	if len(skipped) > 0 {
		m.p("## Not applicable\n\n%d cells skipped themselves (the benchmark called b.Skip), so they have no samples.\n\n", len(skipped))
		m.p("| config | cell | why |\n|---|---|---|\n")
		for _, f := range skipped {
			m.p("| %s | %s | %s |\n", esc(f.Config), esc(f.Cell), esc(strings.TrimPrefix(f.Reason, "skipped: ")))
		}
		m.p("\n")
	}
	if len(failed) == 0 {
		return
	}
	m.p("## Failures\n\n%d cell runs failed; their samples are missing from the tables.\n\n", len(failed))
	m.p("| round | config | cell | reason |\n|---|---|---|---|\n")
	for i, f := range failed {
		if i == 50 {
			m.p("| … | | | %d more |\n", len(failed)-50)
			break
		}
		m.p("| %d | %s | %s | %s |\n", f.Round, esc(f.Config), esc(f.Cell), esc(lastLines(f.Reason, 3)))
	}
	m.p("\n")
}

func (m *md) artifacts() {
	if len(m.in.Artifacts) == 0 {
		return
	}
	m.p("## Artifacts\n\nFrom a separate profiling pass (not the timed runs). Open a profile with `go tool pprof -http=: FILE`, the trace with `go tool trace FILE`.\n\n")
	m.p("| config | cell | kind | file | size |\n|---|---|---|---|---|\n")
	for _, a := range m.in.Artifacts {
		m.p("| %s | %s | %s | `%s` | %s |\n", esc(a.Config), esc(cmp.Or(a.Cell, "all")), a.Kind, a.Path, benchunit.Scale(float64(a.Bytes), benchunit.Binary)+"B")
	}
	m.p("\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " ⏎ ")
}

// esc makes text safe inside a Markdown table cell.
func esc(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", " ")
}

// shortVs names the other series by its by-key value alone, e.g. "variant=plain".
func shortVs(series, by string) string {
	if v, ok := analysis.ParseName(series).Value(by); ok {
		return by + "=" + v
	}
	return series
}
