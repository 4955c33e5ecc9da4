package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
)

// termWidth is the width of the terminal claims table.
const termWidth = 100

// ClaimsTable writes the verdicts for a terminal, within 100 columns:
// one line per claim (its verdict, the article's figure, the measured
// figure of the check that decides it) with, under it, the reason of a
// claim that is not testable and the parts of the claim not tested here;
// then one line per check (its verdict with the look that gave it,
// "context" when it is not counted, its measured figure) with the
// predicate it tested under it. Verdicts and reasons are written whole,
// wrapped; other text cut to fit ends in "…", and a last line says the
// report holds it whole.
func ClaimsTable(w io.Writer, f *findings.Run) error {
	if len(f.Verdicts) == 0 {
		_, err := fmt.Fprintln(w, "(no claims)")
		return err
	}
	t := &termTable{}
	idW, checkW := len("CLAIM"), len("CHECK")
	for _, v := range f.Verdicts {
		idW = max(idW, runes(v.ID))
		checkW = max(checkW, runes(fmt.Sprintf("%s.%d", v.ID, len(v.Checks))))
	}

	// One line per claim.
	figures := make([]string, len(f.Verdicts))
	measW := len("MEASURED HERE")
	for i, v := range f.Verdicts {
		figures[i] = claimFigure(v)
		measW = max(measW, runes(figures[i]))
	}
	measW = min(measW, 34)
	const verdW = len("not testable")
	claimedW := termWidth - idW - verdW - measW - 3*2
	t.row([]string{"CLAIM", "VERDICT", "CLAIMED (ARTICLE)", "MEASURED HERE"}, []int{idW, verdW, claimedW, measW})
	for i, v := range f.Verdicts {
		t.row([]string{v.ID, string(v.Verdict), cmp.Or(v.Claimed, "—"), figures[i]}, []int{idW, verdW, claimedW, measW})
		if v.Verdict == claim.NotTestable {
			t.wrap(idW+2, idW+4, "why: "+cmp.Or(ClaimReason(v), "no reason recorded"))
		}
		for _, p := range v.NotTested {
			t.wrap(idW+2, idW+4, "not tested here: "+p)
		}
	}

	// One line per check, its predicate under it.
	verdicts, checkFigures := map[string]string{}, map[string]string{}
	verdW2, measW2 := len("VERDICT"), len("MEASURED")
	for _, v := range f.Verdicts {
		for i, c := range v.Checks {
			k := fmt.Sprintf("%s.%d", v.ID, i+1)
			verdicts[k], checkFigures[k] = termVerdict(c), checkFigure(c)
			verdW2, measW2 = max(verdW2, runes(verdicts[k])), max(measW2, runes(checkFigures[k]))
		}
	}
	if len(verdicts) > 0 {
		measW2 = min(measW2, termWidth-checkW-verdW2-2*2)
		indent := checkW + 2
		t.line("")
		t.row([]string{"CHECK", "VERDICT", "MEASURED"}, []int{checkW, verdW2, measW2})
		for _, v := range f.Verdicts {
			for i, c := range v.Checks {
				k := fmt.Sprintf("%s.%d", v.ID, i+1)
				t.row([]string{k, verdicts[k], checkFigures[k]}, []int{checkW, verdW2, measW2})
				t.line(strings.Repeat(" ", indent) + t.fit(predicateOf(c), termWidth-indent))
				if why := CheckReason(c); c.Verdict == claim.NotTestable && why != "" {
					t.wrap(indent, indent+2, "why: "+why)
				}
			}
		}
	}

	t.line("")
	t.wrap(0, len("rule: "), "rule: "+judgedWords(f)+" The rule in full: docs/claims.md in perflab's source.")
	if l := looksLine(f); l != "" {
		t.wrap(0, len("looks: "), "looks: "+l)
	}
	if t.cut {
		t.wrap(0, 2, "… marks text cut to fit "+strconv.Itoa(termWidth)+" columns: report.md and report.html hold it whole, with each check's measurement.")
	}
	_, err := io.WriteString(w, t.b.String())
	return err
}

