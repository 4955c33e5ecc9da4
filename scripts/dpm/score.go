package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"
)

func cmdScore(args []string) error {
	fset := flag.NewFlagSet("score", flag.ExitOnError)
	byModule := fset.Bool("by-module", false, "score each module apart")
	fset.Usage = func() {
		fmt.Fprint(fset.Output(), `Usage: dpm score [-by-module] FILE...

Score reads trials files that dpm run wrote and prints, per budget,
change and tool: the trials, the rows, the rows decided, correct and
false, the rows decided per minute of wall time, the median interval
half-width, and on the layout-only change how many gated trials passed.
docs/dpm.md says how to read it.

Flags:
`)
		fset.PrintDefaults()
	}
	fset.Parse(args)
	if fset.NArg() == 0 {
		fset.Usage()
		os.Exit(2)
	}
	var all []trial
	for _, name := range fset.Args() {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		ts, err := readTrials(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, ts...)
	}
	if len(all) == 0 {
		return fmt.Errorf("no trials in %s", strings.Join(fset.Args(), ", "))
	}
	printScores(os.Stdout, all, *byModule)
	return nil
}

// readTrials reads a trials file: one JSON object a line.
func readTrials(r io.Reader) ([]trial, error) {
	var out []trial
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var t trial
			if err := json.Unmarshal(line, &t); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			out = append(out, t)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// A score sums the trials of one group.
type score struct {
	Budget, Class, Module, Label string
	Target                       float64
	Trials, Failed, Refused      int
	Rows, Decided, Correct       int
	False, NoDiff                int
	Wall                         float64 // seconds, over the trials that ran
	HalfWidths                   []float64
	Gated, GatePassed            int
	TruthLo, TruthHi             float64
}

// direction is the verdict a row's planted change calls for.
func direction(truth float64) string {
	if truth < 0 {
		return faster
	}
	return slower
}

// add scores one trial. A planted row's decision is correct when it
// goes the planted way, false when it goes the other way, and "no
// difference" is counted apart (NoDiff): the change in time need not
// equal the change in instructions. On a layout-only change any faster
// or slower is false; "no difference" and undecided are correct.
func (s *score) add(t trial) {
	s.Trials++
	if t.Err != "" {
		s.Failed++
		return
	}
	s.Wall += t.Wall
	if t.Refused != "" {
		s.Refused++
	}
	if t.GatePass != nil {
		s.Gated++
		if *t.GatePass {
			s.GatePassed++
		}
	}
	for _, r := range t.Rows {
		s.Rows++
		if s.Rows == 1 || r.Truth < s.TruthLo {
			s.TruthLo = r.Truth
		}
		if s.Rows == 1 || r.Truth > s.TruthHi {
			s.TruthHi = r.Truth
		}
		hw := math.Inf(1)
		if r.HalfWidth != nil {
			hw = *r.HalfWidth
		}
		s.HalfWidths = append(s.HalfWidths, hw)
		if decided(r.Verdict) {
			s.Decided++
		}
		switch {
		case t.Target == 0 && (r.Verdict == faster || r.Verdict == slower):
			s.False++
		case t.Target == 0:
			s.Correct++
		case r.Verdict == noDifference:
			s.NoDiff++
		case r.Verdict == direction(r.Truth):
			s.Correct++
		case r.Verdict == faster || r.Verdict == slower:
			s.False++
		}
	}
}

// perMinute is the rows decided per minute of wall time.
func (s *score) perMinute() float64 {
	if s.Wall == 0 {
		return 0
	}
	return float64(s.Decided) / (s.Wall / 60)
}

// medianHalfWidth is the median of the rows' half-widths, a row without an
// interval counting as infinitely wide; NaN for no rows.
func (s *score) medianHalfWidth() float64 {
	n := len(s.HalfWidths)
	if n == 0 {
		return math.NaN()
	}
	h := append([]float64(nil), s.HalfWidths...)
	sort.Float64s(h)
	if n%2 == 1 {
		return h[n/2]
	}
	if math.IsInf(h[n/2], 1) {
		return math.Inf(1)
	}
	return (h[n/2-1] + h[n/2]) / 2
}

// scores groups trials by budget, change (and module) and tool, in the
// order budget, target (layout-only last), module, tool as first seen.
func scores(trials []trial, byModule bool) []*score {
	index := map[string]*score{}
	labelOrder := map[string]int{}
	var out []*score
	for _, t := range trials {
		if _, ok := labelOrder[t.Label]; !ok {
			labelOrder[t.Label] = len(labelOrder)
		}
		mod := ""
		if byModule {
			mod = t.Module
		}
		key := strings.Join([]string{t.Budget, t.Class, mod, t.Label}, "\x00")
		s := index[key]
		if s == nil {
			s = &score{Budget: t.Budget, Class: t.Class, Module: mod, Label: t.Label, Target: t.Target}
			index[key] = s
			out = append(out, s)
		}
		s.add(t)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Budget != b.Budget {
			return budgetLess(a.Budget, b.Budget)
		}
		if a.Target != b.Target {
			return a.Target != 0 && (b.Target == 0 || a.Target < b.Target)
		}
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		if a.Module != b.Module {
			return a.Module < b.Module
		}
		return labelOrder[a.Label] < labelOrder[b.Label]
	})
	return out
}

