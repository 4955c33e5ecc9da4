package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/revision"
)

// A bisect's report: what it found (the culprit and its effect, or the
// range it could not separate), every commit tested with its verdict and
// interval, every benchmark at the culprit, and the rule. Terminal text,
// Markdown and HTML render the same sections.

// BisectText writes a bisect's result for the terminal.
func BisectText(w io.Writer, b *findings.Bisect) error {
	bw := bufio.NewWriter(w)
	for _, s := range bisectSections(b) {
		fmt.Fprintf(bw, "\n%s\n", s.Title)
		for _, bl := range s.Blocks {
			switch {
			case bl.Table != nil:
				textTable(bw, bl.Table)
			case len(bl.Text) > 0:
				fmt.Fprintf(bw, "%s\n", wrap(bl.Text.String(), 100))
			}
		}
	}
	return bw.Flush()
}

// BisectMarkdown writes a bisect's report as Markdown (a pull-request
// comment, $GITHUB_STEP_SUMMARY).
func BisectMarkdown(w io.Writer, b *findings.Bisect) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n%s\n\n", esc(bisectTitle(b)), bisectMeta(b))
	writeMarkdownSections(bw, bisectSections(b))
	return bw.Flush()
}

// BisectHTML writes a bisect's report as one self-contained HTML page.
func BisectHTML(w io.Writer, b *findings.Bisect) error {
	pg := &htmlPage{Title: bisectTitle(b), Meta: bisectMeta(b), Glance: []glance{bisectGlance(b)}}
	pg.Body = htmlSections(bisectSections(b))
	if err := htmlTmpl.Execute(w, pg); err != nil {
		return fmt.Errorf("writing the bisect's HTML report: %w", err)
	}
	return nil
}

// BisectStepLine is a step's state in one line, for progress output.
func BisectStepLine(st findings.BisectStep) string {
	d := st.Decisive
	what := "BAD/GOOD"
	if st.Kind == bisect.Midpoint {
		what = "contrast"
	}
	line := fmt.Sprintf("step %d: %s %s", st.Number, what, fmtBisectRatio(d))
	if st.Kind == bisect.Midpoint && !math.IsNaN(st.Position) {
		line += fmt.Sprintf(", position %.2f", st.Position)
	}
	return line + fmt.Sprintf(", %d rounds: %s", st.Rounds, st.Verdict)
}

// BisectWhy says why a bisect step has no verdict: why its midpoint was
// skipped ("does not build: …", "lacks BenchmarkX"), or what kept the
// step undecided ("its share of the budget (1m23s) was spent"); "" for
// no reason.
func BisectWhy(r bisect.Reason) string {
	switch r.Cause {
	case bisect.NotBuilt:
		return "does not build: " + r.Detail
	case bisect.NotListed:
		return r.Detail
	case bisect.Lacking:
		return "lacks " + strings.Join(r.Missing, ", ")
	case bisect.Failing:
		return "its benchmark fails: " + r.Detail
	case bisect.Unmeasured:
		if r.Detail == "" {
			return "no rounds were measured"
		}
		return "no rounds were measured: " + r.Detail
	case bisect.StoredRoundsSpent:
		return fmt.Sprintf("its %d stored rounds reached --max-rounds", r.Rounds)
	case bisect.BudgetSpent:
		return "the budget was spent before it"
	case bisect.RoundsSpent:
		return fmt.Sprintf("it reached --max-rounds %d", r.Rounds)
	case bisect.ShareSpent:
		return fmt.Sprintf("its share of the budget (%s) was spent", r.Spent.Round(time.Second))
	}
	return ""
}

// BisectEnd says in one line how a bisect that did not find its culprit
// ended, pointing at its report: "nothing to bisect (see above)" or "the
// culprit is one of 3 commits (see above)"; "" when it found the
// culprit.
func BisectEnd(b *findings.Bisect) string {
	switch b.Stop {
	case bisect.Found:
		return ""
	case bisect.NothingToBisect, bisect.EndsUndecided:
		return "nothing to bisect (see above)"
	}
	return fmt.Sprintf("the culprit is one of %d commits (see above)", b.Hi-b.Lo)
}

func bisectTitle(b *findings.Bisect) string {
	h := b.History
	if len(h) == 0 {
		return "perflab bisect"
	}
	return fmt.Sprintf("perflab bisect %s..%s", h[0].Short(), h[len(h)-1].Short())
}

