package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
)

// ClaimsTable writes the verdicts as an aligned text table for terminals:
// each claim's verdict and, under it, every check with the predicate it
// tested, pass or fail; a claim that is not testable with the reason, and
// every part of a claim no check tests with why.
func ClaimsTable(w io.Writer, f *findings.Run) error {
	if len(f.Verdicts) == 0 {
		_, err := fmt.Fprintln(w, "(no claims)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAIM\tVERDICT\tTESTED PREDICATE / MEASURED")
	check := func(id string, c claim.CheckResult) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", id, checkVerdict(c), truncate(predicateOf(c), 200))
		if m := checkMeasured(c.Measured, c.Reason, c.Verdict); m != "" {
			fmt.Fprintf(tw, "\t\t  measured: %s\n", truncate(m, 160))
		}
	}
	for _, v := range f.Verdicts {
		switch {
		case len(v.Checks) == 0:
			fmt.Fprintf(tw, "%s\t%s\t%s\n", v.ID, v.Verdict, v.Reason)
		case len(v.Checks) == 1 && v.Checks[0].Verdict == v.Verdict && !v.Checks[0].Context:
			check(v.ID, v.Checks[0])
		default:
			head := fmt.Sprintf("(%d checks)", len(v.Checks))
			if v.Verdict == claim.NotTestable && v.Reason != "" {
				head += ": " + truncate(v.Reason, 200)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", v.ID, v.Verdict, head)
			for i, c := range v.Checks {
				check(fmt.Sprintf("  %s.%d", v.ID, i+1), c)
			}
		}
		for _, part := range v.NotTested {
			fmt.Fprintf(tw, "\t\t  not tested here: %s\n", part)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "rule: %s\n", Rule); err != nil {
		return err
	}
	if l := looksLine(f); l != "" {
		if _, err := fmt.Fprintf(w, "looks: %s\n", l); err != nil {
			return err
		}
	}
	return nil
}

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
		fmt.Fprintf(w, "geomean %s=%s / %s=%s over %d points: %s, %s\n", f.By, name, f.By, g.Baseline, g.Points, FmtRatio(g.Geomean.Ratio), reading(f, g.Unit, g.Geomean.Ratio))
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
// configuration keys, unit metadata, then every result with its config. The
// output is what benchstat reads; each perflab config becomes a benchstat
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

// exportOrder sorts the results: config (the run's order), then the
// baseline of the by key first and the other values in natural order,
// then the name in natural order, then the round.
func exportOrder(f *findings.Run) []*benchfmt.Result {
	type keyed struct {
		r              *benchfmt.Result
		config, by     string
		name           string
		round, baseOff int
	}
	ks := make([]keyed, len(f.Results))
	for i, r := range f.Results {
		name := analysis.ParseName("Benchmark" + string(r.Name.Full()))
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
			analysis.CompareNames(a.by, b.by),
			analysis.CompareNames(a.name, b.name),
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