// termVerdict is a check's verdict in the terminal: the look that gave
// it in a run judged at two looks, and "context" when it is not counted.
func termVerdict(c claim.CheckResult) string {
	s := string(c.Verdict)
	if c.Precondition != "" {
		s = preconditionVerdict(c)
	}
	if c.Look > 0 && (c.Verdict == claim.Reproduced || c.Verdict == claim.Contradicted) {
		s += fmt.Sprintf(" (look %d)", c.Look)
	}
	switch {
	case c.Precondition != "":
		s += ", precondition"
	case c.Context:
		s += ", context"
	}
	return s
}

// termTable writes the lines of a terminal table.
type termTable struct {
	b   strings.Builder
	cut bool // some text was cut to fit
}

func (t *termTable) line(s string) {
	t.b.WriteString(strings.TrimRight(s, " "))
	t.b.WriteByte('\n')
}

// row writes cells in columns of the given widths, two spaces apart;
// cells longer than their column are cut.
func (t *termTable) row(cells []string, widths []int) {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString("  ")
		}
		c = t.fit(c, widths[i])
		b.WriteString(c + strings.Repeat(" ", widths[i]-runes(c)))
	}
	t.line(b.String())
}

// fit cuts s to n runes, ending in "…".
func (t *termTable) fit(s string, n int) string {
	if runes(s) <= n {
		return s
	}
	t.cut = true
	return truncate(s, n)
}

