// Package compare holds the rules of a comparison that come from the
// user: CI gate rules such as "sec/op>+5%" ([ParseThresholds], [Check])
// and config pairings such as "default=go126" ([ParseConfigMap]).
//
// The rows a gate reads are computed elsewhere (package findings: the
// changes, their intervals and their Benjamini–Hochberg adjusted
// p-values); [Check] only applies the rules to them. A row fails a rule
// only where its change is a discovery (its adjusted p-value is at most
// α over all rows of the unit) and its whole confidence interval lies
// beyond the limit, so noise, chance hits among hundreds of benchmarks,
// or a change too small to matter never fail a build.
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

// Failure is a row that breaks a threshold.
type Failure struct {
	Row       Row
	Threshold Threshold
}

// Check applies the thresholds to rows compared at level alpha. A row
// fails a rule of its unit when its change is a discovery (PAdj ≤ alpha)
// and its confidence interval lies wholly beyond the limit. unmatched
// lists the rules whose unit no row reports, usually a typo.
func Check(rows []Row, alpha float64, ths []Threshold) (fails []Failure, unmatched []Threshold) {
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.05
	}
	for _, t := range ths {
		seen := false
		for _, row := range rows {
			if row.Unit != t.Unit {
				continue
			}
			seen = true
			if row.PAdj <= alpha && Breaks(row, t) {
				fails = append(fails, Failure{Row: row, Threshold: t})
			}
		}
		if !seen {
			unmatched = append(unmatched, t)
		}
	}
	return fails, unmatched
}

// Breaks reports whether one row breaks one rule (its significance
// across rows aside).
func Breaks(row Row, t Threshold) bool {
	if row.Unit != t.Unit || !row.Signif || !row.Interval {
		return false
	}
	if t.Op == '>' {
		return row.Lo > t.Limit
	}
	return row.Hi < t.Limit
}

// Imprecise returns, for the rules given, the rows that show no
// significant change but whose interval is wider than the rule's limit
// (half-width above |limit|): a change as large as the limit could have
// gone unseen there, so a passing gate says less than it seems.
func Imprecise(rows []Row, ths []Threshold) []Row {
	var out []Row
	for _, row := range rows {
		if row.Signif || row.Same {
			continue
		}
		for _, t := range ths {
			if t.Unit == row.Unit && row.HalfWidth > math.Abs(t.Limit) {
				out = append(out, row)
				break
			}
		}
	}
	return out
}