func bisectMeta(b *findings.Bisect) string {
	on := "the geomean of every benchmark"
	if b.Rule.Bench != "" {
		on = b.Rule.Bench
	}
	return fmt.Sprintf("Package %s · -bench %s · %d commits after GOOD · decided on %s in %s · α = %g over at most %d steps · minimum effect %s",
		b.Package, b.Regex, len(b.History)-1, on, b.Rule.Unit, b.Alpha, b.Planned, fmtPct(b.Rule.MinEffect))
}

func bisectGlance(b *findings.Bisect) glance {
	switch b.Stop {
	case bisect.Found:
		return glance{Text: "culprit " + b.History[b.Culprit].Short(), Class: "v-rep"}
	case bisect.NothingToBisect:
		return glance{Text: "nothing to bisect", Class: "v-nt"}
	}
	return glance{Text: string(b.Stop), Class: "v-inc"}
}

func bisectSections(b *findings.Bisect) []Section {
	secs := []Section{bisectResult(b)}
	if s := bisectCommits(b); s != nil {
		secs = append(secs, *s)
	}
	if s := bisectBenches(b); s != nil {
		secs = append(secs, *s)
	}
	return append(secs, bisectRule(b))
}

// bisectResult says what the bisect found.
func bisectResult(b *findings.Bisect) Section {
	s := Section{ID: "result", Title: "Result"}
	add := func(f string, args ...any) { s.Blocks = append(s.Blocks, para(fmt.Sprintf(f, args...))) }
	ends := bisectEndsStep(b)
	switch b.Stop {
	case bisect.Found:
		c := b.History[b.Culprit]
		add("Culprit: `%s` %s (%s, %s).", c.Short(), c.Subject, c.Author, fmtDate(c))
		add("Effect at the culprit: %s %s, %s over its parent `%s` (step %d, %s).",
			b.Rule.Unit, fmtChange(b.Effect), c.Short(), b.History[b.Lo].Short(), b.EffectStep, fmtLevel(b, b.EffectStep))
	case bisect.NothingToBisect:
		add("Nothing to bisect: GOOD and BAD do not differ by more than %s (BAD/GOOD %s %s, %s).", fmtPct(b.Rule.MinEffect), b.Rule.Unit, fmtChange(ends.Decisive), fmtLevel(b, 1))
	case bisect.EndsUndecided:
		add("Nothing to bisect yet: the rounds could not tell whether GOOD and BAD differ by more than %s (BAD/GOOD %s %s after %d rounds, %s). Give a larger --budget or --max-rounds, or --measure instructions.",
			fmtPct(b.Rule.MinEffect), b.Rule.Unit, fmtChange(ends.Decisive), ends.Rounds, fmtLevel(b, 1))
	case bisect.StepUndecided, bisect.OnlySkipped, bisect.Interrupted:
		why := map[bisect.Stop]string{
			bisect.StepUndecided: fmt.Sprintf("step %d could not tell whether its midpoint is like GOOD or like BAD", lastStep(b)),
			bisect.OnlySkipped:   "every commit left between the ends was skipped",
			bisect.Interrupted:   "the bisect was interrupted; continue it with the same command and --resume",
		}[b.Stop]
		add("Not narrowed to one commit: %s. The culprit is one of the %d commits after `%s` up to `%s`:", why, b.Hi-b.Lo, b.History[b.Lo].Short(), b.History[b.Hi].Short())
		t := &Table{Head: []string{"commit", "subject", "author date", "state"}}
		for i := b.Lo + 1; i <= b.Hi; i++ {
			state := "not tested"
			switch {
			case i == b.Hi:
				state = "like BAD"
			case b.Stop == bisect.StepUndecided && i == b.Steps[len(b.Steps)-1].Mid:
				state = fmt.Sprintf("undecided (step %d)", lastStep(b))
			}
			for _, sk := range b.Skips {
				if sk.Commit == i {
					state = "skipped: " + BisectWhy(sk.Why)
				}
			}
			c := b.History[i]
			t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: Code("`" + c.Short() + "`")}, cell(c.Subject), cell(fmtDate(c)), cell(state)}})
		}
		s.Blocks = append(s.Blocks, Block{Table: t})
		if b.EffectStep > 0 {
			add("Change across that range: %s %s, `%s` over `%s` (step %d, %s).", b.Rule.Unit, fmtChange(b.Effect), b.History[b.Hi].Short(), b.History[b.Lo].Short(), b.EffectStep, fmtLevel(b, b.EffectStep))
		}
	}
	return s
}

func bisectEndsStep(b *findings.Bisect) findings.BisectStep {
	for _, st := range b.Steps {
		if st.Kind == bisect.Endpoints {
			return st
		}
	}
	return findings.BisectStep{Decisive: analysis.Ratio{Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}}
}

