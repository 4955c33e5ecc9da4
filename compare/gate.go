// Package compare holds the rules of a comparison that come from the
// user: CI gate rules such as "sec/op>+5%" ([ParseThresholds], [Check])
// and config pairings such as "default=go126" ([ParseConfigMap]).
//
// The rows a gate reads are computed elsewhere (package findings: the
// changes, their intervals and their Benjamini–Hochberg adjusted
// p-values); [Check] only applies the rules to them and rules on every
// row: [Beyond] only where its change is a discovery (its adjusted
// p-value is at most α over all rows of the unit) and its whole
// confidence interval lies beyond the limit, so noise, chance hits among
// hundreds of benchmarks, or a change too small to matter never fail a
// build; [Within] where the whole interval lies on the allowed side; and
// [Undecided] where the gate cannot tell yet (the interval holds the
// limit, or there is none), so a gate that could not see a change of the
// limit's size never reads as one that checked.
package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/perf/benchunit"
)

// Threshold is one gate rule, written "UNIT>+N%" or "UNIT<-N%": a change
// of UNIT fails the gate when it is significant and its whole confidence
// interval lies above +N% (">") or below −N% ("<").
type Threshold struct {
	Unit  string  // tidied as benchfmt does: "ns/op" becomes "sec/op"
	Op    byte    // '>' or '<'
	Limit float64 // relative: 0.05 for 5%
	Pct   float64 // the limit in percent, as written
	Text  string  // the rule as written
}

// String returns the rule in its canonical form, e.g. "sec/op>+5%".
func (t Threshold) String() string {
	return t.Unit + string(t.Op) + strconv.FormatFloat(t.Pct, 'f', -1, 64) + "%"
}

// ParseThresholds reads a comma-separated list of rules such as
// "sec/op>+5%,B/op>+10%,req/s<-5%". A ">" rule needs a limit of at least
// 0% and a "<" rule one of at most 0% and above −100%; the percent sign is
// required, so "5" is not silently read as 500%.
func ParseThresholds(s string) ([]Threshold, error) {
	var out []Threshold
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		t, err := parseThreshold(part)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, errors.New(`no threshold given: write rules such as "sec/op>+5%" or "sec/op>+5%,B/op>+10%"`)
	}
	return out, nil
}

func parseThreshold(s string) (Threshold, error) {
	bad := func(why string) (Threshold, error) {
		return Threshold{}, fmt.Errorf("threshold %q: %s (write e.g. \"sec/op>+5%%\" or \"req/s<-5%%\")", s, why)
	}
	i := strings.IndexAny(s, "<>")
	if i < 0 {
		return bad("no '>' or '<'")
	}
	unit := strings.TrimSpace(s[:i])
	if unit == "" {
		return bad("no unit before the comparison")
	}
	if strings.IndexFunc(unit, func(r rune) bool { return unicode.IsSpace(r) || r == '<' || r == '>' || !unicode.IsPrint(r) }) >= 0 {
		return bad("the unit contains a space or an unprintable character")
	}
	op := s[i]
	rest := strings.TrimSpace(s[i+1:])
	if strings.HasPrefix(rest, "=") {
		return bad("only '>' and '<' are supported")
	}
	num, ok := strings.CutSuffix(rest, "%")
	if !ok {
		return bad("the limit must end in '%'")
	}
	num = strings.TrimSpace(num)
	if num == "" || strings.ContainsAny(num, "xXpP_") || strings.Contains(strings.ToLower(num), "inf") || strings.Contains(strings.ToLower(num), "nan") {
		return bad("the limit is not a plain number")
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return bad("the limit is not a plain number")
	}
	limit := v / 100
	switch {
	case op == '>' && limit < 0:
		return bad("a '>' rule fails on slow-downs, so its limit must be 0% or more")
	case op == '<' && limit > 0:
		return bad("a '<' rule fails on drops, so its limit must be 0% or less")
	case op == '<' && limit <= -1:
		return bad("a value cannot drop by 100% or more")
	case limit > 1e6:
		return bad("the limit is too large")
	}
	_, tidy := benchunit.Tidy(1, unit)
	return Threshold{Unit: tidy, Op: op, Limit: limit, Pct: v, Text: s}, nil
}

// Row is one compared benchmark in one unit as a gate reads it: the
// change (new/old − 1) with its interval, significance, and the p-value
// adjusted by Benjamini–Hochberg over all rows of the unit.
type Row struct {
	Config, Name, Unit string
	Delta, Lo, Hi      float64 // change and its confidence interval, as ratio − 1
	P, PAdj            float64
	Signif             bool // significant on its own (p < α, a non-zero change)
	Interval           bool // Lo and Hi are an interval (enough samples)
	Same               bool // every value on both sides is the same
	// HalfWidth is half the interval's width on the log scale (0.01 for
	// ±1%), +Inf without an interval.
	HalfWidth float64
}

// Decision is what a gate rule decided about one row.
type Decision int

const (
	// Undecided: the gate cannot rule on the row yet ([Why] says why).
	Undecided Decision = iota
	// Within: the change is on the allowed side of the limit: its whole
	// interval lies there, or every value on both sides is the same.
	Within
	// Beyond: the change breaks the rule: a discovery whose whole
	// interval lies beyond the limit.
	Beyond
)

