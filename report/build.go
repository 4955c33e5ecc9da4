package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/profshare"
	"github.com/perflab/perflab/store"
)

// sections builds the report's section model from a run's findings.
// withHTML adds what only the HTML report draws (charts, forest plots,
// links); the text of every section is the same either way.
func sections(f *findings.Run, opt HTMLOptions, withHTML bool) []Section {
	var out []Section
	add := func(s *Section) {
		if s != nil {
			out = append(out, *s)
		}
	}
	add(claimsSection(f, opt, withHTML))
	add(ratiosSection(f, withHTML))
	add(sequentialSection(f))
	add(machinesSection(f))
	add(environmentSection(f))
	add(stagesSection(f))
	for _, s := range unitSections(f, withHTML) {
		add(&s)
	}
	add(correctnessSection(f))
	add(scalingSection(f))
	add(configsSection(f))
	add(crossoverSection(f))
	add(kneesSection(f))
	add(sharesSection(f))
	add(instructionsSection(f))
	add(skippedSection(f))
	add(failuresSection(f))
	add(artifactsSection(f, opt, withHTML))
	return out
}

// ---- claims ----

// verdictClass gives a verdict's CSS class; the word carries the meaning,
// the colour only repeats it.
func verdictClass[V ~string](v V) string {
	switch string(v) {
	case string(claim.Reproduced):
		return "v-rep"
	case string(claim.Contradicted):
		return "v-con"
	case string(claim.Inconclusive):
		return "v-inc"
	}
	return "v-nt"
}

// checkMeasured is what a check measured, with the reason when it did not
// reproduce.
func checkMeasured[V ~string](measured, reason string, verdict V) string {
	if reason != "" && string(verdict) != string(claim.Reproduced) {
		return strings.TrimPrefix(measured+" — ", " — ") + reason
	}
	return measured
}

func predicateOf(c claim.CheckResult) string { return cmp.Or(CheckPredicate(c), "—") }

// checkVerdict is a check's verdict with the look that gave it, in a run
// judged at two looks, and "context" for a check that is not counted.
func checkVerdict(c claim.CheckResult) string {
	look := ""
	if c.Look > 0 && (c.Verdict == claim.Reproduced || c.Verdict == claim.Contradicted) {
		look = fmt.Sprintf(" (look %d)", c.Look)
	}
	switch {
	case c.Precondition != "":
		return preconditionVerdict(c) + look + " (precondition, not counted)"
	case c.Context:
		return string(c.Verdict) + look + " (context, not counted)"
	}
	return string(c.Verdict) + look
}

// preconditionVerdict names what a precondition's verdict says of the
// situation it tests: it holds, it fails, or it is undecided.
func preconditionVerdict(c claim.CheckResult) string {
	switch c.Verdict {
	case claim.Reproduced:
		return "holds"
	case claim.Contradicted:
		return "fails"
	case claim.Inconclusive:
		return "undecided"
	}
	return string(c.Verdict)
}

// finite reports whether x is a number other than ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// checkFigure is a check's measured value with its interval, "1.05 [0.986,
// 1.12]"; "—" when it measured nothing. A result whose Lo and Hi are both
// zero predates intervals: it has none.
func checkFigure(c claim.CheckResult) string {
	switch {
	case !finite(c.Estimate):
		return "—"
	case !finite(c.Lo) || !finite(c.Hi) || (c.Lo == 0 && c.Hi == 0):
		return fmt.Sprintf("%.3g (no interval)", c.Estimate)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g]", c.Estimate, c.Lo, c.Hi)
}

// counted reports whether a check counts in its claim's verdict.
func counted(c claim.CheckResult) bool { return !c.Context && c.Verdict != claim.NotTestable }

// deciding returns the index of the counted check that decides the claim's
// verdict (the first contradicted one of a contradicted claim, the first
// undecided one of an inconclusive claim, the first counted one of a
// reproduced claim, all of whose counted checks agree; else the first
// counted one) and the number of counted checks; -1 when none counts.
func deciding(v claim.Result) (i, n int) {
	i = -1
	for j, c := range v.Checks {
		if !counted(c) {
			continue
		}
		n++
		if i < 0 && (v.Verdict == claim.Reproduced || c.Verdict == v.Verdict) {
			i = j
		}
	}
	if i < 0 && n > 0 {
		i = slices.IndexFunc(v.Checks, counted)
	}
	return i, n
}

// claimFigure is what this run measured for a claim: its deciding check's
// figure, named when the claim counts several checks.
func claimFigure(v claim.Result) string {
	i, n := deciding(v)
	if i < 0 {
		return "—"
	}
	fig := checkFigure(v.Checks[i])
	if n > 1 {
		fig += fmt.Sprintf(" (%s.%d)", v.ID, i+1)
	}
	return fig
}