func lastStep(b *findings.Bisect) int {
	if len(b.Steps) == 0 {
		return 0
	}
	return b.Steps[len(b.Steps)-1].Number
}

// bisectCommits is every commit tested, in the order the search tested
// them, with its verdict and interval.
func bisectCommits(b *findings.Bisect) *Section {
	if len(b.Steps) == 0 && len(b.Skips) == 0 {
		return nil
	}
	s := &Section{ID: "steps", Title: "Commits tested"}
	s.Blocks = append(s.Blocks, para("Each step measured its commits in interleaved rounds until its interval decided, or its share of the budget ran out. "+
		"For the endpoints the interval is BAD/GOOD; for a midpoint it is the contrast (MID/lo)·(MID/hi), above 1 when the midpoint is past halfway to the higher end on the log scale. "+
		"Position: the midpoint's place between lo (0) and hi (1) on the log scale, from the estimates."))
	t := &Table{Head: []string{"step", "commit", "subject", "author date", "verdict", "decided on [interval]", "position", "vs lo", "rounds", "runs"}}
	skipAt := map[int][]findings.BisectSkip{}
	for _, sk := range b.Skips {
		skipAt[sk.Step] = append(skipAt[sk.Step], sk)
	}
	for _, st := range b.Steps {
		for _, sk := range skipAt[st.Number] {
			t.Rows = append(t.Rows, skipRow(b, sk))
		}
		commit, subject, date, pos, vsLo := "", "", "", "—", "—"
		if st.Kind == bisect.Endpoints {
			g, bd := b.History[st.Lo], b.History[st.Hi]
			commit, subject, date = "`"+g.Short()+"` → `"+bd.Short()+"`", "GOOD → BAD", fmtDate(bd)
		} else {
			c := b.History[st.Mid]
			commit, subject, date = "`"+c.Short()+"`", c.Subject, fmtDate(c)
			if !math.IsNaN(st.Position) {
				pos = fmt.Sprintf("%.2f", st.Position)
			}
			vsLo = fmtChange(st.MidGood)
		}
		class := map[bisect.Verdict]string{bisect.Undecided: "v-inc", bisect.Same: "v-nt"}[st.Verdict]
		if class == "" {
			class = "v-rep"
		}
		t.Rows = append(t.Rows, Row{Class: class, Cells: []Cell{
			cell(strconv.Itoa(st.Number)), {Text: Code(commit)}, cell(subject), cell(date),
			{Text: Plain(string(st.Verdict)), Class: "verdict " + class},
			cell(fmtBisectRatio(st.Decisive) + " " + fmtConf(st.Confidence)), cell(pos), cell(vsLo),
			cell(strconv.Itoa(st.Rounds)), cell(joinIDs(st.Runs)),
		}})
	}
	// Skips after the last measuring step (the range held only skipped
	// commits).
	for _, sk := range skipAt[lastStep(b)+1] {
		t.Rows = append(t.Rows, skipRow(b, sk))
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

func skipRow(b *findings.Bisect, sk findings.BisectSkip) Row {
	c := b.History[sk.Commit]
	return Row{Class: "v-nt", Cells: []Cell{cell(strconv.Itoa(sk.Step)), {Text: Code("`" + c.Short() + "`")}, cell(c.Subject), cell(fmtDate(c)),
		{Text: Plain("skipped: " + BisectWhy(sk.Why)), Class: "verdict v-nt"}, cell("—"), cell("—"), cell("—"), cell("0"), cell("—")}}
}

// bisectBenches is every benchmark's change at the culprit (or across the
// range left).
func bisectBenches(b *findings.Bisect) *Section {
	if b.EffectStep == 0 || len(b.Others) == 0 || b.Stop == bisect.NothingToBisect {
		return nil
	}
	what := "at the culprit"
	if b.Stop != bisect.Found {
		what = "across the range left"
	}
	s := &Section{ID: "benchmarks", Title: "Every benchmark " + what}
	s.Blocks = append(s.Blocks, para(fmt.Sprintf("Each benchmark's change in %s, `%s` over `%s`, paired by round in step %d (%s); each interval on its own, not corrected across benchmarks.",
		b.Rule.Unit, b.History[b.Hi].Short(), b.History[b.Lo].Short(), b.EffectStep, fmtLevel(b, b.EffectStep))))
	t := &Table{Head: []string{"benchmark", "change [interval]", "ratio"}}
	for _, o := range b.Others {
		row := Row{Cells: []Cell{cell(o.Name), cell(fmtChange(o.Ratio)), cell(fmtBisectRatio(o.Ratio))}}
		if o.Name == b.Rule.Bench {
			row.Cells[0].Strong = true
		}
		t.Rows = append(t.Rows, row)
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

// bisectRule states the rule and the error split with this bisect's
// numbers.
func bisectRule(b *findings.Bisect) Section {
	on := "the geomean across benchmarks of the per-round log-ratios"
	if b.Rule.Bench != "" {
		on = b.Rule.Bench + "'s per-round log-ratios"
	}
	text := fmt.Sprintf("Every interval is an anytime-valid confidence sequence of %s in %s (the paired estimate of every perflab comparison; docs/sequential.md), valid however often a step looked at its rounds. "+
		"The endpoints differ when BAD/GOOD lies wholly outside [1/(1+%s), 1+%s] and are the same when it lies wholly inside. "+
		"A midpoint M between lo and hi runs twice in every round (once when deciding on instructions/op, whose counts carry no one-sided noise), and its contrast (M/lo)·(M/hi) decides: \"like BAD\" when the contrast lies wholly on BAD's side of 1 (M past halfway between lo and hi on the log scale), \"like GOOD\" when wholly on GOOD's side; otherwise it is undecided and the search stops with the range it could not separate. "+
		"α = %g is split across the at most %d steps a search of %d commits needs (1 + ⌈log₂ %d⌉): each gets α/%d = %.4g, and a step that skipped commits make necessary gets half the previous extra share, so all steps together err with probability at most α. "+
		"A step's interval is two-sided at 1 − 2·α_k (%s for the planned steps), so each bound is one-sided at 1 − α_k. "+
		"Commits that do not build or lack the benchmark are skipped, as git bisect skip does, and cost no share of α.",
		on, b.Rule.Unit, fmtPct(b.Rule.MinEffect), fmtPct(b.Rule.MinEffect), b.Alpha, b.Planned, len(b.History)-1, len(b.History)-1, b.Planned+1, b.Share, fmtPct(b.ShareConfidence))
	return Section{ID: "rule", Title: "How it was decided", Blocks: []Block{para(text)}}
}

func fmtLevel(b *findings.Bisect, step int) string {
	for _, st := range b.Steps {
		if st.Number == step {
			return fmtConf(st.Confidence) + " anytime-valid"
		}
	}
	return "no interval"
}

func fmtConf(c float64) string {
	return strconv.FormatFloat(100*c, 'g', 4, 64) + "%"
}

// fmtChange formats a ratio as a change with its interval: "+3.12% [+2.05%, +4.20%]".
func fmtChange(r analysis.Ratio) string {
	return fmtInterval(r, func(x float64) string {
		pc := strconv.FormatFloat(100*(x-1), 'f', 2, 64) + "%"
		if x >= 1 {
			return "+" + pc
		}
		return pc
	})
}

// fmtBisectRatio formats a ratio with its interval to four decimals,
// enough for a count that moved by 0.1%: "1.0301 [1.0299, 1.0303]".
func fmtBisectRatio(r analysis.Ratio) string {
	return fmtInterval(r, func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) })
}

// fmtInterval formats an estimate and its interval with f.
func fmtInterval(r analysis.Ratio, f func(float64) string) string {
	switch {
	case r.N == 0 || math.IsNaN(r.Ratio):
		return "—"
	case !r.HasInterval():
		return fmt.Sprintf("%s [no interval, %d rounds]", f(r.Ratio), r.N)
	}
	return fmt.Sprintf("%s [%s, %s]", f(r.Ratio), f(r.Lo), f(r.Hi))
}

func fmtDate(c revision.CommitInfo) string {
	if c.AuthorDate.IsZero() {
		return "—"
	}
	return c.AuthorDate.Format(time.DateTime + " -0700")
}

func joinIDs(ids []int64) string {
	var s []string
	for _, id := range ids {
		s = append(s, strconv.FormatInt(id, 10))
	}
	return strings.Join(s, ", ")
}

// textTable writes a table with aligned columns.
func textTable(w io.Writer, t *Table) {
	rows := [][]string{t.Head}
	for _, r := range t.Rows {
		var cs []string
		for _, c := range r.Cells {
			cs = append(cs, c.Text.String())
		}
		rows = append(rows, cs)
	}
	width := make([]int, len(t.Head))
	for _, r := range rows {
		for i, c := range r {
			if i < len(width) {
				width[i] = max(width[i], len([]rune(c)))
			}
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-len([]rune(c))+2))
		}
		fmt.Fprintln(w, "  "+strings.TrimRight(b.String(), " "))
	}
}

// wrap breaks text into lines of at most width runes at spaces.
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(word)) > width {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}
