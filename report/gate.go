package report

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/perflab/perflab/compare"
)

// Gate outcomes in words: what a gate's summary line says.
const (
	GatePassed    = "passed"
	GateFailed    = "failed"
	GateUndecided = "undecided"
)

// GateOutcome is a gate's outcome in one word: failed when a row breaks
// a rule, undecided when none does but a rule could not rule on a row,
// passed when every gated row was decided within every limit; "" without
// rules.
func GateOutcome(g *compare.Gate) string {
	switch {
	case g == nil || len(g.Rules) == 0:
		return ""
	case len(g.Fails()) > 0:
		return GateFailed
	case len(g.Undecided()) > 0:
		return GateUndecided
	}
	return GatePassed
}

// percent writes a non-negative fraction as a percentage: one decimal,
// two significant digits below 0.1%, and 0% below 0.001%.
func percent(x float64) string {
	switch v := x * 100; {
	case v < 0.001:
		return "0%"
	case v < 0.1:
		return fmt.Sprintf("%.2g%%", v)
	default:
		return fmt.Sprintf("%.1f%%", v)
	}
}

// UndecidedWords is the verdict of a row a rule could not rule on, as
// every table prints it: "undecided: a change below ±X% cannot be told
// apart on this machine", X being half the width of the row's interval on
// the log scale (the precision reached); or why there is no such figure.
func UndecidedWords(r compare.Ruling) string {
	switch r.Why {
	case compare.NoInterval:
		return "undecided: too few samples for an interval, so no change can be told apart yet"
	case compare.NoDiscovery:
		return "undecided: beyond the limit on its own, but not a discovery among its unit's rows"
	}
	return "undecided: a change below ±" + percent(r.Row.HalfWidth) + " cannot be told apart on this machine"
}

// rowGate is what a gate says about one row: the rules it breaks, or,
// when it breaks none, the ruling that left it undecided.
type rowGate struct {
	broken    []compare.Threshold
	undecided *compare.Ruling
}

// gateOf reads the gate's rulings on one row; nil g gives nothing.
func gateOf(g *compare.Gate, config, name, unit string) rowGate {
	var out rowGate
	if g == nil {
		return out
	}
	r, ok := g.Of(config, name, unit)
	switch {
	case !ok || r.Decision == compare.Within:
	case r.Decision == compare.Undecided:
		out.undecided = &r
	default:
		for _, x := range g.Rulings {
			if x.Decision == compare.Beyond && x.Row.Config == config && x.Row.Name == name && x.Row.Unit == unit {
				out.broken = append(out.broken, x.Threshold)
			}
		}
	}
	return out
}

// verdict is a row's verdict under the gate: its undecided words, or the
// given verdict with the rules it breaks (each written by text).
func (g rowGate) verdict(verdict string, text func(compare.Threshold) string) string {
	if g.undecided != nil {
		return UndecidedWords(*g.undecided)
	}
	var rules []string
	for _, t := range g.broken {
		rules = append(rules, text(t))
	}
	return withFails(verdict, rules)
}

// withFails adds the rules a row breaks to its verdict.
func withFails(mark string, rules []string) string {
	if len(rules) == 0 {
		return mark
	}
	return mark + "  FAIL " + strings.Join(rules, " ")
}

// RulingLine is one ruling in words, for the lines a gate prints beneath
// its table: the row, its change with the interval and p-value, and what
// the rule decided:
//
//	BenchmarkX @default [sec/op]: +20.0% [+18.1%, +21.9%], p=0.002, breaks sec/op>+5%
//	BenchmarkY [sec/op]: +0.0% [-7.5%, +8.2%], p=0.9, undecided on sec/op>+1%: a change below ±7.8% cannot be told apart on this machine; the estimate is 1.0% from the limit
func RulingLine(r compare.Ruling) string {
	name := r.Row.Name
	if r.Row.Config != "" {
		name += " @" + r.Row.Config
	}
	ci := "no interval"
	if r.Row.Interval {
		ci = "[" + FormatDelta(r.Row.Lo) + ", " + FormatDelta(r.Row.Hi) + "]"
	}
	rule := cmp.Or(r.Threshold.Text, r.Threshold.String())
	head := fmt.Sprintf("%s [%s]: %s %s, p=%.3g, ", name, r.Row.Unit, FormatDelta(r.Row.Delta), ci, r.Row.P)
	switch r.Decision {
	case compare.Beyond:
		return head + "breaks " + rule
	case compare.Within:
		return head + "within " + rule
	}
	words := strings.TrimPrefix(UndecidedWords(r), "undecided: ")
	switch r.Why {
	case compare.HoldsLimit:
		words += "; the estimate is " + percent(r.Distance) + " from the limit"
	case compare.NoDiscovery:
		words += fmt.Sprintf(" (adjusted p: %.3g)", r.Row.PAdj)
	}
	return head + "undecided on " + rule + ": " + words
}