func budgetLess(a, b string) bool {
	da, ea := time.ParseDuration(a)
	db, eb := time.ParseDuration(b)
	if ea != nil || eb != nil {
		return a < b
	}
	return da < db
}

// printScores writes the table of scores.
func printScores(w io.Writer, trials []trial, byModule bool) {
	if len(trials) == 0 {
		fmt.Fprintln(w, "no trials")
		return
	}
	ss := scores(trials, byModule)
	head := []string{"budget", "change", "module", "tool", "trials", "failed", "refused", "rows", "decided", "correct", "false", "no-diff", "decided/min", "median ±", "gate pass", "wall"}
	widths := []int{-7, -8, -8, -14, 6, 6, 7, 5, 7, 7, 5, 7, 11, 9, 9, 8}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i == 2 && !byModule {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%*s", widths[i], c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(head)
	for _, s := range ss {
		noDiff, gate := "-", "-"
		if s.Target != 0 {
			noDiff = fmt.Sprint(s.NoDiff)
		}
		if s.Gated > 0 {
			gate = fmt.Sprintf("%d/%d", s.GatePassed, s.Gated)
		}
		wall := "-"
		if ran := s.Trials - s.Failed; ran > 0 {
			wall = time.Duration(s.Wall / float64(ran) * float64(time.Second)).Round(time.Second).String()
		}
		line([]string{s.Budget, s.Class, s.Module, s.Label, fmt.Sprint(s.Trials), fmt.Sprint(s.Failed), fmt.Sprint(s.Refused), fmt.Sprint(s.Rows),
			fmt.Sprint(s.Decided), fmt.Sprint(s.Correct), fmt.Sprint(s.False), noDiff,
			fmt.Sprintf("%.2f", s.perMinute()), percent(s.medianHalfWidth()), gate, wall})
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "changes by instructions/op (Cachegrind), over the rows scored:")
	seen := map[string]bool{}
	for _, s := range ss {
		if seen[s.Class] || s.Rows == 0 {
			continue
		}
		seen[s.Class] = true
		lo, hi := s.TruthLo, s.TruthHi
		for _, o := range ss {
			if o.Class == s.Class && o.Rows > 0 {
				lo, hi = math.Min(lo, o.TruthLo), math.Max(hi, o.TruthHi)
			}
		}
		fmt.Fprintf(w, "  %-8s %+.2f%% … %+.2f%%\n", s.Class, 100*lo, 100*hi)
	}
	fmt.Fprintln(w, "decided: faster, slower or no difference; false: the wrong direction on a planted change, faster or slower on a")
	fmt.Fprintln(w, "layout-only one; no-diff: planted rows read \"no difference\"; median ±: interval half-width on the log scale")
	fmt.Fprintln(w, "(none: no interval; benchstat gives none for a ratio); failed trials are not scored; refused: perflab refused the")
	fmt.Fprintln(w, "budget as too small, its rows count as undecided.")
}

// percent writes a half-width as ±X%.
func percent(h float64) string {
	switch {
	case math.IsNaN(h):
		return "-"
	case math.IsInf(h, 1):
		return "none"
	}
	return fmt.Sprintf("±%.1f%%", 100*h)
}