// firstSentence splits a text longer than most runes after its first
// sentence: ("A. B. C", "B. C"). A shorter text, or one of one sentence,
// comes back whole.
func firstSentence(s string, most int) (head, rest string) {
	if utf8.RuneCountInString(s) <= most {
		return s, ""
	}
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '.' || s[i+1] != ' ' {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[i+2:]); unicode.IsUpper(r) {
			return s[:i+1], s[i+2:]
		}
	}
	return s, ""
}

// marks numbers a section's notes in the order they are made.
type marks int

func (m *marks) note(text string, open bool) *Note {
	*m++
	return &Note{Mark: strconv.Itoa(int(*m)), Text: Plain(text), Open: open}
}

// lookWords qualify the claims paragraph of a two-look run: the split of
// α and the levels of the intervals. In a sequential run only the checks
// without a confidence sequence are judged at two looks.
func lookWords(f *findings.Run) (split, levels string) {
	switch {
	case f.Looks == "":
		return "", ""
	case f.Opt.Anytime:
		return " in all (a ratio or contrast on its confidence sequence at one look, every other check split over two looks)",
			" for a fixed number of rounds (a confidence sequence's is wider, being valid at every round), wider at each of two looks"
	}
	return " in all, split over two looks", " for a single look, wider at each of the two"
}

// looksLine is a run's two-look rule and what ran after its first look
// (follow-up rounds, or a sequential run's rounds after its initial
// pass); empty for a run judged once.
func looksLine(f *findings.Run) string {
	if f.Looks == "" {
		return ""
	}
	after := "follow-up rounds"
	if f.Opt.Anytime {
		after = "rounds after the initial pass"
	}
	return fmt.Sprintf("%s This run: %d %s of %d benchmark results.", f.Looks, f.FollowUp.Rounds, after, f.FollowUp.Results)
}

// judgedWords is how the run's checks were judged: the one-sided level
// and the intervals it uses.
func judgedWords(f *findings.Run) string {
	split, levels := lookWords(f)
	return fmt.Sprintf("Each claim is checked on cells measured side by side in this run; the article's absolute figures are context (“claimed”). Each check is a one-sided test at α=%.3g%s: its interval is the two-sided %.0f%% one (crossovers and knees: %.0f%%)%s. Every check's tested predicate is printed beside its verdict.", 1-f.Opt.Confidence, split, f.CheckConfidence*100, f.Opt.Confidence*100, levels)
}

// claimsSection is the claims part of a report: one line per claim (its
// verdict, the article's figure, what this run measured), then every
// check with the predicate it tested, then how checks are judged, folded.
// Long texts (reasons, measurements, the rest of a claimed figure) are
// the tables' notes.
func claimsSection(f *findings.Run, opt HTMLOptions, withHTML bool) *Section {
	if len(f.Verdicts) == 0 {
		return nil
	}
	s := &Section{ID: "claims", Title: "Claims"}
	var m marks
	s.Blocks = append(s.Blocks,
		para("One line per claim: its verdict, the article's figure and what this run measured, from the counted check that decides the verdict (named when the claim counts several checks). Then every check with the predicate it tested. How a check is judged follows the tables."),
		Block{Table: claimsSummary(f, opt, &m)})
	if withHTML {
		s.Blocks = append(s.Blocks, Block{HTML: forestLegend})
	}
	s.Blocks = append(s.Blocks, Block{Table: claimChecks(f, withHTML, &m)})
	judged := []Block{para(judgedWords(f)), para(ruleSummary)}
	if l := looksLine(f); l != "" {
		judged = append(judged, para(l))
	}
	summary := "How each check is judged: α, intervals, the rule"
	if f.Looks != "" {
		summary += ", two looks"
	}
	s.Blocks = append(s.Blocks, Block{Details: &Details{Summary: summary, Blocks: judged}})
	return s
}

// claimsSummary is one row per claim: ID, verdict (with the reason when
// not testable), the article's figure, the measured figure.
func claimsSummary(f *findings.Run, opt HTMLOptions, m *marks) *Table {
	t := &Table{Class: "claims summary", Head: []string{"claim", "verdict", "claimed (article)", "measured here (deciding check)"}}
	for _, v := range f.Verdicts {
		id := Cell{Text: Plain(v.ID), Tip: v.Text}
		if f.Spec != nil && f.Spec.Article != "" {
			id.Href = articleHref(opt, f.Spec.Article)
		}
		verdict := Cell{Text: Plain(string(v.Verdict)), Strong: true, Class: "verdict " + verdictClass(v.Verdict)}
		if why := ClaimReason(v); v.Verdict == claim.NotTestable && why != "" {
			verdict.Note = m.note(why, true)
		}
		head, rest := firstSentence(cmp.Or(v.Claimed, "—"), 140)
		claimed := Cell{Text: Plain(head), Class: "claimed"}
		if rest != "" {
			claimed.Note = m.note(rest, false)
		}
		measured := Cell{Text: Plain(claimFigure(v)), Class: "figure"}
		t.Rows = append(t.Rows, Row{Class: verdictClass(v.Verdict), ID: "claim-" + v.ID, Cells: []Cell{id, verdict, claimed, measured}})
	}
	return t
}