// wrap writes s whole, in lines of at most termWidth runes, the first
// indented by first spaces and the others by rest.
func (t *termTable) wrap(first, rest int, s string) {
	pad, next := strings.Repeat(" ", first), strings.Repeat(" ", rest)
	line := ""
	for _, word := range strings.Fields(s) {
		for runes(word) > termWidth-max(first, rest) { // a word longer than a line is split
			if line != "" {
				t.line(pad + line)
				line, pad = "", next
			}
			r := []rune(word)
			n := termWidth - len(pad)
			t.line(pad + string(r[:n]))
			word, pad = string(r[n:]), next
		}
		switch {
		case line == "":
			line = word
		case len(pad)+runes(line)+1+runes(word) <= termWidth:
			line += " " + word
		default:
			t.line(pad + line)
			line, pad = word, next
		}
	}
	if line != "" {
		t.line(pad + line)
	}
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// RatiosTable writes, for a run compared along its by key, each series'
// ratio to the baseline at every point with its interval, and the
// geomeans. It writes nothing when the run has no baseline comparison.
func RatiosTable(w io.Writer, f *findings.Run) error {
	if len(f.Against) == 0 {
		return nil
	}
	conf := strconv.FormatFloat(f.Opt.Confidence*100, 'f', 0, 64) + "%"
	fmt.Fprintf(w, "\nby how much: %s against %s=%s (%s ratio per point, paired within rounds, %s interval)\n", f.By, f.By, f.Baseline, f.MainUnit, conf)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	label := cmp.Or(f.Axis, "point")
	fmt.Fprintf(tw, "SERIES\t%s\t%s\tRATIO [%s CI]\t\n", strings.ToUpper(f.By), strings.ToUpper(label), conf)
	const most = 60
	lines := 0
	for _, c := range f.Against {
		for _, p := range c.Points {
			if lines == most {
				break
			}
			lines++
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", withConfig(f, c.Series, c.Config), c.Value, orDash(p.X), FmtRatio(p.Ratio), mark(p.Ratio))
		}
		if lines < most {
			lines++
			fmt.Fprintf(tw, "%s\t%s\tgeomean\t%s\t%s\n", withConfig(f, c.Series, c.Config), c.Value, FmtRatio(c.Geomean.Ratio), mark(c.Geomean.Ratio))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := countPoints(f); n > lines {
		fmt.Fprintf(w, "(%d more lines in the report)\n", n-lines)
	}
	for _, g := range f.Geomeans {
		name := g.Value
		if g.Config != "" && len(f.Configs) > 1 {
			name += " @" + g.Config
		}
		fmt.Fprintf(w, "geomean %s=%s / %s=%s over %d points: %s, %s\n", f.By, name, f.By, g.Baseline, g.Points, FmtRatio(g.Geomean.Ratio), reading(g.Unit, g.Geomean.Ratio, g.Better, g.Worse))
	}
	return nil
}

func countPoints(f *findings.Run) int {
	n := 0
	for _, c := range f.Against {
		n += len(c.Points) + 1
	}
	return n
}

// mark flags a ratio whose interval excludes 1.
func mark(r analysis.Ratio) string {
	if r.Excludes(1) {
		return "*"
	}
	return ""
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Export writes the run as benchfmt text: the environment as file
// configuration keys, unit metadata, then every result of the run's
// planned rounds with its config (follow-up rounds serve the claim checks
// alone, findings.Sampling.Planned, so benchstat's medians are the
// report's). The output is what benchstat reads; each perflab config becomes a benchstat
// table through the "config" key. Results come in a stable order — the
// spec's first config first, the baseline value of the spec's by key
// first, then names in natural order and rounds in order — so benchstat's
// columns (benchstat -col /impl) start with the baseline and never depend on
// the order the rounds happened to run.
func Export(w io.Writer, f *findings.Run) error {
	bw := benchfmt.NewWriter(w)
	meta := map[string]bool{}
	for _, m := range f.UnitMeta {
		if meta[m.Unit+"\x00"+m.Key] || !hasUnit(f.Samples, m.Unit) {
			continue
		}
		meta[m.Unit+"\x00"+m.Key] = true
		if err := bw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: m.Unit, Key: m.Key}, OrigUnit: m.Unit, Value: m.Value}); err != nil {
			return fmt.Errorf("writing unit metadata: %w", err)
		}
	}
	for _, r := range exportOrder(f) {
		have := map[string]bool{}
		for _, c := range r.Config {
			have[c.Key] = true
		}
		var cfg []benchfmt.Config
		for _, kv := range f.Env {
			if have[kv.Key] || strings.HasPrefix(kv.Key, "noise") || kv.Key == "time" || kv.Key == "loadavg" {
				continue // run-to-run differences stay out of benchstat's table keys
			}
			cfg = append(cfg, benchfmt.Config{Key: kv.Key, Value: []byte(kv.Value), File: true})
		}
		// A fresh Result: benchfmt indexes Config lazily, so it must not be
		// edited in place after a lookup.
		c := r.Clone()
		for _, kv := range c.Config {
			if kv.File { // internal keys (the round) are perflab's own
				cfg = append(cfg, kv)
			}
		}
		out := &benchfmt.Result{Config: cfg, Name: c.Name, Iters: c.Iters, Values: c.Values}
		if err := bw.Write(out); err != nil {
			return fmt.Errorf("writing %s: %w", r.Name.Full(), err)
		}
	}
	return nil
}

// exportOrder sorts the results of the planned rounds: config (the run's
// order), then the baseline of the by key first and the other values in
// natural order, then the name in natural order, then the round.
func exportOrder(f *findings.Run) []*benchfmt.Result {
	type keyed struct {
		r              *benchfmt.Result
		config, by     string
		name           string
		round, baseOff int
	}
	results := f.PlannedResults()
	ks := make([]keyed, len(results))
	for i, r := range results {
		name := benchname.Parse("Benchmark" + string(r.Name.Full()))
		k := keyed{r: r, config: r.GetConfig("config"), name: name.Full}
		k.round, _ = strconv.Atoi(r.GetConfig("round"))
		if f.By != "" {
			if f.By == "config" {
				k.by = k.config
			} else {
				k.by, _ = name.Value(f.By)
			}
			if k.by != f.Baseline {
				k.baseOff = 1
			}
			if f.By != "config" {
				k.name = name.Without(f.By)
			}
		}
		ks[i] = k
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if f.By == "config" {
			if c := cmp.Compare(a.baseOff, b.baseOff); c != 0 {
				return c
			}
		}
		if a.config != b.config {
			return f.ConfigOrder(a.config, b.config)
		}
		return cmp.Or(
			cmp.Compare(a.baseOff, b.baseOff),
			benchname.Compare(a.by, b.by),
			benchname.Compare(a.name, b.name),
			cmp.Compare(a.round, b.round))
	})
	out := make([]*benchfmt.Result, len(ks))
	for i, k := range ks {
		out[i] = k.r
	}
	return out
}

func hasUnit(samples []*analysis.Sample, unit string) bool {
	for _, s := range samples {
		if s.Unit == unit {
			return true
		}
	}
	return false
}