// GateRun is how a command ran its gate, for the lines beneath the gate's
// table: the command's name, the rules as given to --fail-on, whether an
// undecided row fails the gate (--require-decision), and how to narrow
// the intervals.
type GateRun struct {
	Command         string // "perflab compare"
	FailOn          string
	RequireDecision bool
	Hint            string // "more samples on each side (go test -count) narrow the intervals"
}

// maxRulingLines bounds the lines GateText prints per kind of ruling.
const maxRulingLines = 20

// GateText writes the lines a gate prints beneath its table (nil g:
// none): how many rows break a rule, then a [RulingLine] for each; how
// many the gate could not decide, then theirs, and, when they do not fail
// the gate, that --require-decision would. At most 20 lines of each kind,
// then how many more.
func GateText(w io.Writer, g *compare.Gate, run GateRun) error {
	if g == nil {
		return nil
	}
	lines := func(rs []compare.Ruling) {
		for i, r := range rs {
			if i == maxRulingLines {
				fmt.Fprintf(w, "  … and %d more\n", len(rs)-maxRulingLines)
				break
			}
			fmt.Fprintf(w, "  %s\n", RulingLine(r))
		}
	}
	fails, undecided := g.Fails(), g.Undecided()
	if len(fails) > 0 {
		fmt.Fprintf(w, "%s: %d significant changes beyond --fail-on %s\n", run.Command, len(fails), run.FailOn)
		lines(fails)
	}
	if len(undecided) > 0 {
		fmt.Fprintf(w, "%s: the gate could not decide %d row(s) of --fail-on %s: an interval still holds the limit, or there is none; %s\n", run.Command, len(undecided), run.FailOn, run.Hint)
		lines(undecided)
		if !run.RequireDecision && len(fails) == 0 {
			fmt.Fprintf(w, "%s: undecided rows do not fail the gate; with --require-decision they exit 3\n", run.Command)
		}
	}
	return nil
}

// rulingJSON is one ruling as JSON: the row as the gate read it (its
// change Delta with the interval [Lo, Hi]), the rule, the decision, why
// it is undecided, the verdict the tables print, and the distance of the
// change from the limit on the log scale.
type rulingJSON struct {
	Row       compare.Row `json:"row"`
	Threshold string      `json:"threshold"`
	Decision  string      `json:"decision"`
	Reason    string      `json:"reason,omitempty"`
	Verdict   string      `json:"verdict,omitempty"`
	Distance  float64     `json:"distance"`
}

// gateJSON is a gate's outcome as JSON, beside the rows of a comparison:
// the outcome in one word (absent without rules), the rulings that break
// a rule and those that could not decide.
type gateJSON struct {
	Gate      string       `json:"gate,omitempty"`
	Fails     []rulingJSON `json:"fails"`
	Undecided []rulingJSON `json:"undecided"`
}

func gateJSONOf(g *compare.Gate) gateJSON {
	out := gateJSON{Gate: GateOutcome(g), Fails: []rulingJSON{}, Undecided: []rulingJSON{}}
	if g == nil {
		return out
	}
	for _, r := range g.Rulings {
		j := rulingJSON{Row: r.Row, Threshold: r.Threshold.String(), Decision: r.Decision.String(), Reason: r.Why.String(), Distance: r.Distance}
		switch r.Decision {
		case compare.Beyond:
			out.Fails = append(out.Fails, j)
		case compare.Undecided:
			j.Verdict = UndecidedWords(r)
			out.Undecided = append(out.Undecided, j)
		}
	}
	return out
}