// claimChecks is, per claim, a row with the claim's text and verdict, a
// row per untested part, and a row per check: its predicate, its measured
// figure (with a forest plot in HTML), its verdict.
func claimChecks(f *findings.Run, withHTML bool, m *marks) *Table {
	t := &Table{Class: "claims checks", Head: []string{"check", "claim / tested predicate", "measured here", "verdict"}}
	for _, v := range f.Verdicts {
		t.Rows = append(t.Rows, Row{Class: "claim " + verdictClass(v.Verdict), ID: "checks-" + v.ID, Cells: []Cell{
			{Text: Plain(v.ID), Strong: true}, {Text: Plain(v.Text), Class: "text"}, cell(""), {Text: Plain(string(v.Verdict)), Class: "verdict " + verdictClass(v.Verdict)}}})
		for _, p := range v.NotTested {
			t.Rows = append(t.Rows, Row{Class: "nottested", Cells: []Cell{cell(""), {Text: Plain("not tested here: " + p), Class: "text"}, cell(""), cell("")}})
		}
		for i, c := range v.Checks {
			measured := Cell{Text: Plain(checkFigure(c)), Class: "figure"}
			verdict := Cell{Text: Plain(checkVerdict(c)), Class: "verdict " + verdictClass(c.Verdict)}
			if d := checkMeasured(CheckMeasured(c), CheckReason(c), c.Verdict); d != "" {
				if c.Verdict == claim.NotTestable {
					verdict.Note = m.note(d, true)
				} else {
					measured.Note = m.note(d, false)
				}
			}
			if withHTML {
				measured.Plot = forestPlot(c, CheckPredicate(c))
			}
			class := "check " + verdictClass(c.Verdict)
			if c.Context {
				class += " context"
			}
			t.Rows = append(t.Rows, Row{Class: class, Cells: []Cell{cell(fmt.Sprintf("%s.%d", v.ID, i+1)), {Text: Plain(predicateOf(c)), Class: "predicate"}, measured, verdict}})
		}
	}
	return t
}

// ---- by how much ----

// reading says what a geomean ratio below or above 1 means for the unit,
// as findings judged it in the unit's direction.
func reading(unit string, r analysis.Ratio, better, worse bool) string {
	if !better && !worse {
		return "no significant difference"
	}
	word := "worse"
	if better {
		word = "better"
	}
	return fmt.Sprintf("%+.1f%% %s (%s)", (r.Ratio-1)*100, unit, word)
}