// String returns "undecided", "within" or "beyond".
func (d Decision) String() string {
	switch d {
	case Within:
		return "within"
	case Beyond:
		return "beyond"
	}
	return "undecided"
}

// weight orders decisions by what a row's verdict shows: a broken rule
// first, then one that could not decide, then one that found it within.
func (d Decision) weight() int {
	switch d {
	case Beyond:
		return 2
	case Undecided:
		return 1
	}
	return 0
}

// Why says why a rule left a row undecided.
type Why int

const (
	// Decided: the rule decided the row.
	Decided Why = iota
	// NoInterval: too few samples for an interval, so no change can be
	// told apart yet.
	NoInterval
	// HoldsLimit: the interval contains the limit: the change may lie on
	// either side of it.
	HoldsLimit
	// NoDiscovery: the whole interval lies beyond the limit, but the
	// change is not a discovery among the rows of its unit (its adjusted
	// p-value is above α), so it may be one of the chance hits many rows
	// give.
	NoDiscovery
)

// String returns the reason in a few words, for JSON.
func (w Why) String() string {
	switch w {
	case NoInterval:
		return "no interval"
	case HoldsLimit:
		return "interval holds the limit"
	case NoDiscovery:
		return "not a discovery"
	}
	return ""
}

// Ruling is one rule applied to one row.
type Ruling struct {
	Row       Row
	Threshold Threshold
	Decision  Decision
	Why       Why // Decided unless Decision is Undecided
	// Distance is how far the change is from the limit on the log scale,
	// |log(1+Delta) − log(1+Limit)| (0.01 for 1%): about the half-width
	// the interval must shrink below before the rule can decide. NaN
	// without an estimate.
	Distance float64
}

// Gate is the outcome of a set of rules over the rows of a comparison.
type Gate struct {
	Rules []Threshold
	// Rulings holds every row under every rule of its unit, rule by rule,
	// rows in their order.
	Rulings []Ruling
	// Unmatched lists the rules whose unit no row reports, usually a typo.
	Unmatched []Threshold
}

// Check applies the rules to rows compared at level alpha and rules on
// each row under each rule of its unit ([Rule]). Rows whose p-value is
// not a number are never discoveries.
func Check(rows []Row, alpha float64, ths []Threshold) Gate {
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.05
	}
	g := Gate{Rules: ths}
	for _, t := range ths {
		seen := false
		for _, row := range rows {
			if row.Unit != t.Unit {
				continue
			}
			seen = true
			g.Rulings = append(g.Rulings, Rule(row, alpha, t))
		}
		if !seen {
			g.Unmatched = append(g.Unmatched, t)
		}
	}
	return g
}

// Rule decides one row under one rule at level alpha. A row is Beyond
// when its change is a discovery (PAdj ≤ alpha, significant on its own)
// and its whole interval lies beyond the limit; Within when every value
// is the same on both sides or its whole interval lies on the allowed
// side (an interval that touches the limit holds it); otherwise
// Undecided.
func Rule(row Row, alpha float64, t Threshold) Ruling {
	r := Ruling{Row: row, Threshold: t, Decision: Undecided, Distance: math.Abs(math.Log1p(row.Delta) - math.Log1p(t.Limit))}
	lo, hi := row.Lo, row.Hi
	if t.Op == '<' {
		// Mirror a "<" rule into a ">" one: a drop below the limit is
		// what breaks it.
		lo, hi = -row.Hi, -row.Lo
	}
	limit := t.Limit
	if t.Op == '<' {
		limit = -limit
	}
	switch {
	case row.Same:
		r.Decision = Within
	case !row.Interval || math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(row.HalfWidth, 0) || math.IsNaN(row.HalfWidth):
		r.Why = NoInterval
	case lo > limit && row.Signif && row.PAdj <= alpha:
		r.Decision = Beyond
	case lo > limit:
		r.Why = NoDiscovery
	case hi < limit:
		r.Decision = Within
	default:
		r.Why = HoldsLimit
	}
	if math.IsNaN(r.Distance) || math.IsInf(row.Delta, 0) {
		r.Distance = math.NaN()
	}
	return r
}

// Fails returns the rulings that break their rule.
func (g Gate) Fails() []Ruling { return g.with(Beyond) }

// Undecided returns the rulings that could not decide.
func (g Gate) Undecided() []Ruling { return g.with(Undecided) }

func (g Gate) with(d Decision) []Ruling {
	var out []Ruling
	for _, r := range g.Rulings {
		if r.Decision == d {
			out = append(out, r)
		}
	}
	return out
}

// Of returns the ruling that governs a row (by config, name and unit):
// the first rule it breaks, else the first that left it undecided, else
// the first that found it within; false when no rule reads its unit.
func (g Gate) Of(config, name, unit string) (Ruling, bool) {
	var out Ruling
	found := false
	for _, r := range g.Rulings {
		if r.Row.Config != config || r.Row.Name != name || r.Row.Unit != unit {
			continue
		}
		if !found || r.Decision.weight() > out.Decision.weight() {
			out, found = r, true
		}
	}
	return out, found
}