func ratiosSection(f *findings.Run, withHTML bool) *Section {
	if len(f.Against) == 0 {
		return nil
	}
	s := &Section{ID: "ratios", Title: fmt.Sprintf("By how much: each %s against %s=%s (%s)", f.By, f.By, f.Baseline, f.MainUnit)}
	s.Blocks = append(s.Blocks, para(fmt.Sprintf("Per point, the ratio of %s to the baseline's %s for the same cell, paired within rounds (every round measured both), with its %.0f%% interval; the geomean across points is paired the same way. %s Below 1 means less %s than `%s=%s`; **bold** when the interval excludes 1 (each point's interval on its own, not corrected across points; the geomean is one test).", f.MainUnit, f.MainUnit, f.Opt.Confidence*100, analysis.PairedMethod, f.MainUnit, f.By, f.Baseline)))
	if len(f.Geomeans) > 0 {
		t := &Table{Head: []string{f.By, "vs", "points", "geomean ratio [" + strconv.FormatFloat(f.Opt.Confidence*100, 'f', 0, 64) + "% CI]", "reading"}}
		for _, g := range f.Geomeans {
			name := g.Value
			if g.Config != "" && len(f.Configs) > 1 {
				name += " @" + g.Config
			}
			r := g.Geomean.Ratio
			t.Rows = append(t.Rows, Row{Cells: []Cell{cell(name), cell(f.By + "=" + g.Baseline), cell(strconv.Itoa(g.Points)), {Text: Plain(FmtRatio(r)), Strong: r.Excludes(1)}, cell(reading(g.Unit, r, g.Better, g.Worse))}})
		}
		s.Blocks = append(s.Blocks, Block{Table: t})
	}
	var cols []string
	for _, c := range f.Against {
		for _, p := range c.Points {
			if !slices.Contains(cols, p.X) {
				cols = append(cols, p.X)
			}
		}
	}
	cols = benchname.Order(cols)
	label := f.Axis
	if label == "" {
		label = "point"
	}
	head := []string{"series", f.By}
	for _, c := range cols {
		head = append(head, pointLabel(label, c))
	}
	head = append(head, "geomean", "below / above / same")
	t := &Table{Class: "ratios", Head: head}
	for _, c := range f.Against {
		row := Row{Cells: cells(withConfig(f, c.Series, c.Config), c.Value)}
		for _, x := range cols {
			i := slices.IndexFunc(c.Points, func(p findings.PointRatio) bool { return p.X == x })
			if i < 0 {
				row.Cells = append(row.Cells, cell(""))
				continue
			}
			r := c.Points[i].Ratio
			row.Cells = append(row.Cells, Cell{Text: Plain(FmtRatio(r)), Strong: r.Excludes(1), Tip: fmt.Sprintf("%s=%s / %s=%s at %s: p=%.3g over %d rounds", c.By, c.Value, c.By, c.Baseline, pointLabel(label, x), r.P, r.N)})
		}
		row.Cells = append(row.Cells, Cell{Text: Plain(FmtRatio(c.Geomean.Ratio)), Strong: c.Geomean.Excludes(1)}, cell(fmt.Sprintf("%d / %d / %d", c.Below, c.Above, c.Same)))
		t.Rows = append(t.Rows, row)
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

func pointLabel(axis, x string) string {
	if x == "" {
		return "(all)"
	}
	if axis == "point" {
		return x
	}
	return axis + "=" + x
}

// withConfig labels a series with its config when the run has several.
func withConfig(f *findings.Run, series, config string) string {
	if config != "" && len(f.Configs) > 1 {
		return series + " @" + config
	}
	return series
}

// ---- environment ----

func orDash(s string) string { return cmp.Or(s, "—") }

func environmentSection(f *findings.Run) *Section {
	s := &Section{ID: "environment", Title: "Environment"}
	t := &Table{Class: "env", Head: []string{"key", "value"}}
	for _, kv := range f.Env {
		t.Rows = append(t.Rows, Row{Cells: cells(kv.Key, kv.Value)})
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	if len(f.Configs) > 0 {
		ct := &Table{Head: []string{"config", "build env", "exec env", "binary"}}
		for _, c := range f.Configs {
			bin := Cell{Text: Plain(c.BinaryHash), Class: "hash"}
			if c.NotFetched.What != "" {
				bin = cell("not testable here: " + notFetched(c.NotFetched))
			} else if c.Error != "" {
				bin = cell("build failed: " + lastLines(c.Error, 2))
			}
			ct.Rows = append(ct.Rows, Row{Cells: []Cell{cell(c.Name), cell(orDash(strings.Join(append(slices.Clone(c.BuildEnv), c.BuildFlags...), " "))), cell(orDash(strings.Join(c.ExecEnv, " "))), bin}})
		}
		s.Blocks = append(s.Blocks, Block{Table: ct})
	}
	return s
}

// ---- unit tables ----

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unitSections gives the main unit's table (with its charts in HTML) as
// one section and every other unit folded in a second.
func unitSections(f *findings.Run, withHTML bool) []Section {
	units := findings.UnitsOf(f.Samples)
	if len(units) == 0 {
		return nil
	}
	main := f.MainUnit
	slices.SortStableFunc(units, func(a, b string) int { return cmp.Compare(boolInt(a != main), boolInt(b != main)) })
	var out []Section
	other := Section{ID: "tables", Title: "Other units"}
	other.Blocks = append(other.Blocks, para(medianNote(f)))
	for ui, u := range units {
		var us []*analysis.Sample
		for _, s := range f.Samples {
			if s.Unit == u {
				us = append(us, s)
			}
		}
		var blocks []Block
		if withHTML {
			if charts := unitCharts(f, us, u, ui); len(charts) > 0 {
				blocks = append(blocks, Block{HTML: chartsHTML(charts)})
			} else if u == main {
				blocks = append(blocks, para(noCharts(f)))
			}
		}
		blocks = append(blocks, Block{Table: pivotTable(f, us, u)})
		if u == main {
			title := u
			if f.Axis != "" {
				title += " along " + f.Axis
			}
			sec := Section{ID: "charts", Title: title}
			note := medianNote(f)
			if withHTML && f.Axis != "" {
				note += " Charts: the median line with its confidence band"
				if f.By != "" {
					note += ", one line per " + f.By
				}
				note += "; ▽ marks a knee, a dashed line with ⊗ a crossover. Hover a point or cell for its numbers."
			}
			sec.Blocks = append([]Block{para(note)}, blocks...)
			out = append(out, sec)
			continue
		}
		other.Blocks = append(other.Blocks, Block{Details: &Details{Summary: u, Blocks: blocks}})
	}
	if len(other.Blocks) > 1 {
		out = append(out, other)
	}
	return out
}

// medianNote says how the unit tables read.
func medianNote(f *findings.Run) string {
	return fmt.Sprintf("Median of each cell with its %.0f%% confidence interval as ±%%; cells with fewer than %d samples have no interval.", f.Opt.Confidence*100, f.MinSamples)
}

func noCharts(f *findings.Run) string {
	if f.Axis == "" {
		return "The spec names no analysis axis, so there is nothing to chart; the table holds every cell."
	}
	return fmt.Sprintf("No %s samples carry a numeric %s value to chart.", f.MainUnit, f.Axis)
}

func pivotTable(f *findings.Run, samples []*analysis.Sample, unit string) *Table {
	axis := f.Axis
	cols := []string{""}
	if axis != "" {
		if vals := findings.AxisOrder(samples, axis); len(vals) > 0 {
			cols = vals
		}
	}
	pivot := len(cols) > 1 || cols[0] != ""
	t := &Table{Class: "pivot"}
	if pivot {
		t.Head = append([]string{"series \\ " + axis}, cols...)
	} else {
		t.Head = []string{"benchmark", unit}
	}
	type row struct {
		name  string
		cells map[string]*analysis.Sample
	}
	var rows []*row
	index := map[string]*row{}
	for _, s := range samples {
		name, col := s.Name.Full, ""
		if pivot {
			name = s.Name.Without(axis)
			col, _ = s.Value(axis)
		}
		name = withConfig(f, name, s.Config)
		r := index[name]
		if r == nil {
			r = &row{name: name, cells: map[string]*analysis.Sample{}}
			index[name] = r
			rows = append(rows, r)
		}
		r.cells[col] = s
	}
	slices.SortStableFunc(rows, func(a, b *row) int { return benchname.Compare(a.name, b.name) })
	class := benchunit.ClassOf(unit)
	for _, r := range rows {
		tr := Row{Cells: []Cell{{Text: Plain(r.name), Class: "name"}}}
		for _, c := range cols {
			s := r.cells[c]
			if s == nil {
				tr.Cells = append(tr.Cells, cell(""))
				continue
			}
			sum := f.Summary(s)
			tip := fmt.Sprintf("median %s, %.0f%% CI [%s, %s], n=%d", benchunit.Scale(sum.Center, class), f.Opt.Confidence*100, benchunit.Scale(sum.Lo, class), benchunit.Scale(sum.Hi, class), sum.N)
			if !sum.HasInterval() {
				tip = fmt.Sprintf("median %s of n=%d (fewer than %d samples: no interval)", benchunit.Scale(sum.Center, class), sum.N, f.MinSamples)
			}
			tr.Cells = append(tr.Cells, Cell{Text: Plain(fmtSummary(sum, class)), Tip: tip})
		}
		t.Rows = append(t.Rows, tr)
	}
	return t
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
	case !s.HasInterval():
		return fmt.Sprintf("%s ±? (n=%d)", v, s.N)
	}
	return fmt.Sprintf("%s ±%.0f%%", v, sp*100)
}

// ---- scaling and configs ----

func scalingSection(f *findings.Run) *Section {
	sc := f.Scaling
	if sc == nil {
		return nil
	}
	s := &Section{ID: "scaling", Title: "Scaling along " + sc.Key}
	s.Blocks = append(s.Blocks, para(fmt.Sprintf("Throughput is operations per second of the whole process, 1 / median sec/op. Efficiency is throughput(P) / (P × throughput(1)) for the same series and config, paired within rounds (sec/op(1) / (P × sec/op(P)) per round), with its %.0f%% interval; 1 is perfect scaling, below 1/P is slower than one P.", f.Opt.Confidence*100)))
	head := []string{"series \\ " + sc.Key}
	for _, p := range sc.Procs {
		head = append(head, strconv.Itoa(p))
	}
	var t *Table
	config := "\x00"
	for _, se := range sc.Series {
		if se.Config != config {
			config = se.Config
			if config != "" {
				s.Blocks = append(s.Blocks, para("Config `"+config+"`:"))
			}
			t = &Table{Head: head}
			s.Blocks = append(s.Blocks, Block{Table: t})
		}
		row := Row{Cells: cells(se.Name)}
		for _, p := range sc.Procs {
			pt, ok := se.At[p]
			if !ok {
				row.Cells = append(row.Cells, cell(""))
				continue
			}
			text := "—"
			if !math.IsNaN(pt.Throughput) {
				text = benchunit.Scale(pt.Throughput, benchunit.Decimal) + "/s"
			}
			if pt.HasEff {
				text += " · eff " + fmtPlainRatio(pt.Eff)
			}
			row.Cells = append(row.Cells, cell(text))
		}
		t.Rows = append(t.Rows, row)
	}
	return s
}

func configsSection(f *findings.Run) *Section {
	cr := f.ConfigRatios
	if cr == nil {
		return nil
	}
	s := &Section{ID: "configs", Title: fmt.Sprintf("Configs compared with %s (%s)", cr.Base, cr.Unit)}
	s.Blocks = append(s.Blocks, para(fmt.Sprintf("Each config's %s divided by `%s`'s for the same cell, paired within rounds (rounds interleave every cell of every config), with its %.0f%% interval. %s Below 1 means less %s than `%s`; **bold** when the interval excludes 1. The last row is the paired geomean over the cells.", cr.Unit, cr.Base, f.Opt.Confidence*100, analysis.PairedMethod, cr.Unit, cr.Base)))
	t := &Table{Head: append([]string{"cell"}, cr.Others...)}
	for _, r := range cr.Rows {
		row := Row{Cells: cells(r.Cell)}
		for i := range cr.Others {
			if !r.Has[i] {
				row.Cells = append(row.Cells, cell(""))
				continue
			}
			row.Cells = append(row.Cells, Cell{Text: Plain(fmtPlainRatio(r.Ratios[i])), Strong: r.Ratios[i].Excludes(1)})
		}
		t.Rows = append(t.Rows, row)
	}
	geo := Row{Cells: cells("geomean")}
	for _, g := range cr.Geomeans {
		geo.Cells = append(geo.Cells, Cell{Text: Plain(fmtPlainRatio(g)), Strong: g.Excludes(1)})
	}
	t.Rows = append(t.Rows, geo)
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

// ---- crossovers and knees ----

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

func signWord(unit string, sign int) string {
	if strings.HasSuffix(unit, "sec/op") {
		if sign < 0 {
			return "faster"
		}
		return "slower"
	}
	if sign < 0 {
		return "lower"
	}
	return "higher"
}

// shortVs names the other series by its by-key value alone, e.g. "variant=plain".
func shortVs(series, by string) string {
	if v, ok := benchname.Parse(series).Value(by); ok {
		return by + "=" + v
	}
	return series
}

type crossRow struct {
	Series, Vs, At, Bracket, Direction string
	Found                              bool
}

// crossRows are the rows of the crossover table: where each series crosses
// the baseline, and, from the paired ratios, how the series that never
// cross it compare.
func crossRows(f *findings.Run) []crossRow {
	if f.Axis == "" || f.By == "" || f.Spec == nil {
		return nil
	}
	unit := f.MainUnit
	var rows []crossRow
	crossed := map[string]bool{}
	for _, c := range f.Crossovers {
		if c.Unit != unit {
			continue
		}
		other, base, ok := orient(c, f.By, f.Spec.Analysis.Baseline)
		if !ok {
			continue
		}
		b, a := c.Before, c.After
		if other != c.A {
			b, a = -b, -a
		}
		v, _ := benchname.Parse(other).Value(f.By)
		crossed[c.Config+"\x00"+benchname.Parse(other).Without(f.By)+"\x00"+v] = true
		at := fmt.Sprintf("%.3g", c.X)
		if c.XLo != c.XHi && !math.IsNaN(c.XLo) && !math.IsNaN(c.XHi) {
			at += fmt.Sprintf(" [%.3g, %.3g]", c.XLo, c.XHi)
		}
		rows = append(rows, crossRow{Series: withConfig(f, other, c.Config), Vs: shortVs(base, f.By), At: at, Bracket: fmt.Sprintf("%g – %g", c.Lo, c.Hi), Direction: signWord(unit, b) + " → " + signWord(unit, a), Found: true})
	}
	for _, c := range f.Against {
		if c.Unit != unit || len(c.Points) == 0 {
			continue
		}
		name := c.Name
		if f.By == "config" {
			name = c.Series + " config=" + c.Value
		}
		if crossed[c.Config+"\x00"+c.Series+"\x00"+c.Value] && f.By != "config" {
			continue
		}
		rows = append(rows, crossRow{Series: withConfig(f, name, c.Config), Vs: c.By + "=" + c.Baseline,
			At:        fmt.Sprintf("none in %s–%s", c.Points[0].X, c.Points[len(c.Points)-1].X),
			Direction: fmt.Sprintf("%s at %d, %s at %d, same at %d of %d points", signWord(unit, -1), c.Below, signWord(unit, 1), c.Above, c.Same, len(c.Points))})
	}
	slices.SortStableFunc(rows, func(x, y crossRow) int { return benchname.Compare(x.Series+"|"+x.Vs, y.Series+"|"+y.Vs) })
	return rows
}

func crossoverSection(f *findings.Run) *Section {
	if f.Axis == "" || f.By == "" || f.Spec == nil {
		return nil
	}
	s := &Section{ID: "crossovers", Title: fmt.Sprintf("Crossovers along %s (%s)", f.Axis, f.MainUnit)}
	s.Blocks = append(s.Blocks, para(fmt.Sprintf("Where each %s overtakes `%s=%s`: the axis value where their %s cross (with its interval from resampling rounds), between the two sampled points that bracket it; a crossover needs a paired difference decided of each sign on its two sides (at two neighbouring points each, the family-wise error held at α within each sign across the points). “none” means the difference never changes sign significantly over the sampled range; the counts then say at how many points the paired ratio's interval lies below 1, above 1, or holds 1.", f.By, f.By, f.Baseline, f.MainUnit)))
	t := &Table{Head: []string{"series", "vs", "crossover at", "bracket", "before → after"}}
	rows := crossRows(f)
	for _, r := range rows {
		row := Row{Cells: cells(r.Series, r.Vs, r.At, r.Bracket, r.Direction)}
		if r.Found {
			row.Class = "found"
		}
		t.Rows = append(t.Rows, row)
	}
	if len(rows) == 0 {
		t.Rows = append(t.Rows, Row{Cells: cells("(none found)", "", "", "", "")})
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

func kneesSection(f *findings.Run) *Section {
	if f.Axis == "" {
		return nil
	}
	var knees []analysis.SeriesKnee
	for _, k := range f.Knees {
		if k.Unit == f.MainUnit {
			knees = append(knees, k)
		}
	}
	if len(knees) == 0 && len(f.NoKnees) == 0 {
		return nil
	}
	s := &Section{ID: "knees", Title: fmt.Sprintf("Knees (%s)", f.MainUnit)}
	s.Blocks = append(s.Blocks, para(fmt.Sprintf("Where a series' cost changes regime along %s: a two-segment (hinge) fit must beat a straight line and smooth curves (quadratic, cubic, power law, sum of two powers, exponential) by the stated criterion, with an interval for the breakpoint from resampling rounds. `perflab analyze RUN --axis %s` lists every unit.", f.Axis, f.Axis)))
	if len(knees) > 0 {
		slices.SortStableFunc(knees, func(a, b analysis.SeriesKnee) int {
			return benchname.Compare(withConfig(f, a.Series, a.Config), withConfig(f, b.Series, b.Config))
		})
		t := &Table{Head: []string{"series", "unit", "knee at", "confidence", "how"}}
		for _, k := range knees {
			at := strconv.FormatFloat(k.X, 'g', -1, 64)
			if k.Lo != k.Hi && !math.IsNaN(k.Lo) && !math.IsNaN(k.Hi) {
				at += fmt.Sprintf(" [%g, %g]", k.Lo, k.Hi)
			}
			t.Rows = append(t.Rows, Row{Cells: cells(withConfig(f, k.Series, k.Config), k.Unit, at, k.Confidence, k.Note)})
		}
		s.Blocks = append(s.Blocks, Block{Table: t})
	}
	if len(f.NoKnees) > 0 {
		t := &Table{Head: []string{"series", "points", "fit: why no knee"}}
		for _, k := range f.NoKnees {
			t.Rows = append(t.Rows, Row{Cells: cells(withConfig(f, k.Series, k.Config), strconv.Itoa(k.Points), k.Fit.Note)})
		}
		s.Blocks = append(s.Blocks, Block{Details: &Details{Summary: fmt.Sprintf("%d series without a knee along %s (%s): smooth growth or undecided", len(f.NoKnees), f.Axis, f.MainUnit), Blocks: []Block{{Table: t}}}})
	}
	return s
}

// ---- profile shares ----

// fmtPct formats a fraction as a percentage with three significant digits.
func fmtPct(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x*100, 'g', 3, 64) + "%"
}

// fmtShare formats a share as a percentage with its interval.
func fmtShare(s profshare.Share) string {
	if s.Total == 0 {
		return "—"
	}
	return fmtPct(s.Value) + " [" + fmtPct(s.Lo) + ", " + fmtPct(s.Hi) + "]"
}

func sharesSection(f *findings.Run) *Section {
	if len(f.Profiles) == 0 {
		return nil
	}
	s := &Section{ID: "profile-shares", Title: "Profile shares"}
	s.Blocks = append(s.Blocks, para(fmt.Sprintf("Share of each cell's CPU profile samples (from the profiling pass, not the timed runs) whose stack holds a runtime lock frame (`runtime.lock2` and friends): heap lock when the lock was taken under the heap allocator (`runtime.(*mheap)`, `(*mcentral)`, `(*mcache)`, `(*pageAlloc)`, the scavenger), any lock for every runtime lock. Intervals are %.0f%% Wilson intervals over the samples. A CPU profile sees only time on CPU: a thread asleep waiting for a lock is in the mutex profile, not here. `go doc github.com/perflab/perflab/profshare` defines the frames.", f.Opt.Confidence*100)))
	t := &Table{Head: []string{"config", "cell", "samples", "heap lock", "any lock"}}
	for i, p := range f.Profiles {
		if p.Err != nil {
			t.Rows = append(t.Rows, Row{Cells: cells(p.Config, p.Name.Full, "—", "could not be read: "+p.Err.Error(), "")})
			continue
		}
		t.Rows = append(t.Rows, Row{Cells: cells(p.Config, p.Name.Full, strconv.FormatInt(p.Counts.Total, 10), fmtShare(f.Shares[i].Heap), fmtShare(f.Shares[i].Lock))})
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

// ---- failures and artifacts ----

func skippedSection(f *findings.Run) *Section {
	if f.Skipped == 0 {
		return nil
	}
	s := &Section{ID: "skipped", Title: "Not applicable"}
	switch self := f.Skipped - f.LeftOut; {
	case f.LeftOut == 0:
		s.Blocks = append(s.Blocks, para(fmt.Sprintf("%d cells skipped themselves (the benchmark called b.Skip), so they have no samples.", f.Skipped)))
	case self == 0:
		s.Blocks = append(s.Blocks, para(fmt.Sprintf("%d cells were left out for the budget, so their comparisons are undecided; each row says when and what budget would have held them.", f.LeftOut)))
	default:
		s.Blocks = append(s.Blocks, para(fmt.Sprintf("%d cells skipped themselves (the benchmark called b.Skip) and %d were left out for the budget, so they have no samples or too few; each row says why.", self, f.LeftOut)))
	}
	t := &Table{Head: []string{"config", "cell", "why"}}
	for _, x := range f.Failures {
		if x.Skip {
			t.Rows = append(t.Rows, Row{Cells: cells(x.Config, x.Cell, x.Reason)})
		}
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

func failuresSection(f *findings.Run) *Section {
	if f.Failed == 0 {
		return nil
	}
	s := &Section{ID: "failures", Title: "Failures"}
	s.Blocks = append(s.Blocks, para(fmt.Sprintf("%d cell runs failed; their samples are missing from the tables.", f.Failed)))
	t := &Table{Head: []string{"round", "config", "cell", "reason"}}
	n := 0
	for _, x := range f.Failures {
		if x.Skip {
			continue
		}
		if n == 50 {
			t.Rows = append(t.Rows, Row{Cells: cells("…", "", "", fmt.Sprintf("%d more", f.Failed-50))})
			break
		}
		n++
		t.Rows = append(t.Rows, Row{Cells: cells(strconv.Itoa(x.Round), x.Config, x.Cell, lastLines(x.Reason, 3))})
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

func artifactsSection(f *findings.Run, opt HTMLOptions, withHTML bool) *Section {
	if len(f.Artifacts) == 0 {
		return nil
	}
	s := &Section{ID: "artifacts", Title: "Artifacts"}
	s.Blocks = append(s.Blocks, para("From a separate profiling pass (not the timed runs). Open a profile with `go tool pprof -http=: FILE`, the trace with `go tool trace FILE`, or browse them with `perflab serve`."))
	t := &Table{Head: []string{"config", "cell", "kind", "file", "size"}}
	for i, a := range f.Artifacts {
		file := Cell{Text: Code("`" + a.Path + "`")}
		if withHTML {
			file.Links = artifactLinks(opt, i, a)
		}
		t.Rows = append(t.Rows, Row{Cells: []Cell{cell(a.Config), cell(cmp.Or(a.Cell, "all")), cell(a.Kind), file, cell(benchunit.Scale(float64(a.Bytes), benchunit.Binary) + "B")}})
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

func artifactLinks(opt HTMLOptions, i int, a store.Artifact) []Link {
	if opt.ArtifactLinks != nil {
		return opt.ArtifactLinks(i, a)
	}
	return []Link{{Text: "file", Href: fileHref(opt.Dir, a.Path)}}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " ⏎ ")
}
